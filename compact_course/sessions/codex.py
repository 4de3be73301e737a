"""OpenAI Codex CLI rollouts: ~/.codex/sessions/YYYY/MM/DD/rollout-<date>-<id>.jsonl.

Each line is `{"timestamp", "type", "payload"}` (newer CLIs add `ordinal`, and
`metadata` beside a response item's payload); the type says what the payload
is. `LINES` is the table, from openai/codex's `RolloutItem` (codex-rs/history,
codex-rs/protocol):

    session_meta    the session's id, folder, CLI version, instructions     left out
    turn_context    a turn's settings (model, sandbox, approval policy)     left out
    response_item   one Responses API item, as the model saw or wrote it    read (responses.py)
    inter_agent_communication  what another agent sent (author, content)     read, a user text
    event_msg       what the CLI showed (user_message, agent_message,       left out; a
                    token_count, exec_command_end, ...)                     user_message
                                                                            is the request
    compacted       Codex's own compaction: `message` (the summary) and     kept as such
                    `replacement_history` (the items that replaced the context)
    token_usage_record, world_state, retained_context, security_risk_score,  left out
    realtime_item, inter_agent_communication_metadata: bookkeeping (tokens billed,
                    the environment, resume data), never a turn the model read

A line of another type is left out and counted as odd (odd.py), never an error.

The messages are the response items in file order, before and after each
compaction, so the pipeline replays the whole session (a rollout does not
write the replacement history again as items). Each `compacted` record goes
into the history's `compactions`: its line, the summary text, its
`replacement_history` as written, and `at`, the index of the first message
after it. A compaction done by the server holds its summary only encrypted (a
`compaction` item): `encrypted` says so and `summary` is empty. A rollout that
starts with a compaction (nothing before it in the file, as a resumed or forked
session can) starts with its replacement history: what the model saw.

What a person typed is in the `user_message` events; the user messages the
CLI wrote itself (`<environment_context>`, AGENTS.md instructions) are kept
as the model read them, and are never the request. A call with no output
(the session stopped mid-call) is kept, answered by a result saying so (odd.py).

An early rollout (2025's first CLI versions, before the typed lines; openai/codex
codex-rs/core/src/rollout.rs at 89a151f) is read too. Its first line is the
session's meta with no type (`{"id", "timestamp", "instructions"}`), then bare
response items one a line (messages, shell and function calls, their outputs) and
`{"record_type": "state", ...}` lines (the previous response's id, left out). It
has no `user_message` events, so the request is the last user text the CLI did not write.

Left out: the `event_msg` stream (it repeats the items for the screen) and the settings.
"""

import re

from . import responses
from .build import to_history, typed_text
from .report import ImportReport
from .source import SessionFileError, reported_lines

# line type -> what is done with it (a type not here is odd: left out and counted)
LINES = {
    "session_meta": "left out",
    "turn_context": "left out",
    "response_item": "read",
    "inter_agent_communication": "read",
    "event_msg": "left out (a user_message says what the task is)",
    "compacted": "kept apart, in the history's compactions",
    "token_usage_record": "left out",
    "world_state": "left out",
    "retained_context": "left out",
    "security_risk_score": "left out",
    "realtime_item": "left out",
    "inter_agent_communication_metadata": "left out",
    "state": "left out",          # an early rollout's {"record_type": "state"} line
}
# User messages the CLI wrote itself, not a person.
_HARNESS = re.compile(r"\s*(<environment_context>|<user_instructions>|<user_shell_command>|"
                      r"<turn_aborted>|# AGENTS\.md instructions)")


def _kind(record) -> str:
    payload = record.get("payload") if isinstance(record.get("payload"), dict) else {}
    if record.get("type") == "response_item":
        return responses.item_kind(payload)
    if record.get("type") == "event_msg":
        return f"event_msg ({payload.get('type')})"
    return str(record.get("type", "untyped"))


def _is_early(records: list) -> bool:
    """The first line an early rollout's meta: an id and a timestamp, no type, no role."""
    first = records[0][1] if records else None
    return isinstance(first, dict) and {"id", "timestamp"} <= first.keys() \
        and "type" not in first and "role" not in first


def _early_line(record) -> str | None:
    """What a line after an early rollout's meta is: "state", "response_item", or None."""
    if isinstance(record, dict) and record.get("record_type") == "state":
        return "state"
    return "response_item" if isinstance(record, dict) and isinstance(record.get("type"), str) else None


