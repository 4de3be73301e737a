"""The safety net, reactive_compact (notebook 06): the learner's against the package's seed profile.

The model is compact_history's stand-in. Checked: a transcript of the whole list; one call to
summarize, with summary_input of only what comes before the kept tail (the article gets this
right: an older upstream version summarized the tail too); the "[Reactive compact]" message, then
the newest keep_recent messages, one earlier to keep a pair whole; the summary message alone when
the tail is the whole list. Fixed cases: a plain cut, a cut at a pair, keep_recent given, a list
shorter than the tail, flaw 12; drawn ones vary the history and keep_recent. Left out: the retry
and its counter (the agent loop's), and the request seen twice (flaw 14, the default's fix).
"""

import json

from .compact_history import recorded, stand_in
from .histories import drawn_history, of_kinds, sdk_objects
from .looking import SUMMARY, is_list_of_messages, plain, transcript_problems
from .run import Case
from .summary_input import text_problems
from .words import say, told

NAME, NOTEBOOK = "reactive_compact", "06"
LIMIT = 80_000
REQUEST = "Finish the report on the failing build."

HINTS = (
    ("find where the kept tail starts: keep_recent messages from the end, or the whole list when it is "
     "shorter; one earlier when the tail would open on a tool_result whose tool_use is just before it.",
     "找出保留的尾部从哪里开始：从末尾数 keep_recent 条，列表更短时就是整个列表；如果尾部将从一条 "
     "tool_result 开始、而它的 tool_use 就在前一条，就提前一条。"),
    ("the transcript holds the whole list, but the summary covers only what comes before the tail: the "
     "tail is sent verbatim, so summarizing it too pays for it twice.",
     "transcript 保存整个列表，但摘要只覆盖尾部之前的部分：尾部原样发送，再摘要一遍就为它付了两次钱。"),
    ("the first message is compact_history's, with [Reactive compact] on its first line; the tail follows "
     "it unchanged. When the tail is the whole list, summarize it all and send the summary alone.",
     "第一条消息与 compact_history 的格式相同，第一行是 [Reactive compact]；尾部原样跟在后面。"
     "尾部就是整个列表时，摘要全部内容，只发送这条摘要。"),
)
FLAW_HINTS = {
    12: ("a message may hold the SDK's objects: the transcript and the summarizer's input hold each as "
         "model_dump(exclude_none=True), plain JSON with no unset field (\"caller\": null), never a repr.",
         "消息里可能是 SDK 的对象：transcript 和摘要器的输入中每个对象都是 model_dump(exclude_none=True)，"
         "即没有未设置字段（\"caller\": null）的普通 JSON，绝不是 repr。"),
}
SAID = {
    "input": ("{n} messages ({kinds}: u a request, a a reply, U a tool_use, R its tool_result); {numbers}",
              "{n} 条消息（{kinds}：u 请求，a 回复，U tool_use，R 它的 tool_result）；{numbers}"),
    "calls": ("your function called summarize {n} times; the safety net pays for exactly one call",
              "你的函数调用了 summarize {n} 次；兜底只为一次调用付费"),
    "tail summarized": ("the text handed to summarize covers the kept tail too: only what comes before it is "
                        "summarized", "交给 summarize 的文本也包含了保留的尾部：只摘要尾部之前的部分"),
    "handed": ("the text handed to summarize: {what}", "交给 summarize 的文本：{what}"),
    "first": ("the first message is not a user message of the summary's lines ([Reactive compact], Current "
              "user request:, Conversation summary (reference only):, Full transcript:)",
              "第一条消息不是摘要格式的 user 消息（[Reactive compact]、Current user request:、"
              "Conversation summary (reference only):、Full transcript:）"),
    "kind": ("the first line of the summary message is not [Reactive compact]",
             "摘要消息的第一行不是 [Reactive compact]"),
    "request": ("the request in your message is not active_request as it was given",
                "你的消息中的请求不是原样的 active_request"),
    "summary": ("the summary is not summarize's answer written as a JSON string",
                "摘要不是写成 JSON 字符串的 summarize 的回答"),
    "tail changed": ("what follows the summary is not the list's newest messages, unchanged",
                     "摘要之后的内容不是列表最近的消息（原样）"),
    "tail split": ("your tail opens on a tool_result whose tool_use was summarized: the pair is split",
                   "你的尾部从一条 tool_result 开始，而它的 tool_use 被摘要了：配对被拆散"),
    "tail size": ("your tail keeps too {way} of the newest messages for keep_recent={keep}",
                  "对 keep_recent={keep} 来说，你的尾部保留的最近消息太{way_zh}"),
}


