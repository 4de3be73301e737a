"""The API's server-side compaction, played offline: the `compaction` block, made and taken back.

Two features of the real API end in the same block (`anthropic.types.beta.BetaCompactionBlock`):
- `compact_20260112` (beta `compact-2026-01-12`), an edit in `context_management`:
  once the prompt reaches its `trigger` (input tokens, default 150,000; the offline
  server takes no less than MIN_TRIGGER), the server summarizes the conversation and the
  model answers from the summary; the reply starts with the block, and with
  `pause_after_compaction` it is the block alone, `stop_reason` "compaction";
- `compaction={"type": "summarize"}` (beta `compact-2026-09-04`): compact now,
  answer with the block alone (`BetaCompactionConfigParam`).
The client sends the block back and it stands for everything before it (`adopt`). Where
it may be, from three sources that agree: the API's docs ("append the response to your
messages"; the API "drops all message blocks prior to the compaction block"); the SDK,
whose `to_param()` of a reply makes an assistant message that starts with the block (its
tool runner sends that message first); and a real exchange, pydantic-ai's recorded
compaction round trip, which the API answered 200: the block, `content` alone, first in
the assistant message after the user's, text after it. The types' `compaction_block_misplaced`
("not the first block of the conversation, or is in a system message") is read after
that drop: only a block in a system message is misplaced.

A signed block must be this server's, as it returned it: `signature` is
`<record>.<HMAC-SHA256>`, the record holding digests of `content` and
`tool_changes` and the HMAC covering it and `encrypted_content`, keyed with a
secret each server makes when it starts. A changed record or HMAC is
`compaction_signature_invalid`; a changed `content` under a good record is
`compaction_content_mismatch`; changed `tool_changes`, `compaction_tool_changes_mismatch`
(the SDK's error classes, through `error.details.error_code`). A block with no
`signature` (pydantic-ai keeps `content` alone) is read as the client's summary, and
its `encrypted_content`, which nothing then vouches for, is not read.

The offline model's choices, where the API documents nothing (docs/AFTER_THE_ARTICLE.md):
- the summary is the offline model's state summary (`state_summary`, the one step 4
  gets: goal, files and facts, decisions, done, pending); `instructions` are
  accepted and change nothing, since a program follows no prompt;
- `encrypted_content` is not encrypted: base64 of JSON saying what the block
  stands for (messages, tokens, the request the user typed last), signed, readable;
- the model reads a block as the pipeline's `[Compacted]` message (`formats.summary_message`),
  whose request is the one a signed block carries (an unsigned block carries none);
- the `compaction` entry of `usage.iterations` (`compaction_usage`). The SDK's
  docstring (`BetaUsage.iterations`) says it reports the compaction operation
  itself, not the context it closed, and that a compaction closing about 200k
  tokens "can report only a few thousand"; how the API reaches those counts is
  not documented. The offline estimate, ours: input is the summary prompt's
  instructions (`formats.SUMMARY_SYSTEM`, the text the server adds to the context
  it already holds), output the summary, no cache counts. The benchmark's server
  designs book the same counts (`compact_course.bench.server_designs`).

Left out: `tool_changes` other than `[]` (the offline server has no inline tools; an
unsigned block's are not read).
"""

import base64
import hashlib
import hmac
import json

from context_compact import formats
from context_compact.messages import tool_uses, user_text
from context_compact.summary import summary_input

from ..model.summary_reply import summarize
from ..tokens import estimate_text_tokens

EDIT_TYPE = "compact_20260112"
BETA = "compact-2026-01-12"
ON_DEMAND_BETA = "compact-2026-09-04"
DEFAULT_TRIGGER = 150_000
# Ours: the SDK's types name only the default; 50,000 is the minimum the course read in the
# API's compaction docs and could not find again (issue 31), so the notebooks call it ours.
MIN_TRIGGER = 50_000
COMPACTION_PROMPT = formats.SUMMARY_SYSTEM   # what the compaction's usage counts as its input
NO_TRANSCRIPT = "none: the server keeps no transcript; the client holds the full history"


class CompactionError(ValueError):
    """A compaction block or request the API refuses; `code` is its `error_code`."""

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.code = code


def summary_request(messages) -> dict:
    """The request step 4 sends for a summary, over the whole conversation (no middle
    cut: the server reads its own context whole)."""
    text = summary_input(messages, limit=len(json.dumps(messages, ensure_ascii=False)) + 1)
    return {"system": formats.SUMMARY_SYSTEM, "messages": [{"role": "user", "content": text}]}


