"""Claude Code session files: the JSONL under ~/.claude/projects/<project>/<session>.jsonl.

Each line is one record with a `type`. What the model saw is in the `user`
and `assistant` records' `message` (`role` and `content`, as in the Messages
API); the rest is bookkeeping: `summary` (a title), `file-history-snapshot`
(backups for undo), `system` (events, `compact_boundary` among them), and
more kinds in newer versions. Records link by `uuid` and `parentUuid`. The
format is Claude Code's own and undocumented; this reads what its files hold:

- the main thread: from the newest main-thread message back along
  `parentUuid`, so a branch left by a rewind is not read; `isSidechain`
  records (a subagent's own conversation) and `isMeta` records (notes the
  harness adds, not typed by anyone) are left out;
- one assistant message written as several records (one content block each,
  the same `message.id`) is joined back into one;
- tool results: each `user` record's `tool_result` blocks; `toolUseResult`,
  the tool's structured output kept beside them, is not what the model read
  and is left out;
- compactions Claude Code did (`compact_boundary`, then a summary message
  marked `isCompactSummary`): the chain goes on to the boundary's
  `logicalParentUuid`, so the messages before it are read again and the other
  agent's summary is left out; this pipeline makes its own. When those
  messages are not in the file, the summary stays, as the only account of them.

Left out: subagent files of their own (`agent-*.jsonl`: import one as a session
of its own), and the harness's settings, todos and timings.
"""

from .build import to_history
from .source import SessionFileError, json_lines, read_text

MESSAGE_TYPES = ("user", "assistant")


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


def _main_thread(path, records: list) -> list:
    """The records of the main thread, oldest first, by parentUuid from the newest message."""
    by_uuid = {r["uuid"]: (line, r) for line, r in records if isinstance(r.get("uuid"), str)}
    leaves = [(line, r) for line, r in records
              if r.get("type") in MESSAGE_TYPES and not r.get("isSidechain")]
    if not leaves:
        raise SessionFileError(path, None, "no user or assistant record outside a sidechain")
    chain, seen = [], set()
    line, record = leaves[-1]
    while True:
        chain.append((line, record))
        seen.add(record.get("uuid"))
        parent = record.get("parentUuid") or _before_compaction(record, by_uuid)
        if not parent:
            return chain[::-1]
        if parent in seen:
            raise SessionFileError(path, line, f"parentUuid {parent!r} loops back to a later record")
        if parent not in by_uuid:
            raise SessionFileError(path, line, f"parentUuid {parent!r} is not the uuid of any record")
        line, record = by_uuid[parent]


def _before_compaction(record, by_uuid) -> str | None:
    """A compaction boundary's link to the last message before it, when that is in the file."""
    if record.get("subtype") == "compact_boundary" and record.get("logicalParentUuid") in by_uuid:
        return record["logicalParentUuid"]
    return None


def _spoken(chain: list) -> list:
    """(line, message) for what the model saw, with split assistant messages joined."""
    restored = any(r.get("subtype") == "compact_boundary" and _has_uuid(chain, r.get("logicalParentUuid"))
                   for _, r in chain)
    items, open_reply = [], None      # open_reply: (message.id, index) of the newest assistant item
    for line, record in chain:
        if record.get("type") not in MESSAGE_TYPES or record.get("isMeta") or record.get("isSidechain"):
            continue
        if record.get("isCompactSummary") and restored:
            continue
        message = record["message"]
        content = _as_blocks(message["content"]) if record["type"] == "assistant" else message["content"]
        message_id = message.get("id") if record["type"] == "assistant" else None
        if message_id and open_reply and open_reply[0] == message_id \
                and all(_only_results(m) for _, m in items[open_reply[1] + 1:]):
            # One reply written block by block; results of its earlier blocks may sit between.
            items[open_reply[1]][1]["content"] += content
            continue
        if record["type"] == "assistant":
            open_reply = (message_id, len(items))
        items.append((line, {"role": message["role"], "content": content}))
    return items


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


def load(path) -> dict:
    records = json_lines(path, read_text(path))
    for line, record in records:
        _check_record(path, line, record)
    return to_history(path, "claude-code", _spoken(_main_thread(path, records)), _title(records))


def looks_like(records: list) -> bool:
    """A JSONL file of Claude Code records: typed records that carry a uuid or a message."""
    return any(isinstance(r, dict) and isinstance(r.get("type"), str)
               and ("uuid" in r or "leafUuid" in r or "messageId" in r) for _, r in records)
