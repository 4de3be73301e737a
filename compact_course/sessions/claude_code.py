"""Claude Code session files: the JSONL under ~/.claude/projects/<project>/<session>.jsonl.

Each line is one record with a `type`. What the model saw is in the `user`
and `assistant` records' `message` (`role` and `content`, as in the Messages
API); the rest is bookkeeping: `summary` (a title), `file-history-snapshot`
(backups for undo), `system` (events, `compact_boundary` among them), and
more kinds in newer versions. Records link by `uuid` and `parentUuid`. The
format is Claude Code's own and undocumented; this reads what its files hold:

- the main thread: from the newest main-thread message back along
  `parentUuid`, so a branch left by a rewind is not read. A parallel batch
  fans out (since 2.1.x each tool_result's parent is its own tool_use record,
  as `sourceToolAssistantUUID` says): the reply's other records and their
  results are put back beside the walk (`_with_batches`). Main-thread
  messages off that chain are left out with a warning naming their lines;
  a file where no record names its parent (every `parentUuid` null or
  missing) is read in file order, with a warning too; a parent that is not
  in the file (a session resumed from another, a lost record) or one that
  loops back starts the chain there, counted as odd (odd.py);
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
  the same `message.id`) is joined back into one, each block once; the
  joined lines are in the report;
- tool results: each `user` record's `tool_result` blocks; `toolUseResult`,
  the tool's structured output kept beside them, is not what the model read
  and is left out;
- compactions Claude Code did (`compact_boundary`, then a summary message
  marked `isCompactSummary`) are kept as such, in the history's `compactions`:
  the boundary's line, the summary's line and text, its trigger and token
  count, and `at`, the index of the first message after it. The chain goes on
  to the boundary's `logicalParentUuid`, so the messages before it are read
  too and the summary is not one of the messages (the pipeline makes its own).
  When those messages are not in the file, the summary stays a message as
  well, as the only account of them (`before_in_file` False);
- a compaction that kept messages word for word after its summary (the
  boundary's `compactMetadata.preservedSegment`, head to tail, or the newer
  `preservedMessages` list of uuids): Claude Code's own loader
  (`applyPreservedSegmentRelinks`) links the head to the anchor on reading; the
  records keep their first parents in the file, so the walk reads them where
  they were written, and the compaction names them in `kept` (message indexes);
  a boundary whose logical parent is one of them, already read, goes on from the
  newest kept message not yet read;
- a half-written last line (the session is still being written), or any line
  that is not JSON, is skipped and counted (odd.py).

Every record read is counted by kind, and every one left out by why, in the
history's `import_report` and `import_notes` (see report.py). A user or
assistant record without a readable `message` is left out and counted as odd;
content of an older shape (a list of texts, a text part with no type) is read
as text (odd.py).

Left out: the harness's settings, todos and timings, and a subagent's
sidechain merged back into its parent's session (import its file alone).
"""

import re

from context_compact.messages import tool_results

from .build import to_history
from .report import ImportReport, line_list
from .source import SessionFileError, reported_lines

MESSAGE_TYPES = ("user", "assistant")
# A user record that only names a slash command: the harness's tags, nothing typed.
_COMMAND_TAG = re.compile(r"\s*<(command-(?:name|message|args))>([\s\S]*?)</\1>\s*")
# Output of a local command (/model, /cost): the harness's, not a request.
_LOCAL_OUTPUT = re.compile(r"\s*(<(local-command-(?:stdout|stderr))>[\s\S]*?</\2>\s*)+")
_CAVEAT = re.compile(r"\s*(Caveat:|<local-command-caveat>[\s\S]*</local-command-caveat>\s*$)")


def _problem(record) -> str | None:
    """Why a record cannot be read, or None."""
    if not isinstance(record, dict):
        return f"expected a JSON object, found {type(record).__name__}"
    if record.get("type") in MESSAGE_TYPES:
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role") != record["type"]:
            return f"a {record['type']} record without a {record['type']} 'message'"
        if not isinstance(message.get("content"), (str, list, type(None))):
            return "message.content must be a text or a list of blocks"
    return None


