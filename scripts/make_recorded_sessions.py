"""Make two session files that record a compaction, byte for byte: one in Claude Code's
format, one a Codex CLI rollout.

    .venv/bin/python scripts/make_recorded_sessions.py          # write both into data/sessions/
    .venv/bin/python scripts/make_recorded_sessions.py --check  # exit 1 if either would change
    .venv/bin/python scripts/make_recorded_sessions.py --big /tmp/big.jsonl   # about 1 MB, for timing

Both are MADE, NOT RECORDED: no Claude Code or Codex ran, and the summary each records
was written by this script, not by a model. They exist so that `python -m compact_course probe
FILE --recorded` and the lab on what compaction forgets have a recorded compaction to
audit whose every answer is known:
- Claude Code (`recorded_claude_code.jsonl`): the records of scripts/make_claude_session.py
  (its Session class), then a `system` record with `subtype: "compact_boundary"` and
  `compactMetadata`, then the summary as a `user` record marked `isCompactSummary`, in
  the words Claude Code's summaries open with; then the session goes on and re-reads;
- Codex (`recorded_codex.jsonl`): `session_meta`, `turn_context`, `response_item`s
  (messages, `function_call` shell calls and their outputs, an `apply_patch`
  custom_tool_call), a `compacted` entry with `message` and `replacement_history`,
  then more items.
Each task: tests that fail and then pass, a setting the user changes, a value
overwritten in a file; the summary keeps some of it, a stale value among it. Tool
output is the real output of `compact_course.agent.tools.run_tool` on a scratch copy of
data/workspace with the task's files added (`FILES`). Ids and times come from counters.
"""

import json
import shutil
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

# Run as a script, its own folder is first on sys.path: the sibling script imports as a module.
from make_claude_session import ROOT, WORKSPACE, Session

from compact_course.agent.tools import run_tool

OUT = ROOT / "data" / "sessions"
CLAUDE, CODEX = OUT / "recorded_claude_code.jsonl", OUT / "recorded_codex.jsonl"
LABEL = ("MADE, NOT RECORDED: a sample in Claude Code's session format with a recorded compaction, "
         "written by scripts/make_recorded_sessions.py; its summary was written by the script")
SETTINGS = "cart/settings.ini"
FILES = {
    SETTINGS: "timeout = 30\nretries = 2\nmode = strict\nowner = course-team\n",
    "cart/NOTES.md": "# Cart\n\nThe cart sums line items, then applies one discount code.\n",
    "logs/cart_run1.log": ("== cart run 1 ==\ncollecting 3 items\n"
                           "tests/test_cart.py::test_total FAILED\n"
                           "tests/test_cart.py::test_discount PASSED\n"
                           "E   AssertionError: expected total 42.50, got 40.00 after the discount\n"
                           "tests/test_cart.py::test_empty PASSED\n"
                           "1 failed, 2 passed in 0.31s\n"),
    "logs/cart_run2.log": ("== cart run 2 ==\ncollecting 3 items\n"
                           "tests/test_cart.py::test_total PASSED\n"
                           "tests/test_cart.py::test_discount PASSED\n"
                           "tests/test_cart.py::test_empty PASSED\n"
                           "3 passed in 0.29s\n"),
}
REQUEST = "Get the cart tests passing. Do not edit anything under web/. Set the timeout to 30."
# The summary the made agent "wrote": it keeps the request, the instruction, the file it
# edited with its new retries, the error, the next step; it keeps the first timeout and
# the first test result (both stale by then) and drops the rest. Codex's drops the error.
SUMMARY = """This session is being continued from a previous conversation that ran out of context. \
The conversation is summarized below:
Analysis:
The user wants the cart's tests to pass, with limits on what may be edited.

Summary:
1. Primary Request and Intent:
Get the cart tests passing.
Do not edit anything under web/.
Set the timeout to 30.
2. Files and Code Sections:
cart/settings.ini (edited)
retries = 5
3. Errors and fixes:
tests/test_cart.py::test_total FAILED
E   AssertionError: expected total 42.50, got 40.00 after the discount
4. Pending Tasks and Next Step:
Next I will check the discount code in cart/NOTES.md."""