def _case(label, messages, flaw=None, **numbers):
    return Case(label, messages, {"keep_recent": 5, **numbers}, flaw, request=REQUEST)


def fixed() -> list:
    sdk = of_kinds(["user", *["tool_use", "tool_result", "assistant", "user"] * 4])
    return [
        _case(("twelve messages, the tail on a request", "十二条消息，尾部从请求开始"),
              of_kinds(["user", *["tool_use", "tool_result", "assistant"] * 3, "user", "assistant"])),
        _case(("the tail would open on a tool_result", "尾部会从 tool_result 开始"),
              of_kinds(["user", *["tool_use", "tool_result"] * 5])),
        _case(("keep_recent given: 3", "给定 keep_recent：3"),
              of_kinds(["user", *["tool_use", "tool_result", "assistant", "user"] * 3]), keep_recent=3),
        _case(("a list shorter than the tail", "比尾部还短的列表"),
              of_kinds(["user", "tool_use", "tool_result"])),
        _case(("the summarized turns are the SDK's objects", "被摘要的对话轮次是 SDK 的对象"),
              [*sdk_objects(sdk[:9]), *sdk[9:]], flaw=12),
    ]


def drawn(draw, count: int = 5) -> list:
    found = []
    for k in range(count):
        messages, keep = drawn_history(draw, draw.randint(2, 30)), draw.randint(1, 8)
        label = (f"drawn at random #{k + 1}", f"随机抽取 #{k + 1}")
        request = f"Task {draw.randint(1, 99)}: sum up the logs."
        found.append(Case(label, messages, {"keep_recent": keep}, request=request))
    return found


def _kind(message) -> str:
    content = plain(message).get("content")
    types = [b.get("type") for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    return "U" if "tool_use" in types else "R" if "tool_result" in types else \
        "u" if message["role"] == "user" else "a"


def describe(case) -> str:
    kinds = "".join(_kind(m) for m in case.messages)
    return told(SAID, "input", n=len(case.messages), kinds=kinds, numbers=case.numbers_text())


def reference(case, root):
    from context_compact import CompactionConfig, ContextCompactor
    from context_compact.summary import summary_input
    handed = []

    def summarizer(messages):
        handed.append(summary_input(messages, LIMIT))
        return stand_in(handed[-1])
    config = CompactionConfig.seed(keep_recent_messages=case.numbers["keep_recent"])
    return ContextCompactor(root, summarizer, config).reactive_compact(case.messages, case.request), handed[0]


def run(function, case, root, calls):
    return function(case.messages, root, case.request, recorded(calls), *case.numbers.values())


def problems(case, got, expected, where) -> list:
    from context_compact.summary import summary_input
    package, handed = expected
    if not is_list_of_messages(got) or not got:
        return [say("not a list", kind=type(got).__name__)]
    given, mine = plain(case.messages), plain(got)
    start = len(given) - (len(package) - 1)
    summarized = case.messages[:start] if start else case.messages
    found = _summary_call(summarized, where.calls, handed, summary_input(case.messages, LIMIT))
    match = SUMMARY.match(mine[0]["content"]) if mine[0].get("role") == "user" \
        and isinstance(mine[0].get("content"), str) else None
    if not match:
        return found + [told(SAID, "first")]
    if match["kind"] != "Reactive compact":
        found.append(told(SAID, "kind"))
    if match["request"] != case.request:
        found.append(told(SAID, "request"))
    if where.calls and match["summary"] != json.dumps(stand_in(where.calls[0]), ensure_ascii=False):
        found.append(told(SAID, "summary"))
    tail, their_tail = mine[1:], len(package) - 1
    if tail != given[len(given) - len(tail):]:
        found.append(told(SAID, "tail changed"))
    elif len(tail) != their_tail:
        start = len(given) - len(tail)
        split = 0 < start < len(given) and _kind(given[start]) == "R" and _kind(given[start - 1]) == "U"
        more = len(tail) > their_tail
        found.append(told(SAID, "tail split") if split else told(
            SAID, "tail size", keep=case.numbers["keep_recent"], way="many" if more else "few",
            way_zh="多" if more else "少"))
    return found + transcript_problems(where.yours, match["path"], given)


def _summary_call(summarized, calls, handed, whole) -> list:
    if len(calls) != 1:
        return [told(SAID, "calls", n=len(calls))]
    if calls[0] == handed:
        return []
    if calls[0] == whole:
        return [told(SAID, "tail summarized")]
    wrong = text_problems(summarized, LIMIT, calls[0], handed)
    return [told(SAID, "handed", what=what) for what in wrong]