def text_of(content) -> str:
    """The text of a content value as the file has it (a text part's text may be of any type)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(b if isinstance(b, str) else b["text"] for b in content
                     if isinstance(b, str) or isinstance(b, dict) and b.get("type", "text") == "text"
                     and isinstance(b.get("text"), str))


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
    chain = _chain(path, records, members, report)
    chain = _with_batches(records, _with_lost_links(records, chain, members, report), sidechain)
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


def _chain(path, records: list, members: list, report: ImportReport) -> list:
    """The walk from the newest message back by parentUuid. A parent that is not in the
    file (a lost record, a session resumed from another) is counted, and the walk goes on
    from the message written just before (the parent a writer that lost nothing names);
    one that loops back ends it, counted too."""
    by_uuid = {r["uuid"]: (line, r) for line, r in records if isinstance(r.get("uuid"), str)}
    chain, seen, taken = [], set(), set()
    line, record = members[-1]
    while True:
        chain.append((line, record))
        seen.add(_id(record, "uuid"))
        taken.add(line)
        parent = _id(record, "parentUuid") or _before_compaction(record, by_uuid, seen)
        if not parent:
            return chain[::-1]
        if parent in seen:
            report.odd("parent loop", line, parent)
            return chain[::-1]
        if parent not in by_uuid:
            report.odd("parent not in the file", line, parent)
            before = [m for m in members if m[0] < line and m[0] not in taken]
            if not before:
                return chain[::-1]
            line, record = before[-1]
            continue
        line, record = by_uuid[parent]


def _with_lost_links(records: list, chain: list, members: list, report: ImportReport) -> list:
    """The chain with each message off it whose parent is not in the file (a lost link,
    never a rewind: a rewound branch starts from a record that is there) put back after
    the record of the chain written before it."""
    uuids = {r["uuid"] for _, r in records if isinstance(r.get("uuid"), str)}
    on_chain = {line for line, _ in chain}
    lost = [(line, r) for line, r in members if line not in on_chain
            and isinstance(r.get("parentUuid"), str) and r["parentUuid"] not in uuids]
    for line, record in lost:
        report.odd("parent not in the file", line, record["parentUuid"])
        place = max((n for n, (at, _) in enumerate(chain) if at < line), default=-1)
        chain = [*chain[:place + 1], (line, record), *chain[place + 1:]]
    return chain


def _with_batches(records: list, chain: list, sidechain: bool) -> list:
    """The chain with the rest of each parallel batch put back.

    Since 2.1.x a reply's blocks are records of one `message.id`, one after the
    other, and each tool_result record's parent is the record of its own
    tool_use (`sourceToolAssistantUUID` says the same): a batch of N calls
    fans out into N branches, and the walk from the newest leaf follows one.
    The records of the reply off that walk, and the results whose parent is one
    of them, belong to the session: they go back in file order right after the
    reply's last record on the chain. A rewound branch starts a new message
    (a new prompt or a new reply) and so is not one of these."""
    on_chain = {line for line, _ in chain}
    uuids = {_id(r, "uuid") for _, r in chain}
    answered = {_id(b, "tool_use_id") for _, r in chain if r.get("type") == "user"
                for b in _result_blocks(r["message"])}
    group_of = {}             # message.id -> [(line, record)] of that reply, in file order
    results_of = {}           # parentUuid -> [(line, record)] of tool_result records
    for line, record in records:
        if not _is_message(record, sidechain):
            continue
        message_id = record["message"].get("id") if record["type"] == "assistant" else None
        if isinstance(message_id, str):
            group_of.setdefault(message_id, []).append((line, record))
        elif record["type"] == "user" and _carries_results(record["message"]):
            results_of.setdefault(_id(record, "parentUuid"), []).append((line, record))
    extra, done = {}, set()   # the line of a reply's last record on the chain -> what follows it
    for _, record in chain:
        message_id = record["message"].get("id") if record.get("type") == "assistant" else None
        if not isinstance(message_id, str) or message_id in done:
            continue
        done.add(message_id)
        group = group_of.get(message_id, [])
        found = [*group, *(result for _, member in group
                           for result in results_of.get(_id(member, "uuid"), ()))]
        # A record is put back once: not one on the chain, nor a copy of one (same uuid),
        # nor a second result for a call the chain already answers.
        found = {_id(r, "uuid") or n: (n, r) for n, r in found
                 if n not in on_chain and _id(r, "uuid") not in uuids and not _answered(r, answered)}
        if found:
            anchor = max(n for n, _ in group if n in on_chain)
            extra[anchor] = sorted(found.values(), key=lambda item: item[0])
            on_chain.update(n for n, _ in found.values())
            uuids.update(found)
    return [item for entry in chain for item in (entry, *extra.get(entry[0], ()))]


def _result_blocks(message) -> list:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] \
        if isinstance(content, list) else []


def _carries_results(message) -> bool:
    return bool(_result_blocks(message))


def _answered(record, answered: set) -> bool:
    """A tool_result record whose every result answers a call the chain already answers."""
    blocks = _result_blocks(record["message"]) if record.get("type") == "user" else []
    return bool(blocks) and all(_id(b, "tool_use_id") in answered for b in blocks)


def _id(record, key: str) -> str | None:
    """A link field (uuid, parentUuid, tool_use_id) when it is a text; None for any other value."""
    value = record.get(key)
    return value if isinstance(value, str) else None


def _before_compaction(record, by_uuid, seen: set) -> str | None:
    """A compaction boundary's link to the last message before it, when that is in the file:
    its logical parent, or (when that was read already: a kept message written after the
    summary) the newest message it kept that was not."""
    if record.get("subtype") != "compact_boundary":
        return None
    candidates = [_id(record, "logicalParentUuid"), *reversed(_preserved(record))]
    return next((c for c in candidates if c in by_uuid and c not in seen), None)


def _field(record, key: str) -> dict:
    return record[key] if isinstance(record.get(key), dict) else {}


def _listed(boundary) -> list | None:
    """`compactMetadata.preservedMessages.uuids`, the newer list of every kept message."""
    uuids = _field(_field(boundary, "compactMetadata"), "preservedMessages").get("uuids")
    return list(uuids) if isinstance(uuids, list) and all(isinstance(u, str) for u in uuids) else None


def _preserved(boundary) -> list:
    """The uuids a compaction kept word for word, oldest first: `preservedMessages.uuids`, or
    `preservedSegment`'s head and tail (the records between are found by walking back)."""
    listed = _listed(boundary)
    if listed is not None:
        return listed
    segment = _field(_field(boundary, "compactMetadata"), "preservedSegment")
    return [u for u in (segment.get("headUuid"), segment.get("tailUuid")) if isinstance(u, str)]


