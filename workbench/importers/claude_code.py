"""Claude Code session files: the JSONL under ~/.claude/projects/<project>/<session>.jsonl.

Each line is one record with a `type`. What the model saw is in the `user`
and `assistant` records' `message` (`role` and `content`, as in the Messages
API); the rest is bookkeeping: `summary` (a title), `file-history-snapshot`
(backups for undo), `system` (events, `compact_boundary` among them), and
more kinds in newer versions. Records link by `uuid` and `parentUuid`. The
format is Claude Code's own and undocumented; this reads what its files hold:

- the main thread: from the newest main-thread message back along
  `parentUuid`, so a branch left by a rewind is not read. Main-thread
  messages off that chain are left out with a warning naming their lines;
  a file where no record names its parent (every `parentUuid` null or
  missing) is read in file order, with a warning too; a parent that is not
  in the file (a session resumed from another) starts the chain, with a warning;
- `isSidechain` records (a subagent's conversation, inside the main file)
  are left out; a file where every message is a sidechain (a subagent's own
  `agent-*.jsonl`) is that subagent's session and is read as one;
- `isMeta` user records are what the harness sent the model without anyone
  typing it: the expanded prompt of a slash command (right after the record
  holding the `<command-name>` tags), a skill's instructions, an image's
  path. They are kept, as the model read them, and the expanded prompt is
  the current request. Only the caveat lines about local commands
  ("Caveat: ...", `<local-command-caveat>`) are left out, and counted;
- one assistant message written as several records (one content block each,
  the same `message.id`) is joined back into one;
- tool results: each `user` record's `tool_result` blocks; `toolUseResult`,
  the tool's structured output kept beside them, is not what the model read
  and is left out;
- compactions Claude Code did (`compact_boundary`, then a summary message
  marked `isCompactSummary`): the chain goes on to the boundary's
  `logicalParentUuid`, so the messages before it are read again and the other
  agent's summary is left out; this pipeline makes its own. When those
  messages are not in the file, the summary stays, as the only account of them;
- a half-written last line (the session is still being written) is skipped
  with a warning.

Every record read is counted by kind, and every one left out by why, in the
history's `import_report` and `import_notes` (see report.py).

Left out: the harness's settings, todos and timings, and a subagent's
sidechain merged back into its parent's session (import its file alone).
"""

import re

from compact.messages import text_of, tool_results

from .build import to_history
from .report import ImportReport, line_list
from .source import SessionFileError, json_lines, read_text

MESSAGE_TYPES = ("user", "assistant")
# A user record that only names a slash command: the harness's tags, nothing typed.
_COMMAND_TAG = re.compile(r"\s*<(command-(?:name|message|args))>([\s\S]*?)</\1>\s*")
# Output of a local command (/model, /cost): the harness's, not a request.
_LOCAL_OUTPUT = re.compile(r"\s*(<(local-command-(?:stdout|stderr))>[\s\S]*?</\2>\s*)+")
_CAVEAT = re.compile(r"\s*(Caveat:|<local-command-caveat>[\s\S]*</local-command-caveat>\s*$)")


def _check_record(path, line: int, record) -> None:
    if not isinstance(record, dict):
        raise SessionFileError(path, line, f"expected a JSON object, found {type(record).__name__}")
    if record.get("type") in MESSAGE_TYPES:
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role") != record["type"]:
            raise SessionFileError(path, line, f"a {record['type']} record without a "
                                               f"{record['type']} 'message'")
        if not isinstance(message.get("content"), (str, list)):
            raise SessionFileError(path, line, "message.content must be a text or a list of blocks")


def kind_of(record) -> str:
    """A record's kind for the report: its type, and what marks it."""
    kind = str(record.get("type", "untyped"))
    if record.get("isSidechain"):
        return f"{kind} (sidechain)"
    return f"{kind} (isMeta)" if record.get("isMeta") else kind


def _is_message(record, sidechain: bool) -> bool:
    return record.get("type") in MESSAGE_TYPES and bool(record.get("isSidechain")) == sidechain


def _thread(path, records: list, sidechain: bool, report: ImportReport) -> list:
    """The records of the thread read, oldest first: by parentUuid from its newest
    message, or in file order when no message of it names a parent."""
    members = [(line, r) for line, r in records if _is_message(r, sidechain)]
    if not any(isinstance(r.get("parentUuid"), str) for _, r in members):
        if len(members) > 1:
            report.warn("no parent chain", [line for line, _ in members],
                        f"no record names its parent (parentUuid null or missing): "
                        f"the {len(members)} messages on lines {line_list(line for line, _ in members)} "
                        f"are read in file order")
        return members
    chain = _chain(path, records, members[-1], report)
    on_chain = {line for line, _ in chain}
    off = [line for line, _ in members if line not in on_chain]
    for line in off:
        report.leave_out("off the parent chain", line)
    if off:
        report.warn("off the parent chain", off,
                    f"{len(off)} message record{'s' if len(off) > 1 else ''} off the parentUuid chain "
                    f"(a rewound branch or a broken link) left out: line{'s' if len(off) > 1 else ''} "
                    f"{line_list(off)}")
    return chain


def _chain(path, records: list, newest, report: ImportReport) -> list:
    by_uuid = {r["uuid"]: (line, r) for line, r in records if isinstance(r.get("uuid"), str)}
    chain, seen = [], set()
    line, record = newest
    while True:
        chain.append((line, record))
        seen.add(record.get("uuid"))
        parent = record.get("parentUuid") or _before_compaction(record, by_uuid)
        if not parent:
            return chain[::-1]
        if parent in seen:
            raise SessionFileError(path, line, f"parentUuid {parent!r} loops back to a later record")
        if parent not in by_uuid:
            # The chain starts in another file (a resumed session) or lost a record: what is
            # here is read, and the messages before this one are left out, by _thread, named.
            report.warn("dangling parent", [line], f"line {line} names a parent (parentUuid {parent!r}) "
                                                   f"that is not in the file: the chain starts there")
            return chain[::-1]
        line, record = by_uuid[parent]


