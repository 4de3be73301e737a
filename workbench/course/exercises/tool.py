"""07 · the compact tool: a batch runner that survives a failing tool.

The article prints its harness: run each call, append the results, then
compact if asked. It does not say what happens when a tool raises: the batch
stops half-way, the calls already made are answered by nothing, and the API
refuses the next request (every tool_use needs its tool_result). The learner
writes `run_batch_safely(messages, tool_uses, run, compact)`: `run(tool_use)`
may raise; every call still gets its result (a failed one the text
`Error: <the exception's message>`, the wording of the package's own
`workbench.agent.tools.run_tool`), the later calls still run, and a requested
`compact` still happens, after the results.

The reference is the package's own harness, `workbench.agent.loop.Agent.run_batch`,
run in a scratch workspace with the package's tools, its `run_tool` answering
the failing calls with that error text; the learner's function gets the same
tools bound to a second, identical workspace (raising for the failing calls)
and a compactor with the same seeded names, so both sides write the same
files. The traps: the article's harness (the exception escapes), stopping at
the failure, dropping the failed call's result, and skipping `compact`
because something failed.
"""

import copy
import tempfile
from pathlib import Path
from unittest import mock

from ...display.phrases import say
from .build import rng
from .catalogue import exercise
from .check import CheckResult, check_function, hint

REQUEST = "Read the notes, write a summary to notes/done.md, then compact."
FILES = {"README.md": "# Sample\nA small workspace for the exercise.\n",
         "notes/todo.md": "- read the lessons\n- write notes\n"}


FAILURE = "the test run gave no answer after 30 seconds"


def _use(n, name, **data):
    return {"type": "tool_use", "id": f"toolu_{n:02d}", "name": name, "input": data}


def _failing(n):
    """A call whose tool raises (the learner's run raises TimeoutError for it)."""
    return _use(n, "bash", command="pytest -q")


CASES = [
    ("one read, no failure", [_use(1, "read_file", path="README.md")]),
    ("one call, and it fails", [_failing(2)]),
    ("a failure, then a read", [_failing(3), _use(4, "read_file", path="README.md")]),
    ("a write, a failure, then compact",
     [_use(5, "write_file", path="notes/done.md", content="done\n"), _failing(6), _use(7, "compact")]),
    ("compact first, then a failure",
     [_use(8, "compact"), _failing(9), _use(10, "read_file", path="notes/todo.md")]),
    ("two failures, a write between", [_failing(11), _use(12, "write_file", path="a.txt",
                                                          content="x\n"), _failing(13)]),
]


def random_cases(count: int = 6) -> list:
    draw, cases = rng(), []
    for n in range(count):
        uses = []
        for k in range(draw.randint(1, 4)):
            tool = draw.choice(("read_file", "glob", "write_file", "bash"))
            data = {"read_file": {"path": draw.choice(sorted(FILES))},
                    "glob": {"pattern": draw.choice(("*.md", "notes/*"))},
                    "write_file": {"path": f"out{k}.txt", "content": f"line {n}.{k}\n"},
                    "bash": {"command": "pytest -q"}}[tool]
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


def fails(tool_use) -> bool:
    return tool_use["name"] == "bash"


class Run:
    """The package's tools in one workspace, bash raising; remembers what it was asked to run."""

    def __init__(self, workspace: Path):
        self.workspace, self.names = workspace, []

    def __call__(self, tool_use) -> str:
        from ...agent.tools import run_tool
        self.names.append(tool_use["name"])
        if fails(tool_use):
            raise TimeoutError(FAILURE)
        return run_tool(self.workspace, tool_use["name"], tool_use.get("input") or {})

    def __repr__(self) -> str:
        return "run"


class Compact:
    """compact_history with the replay's compactor; remembers the lists it was given."""

    def __init__(self, workspace: Path):
        from ..replay import make_compactor
        self.compactor, self.given = make_compactor(workspace, "seed"), []

    def __call__(self, messages) -> list:
        self.given.append(copy.deepcopy(messages))
        return self.compactor.compact_history(messages, REQUEST)

    def __repr__(self) -> str:
        return "compact"


def reference(uses, workspace: Path) -> list:
    from ...agent import loop
    from ..replay import make_compactor
    real = loop.run_tool

    def run_tool(workspace, name, tool_input, confirm=None):
        if fails({"name": name}):
            return f"Error: {FAILURE}"  # what run_tool writes for a tool error
        return real(workspace, name, tool_input, confirm=confirm)

    agent = loop.Agent(_workspace(workspace), object(), "none", echo=None)   # a client never called
    agent.compactor = make_compactor(agent.workspace, "seed")
    agent.messages = _before(uses)
    with mock.patch.object(loop, "run_tool", run_tool):
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


def show_input(args) -> str:
    """The calls of the batch, the failing ones marked: the messages are the same every case."""
    _, uses, _, _ = args
    calls = ", ".join(f"{u['name']}{' (raises)' if fails(u) else ''}" for u in uses)
    return f"input: tool_uses = [{calls}]\n      "


def _diagnose(args, expected, got):
    messages, uses, run, compact = args
    names = [u["name"] for u in uses]
    if got is None and run.names and fails({"name": run.names[-1]}) and not compact.given:
        return say("tool: run tool_use raised and your function")
    if len(run.names) < len(names) - names.count("compact"):
        return say("tool: run every call of the batch")
    if "compact" in run.names:
        return say("tool: compact has no handler answer")
    if "compact" in names and not compact.given:
        return say("tool: the batch held a compact call")
    if compact.given and compact.given[0][-1]["role"] != "user":
        return say("tool: compact ran before the results were")
    if "compact" not in names and compact.given:
        return say("tool: no compact call in this batch")
    if isinstance(got, list) and got and isinstance(got[-1].get("content"), list):
        answered = {b.get("tool_use_id") for b in got[-1]["content"] if isinstance(b, dict)}
        if any(u["id"] not in answered for u in uses) and "compact" not in names:
            return say("tool: every tool_use needs its tool_result")
    return say("tool: one user message holds every result")


@exercise("07", writes_code=True)
def check_run_batch_safely(run_batch_safely) -> CheckResult:
    """run_batch_safely(messages, tool_uses, run, compact) -> the list after the batch."""
    with tempfile.TemporaryDirectory(prefix="compact-exercise-") as root:
        return check_function(
            "run_batch_safely", run_batch_safely, _cases(Path(root)), hint("run_batch_safely"),
            diagnose=_diagnose, explain_errors=True, show_input=show_input)