def compaction_usage(summary: str) -> dict:
    """The `compaction` entry of `usage.iterations`: the offline estimate (see above)."""
    return {"type": "compaction", "input_tokens": estimate_text_tokens(COMPACTION_PROMPT),
            "output_tokens": estimate_text_tokens(summary),
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def state_summary(messages) -> str:
    """The offline model's summary of `messages`, as step 4 gets it: the one place
    server-side compaction asks for a summary."""
    return summarize(summary_request(messages))


def last_request(messages) -> str:
    """What the user typed last: the block carries it, so the model's goal survives."""
    for message in reversed(messages):
        typed = user_text(message) if message.get("role") == "user" else ""
        match = formats.SUMMARY_RE.match(typed)
        if match:
            return match["request"]
        if typed:
            return typed
    return ""


# -- the signature -------------------------------------------------------------------

def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def _mac(secret: bytes, record: str, encrypted) -> str:
    return hmac.new(secret, f"{record}\n{encrypted or ''}".encode(), hashlib.sha256).hexdigest()


def _b64(value) -> str:
    return base64.urlsafe_b64encode(json.dumps(value, sort_keys=True).encode()).decode()


def make_block(summary: str, messages, tokens: int, secret: bytes) -> dict:
    """The `compaction` block for `summary`, which stands for `messages` (`tokens` of prompt)."""
    meta = {"messages": len(messages), "input_tokens": tokens, "request": last_request(messages)}
    encrypted = _b64(meta)
    record = _b64({"content": _digest(summary), "tool_changes": _digest([])})
    return {"type": "compaction", "content": summary, "encrypted_content": encrypted,
            "signature": f"{record}.{_mac(secret, record, encrypted)}", "tool_changes": []}


def block_meta(block: dict) -> dict:
    """What a block says it stands for (its `encrypted_content`, read back)."""
    try:
        meta = json.loads(base64.urlsafe_b64decode(block.get("encrypted_content") or ""))
    except ValueError:
        meta = None
    return meta if isinstance(meta, dict) else {}


def verify(block: dict, secret: bytes, where: str) -> None:
    """CompactionError unless this server signed the block as it stands."""
    record, _, mac = str(block.get("signature") or "").partition(".")
    # Bytes: compare_digest raises TypeError on a str that is not ASCII (issue 29: a 500).
    good = hmac.compare_digest(mac.encode(), _mac(secret, record, block.get("encrypted_content")).encode())
    try:
        digests = json.loads(base64.urlsafe_b64decode(record)) if good else None
    except ValueError:
        digests = None
    if not isinstance(digests, dict):
        raise CompactionError(f"{where}.signature: the compaction block's signature does not verify; "
                              f"send the block back exactly as this server returned it",
                              "compaction_signature_invalid")
    if digests.get("content") != _digest(block.get("content")):
        raise CompactionError(f"{where}.content: the compaction block's content differs from the "
                              f"summary its signature recorded", "compaction_content_mismatch")
    if digests.get("tool_changes") != _digest(block.get("tool_changes") or []):
        raise CompactionError(f"{where}.tool_changes: differ from what was returned with the block",
                              "compaction_tool_changes_mismatch")


# -- a block sent back ------------------------------------------------------------

def _blocks_of(messages):
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        for j, block in enumerate(content if isinstance(content, list) else []):
            if _is_block(block):
                yield i, j, block


def has_blocks(messages) -> bool:
    return any(True for _ in _blocks_of(messages if isinstance(messages, list) else []))


def adopt(messages: list, secret: bytes) -> list:
    """The messages the model reads: a compaction block with content stands for everything
    before it, wherever the client keeps it (first, or in the assistant message that brought
    it). What comes before it is dropped, the block is read as the summary it holds
    (`as_read`), and the rest of its message and the messages after it follow as sent.

    A signed block must be this server's, unchanged (`verify`); an unsigned one is the
    client's summary, read as sent. Blocks with null content are no-ops and are dropped,
    as the SDK's types say.
    """
    found = list(_blocks_of(messages))
    for i, j, _ in found:
        if messages[i].get("role") == "system":
            raise CompactionError(f"messages.{i}.content.{j}: a compaction block cannot be in a system "
                                  f"message", "compaction_block_misplaced")
    live = [(i, j, b) for i, j, b in found if b.get("content") is not None]
    if len(live) > 1:
        raise CompactionError(f"messages.{live[1][0]}.content.{live[1][1]}: messages hold more than one "
                              f"compaction block with content; send only the one returned last",
                              "compaction_block_ambiguous")
    if not live:
        return _without_blocks(messages)
    i, j, block = live[0]
    where = f"messages.{i}.content.{j}"
    if not isinstance(block["content"], str) or not block["content"]:
        raise CompactionError(f"{where}.content: a compaction block's content must be a non-empty "
                              f"string or null")
    if block.get("signature") is not None:
        verify(block, secret, where)
    holder = messages[i]
    after = [b for b in holder["content"][j + 1:] if not _is_block(b)]
    return [as_read(block), *([{**holder, "content": after}] if after else []),
            *_without_blocks(messages[i + 1:])]


def _without_blocks(messages: list) -> list:
    """`messages` without their (no-op) compaction blocks; a message left empty goes too."""
    out = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list) or not any(_is_block(b) for b in content):
            out.append(message)
            continue
        rest = [b for b in content if not _is_block(b)]
        if rest:
            out.append({**message, "content": rest})
    return out


def _is_block(block) -> bool:
    return isinstance(block, dict) and block.get("type") == "compaction"


def as_read(block: dict) -> dict:
    """How the offline model reads a block: the pipeline's `[Compacted]` message, with the
    request a signed block carries; an unsigned block carries none (what it replaced is
    dropped, not read for one)."""
    carried = block_meta(block).get("request") if block.get("signature") is not None else None
    return formats.summary_message("Compacted", carried if isinstance(carried, str) else "",
                                   block["content"], NO_TRANSCRIPT)


def ends_unfinished(messages) -> bool:
    """An assistant turn last whose tool calls wait for results: nothing a summary can close."""
    last = messages[-1] if isinstance(messages, list) and messages else None
    return isinstance(last, dict) and last.get("role") == "assistant" \
        and isinstance(last.get("content"), list) and bool(tool_uses(last))
