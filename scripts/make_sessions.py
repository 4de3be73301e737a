"""Make sample session files in today's formats from the sample workspace, byte for byte.

    .venv/bin/python scripts/make_sessions.py          # write them into data/sessions/
    .venv/bin/python scripts/make_sessions.py --check  # exit 1 if a file would change

Every file is MADE, NOT RECORDED: no Claude Code, no Codex CLI, no model ran.
Each says so where its format has room for a note (a `summary` record, the
rollout's `session_meta` instructions, the body's `metadata`, the
trajectory's `notes`), and so does data/sessions/README.md. Each is in its
format's real shape, so the importers (compact_course/sessions/) read what a
practitioner's file holds:

- `claude_code_2_1.jsonl`, as Claude Code 2.1.x writes a session: each
  content block of a reply its own record under one `message.id`; parallel
  calls whose results each name their own tool_use record as parent
  (`sourceToolAssistantUUID`), so the batch fans out; a subagent (`Task`)
  whose conversation is its own file, `claude_code_2_1/subagents/agent-*.jsonl`;
  and a compaction: a `compact_boundary` record, then the summary
  (`isCompactSummary`). The summary is written here, in the sections Claude
  Code's summaries have; it is not a model's.
- `claude_code_2_1_live.jsonl`, the same format as a practitioner copies it
  out of a session still running: a compaction that kept the last exchange
  word for word (`compactMetadata.preservedSegment`: the kept records stay
  where they were written, the next prompt's parent is the summary), and a
  last batch of parallel calls of which one has its result yet.
- `rollout-2026-01-08T10-00-00-<id>.jsonl`, an OpenAI Codex CLI rollout:
  session_meta, turn_context, response items (messages, reasoning, shell
  calls, an apply_patch custom tool call, a web search), event messages, a
  `compacted` record with its `replacement_history`, and a last call the
  session never answered (it stopped mid-call).
- `rollout-2026-07-20T09-00-00-<id>.jsonl`, a rollout of a current Codex CLI
  (the lines openai/codex's RolloutItem has since `token_usage_record` came in):
  `token_usage_record` and `world_state` lines, a `configuration_update` item,
  another agent's message (`inter_agent_communication`, and an `agent_message`
  item), and a server-side compaction (`context_compaction`, then `compacted`
  with the replacement history).
- `rollout-2025-05-07T17-24-21-<id>.jsonl`, an early Codex CLI rollout (before
  the typed lines): the session's meta with no type, bare response items and
  `{"record_type": "state"}` lines, as openai/codex's rollout.rs wrote them at 89a151f.
- `responses_request.json`, an OpenAI Responses API request body:
  instructions, tools, input items with function calls and their outputs.
- `atif_trajectory.json`, an ATIF v1.4 trajectory (harbor's format).

The tool calls are scripted; their output is not: every result is the real
output of `compact_course.agent.tools.run_tool` on a scratch copy of data/workspace.
Ids and times come from counters, so the bytes are the same on every run.
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
OUT = ROOT / "data" / "sessions"
CWD = "/home/learner/agent-course"          # a made path: the files name no real folder
START = datetime(2026, 1, 8, 10, 0, tzinfo=UTC)
MADE = "MADE, NOT RECORDED by scripts/make_sessions.py from data/workspace"
S08, S09, LOG = "s08_context_compact/code.py", "s09_memory/code.py", "logs/test_run.log"
TASK = "Find why tests fail in logs/test_run.log and fix what belongs to s08_context_compact."
NEXT = "Now compare how s08 and s09 keep state between turns."
CLAUDE_SUMMARY = """This session is being continued from a previous conversation that ran out of context. \
The conversation is summarized below:
Analysis:
The user asked why tests fail in logs/test_run.log and to fix what belongs to s08_context_compact. \
I read the log, listed the Python files and searched the log for FAILED lines; a subagent read the \
READMEs of s01 to s05; I read s08_context_compact/code.py and its snip_cut.