def _before_compaction(record, by_uuid) -> str | None:
    """A compaction boundary's link to the last message before it, when that is in the file."""
    if record.get("subtype") == "compact_boundary" and record.get("logicalParentUuid") in by_uuid:
        return record["logicalParentUuid"]
    return None


def command_line(text: str) -> str | None:
    """'/name args' when a user text is only a slash command's tags; None otherwise."""
    tags = dict((m[1], m[2].strip()) for m in _COMMAND_TAG.finditer(text))
    if "command-name" not in tags or "".join(_COMMAND_TAG.split(text)[::3]).strip():
        return None
    return f"{tags['command-name']} {tags.get('command-args', '')}".strip()


class _Requests:
    """The texts that said what the task was, oldest first: what a person typed,
    a slash command as '/name args', replaced by its expanded prompt (the isMeta
    record right after it) when the file has one."""

    def __init__(self):
        self.texts, self.command_open = [], False

    def add(self, record, message) -> None:
        if message["role"] != "user" or tool_results(message):
            self.command_open = False
            return
        text = text_of(message["content"]).strip()
        if record.get("isMeta"):
            if self.command_open and text:
                self.texts[-1] = text
            self.command_open = False
            return
        command = command_line(text)
        self.command_open = command is not None
        if command or (text and not _LOCAL_OUTPUT.fullmatch(text)):
            self.texts.append(command or text)


def _spoken(chain: list, report: ImportReport) -> tuple:
    """([(line, message)] for what the model saw, with split assistant messages
    joined; the requests, oldest first)."""
    restored = any(r.get("subtype") == "compact_boundary" and _has_uuid(chain, r.get("logicalParentUuid"))
                   for _, r in chain)
    items, requests, open_reply = [], _Requests(), None   # open_reply: (message.id, index)
    for line, record in chain:
        if record.get("type") not in MESSAGE_TYPES:
            continue
        message = record["message"]
        if record.get("isMeta") and _CAVEAT.match(text_of(message["content"])):
            report.leave_out("meta caveat", line)
            continue
        if record.get("isCompactSummary") and restored:
            report.leave_out("other agent's summary", line)
            continue
        content = _as_blocks(message["content"]) if record["type"] == "assistant" else message["content"]
        message_id = message.get("id") if record["type"] == "assistant" else None
        requests.add(record, message)
        if message_id and open_reply and open_reply[0] == message_id \
                and all(_only_results(m) for _, m in items[open_reply[1] + 1:]):
            # One reply written block by block; results of its earlier blocks may sit between.
            items[open_reply[1]][1]["content"] += content
            continue
        if record["type"] == "assistant":
            open_reply = (message_id, len(items))
        items.append((line, {"role": message["role"], "content": content}))
    return items, requests.texts


def _as_blocks(content) -> list:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _only_results(message) -> bool:
    return message["role"] == "user" and isinstance(message["content"], list) and all(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in message["content"])


def _has_uuid(chain, uuid) -> bool:
    return bool(uuid) and any(r.get("uuid") == uuid for _, r in chain)


def _title(records) -> str | None:
    titles = [r["summary"] for _, r in records
              if r.get("type") == "summary" and isinstance(r.get("summary"), str)]
    return titles[-1] if titles else None


def _read(path, report: ImportReport) -> list:
    notes = []
    records = json_lines(path, read_text(path), notes)
    for _, line, problem in notes:
        report.leave_out("half-written line", line)
        report.warn("half-written", line, f"line {line} is half-written (a session still being "
                                          f"written?) and is left out: {problem}")
    for line, record in records:
        _check_record(path, line, record)
        report.read(kind_of(record), line)
    return records


def _count_the_rest(records: list, kept_lines: set, report: ImportReport, sidechain: bool) -> None:
    """Every record neither kept nor counted yet is left out under its kind."""
    counted = {line for lines in report.left_out.values() for line in lines}
    for line, record in records:
        if line in kept_lines or line in counted:
            continue
        if record.get("type") in MESSAGE_TYPES and bool(record.get("isSidechain")) != sidechain:
            report.leave_out("sidechain", line)
        elif record.get("type") not in MESSAGE_TYPES:
            report.leave_out(str(record.get("type", "untyped")), line)


def load(path) -> dict:
    report = ImportReport()
    records = _read(path, report)
    if not any(r.get("type") in MESSAGE_TYPES for _, r in records):
        raise SessionFileError(path, None, "no user or assistant record")
    # A subagent's own file (agent-*.jsonl) holds only its sidechain: that is the session.
    sidechain = not any(_is_message(r, False) for _, r in records)
    if sidechain:
        report.warn("subagent file", [], "every message is a sidechain: a subagent's own "
                                         "file, read as a session of its own")
    chain = _thread(path, records, sidechain, report)
    items, requests = _spoken(chain, report)
    kept = {line for line, r in chain if r.get("type") in MESSAGE_TYPES}
    _count_the_rest(records, kept, report, sidechain)
    return to_history(path, "claude-code", items, _title(records), requests=requests, report=report)


def looks_like(records: list) -> bool:
    """A JSONL file of Claude Code records: typed records that carry a uuid or a message."""
    return any(isinstance(r, dict) and isinstance(r.get("type"), str)
               and ("uuid" in r or "leafUuid" in r or "messageId" in r) for _, r in records)