def scratch_workspace(folder: Path) -> Path:
    ws = folder / "workspace"
    shutil.copytree(WORKSPACE, ws, ignore=shutil.ignore_patterns(
        ".transcripts", ".task_outputs", "__pycache__", ".memory"))
    for path, text in FILES.items():
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_text(text, encoding="utf-8")
    return ws


# -- Claude Code -----------------------------------------------------------------------

def before(s, edit: str, read: str, shell: str) -> None:
    """The task up to the compaction, in any agent's tool names."""
    s.reply("I'll read the settings and the first test run.", (read, {"file_path": SETTINGS}),
            (shell, {"command": "cat logs/cart_run1.log"}))
    s.reply("I decided to raise the retries before touching the code.",
            (edit, {"file_path": SETTINGS, "old_string": "retries = 2", "new_string": "retries = 5"}))
    s.reply(None, (read, {"file_path": SETTINGS}), (read, {"file_path": "requirements.txt"}),
            (read, {"file_path": "README.md"}))
    s.typed("Change the timeout to 45.")
    s.reply("Let me set it and run the tests again.",
            (edit, {"file_path": SETTINGS, "old_string": "timeout = 30", "new_string": "timeout = 45"}))
    # The compaction comes where an automatic one does: tool results in, before the next call.
    s.reply("Next I will check the discount code in cart/NOTES.md.",
            (shell, {"command": "cat logs/cart_run2.log"}))


def after(s, read: str, shell: str) -> None:
    """The session after the compaction: the agent fetches some of it again."""
    s.reply("I'll run both test logs again to see where they stand.",
            (shell, {"command": "cat logs/cart_run2.log"}), (shell, {"command": "cat logs/cart_run1.log"}))
    s.reply(None, (read, {"file_path": "requirements.txt"}), (read, {"file_path": "cart/NOTES.md"}))
    s.answer("All three cart tests pass; the discount is applied once.")


class Claude(Session):
    def compact(self, summary: str) -> None:
        """Claude Code's record of its own compaction, then the summary it wrote."""
        uid, stamp = self._next()
        self.records.append({"parentUuid": None, "logicalParentUuid": self.parent[False],
                             "isSidechain": False, "userType": "external", "cwd": self.records[0]["cwd"],
                             "sessionId": self.records[0]["sessionId"], "version": "1.0.0-made",
                             "type": "system", "subtype": "compact_boundary",
                             "content": "Conversation compacted", "isMeta": False, "level": "info",
                             "compactMetadata": {"trigger": "auto", "preTokens": 31000},
                             "uuid": uid, "timestamp": stamp})
        self.parent[False] = uid
        self._add("user", {"role": "user", "content": summary}, isCompactSummary=True,
                  isVisibleInTranscriptOnly=True)


def bulk(s, size: int) -> None:
    """Reads of the workspace's code and a grep a turn, until the records reach `size`
    characters: a long session for the timing (`--big`), the same task around it."""
    files = sorted(str(p.relative_to(s.workspace)) for p in s.workspace.rglob("*.py"))
    turn = 0
    while sum(len(json.dumps(r)) for r in s.records[-200:]) * max(1, len(s.records) / 200) < size:
        path = files[turn % len(files)]
        s.reply(f"Reading {path} (pass {turn // len(files) + 1}).", ("Read", {"file_path": path}),
                ("Bash", {"command": f"grep -c def {path}"}))
        turn += 1


def claude_text(ws: Path, size: int = 0) -> str:
    s = Claude(ws)
    s.typed(REQUEST)
    if size:
        bulk(s, size)
    before(s, "Edit", "Read", "Bash")
    s.compact(SUMMARY)
    after(s, "Read", "Bash")
    head = {"type": "summary", "summary": LABEL, "leafUuid": s.parent[False]}
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for r in [head, *s.records])


# -- Codex -----------------------------------------------------------------------------

START = datetime(2025, 3, 3, 14, 0, tzinfo=UTC)
CODEX_ID = "0195e1c2-made-4000-8000-000000000001"


