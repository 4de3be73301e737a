"""01 · step 1, tool_result_budget: choose the threshold, not copy the loop.

The article prints step 1's loop; this exercise turns it round. The learner
writes `largest_large_limit(sizes, batch_limit)`: the largest
`large_result_char_limit` with which step 1 still brings this batch to at
most `batch_limit`, or None when no limit of at least FLOOR can. To answer it
they must know which results step 1 takes, in which order, what a persisted
result still costs, and when it stops; nothing in the article computes it.

The reference asks the package: it runs the package's step 1 for real, in a
scratch folder, with each candidate limit (a size minus one: nothing else
changes what step 1 does), and keeps the largest one after which the batch
fits. The diagnosis runs step 1 with the learner's own number and says what
happens then (the batch still over, or a larger limit that also works).

Left out: batches already under the limit (step 1 never acts on them: any
limit "works") and persisted blocks near the limit, where the package's
header of about 100 characters, not the 2,000-character preview, decides.
"""

import tempfile

from context_compact.config import CompactionConfig
from context_compact.messages import text_of, tool_results

from ...display.phrases import say
from .build import rng, tool_pair
from .catalogue import exercise
from .check import CheckResult, check_function, hint

PREVIEW = 2000
FLOOR = 10_000    # the smallest limit an answer may be: results this short are not worth moving
MARGIN = 300      # a case whose totals land this close to the limit is left out
CASES = [
    # (label, sizes, batch_limit)
    ("the article's batch: one huge read", [288_000, 300, 240, 300], 200_000),
    ("two huge results, both needed", [300_000, 250_000], 200_000),
    ("one is enough: the largest", [35_000, 31_000, 40_000, 150_000], 200_000),
    ("three needed, in size order", [60_000, 90_000, 70_000, 80_000], 150_000),
    ("the preview still counts", [120_000, 100_000, 80_000], 82_000),
    ("equal sizes", [50_000] * 5, 150_000),
    ("nothing large enough", [9_000] * 30, 200_000),
    ("small limits", [40_000, 30_000, 20_000, 5_000], 50_000),
]


def _total_after(sizes, batch_limit, large_limit, root) -> int:
    """The batch's total after the package's step 1 with these limits."""
    from context_compact.compactor import ContextCompactor

    from ...offline.model.extractive import extractive_summary  # never asked: no summary here
    config = CompactionConfig.seed(tool_result_batch_char_limit=batch_limit,
                                   large_result_char_limit=large_limit)
    texts = [(f"toolu_{i:02d}", (f"line {i}\n" * size)[:size]) for i, size in enumerate(sizes)]
    messages = [{"role": "user", "content": "Look at the files."}, *tool_pair(texts)]
    after = ContextCompactor(root, extractive_summary, config).tool_result_budget(messages)
    return sum(len(text_of(b["content"])) for b in tool_results(after[-1]))


def reference(sizes, batch_limit):
    """The largest candidate limit after which the package's step 1 leaves the batch fitting."""
    candidates = sorted({size - 1 for size in sizes if size - 1 >= FLOOR}, reverse=True)
    with tempfile.TemporaryDirectory(prefix="compact-exercise-") as root:
        for limit in candidates:
            if _total_after(sizes, batch_limit, limit, root) <= batch_limit:
                return limit
    return None


def _clear_of_the_header(sizes, batch_limit) -> bool:
    """True when each re-total, largest first, is far from the limit (see the docstring)."""
    total = sum(sizes)
    if total <= batch_limit:
        return False
    for size in sorted(sizes, reverse=True):
        total -= size - PREVIEW
        if abs(total - batch_limit) < MARGIN:
            return False
    return True


def random_cases(count: int = 10) -> list:
    draw, cases = rng(), []
    while len(cases) < count:
        sizes = [draw.choice((draw.randint(200, 8_000), draw.randint(12_000, 150_000)))
                 for _ in range(draw.randint(2, 8))]
        batch_limit = draw.choice((60_000, 100_000, 150_000, 200_000))
        if _clear_of_the_header(sizes, batch_limit):
            cases.append((f"random batch {len(cases) + 1} ({len(sizes)} results)",
                          sizes, batch_limit))
    return cases


def all_cases() -> list:
    """The canned cases and the random ones, each with the package's answer."""
    return [(label, (list(sizes), batch), reference(sizes, batch))
            for label, sizes, batch in CASES + random_cases()]


def _diagnose(args, expected, got):
    sizes, batch_limit = args
    if got is not None and (not isinstance(got, int) or isinstance(got, bool)):
        return say("budget: not a whole number")
    if got == article_limit():
        return say("budget: the article's own limit")
    if expected is None:
        return say("budget: no limit works", floor=FLOOR, batch_limit=batch_limit)
    if got is None:
        return say("budget: a limit exists with step 1", batch_limit=batch_limit)
    if got == expected + 1 and got in sizes:
        return say("budget: a result of exactly characters", got=got)
    with tempfile.TemporaryDirectory(prefix="compact-exercise-") as root:
        left = _total_after(sizes, batch_limit, got, root) if got >= 1 else None
    if got > expected:
        return say("budget: with your limit step 1 leaves", left=left, batch_limit=batch_limit)
    return say("budget: a larger limit works too")


def article_limit() -> int:
    return CompactionConfig.seed().large_result_char_limit


@exercise("01", writes_code=True)
def check_largest_large_limit(largest_large_limit) -> CheckResult:
    """largest_large_limit(sizes, batch_limit) -> the largest large limit that fits the batch."""
    return check_function("largest_large_limit", largest_large_limit, all_cases(),
                          hint("largest_large_limit"), diagnose=_diagnose)