Summary:
1. Primary Request and Intent: find the failing tests in logs/test_run.log; fix the ones in \
s08_context_compact.
2. Key Technical Concepts: snip_cut, SNIP_MAX_MESSAGES, SNIP_KEEP_HEAD, tool_use / tool_result pairs.
3. Files and Code Sections: logs/test_run.log (three failures); s08_context_compact/code.py \
(snip_cut computes the tail start).
4. Errors and fixes: test_snip_keeps_pairs fails because snip_cut can cut between a tool_use and \
its tool_result.
5. Problem Solving: the tail may start before the head; keeping it at or after the head fixes it.
6. All user messages: "Find why tests fail in logs/test_run.log and fix what belongs to \
s08_context_compact."
7. Pending Tasks: edit snip_cut.
8. Current Work: about to edit the tail computation in snip_cut.
9. Optional Next Step: apply the edit and check it with grep."""
LIVE_SUMMARY = """This session is being continued from a previous conversation that ran out of context. \
The conversation is summarized below:
Summary:
1. Primary Request and Intent: find the failing tests in logs/test_run.log; fix the ones in \
s08_context_compact.
2. Errors and fixes: three tests fail; test_snip_keeps_pairs is in s08_context_compact.
3. Pending Tasks: fix snip_cut; leave the other lessons' files as they are."""
CODEX_SUMMARY = ("The user asked to find why tests fail in logs/test_run.log and fix what belongs to "
                 "s08_context_compact. pytest output in the log shows three failures; "
                 "test_snip_keeps_pairs is in s08: snip_cut can start the tail before the head. "
                 "A patch to s08_context_compact/code.py keeps the tail at or after the head.")


def numbered(text: str) -> str:
    """A file's text as Claude Code's Read shows it: `cat -n` style."""
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(text.splitlines(), start=1))


class Clock:
    """Deterministic ids and times: the n-th of each kind, the n-th second."""

    def __init__(self, name: str):
        self.name, self.count = name, 0

    def tick(self) -> tuple:
        self.count += 1
        stamp = (START + timedelta(seconds=5 * self.count)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"compact-course/{self.name}/{self.count}")), stamp


# -- Claude Code 2.1.x -------------------------------------------------------------------------

CLAUDE_TOOLS = {   # Claude Code's tool -> the course's tool and its input
    "Read": lambda i: ("read_file", {"path": i["file_path"]}),
    "Bash": lambda i: ("bash", {"command": i["command"]}),
    "Grep": lambda i: ("bash", {"command": f"grep -n '{i['pattern']}' {i['path']}"}),
    "Glob": lambda i: ("glob", {"pattern": i["pattern"]}),
    "Edit": lambda i: ("edit_file", {"path": i["file_path"], "old_text": i["old_string"],
                                     "new_text": i["new_string"]}),
}


