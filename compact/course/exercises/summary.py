"""04 · before step 4 pays for a summary: a step 3 that stops at a target.

Step 4 costs a model call, and it runs whenever the context is still over the
limit after steps 1-3. The article's step 3 shrinks every older result on
every call, whether the context needs it or not. The learner writes
`shrink_count(sizes, target)`: the sizes of a context's tool results, oldest
first; a step 3 that goes oldest first and stops as soon as the total is at
most `target`: how many results does it shrink (None when shrinking all it may
still leaves the total over)? The article prints no such step.

The rules of step 3 come from the package, not from this file: it keeps the
newest `keep_recent_results` (3) whole, leaves results of at most
`micro_min_chars` (120) alone, and a shrunk result becomes
`compact.formats.OMITTED`. The stopping rule is the package's default profile
(compact/micro.py: "stops once the size is at the target"); here the size is
the sum of the results alone, so the answer is plain arithmetic over `sizes`.

Left out: the JSON around the results, which the package's measure counts and
the exercise does not.
"""

from ... import formats
from ...config import CompactionConfig
from ...display.phrases import say as phrase
from .build import rng
from .catalogue import exercise
from .check import CheckResult, check_function, hint

_SEED = CompactionConfig.seed()
KEEP, MIN_CHARS, PLACEHOLDER = _SEED.keep_recent_results, _SEED.micro_min_chars, len(formats.OMITTED)

CASES = [
    # (label, sizes oldest first, target)
    ("already at the target: shrink none", [5_000, 5_000, 5_000, 5_000], 20_000),
    ("one old result is enough", [30_000, 8_000, 2_000, 3_000, 4_000], 20_000),
    ("oldest first, not largest first", [2_000, 40_000, 3_000, 1_000, 1_000, 1_000], 10_000),
    ("short results are left alone", [100, 120, 9_000, 9_000, 500, 500, 500], 3_000),
    ("the placeholder still counts", [5_000, 5_000, 100, 100, 100], 5_320),
    ("the newest 3 stay whole: impossible", [1_000, 50_000, 50_000, 50_000], 60_000),
    ("the article's numbers: a long session",
     [4_000] * 20 + [200, 300, 200], 50_000),
]


def reference(sizes, target):
    """Results shrunk, oldest first, until the total is at most target; None if it never is."""
    return _walk(sizes, target)


def random_cases(count: int = 10) -> list:
    draw, cases = rng(), []
    for n in range(count):
        sizes = [draw.choice((draw.randint(20, 120), draw.randint(121, 3_000),
                              draw.randint(3_000, 40_000))) for _ in range(draw.randint(3, 14))]
        target = draw.randint(sum(sizes) // 2, sum(sizes))
        cases.append((f"random context {n + 1} ({len(sizes)} results)", sizes, target))
    return cases


def all_cases() -> list:
    return [(label, (list(sizes), target), reference(sizes, target))
            for label, sizes, target in CASES + random_cases()]


def _walk(sizes, target, order=None, keep=KEEP, placeholder=PLACEHOLDER, minimum=MIN_CHARS,
          stop=True):
    """A step 3 with one rule changed: the diagnosis's model of a mistake."""
    older = list(range(max(0, len(sizes) - keep)))
    total, shrunk = sum(sizes), 0
    for i in (order(sizes, older) if order else older):
        if stop and total <= target:
            break
        if sizes[i] > minimum:
            total -= sizes[i] - placeholder
            shrunk += 1
    return shrunk if total <= target or not stop else None


MISTAKES = (
    # (the rule changed, the phrase that names the mistake)
    (dict(stop=False), "summary: the article's step 3 shrinks every older result"),
    (dict(placeholder=0), "summary: a shrunk result still takes its placeholder"),
    (dict(order=lambda sizes, older: sorted(older, key=lambda i: -sizes[i])),
     "summary: you went largest first"),
    (dict(keep=0), "summary: the newest stay whole"),
    (dict(minimum=0), "summary: short results stay"),
)


def _diagnose(args, expected, got):
    sizes, target = args
    if got is not None and (not isinstance(got, int) or isinstance(got, bool)):
        return phrase("summary: return a count of results")
    for changed, key in MISTAKES:
        if got == _walk(sizes, target, **changed) != expected:
            return phrase(key, placeholder=PLACEHOLDER, keep=KEEP, min_chars=MIN_CHARS)
    if expected is None:
        return phrase("summary: no answer exists", keep=KEEP, min_chars=MIN_CHARS)
    return None


@exercise("04", writes_code=True)
def check_shrink_count(shrink_count) -> CheckResult:
    """shrink_count(sizes, target) -> results a step 3 that stops at target shrinks."""
    return check_function("shrink_count", shrink_count, all_cases(), hint("shrink_count"),
                          diagnose=_diagnose)
