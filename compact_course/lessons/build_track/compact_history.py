"""Step 4, compact_history (notebook 04): the learner's against the package's seed profile.

The model is a stand-in: `summarize(text)` records what it was handed and answers a summary
made from it (quotes, a line break and Chinese in it, so only json.dumps with ensure_ascii=False
writes it right). Checked: one call, with summary_input(messages) at 80,000; one user message of
the article's shape, the request as given, the summary as a JSON string, and a transcript in
root/.transcripts/ that holds the whole list. Fixed cases: a short list, one over 80,000, a
request with quotes and a line break, flaw 12; drawn ones vary the history and the request.
Left out: when to summarize (prepare's, notebook 08).
"""

import hashlib
import json

from .histories import drawn_history, sdk_objects, turns
from .looking import SUMMARY, is_list_of_messages, plain, transcript_problems
from .run import Case
from .summary_input import text_problems
from .words import say, told

NAME, NOTEBOOK = "compact_history", "04"
LIMIT = 80_000

HINTS = (
    ("three things happen in order: the whole list goes to a transcript (as in step 2), the model is asked "
     "once with summary_input(messages), and one user message replaces the list.",
     "按顺序做三件事：整个列表写入 transcript（和第二步一样），用 summary_input(messages) 调用模型一次，"
     "再用一条 user 消息替换整个列表。"),
    ("the message's lines are the article's, to the character: [Compacted], a blank line, Current user "
     "request:, the request as given, a blank line, Conversation summary (reference only):, the summary, a "
     "blank line, Full transcript: and the path relative to root.",
     "消息的各行与文章一字不差：[Compacted]、空行、Current user request:、原样的请求、空行、"
     "Conversation summary (reference only):、摘要、空行、Full transcript: 和相对于 root 的路径。"),
    ("the summary goes in as a JSON string (json.dumps with ensure_ascii=False): its quotes and line breaks "
     "are escaped, so nothing in it can pass for the message's own lines.",
     "摘要以 JSON 字符串写入（json.dumps，ensure_ascii=False）：其中的引号和换行被转义，"
     "所以它的内容不会被当成消息自己的行。"),
)
FLAW_HINTS = {
    12: ("a message may hold the SDK's objects: the transcript and the summarizer's input hold each as "
         "model_dump(exclude_none=True), plain JSON with no unset field (\"caller\": null), never a repr.",
         "消息里可能是 SDK 的对象：transcript 和摘要器的输入中每个对象都是 model_dump(exclude_none=True)，"
         "即没有未设置字段（\"caller\": null）的普通 JSON，绝不是 repr。"),
}


def stand_in(text) -> str:
    """The stand-in model's summary of `text`: made from it, with quotes, a line break and Chinese."""
    if not isinstance(text, str):
        return "(not a text)"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f'Goal: "finish the task" ({len(text):,} characters read)\n文件：{digest}'


def fixed() -> list:
    request = 'Fix the "build" step,\nthen run the tests.'
    return [
        Case(("a short list", "较短的列表"), turns([[900], [1_200]]), request="Summarize the logs."),
        Case(("a list over 80,000 characters", "超过 80,000 个字符的列表"),
             turns([[30_000], [30_000], [30_000]]), request="Compare the two files."),
        Case(("a request with quotes and a line break", "含引号和换行的请求"), turns([[500]]),
             request=request),
        Case(("the SDK's objects in the list", "列表中有 SDK 的对象"), sdk_objects(turns([[900], [400]])),
             flaw=12, request="Summarize the logs."),
    ]


def drawn(draw, count: int = 4) -> list:
    return [Case((f"drawn at random #{k + 1}", f"随机抽取 #{k + 1}"),
                 drawn_history(draw, draw.randint(2, 40), sizes=(40, 300, 1_500, 6_000, 20_000)),
                 request=f"Task {draw.randint(1, 999)}: {draw.choice(['check', '检查', 'sum up'])} the logs.")
            for k in range(count)]


SAID = {
    "input": ("{n} messages, {size:,} characters of JSON; active_request={request!r}",
              "{n} 条消息，JSON 共 {size:,} 个字符；active_request={request!r}"),
    "calls": ("your function called summarize {n} times; a compaction pays for exactly one call",
              "你的函数调用了 summarize {n} 次；一次压缩只为一次调用付费"),
    "handed": ("the text handed to summarize: {what}", "交给 summarize 的文本：{what}"),
    "one message": ("the result is not a list of one user message whose content is a text",
                    "结果不是只含一条 user 消息（content 为文本）的列表"),
    "lines": ("your message does not have the article's lines: [Compacted], Current user request:, "
              "Conversation summary (reference only):, Full transcript:, with a blank line between",
              "你的消息没有文章的各行：[Compacted]、Current user request:、"
              "Conversation summary (reference only):、Full transcript:，之间各空一行"),
    "kind": ("the first line is not [Compacted]", "第一行不是 [Compacted]"),
    "request": ("the request in your message is not active_request as it was given",
                "你的消息中的请求不是原样的 active_request"),
    "summary": ("the summary is not summarize's answer written as a JSON string (json.dumps, "
                "ensure_ascii=False)",
                "摘要不是写成 JSON 字符串（json.dumps，ensure_ascii=False）的 summarize 的回答"),
}


def describe(case) -> str:
    size = len(json.dumps(plain(case.messages), ensure_ascii=False))
    return told(SAID, "input", n=len(case.messages), size=size, request=case.request)


def reference(case, root):
    from context_compact import CompactionConfig, ContextCompactor
    from context_compact.summary import summary_input
    compactor = ContextCompactor(root, lambda messages: stand_in(summary_input(messages, LIMIT)),
                                 CompactionConfig.seed())
    return compactor.compact_history(case.messages, case.request)


def recorded(calls):
    """The stand-in model as the learner's `summarize`: each text handed to it kept in `calls`."""
    def summarize(text):
        calls.append(text)
        return stand_in(text)
    return summarize


def run(function, case, root, calls):
    return function(case.messages, root, case.request, recorded(calls))


def problems(case, got, expected, where) -> list:
    from context_compact.summary import summary_input
    if not is_list_of_messages(got):
        return [say("not a list", kind=type(got).__name__)]
    found = []
    if len(where.calls) != 1:
        found.append(told(SAID, "calls", n=len(where.calls)))
    else:
        wrong = text_problems(case.messages, LIMIT, where.calls[0], summary_input(case.messages, LIMIT))
        found += [told(SAID, "handed", what=what) for what in wrong]
    if len(got) != 1 or got[0].get("role") != "user" or not isinstance(got[0].get("content"), str):
        return found + [told(SAID, "one message")]
    match = SUMMARY.match(got[0]["content"])
    if not match:
        return found + [told(SAID, "lines")]
    if match["kind"] != "Compacted":
        found.append(told(SAID, "kind"))
    if match["request"] != case.request:
        found.append(told(SAID, "request"))
    if where.calls and match["summary"] != json.dumps(stand_in(where.calls[0]), ensure_ascii=False):
        found.append(told(SAID, "summary"))
    return found + transcript_problems(where.yours, match["path"], plain(case.messages))
