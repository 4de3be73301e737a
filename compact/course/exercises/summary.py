"""04 · step 4, compact_history: the cut of the summarizer's input.

The learner writes `summary_cut(text, limit)`; the reference is the package's
`compact.summary.summary_input` on the messages whose JSON is `text`. The
traps: a text exactly at the limit comes back whole; the head is a quarter of
the limit rounded down, the tail the rest of the budget (not three quarters
rounded down); halves instead of quarters fail.
"""

import json

from ... import formats
from ...messages import to_plain
from .build import rng, tool_pair
from .check import CheckResult, check_function, hint, say


def _reads(n, size, chinese=False):
    unit = "摘要只保留事实。" if chinese else "a line of a long file\n"
    pairs = [(f"toolu_{i:02d}", (unit * size)[:size]) for i in range(n)]
    return [{"role": "user", "content": "Compare the two files."}, *tool_pair(pairs)]


CASES = [
    ("under the limit: unchanged", _reads(2, 1_000), 80_000),
    ("the article's limit, 80000", _reads(3, 40_000), 80_000),
    ("a small limit, 100", _reads(1, 500), 100),
    ("a limit not divisible by 4, 101", _reads(1, 500), 101),
    ("a limit of 103: the tail is not 3 * (103 // 4)", _reads(1, 500), 103),
    ("Chinese text", _reads(2, 3_000, chinese=True), 4_000),
]


def reference(messages, limit) -> str:
    from ...summary import summary_input
    return summary_input(messages, limit)


def _cases() -> list:
    cases = []
    for label, messages, limit in CASES:
        text = json.dumps(to_plain(messages), ensure_ascii=False)
        cases.append((label, (text, limit), reference(messages, limit)))
    text = cases[0][1][0]
    cases.append(("exactly at the limit: unchanged", (text, len(text)), text))
    draw = rng()
    for n in range(6):
        messages = _reads(draw.randint(1, 4), draw.randint(200, 9_000), chinese=draw.random() < 0.3)
        limit = draw.randint(50, 12_000)
        cases.append((f"random list {n + 1}, limit {limit:,d}",
                      (json.dumps(messages, ensure_ascii=False), limit),
                      reference(messages, limit)))
    return cases


def _diagnose(args, expected, got):
    text, limit = args
    if not isinstance(got, str):
        return None
    if len(text) <= limit:
        return say("at or under the limit the text comes back unchanged.",
            "不超过阈值时，文本原样返回。")
    if formats.MIDDLE_OMITTED not in got:
        return say("put compact.formats.MIDDLE_OMITTED where the middle was.",
            "在原来中间部分的位置放上 compact.formats.MIDDLE_OMITTED。")
    head = got.index(formats.MIDDLE_OMITTED)
    tail = len(got) - head - len(formats.MIDDLE_OMITTED)
    if head != limit // 4:
        return say(f"the head is the first limit // 4 = {limit // 4:,d} characters; yours has {head:,d}.",
            f"头部是前 limit // 4 = {limit // 4:,d} 个字符；你的有 {head:,d} 个。")
    if tail != limit - limit // 4:
        return say((f"the tail is the rest of the budget, limit - limit // 4 = "
                f"{limit - limit // 4:,d} characters from the end; yours has {tail:,d}."),
            f"尾部是剩下的额度，从末尾取 limit - limit // 4 = {limit - limit // 4:,d} 个字符；"
            f"你的有 {tail:,d} 个。")
    return None


def check_summary_cut(summary_cut) -> CheckResult:
    """04: summary_cut(text, limit) -> the summarizer's input, cut like the article's."""
    return check_function(
        "summary_cut", summary_cut, _cases(), hint("summary_cut"),
        diagnose=_diagnose)
