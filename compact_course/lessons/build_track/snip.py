"""Step 2, snip_compact (notebook 02): the learner's against the package's seed profile.

Fixed cases: a pair at the head's cut and at the tail's, exactly max_messages (nothing to do),
max_messages and keep_head given, and flaw 12 (the SDK's objects in the archived middle); drawn
ones vary both numbers and the history. The learner's marker is read for its count and path, the
transcript behind it for the whole list (its name is random: any transcript_*.jsonl in
root/.transcripts/). Left out: lists where head and tail meet (flaw 15: the seed still archives
0 messages, a quirk no build need copy).
"""

from .histories import drawn_history, of_kinds, sdk_objects
from .looking import ARCHIVED, TRANSCRIPTS, is_list_of_messages, plain, transcript_problems
from .run import Case, never_summarize, on_messages
from .words import say, told

NAME, NOTEBOOK = "snip_compact", "02"
ARTICLE = {"max_messages": 50, "keep_head": 3}

HINTS = (
    ("count first: with at most max_messages messages, return the list as it is. Above it, the head is the "
     "first keep_head messages and the tail the newest max_messages - keep_head; the marker stands between "
     "them and counts what was taken out.",
     "先数：不超过 max_messages 条就原样返回。超过时，头部是前 keep_head 条，尾部是最近的 "
     "max_messages - keep_head 条；标记放在两者之间，数的是被移出的消息。"),
    ("then protect the pairs at both cuts: a head that ends on an assistant tool_use grows over the "
     "tool_result messages right after it; a tail that would start on a tool_result whose tool_use is just "
     "before it starts one message earlier.",
     "再在两个切点保护配对：头部结束在 assistant 的 tool_use 上时，向后包含紧随其后的 tool_result 消息；"
     "尾部将从一条 tool_result 开始、而它的 tool_use 就在前一条时，尾部提前一条开始。"),
    ("write the whole list, as it was before the cut, one message's JSON a line, to a new file in "
     "root/.transcripts/ named with a fresh uuid4; the marker's path is relative to root. The checker draws "
     "max_messages and keep_head at random.",
     "把切分之前的整个列表写入 root/.transcripts/ 中一个用新 uuid4 命名的新文件，每行一条消息的 JSON；"
     "标记中的路径相对于 root。检查器会随机抽取 max_messages 和 keep_head。"),
)
FLAW_HINTS = {
    12: ("a message may hold the SDK's objects: before json.dumps make each a plain dict with "
         "model_dump(exclude_none=True), so a line is JSON with no unset field (\"caller\": null), "
         "not a repr.",
         "消息里可能是 SDK 的对象：json.dumps 之前用 model_dump(exclude_none=True) 把每个变成普通 dict，"
         "这样每一行是 JSON，没有未设置的字段（\"caller\": null），也不是 repr。"),
}


def _case(label, messages, flaw=None, **numbers):
    return Case(label, messages, {**ARTICLE, **numbers}, flaw)


def fixed() -> list:
    pairs = ["user", *["tool_use", "tool_result"] * 25]   # 51: the tail would open on a result
    head_pair = ["user", "assistant", *["tool_use", "tool_result"] * 26]   # 54: the head ends on a call
    sdk = of_kinds(["user", *["tool_use", "tool_result", "assistant", "user"] * 22])   # 89: cut at 3 and 42
    return [
        _case(("51 messages: the tail would open on a tool_result", "51 条消息：尾部会从 tool_result 开始"),
              of_kinds(pairs)),
        _case(("the head ends on a tool_use", "头部结束在 tool_use 上"), of_kinds(head_pair)),
        _case(("exactly max_messages: nothing to do", "恰好 max_messages 条：什么也不做"),
              of_kinds(pairs[:50])),
        _case(("max_messages given: 30, not the article's", "给定 max_messages：30，不是文章的数值"),
              of_kinds(["user", "assistant"] * 20), max_messages=30),
        _case(("keep_head given: 5", "给定 keep_head：5"),
              of_kinds(["user", "assistant", "user", "assistant", *["user", "tool_use", "tool_result"] * 19]),
              keep_head=5),
        _case(("the archived turns are the SDK's objects", "归档的对话轮次是 SDK 的对象"),
              [*sdk[:8], *sdk_objects(sdk[8:38]), *sdk[38:]], flaw=12),
    ]


def drawn(draw, count: int = 5) -> list:
    found = []
    for k in range(count):
        max_messages = draw.randint(8, 60)
        keep_head = draw.randint(1, min(6, max_messages - 5))
        over = k != 0   # one case of each run at or under the limit
        length = max_messages + draw.randint(3, 25) if over else max_messages - draw.randint(0, 3)
        messages = drawn_history(draw, length)[:length]
        if _kind(messages[-1]) == "U":
            messages = messages[:-1]   # a call left waiting is fine for the API, but keep the count clean
        found.append(Case((f"drawn at random #{k + 1}", f"随机抽取 #{k + 1}"), messages,
                          {"max_messages": max_messages, "keep_head": keep_head}))
    return found


