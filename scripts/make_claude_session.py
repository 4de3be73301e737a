"""Make a Claude Code-format session file from the sample workspace, byte for byte.

    .venv/bin/python scripts/make_claude_session.py          # write data/sessions/claude_code_sample.jsonl
    .venv/bin/python scripts/make_claude_session.py --check  # exit 1 if the file would change

The file is MADE, NOT RECORDED: no Claude Code ran. Its first record, a
`summary`, says so, and so does data/sessions/README.md. It has the records a
real session file holds, so that the importer (compact_course/sessions/claude_code.py)
and lab 04 have something that looks like the real thing:
- `user` and `assistant` records linked by `uuid` / `parentUuid`, each
  assistant reply written one content block a record under one `message.id`;
- a tool result a record, with `toolUseResult` beside it;
- a subagent (`Task`) whose own conversation is in `isSidechain` records;
- an `isMeta` note, a `file-history-snapshot` before the edit.
The tool calls are scripted; their output is not: every result is the real
output of `compact_course.agent.tools.run_tool` on a scratch copy of data/workspace
(`Read` shown line-numbered, as Claude Code shows it). Ids and times come
from counters, so the bytes are the same on every run.
"""

import json
import shutil
import sys
import tempfile
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from compact_course.agent.tools import run_tool

ROOT = Path(__file__).resolve().parent.parent
WORKSPACE = ROOT / "data" / "workspace"
OUT = ROOT / "data" / "sessions" / "claude_code_sample.jsonl"
CWD = "/home/learner/agent-course"          # a made path: the records name no real folder
START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
LABEL = ("MADE, NOT RECORDED: a sample in Claude Code's session format, written by "
         "scripts/make_claude_session.py from data/workspace; find the failing tests")
S08, S09, LOG = "s08_context_compact/code.py", "s09_memory/code.py", "logs/test_run.log"
LESSONS = ["s01_agent_loop", "s02_tool_use", "s03_planning", "s04_subagents", "s05_todo_write"]


def numbered(text: str) -> str:
    """A file's text as Claude Code's Read shows it: `cat -n` style."""
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(text.splitlines(), start=1))


# Claude Code's tool -> (the course's tool and its input, what toolUseResult holds)
TOOLS = {
    "Read": lambda i: (("read_file", {"path": i["file_path"], **{k: i[k] for k in ("limit",) if k in i}}),
                       lambda out: {"type": "text", "file": {"filePath": i["file_path"],
                                                             "numLines": out.count("\n") + 1}}),
    "Bash": lambda i: (("bash", {"command": i["command"]}),
                       lambda out: {"stdout": out, "stderr": "", "interrupted": False}),
    "Grep": lambda i: (("bash", {"command": f"grep -rn '{i['pattern']}' {i['path']}"}),
                       lambda out: {"mode": "content", "numLines": out.count("\n") + 1}),
    "Glob": lambda i: (("glob", {"pattern": i["pattern"]}),
                       lambda out: {"filenames": out.splitlines(), "numFiles": len(out.splitlines())}),
    "Edit": lambda i: (("edit_file", {"path": i["file_path"], "old_text": i["old_string"],
                                      "new_text": i["new_string"]}),
                       lambda out: {"filePath": i["file_path"], "oldString": i["old_string"],
                                    "newString": i["new_string"]}),
}


