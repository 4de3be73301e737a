"""01 · step 1, tool_result_budget: which results of a batch go to disk.

The learner writes `persisted(sizes, batch_limit, large_limit)`; the
reference runs the package's step 1 for real, in a scratch folder, on a batch
of results of those sizes, and reads back which ones became a
`<persisted-output>` block.

The cases include the traps: the largest first (not the first), 30,000 is not
"longer than 30,000", stop once the total is no longer over the limit, and a
persisted result still counts as its preview (counting it as 0 stops too
early: the case "the preview still counts" fails).
"""

import tempfile

from ... import formats
from ...config import CompactionConfig
from ...messages import text_of, tool_results
from .build import rng, tool_pair
from .check import CheckResult, check_function, hint, say

PREVIEW = 2000
CASES = [
    # (label, sizes, batch_limit, large_limit); the article's numbers first.
    ("one huge result in a small batch", [250_000, 1_000, 500], 200_000, 30_000),
    ("two huge results, both needed", [300_000, 250_000], 200_000, 30_000),
    ("the largest first, not the first", [35_000, 31_000, 40_000, 150_000], 200_000, 30_000),
    ("over the batch limit, nothing large", [25_000] * 10, 200_000, 30_000),
    ("exactly 30000 is not longer", [30_000] * 8, 200_000, 30_000),
    ("stop once under the limit", [31_000] * 7, 200_000, 30_000),
    ("the preview still counts",
     [40_000, 31_000, 29_000, 29_000, 29_000, 29_000, 29_000, 22_500], 200_000, 30_000),
    ("a batch under the limit", [100_000, 50_000, 40_000], 200_000, 30_000),
    ("small limits", [9_000, 8_000, 7_000, 1_000], 13_000, 5_000),
]


def reference(sizes, batch_limit, large_limit) -> list[int]:
    """Indexes the package's step 1 persists, in increasing order."""
    from ...compactor import ContextCompactor
    config = CompactionConfig.seed(tool_result_batch_char_limit=batch_limit,
                                   large_result_char_limit=large_limit)
    texts = [(f"toolu_{i:02d}", (f"line {i}\n" * size)[:size]) for i, size in enumerate(sizes)]
    messages = [{"role": "user", "content": "Look at the files."}, *tool_pair(texts)]
    with tempfile.TemporaryDirectory() as root:
        after = ContextCompactor(root, config=config).tool_result_budget(messages)
    kinds = [formats.kind_of_result(text_of(b["content"])) for b in tool_results(after[-1])]
    return [i for i, kind in enumerate(kinds) if kind == "persisted"]


def _clear_of_the_header(sizes, batch_limit, large_limit) -> bool:
    """True when the block's few lines around the preview cannot decide the case.

    The package counts the whole `<persisted-output>` block (the preview plus
    about 100 characters of header); the exercise says "its preview". A random
    case where a re-total lands within that margin of the limit is left out.
    """
    total = sum(sizes)
    for i in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        if total <= batch_limit:
            return True
        if sizes[i] > large_limit:
            total -= sizes[i] - min(sizes[i], PREVIEW)
            if 0 <= total - batch_limit < 200 or 0 <= batch_limit - total < 200:
                return False
    return True


def random_cases(count: int = 12) -> list:
    draw, cases = rng(), []
    while len(cases) < count:
        sizes = [draw.choice((draw.randint(500, 20_000), draw.randint(20_000, 120_000)))
                 for _ in range(draw.randint(2, 9))]
        batch_limit = draw.choice((100_000, 150_000, 200_000))
        if _clear_of_the_header(sizes, batch_limit, 30_000):
            cases.append((f"random batch {len(cases) + 1} ({len(sizes)} results)",
                          sizes, batch_limit, 30_000))
    return cases


def _sorted_ints(got):
    return sorted(int(i) for i in got)


def all_cases() -> list:
    """The canned cases and the random ones, each with the package's answer."""
    return [(label, (list(sizes), batch, large), reference(sizes, batch, large))
            for label, sizes, batch, large in CASES + random_cases()]


def _diagnose(args, expected, got):
    sizes, batch_limit, large_limit = args
    if not isinstance(got, list):
        return None
    if sum(sizes) <= batch_limit and got:
        return say("the batch is not over batch_limit: step 1 moves nothing.",
            "这一批没有超过 batch_limit：第一步什么也不转存。")
    if any(sizes[i] <= large_limit for i in got if 0 <= i < len(sizes)):
        return say(f"a result of at most {large_limit:,d} characters is never persisted.",
            f"不超过 {large_limit:,d} 个字符的结果从不转存。")
    if set(got) > set(expected):
        return say(("too many: re-total after each one, counting a persisted result as its "
                "2,000-character preview, and stop once the total is not over the limit."),
            "太多了：每转存一个就重新求和，转存的结果按它 2,000 个字符的预览计算，总数一不再超过阈值就停下。")
    if set(got) < set(expected):
        return say(("too few: a persisted result still takes its 2,000-character preview in "
                "the batch, so the total falls by less than its size."),
            "太少了：转存的结果在这一批里仍占着 2,000 个字符的预览，所以总数减少的比它的大小少。")
    return say("go largest first, not in the order of the batch.",
            "从最大的开始，而不是按这一批的顺序。")


def check_persisted(persisted) -> CheckResult:
    """01: persisted(sizes, batch_limit, large_limit) -> indexes step 1 moves to disk."""
    return check_function("persisted", persisted, all_cases(), hint("persisted"),
                          normalise=_sorted_ints, diagnose=_diagnose)
