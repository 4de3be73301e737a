"""The compact tool's batch, run_tool_batch (notebook 07): every call answered, compact last of all.

The learner answers one assistant turn's tool_use blocks: each call but `compact` through its
handler, once, in order; `compact` answered "Compaction requested after this tool batch." with no
handler and no side effect; one user message with a tool_result per tool_use, in order; and
whether compaction was asked for. The reference is that rule with the package's own words
(context_compact.formats.COMPACT_TOOL_ACK): the package has no batch function (its agent loop has,
compact_course/agent/loop.py). Fixed cases: a note written and compact in one batch, compact
first (the calls after it still run), no compact; drawn ones vary the calls. Left out: running
compact_history after the batch (the caller's, notebook 07's loop).
"""

from .run import Case
from .words import told

NAME, NOTEBOOK = "run_tool_batch", "07"

HINTS = (
    ("answer every tool_use in order, each with one tool_result carrying its id: a call the model made "
     "and never heard back from is a request the API refuses.",
     "按顺序回应每个 tool_use，每个都用一个带着它的 id 的 tool_result：模型发出却没有得到回应的调用，"
     "会让 API 拒绝下一次请求。"),
    ("compact has no handler: answer it with the fixed sentence and remember that it was asked; the "
     "other calls still run, the ones after it too, before anything is summarized.",
     "compact 没有处理函数：用固定的那句话回应它，并记下有人请求了压缩；其他调用照常运行，"
     "它后面的也一样，然后才做摘要。"),
)
FLAW_HINTS = {}
SAID = {
    "input": ("the calls, in order: {calls}", "调用，按顺序：{calls}"),
    "shape": ("your function returned {kind}; it returns (the user message, compact_requested)",
              "你的函数返回了 {kind}；它应返回（user 消息，compact_requested）"),
    "message": ("the first value is not a user message whose content is a list of tool_result blocks",
                "第一个值不是 content 为 tool_result 块列表的 user 消息"),
    "count": ("your message answers {m} of the {n} calls: every tool_use gets its tool_result",
              "你的消息回应了 {n} 个调用中的 {m} 个：每个 tool_use 都要有它的 tool_result"),
    "order": ("the tool_result ids are not the tool_use ids in their order",
              "tool_result 的 id 不是按顺序排列的 tool_use 的 id"),
    "output": ("the result for {tid} ({name}) is not what its handler returned",
               "{tid}（{name}）的结果不是它的处理函数返回的内容"),
    "ack": ("the result for the compact call {tid} is not the fixed sentence",
            "compact 调用 {tid} 的结果不是那句固定的话"),
    "ran": ("the handlers ran {got}: each call but compact runs once, in the batch's order",
            "处理函数运行的是 {got}：除 compact 外的每个调用按批次的顺序运行一次"),
    "flag": ("compact_requested is {got!r}", "compact_requested 是 {got!r}"),
}
TOOLS = ("read_file", "bash", "glob", "write_file")


def _use(n: int, name: str) -> dict:
    given = {} if name == "compact" else {"command": f"ls {n}"} if name == "bash" else \
        {"path": f"notes/{n}.md"}
    return {"type": "tool_use", "id": f"toolu_{n:03d}", "name": name, "input": given}


def _case(label, names):
    return Case(label, [], {}, data={"uses": [_use(n, name) for n, name in enumerate(names, start=1)]})


def fixed() -> list:
    return [
        _case(("a note written, then compact", "先写笔记，再 compact"), ["write_file", "compact"]),
        _case(("compact first, two calls after it", "compact 在前，后面两个调用"),
              ["compact", "read_file", "bash"]),
        _case(("no compact in the batch", "批次中没有 compact"), ["read_file", "glob"]),
    ]


def drawn(draw, count: int = 5) -> list:
    found = []
    for k in range(count):
        names = [draw.choice(TOOLS) for _ in range(draw.randint(1, 5))]
        if draw.random() < 0.7:
            names.insert(draw.randrange(len(names) + 1), "compact")
        found.append(_case((f"drawn at random #{k + 1}", f"随机抽取 #{k + 1}"), names))
    return found


def describe(case) -> str:
    return told(SAID, "input", calls=", ".join(f"{u['id']} {u['name']}" for u in case.data["uses"]))


def _handlers(ran: list) -> dict:
    def handler(name):
        def run(given):
            ran.append(name)
            return f"{name} output for {given}"
        return run
    return {name: handler(name) for name in TOOLS}


def reference(case, root):
    from context_compact.formats import COMPACT_TOOL_ACK
    ran, handlers, results = [], _handlers([]), []
    for use in case.data["uses"]:
        is_compact = use["name"] == "compact"
        output = COMPACT_TOOL_ACK if is_compact else handlers[use["name"]](use["input"])
        ran += [] if is_compact else [use["name"]]
        results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output})
    wanted = any(use["name"] == "compact" for use in case.data["uses"])
    return {"role": "user", "content": results}, wanted, ran


def run(function, case, root, calls):
    return function(case.data["uses"], _handlers(calls))


def problems(case, got, expected, where) -> list:
    message, wanted, ran = expected
    if not (isinstance(got, tuple) and len(got) == 2):
        return [told(SAID, "shape", kind=type(got).__name__)]
    mine, flag = got
    content = mine.get("content") if isinstance(mine, dict) and mine.get("role") == "user" else None
    if not isinstance(content, list) or not all(isinstance(b, dict) and b.get("type") == "tool_result"
                                                for b in content):
        return [told(SAID, "message")]
    found, uses = [], case.data["uses"]
    if len(content) != len(uses):
        found.append(told(SAID, "count", m=len(content), n=len(uses)))
    elif [b.get("tool_use_id") for b in content] != [u["id"] for u in uses]:
        found.append(told(SAID, "order"))
    else:
        for block, theirs, use in zip(content, message["content"], uses):
            if block.get("content") != theirs["content"]:
                key = "ack" if use["name"] == "compact" else "output"
                found.append(told(SAID, key, tid=use["id"], name=use["name"]))
    if where.calls != ran:
        found.append(told(SAID, "ran", got=where.calls))
    if flag is not wanted:
        found.append(told(SAID, "flag", got=flag))
    return found