class ClaudeThread:
    """One thread's records (the main session, or a subagent's file), written as 2.1.x writes them."""

    def __init__(self, workspace: Path, clock: Clock, session_id: str, agent_id: str | None = None):
        self.workspace, self.clock, self.session_id, self.agent_id = workspace, clock, session_id, agent_id
        self.records, self.parent, self.replies = [], None, 0

    def _add(self, kind: str, message: dict, parent=None, **extra) -> str:
        uid, stamp = self.clock.tick()
        side = {"agentId": self.agent_id} if self.agent_id else {}
        self.records.append({"parentUuid": parent if parent is not None else self.parent,
                             "isSidechain": bool(self.agent_id), "userType": "external", "cwd": CWD,
                             "sessionId": self.session_id, "version": "2.1.9-made",
                             "gitBranch": "main", **side, "type": kind, "message": message,
                             "uuid": uid, "timestamp": stamp, **extra})
        self.parent = uid
        return uid

    def typed(self, text: str, **extra) -> str:
        return self._add("user", {"role": "user", "content": text}, **extra)

    def reply(self, note: str | None, *calls, subagent=None, answered: int | None = None) -> list:
        """One reply: a record a block, chained; then each result, its parent the record of its
        own tool_use (so the batch fans out); the next record follows the last result.
        `answered`: how many results are written yet (a session still running)."""
        self.replies += 1
        message_id = f"msg_made_{self.clock.name}_{self.replies:03d}"
        uses = [{"type": "tool_use", "id": f"toolu_made_{self.clock.name}_{self.replies:03d}_{k}",
                 "name": name, "input": tool_input} for k, (name, tool_input) in enumerate(calls)]
        blocks = ([{"type": "text", "text": note}] if note else []) + uses
        owners = {}
        for block in blocks:
            uid = self._add("assistant", {"id": message_id, "type": "message", "role": "assistant",
                                          "model": "made-by-script", "content": [block],
                                          "stop_reason": None,
                                          "usage": {"input_tokens": 0, "output_tokens": 0}},
                            requestId=f"req_{message_id}")
            owners[block.get("id")] = uid
        outputs = []
        for use in uses[:answered]:
            output = subagent(use["input"]) if use["name"] == "Task" else self._run(use)
            outputs.append(output)
            self._add("user", {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": use["id"], "content": output}]},
                parent=owners[use["id"]], sourceToolAssistantUUID=owners[use["id"]],
                toolUseResult={"stdout": output[:200]} if use["name"] != "Task" else {"status": "completed"})
        return outputs

    def answer(self, text: str) -> None:
        self.reply(text)

    def _run(self, use: dict) -> str:
        name, tool_input = CLAUDE_TOOLS[use["name"]](use["input"])
        output = run_tool(self.workspace, name, tool_input)
        if str(self.workspace) in output:
            raise RuntimeError(f"{use['name']} {use['input']}: output names the scratch folder")
        return numbered(output) if use["name"] == "Read" else output

    def compact(self, summary: str, pre_tokens: int) -> None:
        """Claude Code's own compaction: the boundary breaks the chain (parentUuid null) and
        keeps the logical parent; the summary follows it."""
        uid, stamp = self.clock.tick()
        self.records.append({"parentUuid": None, "logicalParentUuid": self.parent, "isSidechain": False,
                             "userType": "external", "cwd": CWD, "sessionId": self.session_id,
                             "version": "2.1.9-made", "gitBranch": "main", "type": "system",
                             "subtype": "compact_boundary", "content": "Conversation compacted",
                             "isMeta": False, "timestamp": stamp, "uuid": uid, "level": "info",
                             "compactMetadata": {"trigger": "auto", "preTokens": pre_tokens}})
        self.parent = uid
        self.typed(summary, isCompactSummary=True, isVisibleInTranscriptOnly=True)

    def compact_keeping(self, summary: str, pre_tokens: int, head: str) -> None:
        """A compaction that keeps the records from `head` to the last one word for word: they
        stay where they were written; the boundary names them (`preservedSegment`, anchored on
        the summary), and the next record's parent is the summary."""
        tail = self.parent
        uid, stamp = self.clock.tick()
        anchor = str(uuid.uuid5(uuid.NAMESPACE_URL, f"compact-course/{self.clock.name}/anchor"))
        self.records.append({"parentUuid": None, "logicalParentUuid": tail, "isSidechain": False,
                             "userType": "external", "cwd": CWD, "sessionId": self.session_id,
                             "version": "2.1.9-made", "gitBranch": "main", "type": "system",
                             "subtype": "compact_boundary", "content": "Conversation compacted",
                             "isMeta": False, "timestamp": stamp, "uuid": uid, "level": "info",
                             "compactMetadata": {"trigger": "auto", "preTokens": pre_tokens,
                                                 "preservedSegment": {"headUuid": head, "anchorUuid": anchor,
                                                                      "tailUuid": tail}}})
        self.parent = uid
        self._add("user", {"role": "user", "content": summary}, isCompactSummary=True,
                  isVisibleInTranscriptOnly=True)
        self.records[-1]["uuid"] = self.parent = anchor


def claude_code(workspace: Path) -> dict:
    clock = Clock("claude-2-1")
    session_id = str(uuid.uuid5(uuid.NAMESPACE_URL, "compact-course/claude-2-1/session"))
    main = ClaudeThread(workspace, clock, session_id)
    agent_id = "a3f9c2e1"
    agent = ClaudeThread(workspace, Clock("claude-2-1-agent"), session_id, agent_id)

    def subagent(task: dict) -> str:
        agent.typed(task["prompt"])
        outputs = agent.reply("Reading the five READMEs at once.",
                              *(("Read", {"file_path": f"s0{n}_{name}/README.md"}) for n, name in
                                ((1, "agent_loop"), (2, "tool_use"), (3, "planning"), (4, "subagents"),
                                 (5, "todo_write"))))
        titles = [next((line.split("\t", 1)[1].lstrip("# ") for line in out.splitlines() if "\t#" in line),
                       "(no title)") for out in outputs]
        text = "The five lessons' titles: " + "; ".join(titles) + "."
        agent.answer(text)
        return text

    main.typed(TASK)
    main.reply("I'll read the log, list the code and find the failures, all at once.",
               ("Read", {"file_path": LOG}), ("Glob", {"pattern": "**/*.py"}),
               ("Grep", {"pattern": "FAILED", "path": LOG}))
    main.reply("A subagent can read the lesson READMEs while I read s08.",
               ("Task", {"description": "Lesson titles", "subagent_type": "general-purpose",
                         "prompt": "Read the README.md of s01 to s05 and report each first-level title."}),
               ("Read", {"file_path": S08}), subagent=subagent)
    main.reply("Looking at snip_cut and its constants.", ("Grep", {"pattern": "def snip_cut", "path": S08}),
               ("Grep", {"pattern": "SNIP_", "path": S08}))
    main.compact(CLAUDE_SUMMARY, pre_tokens=168_204)
    main.reply("Re-reading snip_cut before the edit.", ("Bash", {"command": f"sed -n 225,260p {S08}",
                                                                 "description": "Show snip_cut"}))
    main.reply("I'll keep the tail from moving before the head.", ("Edit", {
        "file_path": S08, "old_string": "    tail = len(messages) - (SNIP_MAX_MESSAGES - SNIP_KEEP_HEAD)",
        "new_string": "    tail = max(head, len(messages) - (SNIP_MAX_MESSAGES - SNIP_KEEP_HEAD))"}))
    main.answer("Fixed snip_cut in s08_context_compact/code.py: the tail can no longer start before the "
                "head, so no tool_result is cut from its tool_use (test_snip_keeps_pairs).")
    main.typed(NEXT)
    main.reply("Reading both side by side.", ("Read", {"file_path": S09}),
               ("Grep", {"pattern": "class MemoryStore", "path": S09}),
               ("Grep", {"pattern": "transcript", "path": S08}))
    main.answer("s08 keeps state in the message list and writes transcripts when it compacts; s09 adds a "
                "MemoryStore under .memory/ that outlives a compaction.")
    head = {"type": "summary", "summary": f"{MADE}: a sample in Claude Code 2.1.x's session format",
            "leafUuid": main.parent}
    return {"claude_code_2_1.jsonl": [head, *main.records],
            f"claude_code_2_1/subagents/agent-{agent_id}.jsonl": agent.records}


def claude_code_live(workspace: Path) -> dict:
    """A 2.1.x session copied while it runs: a compaction that kept the last exchange, and a
    last batch of three reads of which one has its result yet."""
    clock = Clock("claude-2-1-live")
    main = ClaudeThread(workspace, clock, str(uuid.uuid5(uuid.NAMESPACE_URL, "compact-course/live/session")))
    main.typed(TASK)
    main.reply("Searching the log and listing the code at once.",
               ("Grep", {"pattern": "FAILED", "path": LOG}), ("Glob", {"pattern": "s0*/code.py"}))
    main.answer("Three tests fail; test_snip_keeps_pairs is in s08_context_compact.")
    head = main.typed("Keep the other lessons' files as they are.")
    main.answer("Understood: only s08_context_compact/code.py changes.")
    main.compact_keeping(LIVE_SUMMARY, pre_tokens=171_250, head=head)
    main.typed(NEXT)
    main.reply("Searching both at once.", ("Grep", {"pattern": "class MemoryStore", "path": S09}),
               ("Grep", {"pattern": "transcript", "path": S08}),
               ("Grep", {"pattern": "def ", "path": S09}), answered=1)
    first = {"type": "summary", "summary": f"{MADE}: Claude Code 2.1.x, copied while it runs",
             "leafUuid": main.parent}
    return {"claude_code_2_1_live.jsonl": [first, *main.records]}


# -- OpenAI Codex CLI --------------------------------------------------------------------------

def message_item(role: str, text: str) -> dict:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


class Rollout:
    """A Codex CLI rollout: `{"timestamp", "type", "payload"}` a line."""

    def __init__(self, workspace: Path):
        self.workspace, self.lines, self.clock, self.calls = workspace, [], Clock("codex"), 0

    def add(self, kind: str, payload: dict) -> None:
        self.lines.append({"timestamp": self.clock.tick()[1], "type": kind, "payload": payload})

    def message(self, role: str, text: str) -> None:
        self.add("response_item", message_item(role, text))

    def typed(self, text: str) -> None:
        self.message("user", text)
        self.add("event_msg", {"type": "user_message", "message": text, "images": []})

    def shell(self, *commands: str, answered: bool = True) -> list:
        """Parallel shell calls, then their outputs in Codex's shape (JSON text: output, metadata)."""
        ids = []
        for command in commands:
            self.calls += 1
            ids.append(f"call_made_{self.calls:03d}")
            self.add("response_item", {"type": "function_call", "name": "shell", "arguments": json.dumps(
                {"command": ["bash", "-lc", command], "workdir": CWD, "timeout_ms": 120000}),
                "call_id": ids[-1]})
        if not answered:
            return []
        outputs = []
        for call_id, command in zip(ids, commands, strict=True):
            out = run_tool(self.workspace, "bash", {"command": command})
            outputs.append(out)
            shown = json.dumps({"output": out, "metadata": {"exit_code": 0, "duration_seconds": 0.1}})
            self.add("response_item", {"type": "function_call_output", "call_id": call_id, "output": shown})
        return outputs

    def reasoning(self, summary: str) -> None:
        self.add("response_item", {"type": "reasoning", "content": None,
                                   "summary": [{"type": "summary_text", "text": summary}],
                                   "encrypted_content": "made-not-encrypted"})


def codex(workspace: Path) -> dict:
    r = Rollout(workspace)
    session = str(uuid.uuid5(uuid.NAMESPACE_URL, "compact-course/codex/session"))
    r.add("session_meta", {"id": session, "timestamp": r.clock.tick()[1], "cwd": CWD,
                           "originator": "codex_cli_rs", "cli_version": "0.58.0-made",
                           "instructions": MADE, "source": "cli", "model_provider": "openai"})
    r.message("developer", "<permissions instructions>Sandbox: workspace-write. Approvals: on-request."
                           "</permissions instructions>")
    r.message("user", f"<environment_context>\n  <cwd>{CWD}</cwd>\n  <approval_policy>on-request"
                      f"</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n"
                      f"</environment_context>")
    r.add("turn_context", {"cwd": CWD, "approval_policy": "on-request",
                           "sandbox_policy": {"mode": "workspace-write"}, "model": "made-by-script",
                           "effort": "medium", "summary": "auto"})
    r.typed(TASK)
    r.reasoning("**Reading the log and the code**")
    r.shell(f"grep -n FAILED {LOG}", f"grep -n 'def snip_cut' -A 14 {S08}")
    r.add("event_msg", {"type": "token_count", "info": None})
    r.add("response_item", {"type": "web_search_call", "status": "completed",
                            "action": {"type": "search", "query": "tool_use tool_result pairs snip"}})
    r.reasoning("**Patching snip_cut**")
    r.calls += 1
    patch = ("*** Begin Patch\n*** Update File: s08_context_compact/code.py\n@@\n"
             "-    tail = len(messages) - (SNIP_MAX_MESSAGES - SNIP_KEEP_HEAD)\n"
             "+    tail = max(head, len(messages) - (SNIP_MAX_MESSAGES - SNIP_KEEP_HEAD))\n*** End Patch")
    r.add("response_item", {"type": "custom_tool_call", "status": "completed",
                            "call_id": f"call_made_{r.calls:03d}", "name": "apply_patch", "input": patch})
    edited = run_tool(workspace, "edit_file", {
        "path": S08, "old_text": "    tail = len(messages) - (SNIP_MAX_MESSAGES - SNIP_KEEP_HEAD)",
        "new_text": "    tail = max(head, len(messages) - (SNIP_MAX_MESSAGES - SNIP_KEEP_HEAD))"})
    r.add("response_item", {"type": "custom_tool_call_output", "call_id": f"call_made_{r.calls:03d}",
                            "output": json.dumps({"output": edited, "metadata": {"exit_code": 0}})})
    r.message("assistant", "Fixed snip_cut: the tail can no longer start before the head.")
    r.add("event_msg", {"type": "agent_message", "message": "Fixed snip_cut: the tail can no longer "
                                                            "start before the head."})
    replacement = [message_item("user", TASK), message_item("user", CODEX_SUMMARY)]
    r.add("compacted", {"message": CODEX_SUMMARY, "replacement_history": replacement})
    r.add("event_msg", {"type": "context_compacted"})
    r.typed(NEXT)
    r.shell(f"grep -n 'class MemoryStore' -A 6 {S09}", f"grep -c transcript {S08}")
    r.message("assistant", "s08 keeps state in the message list; s09 adds a MemoryStore under .memory/.")
    r.typed("Run the s09 checks too.")
    r.shell("python s09_memory/code.py --check", answered=False)     # the session stopped mid-call
    return {f"rollout-2026-01-08T10-00-00-{session}.jsonl": r.lines}


def codex_today(workspace: Path) -> dict:
    """A rollout of a current CLI: the bookkeeping lines and response items openai/codex's
    RolloutItem and ResponseItem have since token_usage_record came in."""
    r = Rollout(workspace)
    r.clock = Clock("codex-today")
    session = str(uuid.uuid5(uuid.NAMESPACE_URL, "compact-course/codex/today"))
    r.add("session_meta", {"id": session, "timestamp": r.clock.tick()[1], "cwd": CWD,
                           "originator": "codex_cli_rs", "cli_version": "0.160.0-made",
                           "base_instructions": {"text": MADE}, "source": "cli", "model_provider": "openai"})
    r.add("world_state", {"full": True, "state": {"environments": {"current_date": "2026-07-20"}}})
    r.add("turn_context", {"cwd": CWD, "approval_policy": "on-request", "model": "made-by-script",
                           "effort": "medium", "summary": "auto"})
    r.typed(TASK)
    r.add("response_item", {"type": "configuration_update", "reasoning": {"effort": "high"}})
    r.reasoning("**Reading the failures**")
    r.shell(f"grep -n FAILED {LOG}")
    r.add("token_usage_record", {"response_id": "resp_made_1", "thread_id": session,
                                 "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}})
    r.add("inter_agent_communication", {"author": "/root/reviewer", "recipient": "/root",
                                        "other_recipients": [], "content": "s09 is not part of this fix.",
                                        "trigger_turn": False})
    said = "test_snip_keeps_pairs fails alone."
    r.add("response_item", {"type": "agent_message", "author": "/root/tester", "recipient": "/root",
                            "content": [{"type": "input_text", "text": said}]})
    r.shell(f"grep -n 'def snip_cut' -A 14 {S08}")
    r.add("token_usage_record", {"response_id": "resp_made_2", "thread_id": session,
                                 "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}})
    r.message("assistant", "snip_cut can start the tail before the head; the fix keeps it at or after.")
    replacement = [message_item("user", TASK),
                   {"type": "compaction", "encrypted_content": "made-not-encrypted"}]
    r.add("response_item", {"type": "context_compaction", "encrypted_content": "made-not-encrypted"})
    r.add("compacted", {"message": "", "replacement_history": replacement,
                        "compaction_response_id": "resp_made_3"})
    r.typed(NEXT)
    r.shell(f"grep -c transcript {S08}")
    r.message("assistant", "s08 writes transcripts when it compacts.")
    return {f"rollout-2026-07-20T09-00-00-{session}.jsonl": r.lines}


def codex_early(workspace: Path) -> dict:
    """An early rollout (openai/codex codex-rs/core/src/rollout.rs at 89a151f): the meta with
    no type, then bare response items (no reasoning) and `{"record_type": "state"}` lines."""
    r = Rollout(workspace)
    session = str(uuid.uuid5(uuid.NAMESPACE_URL, "compact-course/codex/early-session"))
    r.add("meta", {"id": session, "timestamp": "2025-05-07T17:24:21.000Z", "instructions": MADE})
    r.message("user", TASK)
    r.shell(f"grep -n FAILED {LOG}")     # one call at a time, each with its output
    r.add("state", {"record_type": "state"})
    r.shell(f"grep -n 'def snip_cut' -A 14 {S08}")
    r.add("state", {"record_type": "state"})
    r.message("assistant", "test_snip_keeps_pairs fails: snip_cut can start the tail before the head.")
    r.add("state", {"record_type": "state"})
    # The bare payloads, one a line: the typed lines came later.
    return {f"rollout-2025-05-07T17-24-21-{session}.jsonl": [line["payload"] for line in r.lines]}


# -- Responses API body and ATIF trajectory ------------------------------------------------------

def responses_body(workspace: Path) -> dict:
    log = run_tool(workspace, "bash", {"command": f"grep -n FAILED {LOG}"})
    code = run_tool(workspace, "bash", {"command": f"grep -n 'def snip_cut' -A 14 {S08}"})
    body = {
        "model": "made-by-script",
        "metadata": {"note": MADE},
        "instructions": "You are a coding agent working in the course's sample workspace.",
        "tools": [{"type": "function", "name": "bash", "description": "Run a shell command.",
                   "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                                  "required": ["command"]}}],
        "input": [
            {"role": "user", "content": TASK},
            {"type": "reasoning", "id": "rs_made_1", "summary": [
                {"type": "summary_text", "text": "Read the failures, then the function."}]},
            {"type": "function_call", "call_id": "call_made_1", "name": "bash",
             "arguments": json.dumps({"command": f"grep -n FAILED {LOG}"})},
            {"type": "function_call", "call_id": "call_made_2", "name": "bash",
             "arguments": json.dumps({"command": f"grep -n 'def snip_cut' -A 14 {S08}"})},
            {"type": "function_call_output", "call_id": "call_made_1", "output": log},
            {"type": "function_call_output", "call_id": "call_made_2", "output": code},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text":
                "test_snip_keeps_pairs fails: snip_cut can start the tail before the head."}]},
            {"role": "user", "content": [{"type": "input_text", "text": "Fix it."}]},
        ],
        "store": False,
    }
    return {"responses_request.json": body}


def atif(workspace: Path) -> dict:
    commands = [f"grep -n FAILED {LOG}", f"grep -n 'def snip_cut' -A 14 {S08}"]
    outputs = [run_tool(workspace, "bash", {"command": c}) for c in commands]
    clock = Clock("atif")
    steps = [
        {"step_id": 1, "timestamp": clock.tick()[1], "source": "system",
         "message": "You are a coding agent working in the course's sample workspace."},
        {"step_id": 2, "timestamp": clock.tick()[1], "source": "user", "message": TASK},
        {"step_id": 3, "timestamp": clock.tick()[1], "source": "agent", "model_name": "made-by-script",
         "message": "Reading the failures and the function.",
         "reasoning_content": "Two reads at once: the log's failures and snip_cut.",
         "tool_calls": [{"tool_call_id": f"call_{n}", "function_name": "bash", "arguments": {"command": c}}
                        for n, c in enumerate(commands, start=1)],
         "observation": {"results": [{"source_call_id": f"call_{n}", "content": out}
                                     for n, out in enumerate(outputs, start=1)]},
         "metrics": {"prompt_tokens": 0, "completion_tokens": 0}},
        {"step_id": 4, "timestamp": clock.tick()[1], "source": "agent", "model_name": "made-by-script",
         "message": "test_snip_keeps_pairs fails: snip_cut can start the tail before the head."},
    ]
    trajectory = {"schema_version": "ATIF-v1.4",
                  "session_id": str(uuid.uuid5(uuid.NAMESPACE_URL, "compact-course/atif/session")),
                  "agent": {"name": "made-by-script", "version": "0.0", "model_name": "made-by-script"},
                  "notes": MADE, "steps": steps, "final_metrics": {"total_steps": len(steps)}}
    return {"atif_trajectory.json": trajectory}


def build() -> dict:
    """{path under data/sessions: text} for every made file."""
    files = {}
    with tempfile.TemporaryDirectory() as scratch:
        for make in (claude_code, claude_code_live, codex, codex_today, codex_early, responses_body, atif):
            ws = Path(scratch) / make.__name__
            shutil.copytree(WORKSPACE, ws, ignore=shutil.ignore_patterns(
                ".transcripts", ".task_outputs", "__pycache__", ".memory"))
            files.update(make(ws))
    return {name: ("".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in value)
                   if name.endswith(".jsonl") else json.dumps(value, ensure_ascii=False, indent=2) + "\n")
            for name, value in files.items()}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    files = build()
    if "--check" in argv:
        stale = [name for name, text in files.items()
                 if not (OUT / name).is_file() or (OUT / name).read_text(encoding="utf-8") != text]
        for name in stale:
            print(f"would change: data/sessions/{name}")
        return 1 if stale else 0
    for name, text in files.items():
        (OUT / name).parent.mkdir(parents=True, exist_ok=True)
        (OUT / name).write_text(text, encoding="utf-8", newline="\n")
        print(f"data/sessions/{name}: {text.count(chr(10))} lines, {len(text):,} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
