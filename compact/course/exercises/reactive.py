"""06 · reactive_compact: where the kept tail starts.

The learner writes `tail_start(kinds, keep)`: the index of the first message
kept verbatim. The reference is the package's `compact.reactive.tail_start`
on real messages of those kinds, with no current request to look for (the
article keeps exactly the newest `keep`). The traps: the fifth-newest
message is a tool_result (start one earlier), and a list shorter than `keep`
(start at 0, never below).
"""

from .build import messages_of_kinds, random_kinds, rng
from .check import CheckResult, check_function, hint, say

CASES = [
    ("plain turns", ["user", "assistant"] * 5, 5),
    ("the cut would open on a tool_result",
     ["user", "tool_use", "tool_result", "tool_use", "tool_result", "tool_use",
      "tool_result", "assistant", "user"], 5),
    ("the cut falls on a tool_use: fine",
     ["user", "assistant", "user", "tool_use", "tool_result", "tool_use", "tool_result",
      "assistant"], 5),
    ("shorter than keep", ["user", "assistant", "user"], 5),
    ("keep 1", ["user", "tool_use", "tool_result"], 1),
]


def reference(kinds, keep) -> int:
    from ...reactive import tail_start
    return tail_start(messages_of_kinds(kinds), keep, None)


def random_cases(count: int = 10) -> list:
    draw, cases = rng(), []
    for n in range(count):
        keep = draw.choice((2, 3, 5, 8))
        kinds = random_kinds(draw, draw.randint(2, 24))
        cases.append((f"random history {n + 1} ({len(kinds)} messages, keep {keep})", kinds, keep))
    return cases


def _diagnose(args, expected, got):
    kinds, keep = args
    if not isinstance(got, int) or isinstance(got, bool):
        return say("return one index: the first message kept verbatim.",
            "返回一个下标：第一条原样保留的消息。")
    plain = max(0, len(kinds) - keep)
    if got < 0:
        return say("a list shorter than keep is kept whole: start at 0.",
            "比 keep 短的列表整个保留：从 0 开始。")
    if got == plain and expected == plain - 1:
        return say((f"kinds[{plain}] is a tool_result and kinds[{plain - 1}] its tool_use: "
                "start one earlier so the pair stays together."),
            f"kinds[{plain}] 是 tool_result，"
            f"kinds[{plain - 1}] 是它的 tool_use：提前一条开始，让这一对保持在一起。")
    if expected == plain:
        return say(f"start at len(kinds) - keep = {plain}; the pair rule does not apply here.",
            f"从 len(kinds) - keep = {plain} 开始；这里用不上配对规则。")
    return None


def check_tail_start(tail_start) -> CheckResult:
    """06: tail_start(kinds, keep) -> the first message reactive_compact keeps verbatim."""
    cases = [(label, (list(kinds), keep), reference(kinds, keep))
             for label, kinds, keep in CASES + random_cases()]
    return check_function(
        "tail_start", tail_start, cases, hint("tail_start"),
        diagnose=_diagnose)