class Codex:
    """A Codex CLI rollout, each shell call run for real as it is written."""

    def __init__(self, workspace: Path):
        self.workspace, self.records, self.calls = workspace, [], 0
        self._line("session_meta", {"id": CODEX_ID, "timestamp": self._stamp(), "cwd": "/home/learner/cart",
                                    "originator": "made-by-script", "cli_version": "0.0.0-made",
                                    "instructions": None})
        self._line("turn_context", {"cwd": "/home/learner/cart", "approval_policy": "on-request",
                                    "sandbox_policy": {"mode": "workspace-write"}, "model": "made-by-script",
                                    "summary": "auto"})

    def _stamp(self) -> str:
        return (START + timedelta(seconds=5 * len(self.records))).strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def _line(self, kind: str, payload: dict) -> None:
        self.records.append({"timestamp": self._stamp(), "type": kind, "payload": payload})

    def typed(self, text: str) -> None:
        self._line("response_item", {"type": "message", "role": "user",
                                     "content": [{"type": "input_text", "text": text}]})

    def answer(self, text: str) -> None:
        self._line("response_item", {"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": text}]})

    def reply(self, note, *calls) -> None:
        if note:
            self.answer(note)
        for name, tool_input in calls:
            self.calls += 1
            call_id = f"call_made_{self.calls:03d}"
            if name == "apply_patch":
                patch = (f"*** Begin Patch\n*** Update File: {tool_input['file_path']}\n@@\n"
                         f"-{tool_input['old_string']}\n+{tool_input['new_string']}\n*** End Patch")
                self._line("response_item", {"type": "custom_tool_call", "status": "completed",
                                             "call_id": call_id, "name": "apply_patch", "input": patch})
                output = run_tool(self.workspace, "edit_file", {"path": tool_input["file_path"],
                                                               "old_text": tool_input["old_string"],
                                                               "new_text": tool_input["new_string"]})
                self._line("response_item", {"type": "custom_tool_call_output", "call_id": call_id,
                                             "output": output})
                continue
            command = tool_input["command"] if name == "shell" else f"cat {tool_input['file_path']}"
            self._line("response_item", {"type": "function_call", "name": "shell", "call_id": call_id,
                                         "arguments": json.dumps({"command": ["bash", "-lc", command]})})
            output = run_tool(self.workspace, "bash", {"command": command})
            self._line("response_item", {"type": "function_call_output", "call_id": call_id,
                                         "output": json.dumps({"output": output, "metadata": {
                                             "exit_code": 0, "duration_seconds": 0.1}})})

    def compact(self, summary: str, kept_user: list) -> None:
        history = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": t}]}
                   for t in kept_user]
        history.append({"type": "message", "role": "user",
                        "content": [{"type": "input_text", "text": summary}]})
        self._line("compacted", {"message": summary, "replacement_history": history})
        self._line("event_msg", {"type": "context_compacted"})


def codex_text(ws: Path) -> str:
    s = Codex(ws)
    s.typed(REQUEST)
    before(s, "apply_patch", "cat", "shell")
    # Codex keeps the user's messages (cut short) and the summary in place of the rest.
    summary = SUMMARY.split("Summary:\n", 1)[1].replace("(edited)", "(patched)")
    s.compact("\n".join(ln for ln in summary.splitlines() if "AssertionError" not in ln), [REQUEST])
    after(s, "cat", "shell")
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in s.records)


def build() -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        claude = claude_text(scratch_workspace(Path(scratch) / "claude"))
        codex = codex_text(scratch_workspace(Path(scratch) / "codex"))
    return {CLAUDE: claude, CODEX: codex}


def big(path: Path, size: int = 1_000_000) -> None:
    """`--big PATH`: the Claude Code sample grown to about `size` characters before its
    compaction, for timing `probe --recorded` (not kept in data/)."""
    with tempfile.TemporaryDirectory() as scratch:
        text = claude_text(scratch_workspace(Path(scratch)), size)
    path.write_text(text, encoding="utf-8", newline="\n")
    print(f"{path}: {text.count(chr(10))} records, {len(text.encode()):,} bytes")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--big"] and len(argv) == 2:
        big(Path(argv[1]))
        return 0
    texts = build()
    if "--check" in argv:
        stale = [p for p, text in texts.items()
                 if not (p.is_file() and p.read_text(encoding="utf-8") == text)]
        for path in stale:
            print(f"would change: {path.relative_to(ROOT)}")
        return 1 if stale else 0
    for path, text in texts.items():
        path.write_text(text, encoding="utf-8", newline="\n")
        print(f"{path.relative_to(ROOT)}: {text.count(chr(10))} records, {len(text):,} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
