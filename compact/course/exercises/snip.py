"""02 · step 2, snip_compact: the pair-safe cut points.

The learner writes `cut_points(kinds, max_messages, keep_head)` on a list of
message kinds (see build.py); the reference is the package's own
`compact.snip.cut_points` on real messages of those kinds, with the article's
numbers (`CompactionConfig.seed`). The canned cases put a pair on each cut;
the random ones are seeded histories of 12 to 70 messages.
"""

from ...config import CompactionConfig
from .build import messages_of_kinds, random_kinds, rng
from .check import CheckResult, check_function, hint, say

CASES = [
    # (label, kinds, max_messages, keep_head)
    ("plain turns", ["user", "assistant"] * 4, 6, 2),
    ("the head ends on a tool_use",
     ["user", "tool_use", "tool_result", "tool_use", "tool_result", "assistant",
      "user", "assistant", "user"], 6, 2),
    ("the tail opens on a tool_result",
     ["user", "assistant", "user", "assistant", "tool_use", "tool_result",
      "tool_use", "tool_result", "assistant"], 6, 2),
    ("both cuts on pairs",
     ["user", "tool_use", "tool_result", "tool_use", "tool_result", "tool_use",
      "tool_result", "tool_use", "tool_result", "assistant"], 6, 2),
    ("the article's numbers, 60 messages",
     ["user"] + ["tool_use", "tool_result"] * 29 + ["assistant"], 50, 3),
    ("the article's numbers, head on a tool_use",
     ["user", "assistant", "tool_use", "tool_result"] + ["assistant", "user"] * 28, 50, 3),
]


def reference(kinds, max_messages, keep_head) -> tuple[int, int]:
    from ...snip import cut_points
    config = CompactionConfig.seed(snip_max_messages=max_messages, snip_keep_head=keep_head)
    return cut_points(messages_of_kinds(kinds), config)


def random_cases(count: int = 10) -> list:
    draw, cases = rng(), []
    for n in range(count):
        max_messages = draw.choice((6, 10, 20, 50))
        kinds = random_kinds(draw, draw.randint(max_messages + 2, max_messages + 20))
        cases.append((f"random history {n + 1} ({len(kinds)} messages, max {max_messages})",
                      kinds, max_messages, 3))
    return cases


def _as_tuple(got):
    return tuple(got) if isinstance(got, list) else got


def all_cases() -> list:
    """The canned cases and the random ones, each with the package's answer."""
    return [(label, (list(kinds), mx, head), reference(kinds, mx, head))
            for label, kinds, mx, head in CASES + random_cases()]


def _diagnose(args, expected, got):
    kinds, max_messages, keep_head = args
    if not (isinstance(got, tuple) and len(got) == 2):
        return say("return a pair (head_end, tail_start).",
            "返回一对 (head_end, tail_start)。")
    plain = (keep_head, len(kinds) - (max_messages - keep_head))
    if got == plain:
        return say("those are the cuts before the pair rules: one of them splits a pair.",
            "这是应用配对规则之前的切点：其中一个拆开了一对。")
    if got[0] != expected[0]:
        return say((f"kinds[{keep_head - 1}] is {kinds[keep_head - 1]!r}: when the head ends on "
                "a tool_use, it grows over the tool_result after it."),
            f"kinds[{keep_head - 1}] 是 {kinds[keep_head - 1]!r}："
            "头部以 tool_use 结尾时，要把它后面的 tool_result 也包进来。")
    return say((f"kinds[{plain[1]}] is {kinds[plain[1]]!r}: when the tail would open on a "
            "tool_result whose tool_use is just before it, it starts one earlier."),
            f"kinds[{plain[1]}] 是 {kinds[plain[1]]!r}："
            "尾部如果以 tool_result 开头、而它的 tool_use 就在前面，尾部要提前一条开始。")


def check_cut_points(cut_points) -> CheckResult:
    """02: cut_points(kinds, max_messages, keep_head) -> (head_end, tail_start) of the seed cut."""
    return check_function("cut_points", cut_points, all_cases(), hint("cut_points"),
                          normalise=_as_tuple, diagnose=_diagnose)