def _kind(message) -> str:
    content = message.get("content")
    if isinstance(content, list) and any(getattr(b, "type", None) == "tool_use" or isinstance(b, dict)
                                         and b.get("type") == "tool_use" for b in content):
        return "U"
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result"
                                         for b in content):
        return "R"
    return "u" if message["role"] == "user" else "a"


SAID = {
    "input": ("{n} messages ({kinds}: u a request, a a reply, U a tool_use, R its tool_result); {numbers}",
              "{n} 条消息（{kinds}：u 请求，a 回复，U tool_use，R 它的 tool_result）；{numbers}"),
    "stays": ("the list has {n} messages, not more than max_messages ({limit}): it stays as it is",
              "列表有 {n} 条消息，没有超过 max_messages（{limit}）：应原样保留"),
    "wrote": ("you wrote a transcript though nothing was to be archived",
              "没有需要归档的内容，你却写了 transcript"),
    "no marker": ("there is no archive marker ([N messages archived at <path>], a user message) in your list",
                  "你的列表中没有归档标记（[N messages archived at <path>]，一条 user 消息）"),
    "head changed": ("what comes before your marker is not the list's first messages, unchanged",
                     "标记之前的内容不是列表最前面的消息（原样）"),
    "tail changed": ("what comes after your marker is not the list's newest messages, unchanged",
                     "标记之后的内容不是列表最近的消息（原样）"),
    "count": ("your marker says {count} messages archived, but your cut took out {removed}",
              "你的标记说归档了 {count} 条消息，但你的切分移出了 {removed} 条"),
    "head split": ("your head ends on a tool_use message whose tool_result went to the archive: the pair is "
                   "split",
                   "你的头部结束在一条 tool_use 消息上，而它的 tool_result 被归档了：配对被拆散"),
    "head size": ("your head keeps too {way} messages for keep_head={head} (it grows only over the results "
                  "of a tool_use it ends on)",
                  "对 keep_head={head} 来说，你的头部保留的消息太{way_zh}"
                  "（只有结束在 tool_use 上时才向后包含它的结果）"),
    "tail split": ("your tail opens on a tool_result whose tool_use went to the archive: the pair is split",
                   "你的尾部从一条 tool_result 开始，而它的 tool_use 被归档了：配对被拆散"),
    "tail size": ("your tail keeps too {way} of the newest messages: max_messages - keep_head = {keep} (one "
                  "more only to keep a pair whole)",
                  "你的尾部保留的最近消息太{way_zh}：max_messages - keep_head = {keep}"
                  "（只为保持配对完整才多保留一条）"),
}


def describe(case) -> str:
    kinds = "".join(_kind(m) for m in case.messages)
    return told(SAID, "input", n=len(case.messages), numbers=case.numbers_text(),
                kinds=kinds if len(kinds) <= 70 else kinds[:30] + "..." + kinds[-30:])


def reference(case, root):
    from context_compact import CompactionConfig, ContextCompactor
    config = CompactionConfig.seed(snip_max_messages=case.numbers["max_messages"],
                                   snip_keep_head=case.numbers["keep_head"])
    return ContextCompactor(root, never_summarize, config).snip_compact(case.messages)


run = on_messages


def _marker(messages):
    """(index, match) of the first archive marker, or (None, None)."""
    for i, message in enumerate(messages):
        content = message.get("content")
        match = isinstance(content, str) and message.get("role") == "user" and ARCHIVED.match(content)
        if match:
            return i, match
    return None, None


def problems(case, got, expected, where) -> list:
    if not is_list_of_messages(got):
        return [say("not a list", kind=type(got).__name__)]
    given, mine, package = plain(case.messages), plain(got), plain(expected)
    n, limit, head = len(given), case.numbers["max_messages"], case.numbers["keep_head"]
    if package == given:
        found = [] if mine == given else [told(SAID, "stays", n=n, limit=limit)]
        return found + ([told(SAID, "wrote")] if any((where.yours / TRANSCRIPTS).glob("*")) else [])
    k, match = _marker(mine)
    if k is None:
        return [told(SAID, "no marker")]
    tail, found = mine[k + 1:], []
    if mine[:k] != given[:k]:
        found.append(told(SAID, "head changed"))
    if tail != given[n - len(tail):]:
        found.append(told(SAID, "tail changed"))
    removed = n - k - len(tail)
    if int(match["count"]) != removed:
        found.append(told(SAID, "count", count=int(match["count"]), removed=removed))
    their_k, _ = _marker(package)
    their_tail = len(package) - their_k - 1
    if k != their_k:
        split = 0 < k < n and _kind(given[k - 1]) == "U" and _kind(given[k]) == "R"
        found.append(told(SAID, "head split") if split else
                     told(SAID, "head size", head=head, **_way(k > their_k)))
    if len(tail) != their_tail:
        start = n - len(tail)
        split = 0 < start < n and _kind(given[start]) == "R" and _kind(given[start - 1]) == "U"
        found.append(told(SAID, "tail split") if split else
                     told(SAID, "tail size", keep=limit - head, **_way(len(tail) > their_tail)))
    return found + transcript_problems(where.yours, match["path"], given)


def _way(more: bool) -> dict:
    return {"way": "many" if more else "few", "way_zh": "多" if more else "少"}
