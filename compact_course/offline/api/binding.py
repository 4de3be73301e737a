"""Preserved thinking on the offline server: each thinking block is bound to its model and its prefix.

The API's rule (platform.claude.com/docs/en/build-with-claude/preserved-thinking, and
the pinned SDK's types `BetaThinkingBlockBindingParam`, `BetaThinkingDroppedInputTransformation`):
from Claude Fable 5.1 on, a `thinking` or `redacted_thinking` block sent back is
checked by its `signature` (a redacted block's `data`):
- the reading model must be able to read it (its producer, or one of a fixed set:
  READS); otherwise the block is dropped from that request without an error;
- its prefix must be unchanged: the top-level `system`, `tools`, and every message
  before it (with server-side compaction, from the latest `compaction` block).
  `max_tokens`, `tool_choice`, `metadata` and `cache_control` markers are not part of
  it. Thinking blocks may be removed from the front, oldest first; removing one from
  the middle invalidates those after it. A changed prefix is a 400 (PREFIX_MISMATCH),
  or, with `thinking.block_binding.prefix_mismatch_behavior: "drop_block"` and the
  beta BETA, the failing block and every later thinking block are dropped and listed
  in the response's top-level `input_transformations` (on `message_start` when
  streamed: sse.py puts every top-level field there). `block_binding` without the
  beta is a 400; a tampered signature is always the other 400 (TAMPERED).
The API enforces the prefix check by default for accounts created on or after
2026-08-31; the offline server plays such an account: it always checks.

Ours (the API does not say how a signature binds anything): a signature is
`b64(record).<HMAC-SHA256>`, keyed with the server's secret. The record holds the
producing model, a digest of the block's prefix with every thinking block and every
`cache_control` left out (`prefix_digest`), and the short ids of the thinking blocks
that were in that prefix, in order; the HMAC covers the record and the block's own
text. So a changed text or record fails the HMAC (TAMPERED); a changed prefix fails
the digest; thinking blocks sent back must be the recorded ones with only the oldest
missing (removal from the front). READS holds the docs' example models and ours: the
offline model `offline-s08` reads only its own blocks.

Left out: account and end-user bindings, `thinking_mismatch_allowed` (accounts that
do not enforce), and `connector_text` blocks.
"""

import base64
import hashlib
import hmac
import json

from .rules import RequestError

