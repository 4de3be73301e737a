"""Step 4's input, summary_input (notebook 04): the learner's text against the package's.

Fixed cases: a short list (its JSON whole), one over 80,000, a limit not divisible by 4, Chinese
text (ensure_ascii=False), and flaw 12 (the SDK's objects); drawn ones vary the limit and the
history around it. The text is compared exactly; a miss is told by which part is wrong (the
start, the marker, the end) and its length, never by the package's text. Left out: nothing.
"""

import json

from .histories import drawn_history, sdk_objects, turns
from .looking import plain
from .run import Case
from .words import told

NAME, NOTEBOOK = "summary_input", "04"
MIDDLE = "\n...[middle omitted; full transcript is on disk]...\n"

HINTS = (
    ("the text is the messages' JSON with ensure_ascii=False (a Chinese character stays one character); "
     "within the limit, that is all.",
     "文本是消息的 JSON，ensure_ascii=False（一个汉字仍是一个字符）；不超过上限时，这就是全部。"),
    ("over the limit, keep the start and the end around the marker: the first limit // 4 characters and the "
     "last limit - limit // 4, so that the two parts add up to the limit.",
     "超过上限时，保留开头和结尾，中间放标记：前 limit // 4 个字符和最后 limit - limit // 4 个字符，"
     "两部分加起来正好是上限。"),
    ("the checker draws the limit at random, odd numbers too: use the parameter, and integer division.",
     "检查器会随机抽取上限，也有奇数：使用参数，并用整数除法。"),
)
FLAW_HINTS = {
    12: ("a message may hold the SDK's objects: before json.dumps make each a plain dict with "
         "model_dump(exclude_none=True), so the summarizer reads no repr and no unset field "
         "(\"caller\": null).",
         "消息里可能是 SDK 的对象：json.dumps 之前用 model_dump(exclude_none=True) 把每个变成普通 dict，"
         "这样摘要器读到的既没有 repr，也没有未设置的字段（\"caller\": null）。"),
}


def fixed() -> list:
    said = "日志显示构建在第三步失败。" * 20
    chinese = [{"role": "user", "content": "请总结日志。"},
               {"role": "assistant", "content": [{"type": "text", "text": said}]}]
    big = turns([[30_000], [30_000], [30_000]])
    return [
        Case(("a short list: its JSON whole", "较短的列表：完整的 JSON"), turns([[500], [800]]),
             {"limit": 80_000}),
        Case(("over 80,000 characters", "超过 80,000 个字符"), big, {"limit": 80_000}),
        Case(("limit given: 10,003", "给定 limit：10,003"), big, {"limit": 10_003}),
        Case(("Chinese text", "中文文本"), chinese, {"limit": 80_000}),
        Case(("the SDK's objects in the list", "列表中有 SDK 的对象"), sdk_objects(turns([[900], [400]])),
             {"limit": 80_000}, flaw=12),
    ]


def drawn(draw, count: int = 5) -> list:
    return [Case((f"drawn at random #{k + 1}", f"随机抽取 #{k + 1}"),
                 drawn_history(draw, draw.randint(2, 24)), {"limit": draw.randint(500, 60_000)})
            for k in range(count)]


SAID = {
    "input": ("{n} messages, {size:,} characters of JSON; {numbers}",
              "{n} 条消息，JSON 共 {size:,} 个字符；{numbers}"),
    "type": ("your function returned {kind}, not a text", "你的函数返回了 {kind}，而不是文本"),
    "repr": ("the text holds the SDK's objects as their repr, not as JSON",
             "文本中是 SDK 对象的 repr，而不是 JSON"),
    "nulls": ("the text holds the SDK's unset fields as null (\"caller\": null): "
              "model_dump(exclude_none=True) leaves them out",
              "文本把 SDK 未设置的字段写成了 null（\"caller\": null）："
              "model_dump(exclude_none=True) 会略去它们"),
    "ascii": ("non-ASCII characters are escaped (\\uXXXX): the measure is JSON with ensure_ascii=False",
              "非 ASCII 字符被转义了（\\uXXXX）：计量用的是 ensure_ascii=False 的 JSON"),
    "whole": ("the messages' JSON is {n:,} characters, within the limit ({limit:,}): the text is that JSON, "
              "whole",
              "消息的 JSON 有 {n:,} 个字符，没有超过上限（{limit:,}）：文本就是完整的 JSON"),
    "no middle": ("the JSON is {n:,} characters, over the limit ({limit:,}), and your text has no middle "
                  "marker",
                  "JSON 有 {n:,} 个字符，超过上限（{limit:,}），而你的文本中没有中间的标记"),
    "head": ("the part before the marker ({h:,} characters) is not the JSON's first limit // 4",
             "标记之前的部分（{h:,} 个字符）不是 JSON 的前 limit // 4 个字符"),
    "tail": ("the part after the marker ({t:,} characters) is not the JSON's last limit - limit // 4",
             "标记之后的部分（{t:,} 个字符）不是 JSON 的最后 limit - limit // 4 个字符"),
    "cut": ("the text is not the JSON cut around the marker", "文本不是在标记两侧截断的 JSON"),
}


def describe(case) -> str:
    size = len(json.dumps(plain(case.messages), ensure_ascii=False))
    return told(SAID, "input", n=len(case.messages), size=size, numbers=case.numbers_text())


def reference(case, root):
    from context_compact.summary import summary_input
    return summary_input(case.messages, case.numbers["limit"])


def run(function, case, root, calls):
    return function(case.messages, *case.numbers.values())


def problems(case, got, expected, where) -> list:
    return text_problems(case.messages, case.numbers["limit"], got, expected)


def text_problems(messages, limit, got, expected) -> list:
    """What is wrong with `got` as the summarizer's input for `messages` at `limit`."""
    if got == expected:
        return []
    if not isinstance(got, str):
        return [told(SAID, "type", kind=type(got).__name__)]
    if "Block(" in got:
        return [told(SAID, "repr")]
    whole, escaped = json.dumps(plain(messages), ensure_ascii=False), json.dumps(plain(messages))
    if ": null" in got and ": null" not in whole:
        return [told(SAID, "nulls")]
    if escaped != whole and (got == escaped or "\\u" in got and "\\u" not in whole):
        return [told(SAID, "ascii")]
    if len(whole) <= limit:
        return [told(SAID, "whole", n=len(whole), limit=limit)]
    if MIDDLE not in got:
        return [told(SAID, "no middle", n=len(whole), limit=limit)]
    head, _, tail = got.partition(MIDDLE)
    found = []
    if not whole.startswith(head) or len(head) != limit // 4:
        found.append(told(SAID, "head", h=len(head)))
    if not whole.endswith(tail) or len(tail) != limit - limit // 4:
        found.append(told(SAID, "tail", t=len(tail)))
    return found or [told(SAID, "cut")]