def _early(records: list, report: ImportReport) -> list:
    """An early rollout's lines as typed ones: the meta, then items and state lines."""
    typed = [(records[0][0], {"type": "session_meta", "payload": records[0][1]})]
    for line, record in records[1:]:
        if _early_line(record) is not None:
            typed.append((line, {"type": _early_line(record), "payload": record}))
        else:
            report.odd("unreadable record", line, "not a line of an early rollout")
    return typed


def _records(path, report: ImportReport) -> list:
    """The rollout's lines that can be read, each counted by kind; the others counted as odd."""
    records = reported_lines(path, report)
    if _is_early(records):
        records = _early(records, report)
    kept = []
    for line, record in records:
        kind = record.get("type") if isinstance(record, dict) else None
        if not isinstance(kind, str) or not isinstance(record.get("payload"), dict):
            report.odd("unreadable record", line, "not a rollout line: no \"type\" or no \"payload\" object")
        elif kind not in LINES:
            report.odd("unknown record type", line, kind)
        else:
            report.read(_kind(record), line)
            kept.append((line, record))
    return kept


def _compaction(line: int, payload: dict, items: list) -> dict:
    """A `compacted` record, kept as such; `at` counts the messages before it."""
    at = sum(1 for item_line, _ in items if item_line < line)
    history = _replacement(payload)
    encrypted = any(isinstance(i, dict) and i.get("type") in ("compaction", "compaction_summary")
                    for i in history)
    return {"format": "codex", "line": line, "summary_line": line,
            "summary": str(payload.get("message") or ""), "trigger": None, "pre_tokens": None,
            "at": at, "before_in_file": at > 0, "replacement_history": history,
            "encrypted": encrypted and not payload.get("message")}


def _typed(messages: list) -> list:
    """What a person typed, when the file has no user_message events: user texts
    that are not the CLI's own, nor another agent's."""
    texts = [typed_text(m) for _, m in messages]
    return [t for t in texts if t and not _HARNESS.match(t) and not t.startswith(responses.AGENT_MESSAGE)]


def _replacement(payload: dict) -> list:
    history = payload.get("replacement_history")
    return history if isinstance(history, list) else []


def _message(path, line: int, record, report: ImportReport):
    """The message of a line the model read (a response item, an agent's message), or None."""
    payload = record["payload"]
    if record["type"] == "inter_agent_communication":
        return responses.agent_message(payload.get("author"), payload.get("recipient"),
                                       [str(payload.get("content") or "")])
    try:
        return responses.convert(path, line, payload, report)
    except SessionFileError as error:
        report.odd("unreadable record", line, error.problem)
        return None


def _opening(path, line: int, payload: dict, report: ImportReport) -> list:
    """A first compaction's replacement history, as the messages the file starts with."""
    items = []
    for item in _replacement(payload):
        report.read("replacement_history item", line)
        message = _message(path, line, {"type": "response_item", "payload": item}, report)
        items += [(line, message)] if message else []
    return items


def load(path) -> dict:
    report = ImportReport()
    items, compactions, typed = [], [], []
    for line, record in _records(path, report):
        kind, payload = record["type"], record["payload"]
        if kind in ("response_item", "inter_agent_communication"):
            message = _message(path, line, record, report)
            items += [(line, message)] if message is not None else []
        elif kind == "compacted":
            items += [] if items else _opening(path, line, payload, report)
            compactions.append((line, payload))
        else:
            if kind == "event_msg" and payload.get("type") == "user_message":
                typed.append(str(payload.get("message") or ""))
            report.leave_out(_kind(record), line)
    compactions = [_compaction(line, payload, items) for line, payload in compactions]
    for compaction in compactions:
        report.compacted(compaction)
    return to_history(path, "codex", items, requests=typed or _typed(items), report=report,
                      compactions=compactions)


def looks_like(records: list) -> bool:
    """Rollout lines: a typed record with a payload, a session_meta or a response_item among
    them; or an early rollout's: the meta first, then only items and state lines."""
    if _is_early(records) and len(records) > 1 \
            and all(_early_line(r) is not None for _, r in records[1:]):
        return True
    return any(isinstance(r, dict) and r.get("type") in ("session_meta", "response_item")
               and isinstance(r.get("payload"), dict) for _, r in records)
