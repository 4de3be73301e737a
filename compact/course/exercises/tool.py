"""07 · the compact tool: the batch first, then the summary.

The learner writes `run_batch(messages, tool_uses, run, compact)`: the list
ends with the model's reply holding the batch; run every call in order with
`run(tool_use)`, append one user message with every result, and only then,
if the batch held a `compact` call, return `compact(messages)` instead.

The reference is the package's own harness, `compact.agent.loop.Agent.run_batch`,
run in a scratch workspace with the package's tools; the learner's function
gets the same tools bound to a second, identical workspace and a compactor
with the same seeded names, so both sides write the same files. The traps:
compacting as soon as `compact` is seen (the results would answer nothing,
or the later calls would never run), and stopping the batch at `compact`.
"""

import copy
import tempfile
from pathlib import Path

from .build import rng
from .check import CheckResult, check_function, hint, say

REQUEST = "Read the notes, write a summary to notes/done.md, then compact."
FILES = {"README.md": "# Sample\nA small workspace for the exercise.\n",
         "notes/todo.md": "- read the lessons\n- write notes\n"}


def _use(n, name, **data):
    return {"type": "tool_use", "id": f"toolu_{n:02d}", "name": name, "input": data}


CASES = [
    ("one read, no compact", [_use(1, "read_file", path="README.md")]),
    ("write, then compact", [_use(2, "write_file", path="notes/done.md", content="done\n"),
                             _use(3, "compact")]),
    ("compact alone", [_use(4, "compact")]),
    ("compact first, then a write and its read",
     [_use(5, "compact"), _use(6, "write_file", path="notes/done.md", content="all done\n"),
      _use(7, "read_file", path="notes/done.md")]),
    ("a write, then a read of it", [_use(8, "write_file", path="a.txt", content="x\n"),
                                    _use(9, "read_file", path="a.txt")]),
]


def random_cases(count: int = 6) -> list:
    draw, cases = rng(), []
    for n in range(count):
        uses = []
        for k in range(draw.randint(1, 4)):
            tool = draw.choice(("read_file", "glob", "write_file"))
            data = {"read_file": {"path": draw.choice(sorted(FILES))},
                    "glob": {"pattern": draw.choice(("*.md", "notes/*"))},
                    "write_file": {"path": f"out{k}.txt", "content": f"line {n}.{k}\n"}}[tool]
            uses.append(_use(20 + 5 * n + k, tool, **data))
        if draw.random() < 0.6:
            uses.insert(draw.randint(0, len(uses)), _use(19 + 5 * n, "compact"))
        cases.append((f"random batch {n + 1} ({len(uses)} calls)", uses))
    return cases


def _workspace(root: Path) -> Path:
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _before(uses) -> list:
    reply = {"role": "assistant", "content": [{"type": "text", "text": "Working on it."}, *uses]}
    return [{"role": "user", "content": REQUEST}, reply]


class Run:
    """The package's tools in one workspace; remembers which tools it was asked to run."""

    def __init__(self, workspace: Path):
        self.workspace, self.names = workspace, []

    def __call__(self, tool_use) -> str:
        from ...agent.tools import run_tool
        self.names.append(tool_use["name"])
        return run_tool(self.workspace, tool_use["name"], tool_use.get("input") or {})


class Compact:
    """compact_history with the replay's compactor; remembers the lists it was given."""

    def __init__(self, workspace: Path):
        from ..replay import make_compactor
        self.compactor, self.given = make_compactor(workspace, "seed"), []

    def __call__(self, messages) -> list:
        self.given.append(copy.deepcopy(messages))
        return self.compactor.compact_history(messages, REQUEST)


def reference(uses, workspace: Path) -> list:
    from ...agent.loop import Agent
    from ..replay import make_compactor
    agent = Agent(_workspace(workspace), None, "none", echo=None)
    agent.compactor = make_compactor(agent.workspace, "seed")
    agent.messages = _before(uses)
    agent.run_batch(agent.messages[-1]["content"], REQUEST)
    return agent.messages


def _cases(root: Path) -> list:
    cases = []
    for n, (label, uses) in enumerate(CASES + random_cases()):
        expected = reference(uses, _folder(root, f"reference{n}"))
        learner = _workspace(_folder(root, f"learner{n}"))
        cases.append((label, (_before(uses), uses, Run(learner), Compact(learner)), expected))
    return cases


def _folder(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir()
    return folder


def _diagnose(args, expected, got):
    messages, uses, run, compact = args
    names = [u["name"] for u in uses]
    if "compact" in run.names:
        return say("compact has no handler: answer it with compact.formats.COMPACT_TOOL_ACK, not run().",
            "compact 没有处理函数：用 compact.formats.COMPACT_TOOL_ACK 回答它，不要调用 run()。")
    if len(run.names) < len(names) - names.count("compact"):
        return say("run every call of the batch, also the ones after compact.",
            "运行这一批里的每个调用，compact 之后的也要运行。")
    if "compact" in names and not compact.given:
        return say("the batch held a compact call: return compact(messages) once the results are in.",
            "这一批里有 compact 调用：结果都加进去之后，返回 compact(messages)。")
    if compact.given and compact.given[0][-1]["role"] != "user":
        return say(("compact ran before the results were appended: the summary misses what the "
                "batch did, and the results would answer nothing."),
            "compact 在结果加进去之前就运行了：摘要漏掉了这一批做的事，这些结果也不再回应任何调用。")
    if "compact" not in names and compact.given:
        return say("no compact call in this batch: return the list with the results appended.",
            "这一批里没有 compact 调用：返回加上结果之后的列表。")
    return say("one user message holds every result, in the order of the calls.",
            "一条 user 消息装下所有结果，按调用的顺序。")


def check_run_batch(run_batch) -> CheckResult:
    """07: run_batch(messages, tool_uses, run, compact) -> the list after the batch."""
    with tempfile.TemporaryDirectory(prefix="compact-exercise-") as root:
        return check_function(
            "run_batch", run_batch, _cases(Path(root)), hint("run_batch"),
            diagnose=_diagnose, explain_errors=True)