def _kept_items(chain: list, boundary, item_of: dict) -> list:
    """The item indexes (into _spoken's items) of the messages a compaction kept: the
    listed uuids, or for a segment every message of the chain from its head to its tail."""
    uuids = _preserved(boundary)
    if _listed(boundary) is None and len(uuids) == 2:
        order = [_id(r, "uuid") for _, r in chain]
        if all(u in order for u in uuids):
            head, tail = sorted(order.index(u) for u in uuids)
            uuids = order[head:tail + 1]
    return sorted({item_of[u] for u in uuids if u in item_of})


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
        if message["role"] != "user" or tool_results(message) or record.get("isCompactSummary"):
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
    joined; the requests, oldest first; the compactions recorded on the way)."""
    items, requests, open_reply = [], _Requests(), None   # open_reply: (message.id, index)
    compactions, boundary, item_of = [], None, {}         # item_of: uuid -> index in items
    for line, record in chain:
        if record.get("subtype") == "compact_boundary":
            boundary = (line, record)
            continue
        if record.get("type") not in MESSAGE_TYPES:
            continue
        message = record["message"]
        if record.get("isMeta") and _CAVEAT.match(text_of(message["content"])):
            report.leave_out("meta caveat", line)
            continue
        if record.get("isCompactSummary"):
            compaction = _compaction(chain, boundary, line, message, len(items))
            compactions.append((compaction, boundary[1] if boundary else {}))
            report.compacted(compaction)
            boundary = None
            if compaction["before_in_file"]:
                continue      # kept in `compactions`; the messages it summarized are read instead
        content = _as_blocks(message["content"]) if record["type"] == "assistant" else message["content"]
        message_id = message.get("id") if record["type"] == "assistant" else None
        requests.add(record, message)
        if message_id and open_reply and open_reply[0] == message_id \
                and all(_only_results(m) for _, m in items[open_reply[1] + 1:]):
            # One reply written block by block; results of its earlier blocks may sit between.
            # A block already in it (a writer that repeats the reply so far) is not added twice.
            reply = items[open_reply[1]][1]["content"]
            reply += [block for block in content if block not in reply]
            report.joined(line)
            item_of[_id(record, "uuid")] = open_reply[1]
            continue
        if record["type"] == "assistant":
            open_reply = (message_id, len(items))
        item_of[_id(record, "uuid")] = len(items)
        items.append((line, {"role": message["role"], "content": content}))
    for compaction, boundary_record in compactions:
        if _preserved(boundary_record):
            compaction["kept_items"] = _kept_items(chain, boundary_record, item_of)
    return items, requests.texts, [c for c, _ in compactions]


def _compaction(chain, boundary, line: int, message, at: int) -> dict:
    """Claude Code's own compaction: where it happened and the summary its model wrote.
    `at` counts the items before it (build.to_history makes it a message index)."""
    boundary_line, record = boundary or (line, {})
    meta = record.get("compactMetadata") if isinstance(record.get("compactMetadata"), dict) else {}
    return {"format": "claude-code", "line": boundary_line, "summary_line": line,
            "summary": text_of(message["content"]), "trigger": meta.get("trigger"),
            "pre_tokens": meta.get("preTokens"), "at": at,
            "before_in_file": _has_uuid(chain, _id(record, "logicalParentUuid"))}


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
    """The records that can be read, each counted by kind; the others counted as odd."""
    kept = []
    for line, record in reported_lines(path, report):
        problem = _problem(record)
        if problem:
            report.odd("unreadable record", line, problem)
            continue
        if record.get("type") in MESSAGE_TYPES and record["message"].get("content") is None:
            record = {**record, "message": {**record["message"], "content": []}}
        report.read(kind_of(record), line)
        kept.append((line, record))
    return kept


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
        raise SessionFileError(path, None, "no conversation in the file: no user or assistant record "
                                           "could be read")
    # A subagent's own file (agent-*.jsonl) holds only its sidechain: that is the session.
    sidechain = not any(_is_message(r, False) for _, r in records)
    if sidechain:
        report.warn("subagent file", [], "every message is a sidechain: a subagent's own "
                                         "file, read as a session of its own")
    chain = _thread(path, records, sidechain, report)
    items, requests, compactions = _spoken(chain, report)
    kept = {line for line, r in chain if r.get("type") in MESSAGE_TYPES
            or r.get("subtype") == "compact_boundary"}
    _count_the_rest(records, kept, report, sidechain)
    return to_history(path, "claude-code", items, _title(records), requests=requests, report=report,
                      compactions=compactions)


def looks_like(records: list) -> bool:
    """A JSONL file of Claude Code records: typed records that carry a uuid or a message."""
    return any(isinstance(r, dict) and isinstance(r.get("type"), str)
               and ("uuid" in r or "leafUuid" in r or "messageId" in r) for _, r in records)