BETA = "thinking-binding-controls-2026-08-01"
THINKING_TYPES = ("thinking", "redacted_thinking")
BEHAVIOURS = ("error", "drop_block")
# Which producers' blocks a model reads, besides its own (the docs' example: Claude Fable 5.1
# reads Claude Opus 5's and Claude Opus 5.5's; neither of them reads Claude Fable 5.1's).
READS = {"claude-fable-5-1": {"claude-opus-5", "claude-opus-5-5"}}
PREFIX_MISMATCH = ("{where}: Invalid `signature` in `{kind}` block. The block is bound to a different "
                   "conversation. Remove the block, or set "
                   "`thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".")
NEEDS_BETA = (" That setting needs the beta header `anthropic-beta: " + BETA + "`"
              " (betas=[\"" + BETA + "\"]).")   # ours: the docs say only that it is needed
TAMPERED = "{where}: Invalid `signature` in `{kind}` block"
ID_CHARS = 16     # of a block's HMAC, as its id in later blocks' records (ours)


def _canonical(value):
    """`value` without `cache_control` anywhere: the markers are no part of a prefix."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _blocks(content) -> list:
    """A content as blocks: a string is one text block (both forms send the same prompt)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _items(messages, tail: list | None = None) -> list:
    """The conversation as one flat list: a role marker, then the message's blocks, for
    each message; `tail` (the reply's blocks so far) as an assistant message at the end."""
    flat = []
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        flat.append(("role", role, i, None))
        for j, block in enumerate(_blocks(message.get("content") if isinstance(message, dict) else None)):
            flat.append(("block", block, i, j))
    if tail is not None:
        flat.append(("role", "assistant", len(messages), None))
        flat += [("block", block, len(messages), j) for j, block in enumerate(tail)]
    return flat


def _is_thinking(block) -> bool:
    return isinstance(block, dict) and block.get("type") in THINKING_TYPES


def _since_compaction(flat: list, end: int) -> int:
    """Where the prefix of the item at `end` starts: at the latest compaction block before it."""
    for k in range(end - 1, -1, -1):
        kind, block, _, _ = flat[k]
        if kind == "block" and isinstance(block, dict) and block.get("type") == "compaction":
            return k
    return 0


def _prefix(request: dict, flat: list, end: int) -> tuple[str, list]:
    """(digest of the prefix without thinking blocks, the ids of the thinking blocks in it)."""
    start = _since_compaction(flat, end)
    kept, ids = [], []
    for kind, block, _, _ in flat[start:end]:
        if kind == "block" and _is_thinking(block):
            ids.append(_block_id(block))
        else:
            kept.append(block if kind == "block" else {"role": block})
    system = request.get("system")
    shown = {"system": _canonical(_blocks(system) if isinstance(system, str) else system),
             "tools": _canonical(request.get("tools")), "messages": _canonical(kept)}
    text = json.dumps(shown, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest(), ids


def _sig(block: dict) -> str:
    return str(block.get("signature" if block.get("type") == "thinking" else "data") or "")


def _block_id(block: dict) -> str:
    return _sig(block).rpartition(".")[2][:ID_CHARS]


def _mac(secret: bytes, record: str, text: str) -> str:
    return hmac.new(secret or b"offline", f"{record}\n{text}".encode(), hashlib.sha256).hexdigest()


def sign(text: str, model: str, request: dict, tail: list, secret: bytes) -> str:
    """The signature of a thinking block whose text is `text`, made by `model`, at the end
    of `tail` (the reply's blocks before it) after the messages of `request`."""
    flat = _items(request.get("messages") or [], tail)
    digest, ids = _prefix(request, flat, len(flat))
    record = base64.urlsafe_b64encode(json.dumps(
        {"model": model, "prefix": digest, "thinking": ids}, sort_keys=True).encode()).decode()
    return f"{record}.{_mac(secret, record, text)}"


def _record(block: dict, secret: bytes) -> dict | None:
    """The block's record when its signature verifies (its own text included), else None."""
    record, _, mac = _sig(block).partition(".")
    text = block.get("thinking") if block.get("type") == "thinking" else ""
    if not isinstance(text, str) or \
            not hmac.compare_digest(mac.encode(), _mac(secret, record, text).encode()):
        return None
    try:
        read = json.loads(base64.urlsafe_b64decode(record.encode()))
    except ValueError:
        return None
    return read if isinstance(read, dict) and isinstance(read.get("thinking"), list) else None


def behaviour(body: dict, betas: set) -> str:
    """What a failing prefix check does: "error" or "drop_block" (RequestError: the API's 400)."""
    thinking = body.get("thinking")
    binding = thinking.get("block_binding") if isinstance(thinking, dict) else None
    if binding is None:
        return "error"
    if BETA not in betas:
        raise RequestError(f"thinking.block_binding: needs the beta header {BETA!r}: pass betas=[{BETA!r}]")
    if not isinstance(binding, dict):
        raise RequestError("thinking.block_binding: Input should be a valid dictionary")
    extra = sorted(set(binding) - {"prefix_mismatch_behavior"})
    if extra:
        raise RequestError(f"thinking.block_binding.{extra[0]}: Extra inputs are not permitted")
    chosen = binding.get("prefix_mismatch_behavior") or "error"
    if chosen not in BEHAVIOURS:
        raise RequestError("thinking.block_binding.prefix_mismatch_behavior: Input should be "
                           "'error' or 'drop_block'")
    return chosen


def _readable(reader: str, producer) -> bool:
    return producer == reader or producer in READS.get(reader, ())


def check(body: dict, betas: set, secret: bytes) -> tuple[dict, list | None]:
    """(the body the model reads, the `input_transformations` to report, None without the beta).

    Every thinking block sent back is verified (TAMPERED, always), then read by the
    model or dropped in silence, then its prefix checked: a mismatch is the 400, or with
    drop_block that block and every later one are dropped and listed.
    """
    chosen = behaviour(body, betas)
    messages = body.get("messages")
    if not isinstance(messages, list):
        return body, ([] if BETA in betas else None)
    flat = _items(messages)
    dropped, failed = [], False
    for at, (kind, block, i, j) in enumerate(flat):
        if kind != "block" or not _is_thinking(block):
            continue
        where, record = f"messages.{i}.content.{j}", _record(block, secret)
        if record is None:
            raise RequestError(TAMPERED.format(where=where, kind=block["type"]))
        if not _readable(body.get("model"), record.get("model")):
            dropped.append((i, j, "model_binding_mismatch"))
            continue
        digest, ids = _prefix(body, flat, at)
        recorded = record["thinking"]
        # Removal from the front only: the blocks still sent are the newest of the recorded ones.
        front_removed = ids == recorded[len(recorded) - len(ids):] if ids else True
        if failed or record.get("prefix") != digest or not front_removed:
            if chosen == "error":
                message = PREFIX_MISMATCH.format(where=where, kind=block["type"])
                raise RequestError(message + ("" if BETA in betas else NEEDS_BETA))
            failed = True   # this block and every later thinking block
            dropped.append((i, j, "prefix_binding_mismatch"))
    reported = [{"type": "thinking_dropped", "path": f"messages.{i}.content.{j}", "reason": why}
                for i, j, why in dropped] if BETA in betas else None
    return ({**body, "messages": _without(messages, dropped)} if dropped else body), reported


def _without(messages: list, dropped: list) -> list:
    """The messages with the dropped blocks taken out; a message left empty goes too
    (consecutive messages of one role are one turn, so the pairs still hold)."""
    gone = {(i, j) for i, j, _ in dropped}
    out = []
    for i, message in enumerate(messages):
        if not any(k == i for k, _ in gone):
            out.append(message)
            continue
        kept = [b for j, b in enumerate(_blocks(message.get("content"))) if (i, j) not in gone]
        if kept:
            out.append({**message, "content": kept})
    return out