class Session:
    """The records of one made session, each tool call run for real as it is written."""

    def __init__(self, workspace: Path):
        self.workspace, self.records, self.count = workspace, [], 0
        self.parent = {False: None, True: None}      # the newest uuid of each thread

    def _next(self) -> tuple:
        self.count += 1
        stamp = (START + timedelta(seconds=7 * self.count)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"compact-course/sample/{self.count}")), stamp

    def _add(self, kind: str, message: dict, sidechain: bool = False, **extra) -> str:
        uid, stamp = self._next()
        self.records.append({"parentUuid": self.parent[sidechain], "isSidechain": sidechain,
                             "userType": "external", "cwd": CWD, "sessionId": SESSION,
                             "version": "1.0.0-made", "type": kind, "message": message,
                             "uuid": uid, "timestamp": stamp, **extra})
        self.parent[sidechain] = uid
        return uid

    def typed(self, text: str, meta: bool = False, sidechain: bool = False) -> None:
        self._add("user", {"role": "user", "content": text}, sidechain, **({"isMeta": True} if meta else {}))

    def reply(self, note: str | None, *calls, sidechain: bool = False) -> list:
        """One assistant reply, a record a block, then a record a result; the outputs."""
        message_id = f"msg_made_{len(self.records):04d}"
        blocks = ([{"type": "text", "text": note}] if note else [])
        uses = [{"type": "tool_use", "id": f"toolu_made_{len(self.records):03d}_{k}", "name": name,
                 "input": tool_input} for k, (name, tool_input) in enumerate(calls)]
        for block in blocks + uses:
            self._add("assistant", {"id": message_id, "type": "message", "role": "assistant",
                                    "model": "made-by-script", "content": [block]}, sidechain,
                      requestId=f"req_{message_id}")
        outputs = []
        for use in uses:
            output, structured = self._run(use)
            outputs.append(output)
            self._add("user", {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": use["id"], "content": output}]},
                sidechain, toolUseResult=structured)
        return outputs

    def _run(self, use: dict) -> tuple:
        if use["name"] == "Task":
            return self.subagent(use["input"]), {"status": "completed"}
        (name, tool_input), structured = TOOLS[use["name"]](use["input"])
        output = run_tool(self.workspace, name, tool_input)
        if str(self.workspace) in output:
            raise RuntimeError(f"{use['name']} {use['input']}: output names the scratch folder")
        output = numbered(output) if use["name"] == "Read" else output
        return output, structured(output)

    def subagent(self, task: dict) -> str:
        """The subagent's own conversation, in sidechain records; its last answer."""
        self.parent[True] = None
        self.typed(task["prompt"], sidechain=True)
        titles = [first_heading(out) for out in self.reply(
            "Reading each lesson's README.", *(("Read", {"file_path": f"{lesson}/README.md"})
                                               for lesson in LESSONS), sidechain=True)]
        answer = "The five lessons' titles: " + "; ".join(titles) + "."
        self.answer(answer, sidechain=True)
        return answer

    def answer(self, text: str, sidechain: bool = False) -> None:
        message_id = f"msg_made_{len(self.records):04d}"
        self._add("assistant", {"id": message_id, "type": "message", "role": "assistant",
                                "model": "made-by-script", "content": [{"type": "text", "text": text}]},
                  sidechain, requestId=f"req_{message_id}")

    def snapshot(self, path: str) -> None:
        self.records.append({"type": "file-history-snapshot", "messageId": self.parent[False],
                             "snapshot": {"messageId": self.parent[False], "trackedFileBackups": {
                                 path: {"backupFileName": None, "version": 1}},
                                 "timestamp": self._next()[1]}, "isSnapshotUpdate": False})


def first_heading(numbered_text: str) -> str:
    return next((line.split("\t", 1)[1].lstrip("# ") for line in numbered_text.splitlines()
                 if "\t#" in line), "(no title)")


SESSION = str(uuid.uuid5(uuid.NAMESPACE_URL, "compact-course/sample/session"))
FIRST = "Find why tests fail in logs/test_run.log and fix what belongs to s08_context_compact."
SECOND = "Now compare how s08 and s09 keep state, and list the fields of one docs.json record."


def play(s: Session) -> None:
    s.typed("Caveat: the messages below were generated by the user while running local commands.",
            meta=True)
    s.typed(FIRST)
    s.reply("I'll read the test log and list the code first.", ("Read", {"file_path": LOG}),
            ("Glob", {"pattern": "**/*.py"}))
    s.reply("Three tests fail. Let me find each test's code path.",
            ("Grep", {"pattern": "FAILED", "path": LOG}))
    s.reply("A subagent can summarize the lessons while I read s08.",
            ("Task", {"description": "Summarize lesson titles", "subagent_type": "general-purpose",
                      "prompt": "Read the README.md of s01 to s05 and report each first-level title."}))
    s.reply(None, ("Read", {"file_path": S08}))
    for pattern in ("def snip_cut", "SNIP_MAX_MESSAGES", "def micro_compact", "KEEP_RECENT",
                    "def tool_result_budget", "def reactive_cut"):
        s.reply(f"Checking {pattern}.", ("Grep", {"pattern": pattern, "path": S08}))
    s.reply("The failure is an orphaned tool_result: snip_cut can cut between a pair. "
            "Reading the lines around it.", ("Bash", {"command": f"sed -n 225,260p {S08}",
                                                       "description": "Show snip_cut"}))
    s.snapshot(S08)
    s.reply("I'll keep the tail from moving before the head.", ("Edit", {
        "file_path": S08, "old_string": "    tail = len(messages) - (SNIP_MAX_MESSAGES - SNIP_KEEP_HEAD)",
        "new_string": "    tail = max(head, len(messages) - (SNIP_MAX_MESSAGES - SNIP_KEEP_HEAD))"}))
    s.reply(None, ("Grep", {"pattern": "tail = max", "path": S08}))
    for command in ("grep -n 'test_bash_timeout' -A 6 logs/test_run.log",
                    "grep -n 'test_forget_expired' -A 6 logs/test_run.log",
                    "grep -c PASSED logs/test_run.log"):
        s.reply(None, ("Bash", {"command": command, "description": "Look at the log"}))
    s.answer("Fixed snip_cut in s08_context_compact/code.py: the tail can no longer start before "
             "the head, so no tool_result is cut from its tool_use (test_snip_keeps_pairs). The "
             "other two failures are in s02's bash timeout and s09's memory expiry, outside s08.")
    s.typed(SECOND)
    s.reply("Reading s09 next to s08.", ("Read", {"file_path": S09}))
    for pattern in ("MEMORY_DIR", "class MemoryStore", "def put", "def recall", "def forget",
                    "def before_compaction_reminder", "def consolidate", "def run_checks"):
        s.reply(None, ("Grep", {"pattern": pattern, "path": S09}))
    s.reply("Now the docs records.", ("Read", {"file_path": "web/src/data/generated/docs.json",
                                               "limit": 300}))
    s.reply(None, ("Bash", {"command": "grep -o '\"[a-z_]*\":' web/src/data/generated/docs.json "
                                       "| LC_ALL=C sort | uniq -c | LC_ALL=C sort -rn | head -12",
                            "description": "Count the keys"}))
    s.answer("s08 keeps state in the message list and writes transcripts when it compacts; s09 "
             "adds a MemoryStore under .memory/ (put, recall, forget, consolidate) and reminds the "
             "model before a compaction. A docs.json lesson record has id, number, title, chapter, "
             "level, summary, sections, code_refs, keywords and more.")


def build() -> str:
    with tempfile.TemporaryDirectory() as scratch:
        ws = Path(scratch) / "workspace"
        shutil.copytree(WORKSPACE, ws, ignore=shutil.ignore_patterns(
            ".transcripts", ".task_outputs", "__pycache__", ".memory"))
        session = Session(ws)
        play(session)
    head = {"type": "summary", "summary": LABEL, "leafUuid": session.parent[False]}
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for r in [head, *session.records])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = build()
    if "--check" in argv:
        fresh = OUT.is_file() and OUT.read_text(encoding="utf-8") == text
        if not fresh:
            print(f"would change: {OUT.relative_to(ROOT)}")
        return 0 if fresh else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8", newline="\n")
    print(f"{OUT.relative_to(ROOT)}: {text.count(chr(10))} records, {len(text):,} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
