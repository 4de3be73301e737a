"""Extended thinking on the offline server, just enough to play `clear_thinking_20251015`.

The real API (beta `context-management-2025-06-27`, the same as clearing tool
results) can clear the `thinking` blocks of earlier assistant turns before the
prompt reaches the model. The SDK's types (`BetaClearThinking20251015EditParam`):
- `keep`: `{"type": "thinking_turns", "value": N}` ("Number of most recent assistant
  turns to keep thinking blocks for. Older turns will have their thinking blocks
  removed"), or `{"type": "all"}` / `"all"`: keep every one;
- the response reports `{"type", "cleared_thinking_turns", "cleared_input_tokens"}`
  (`BetaClearThinking20251015EditResponse`).
The edit needs `thinking` in the request, enabled or adaptive; without it the API
answers 400 with NEEDS_THINKING (its message, as users of Claude Code quote it).

The offline server's choices (docs/AFTER_THE_ARTICLE.md): with `thinking` on, its
reply starts with one short thinking block (`thinking_block`: what it is about to
answer, in one line; after a compaction block made in the same reply, second),
signed as binding.py binds it to its model and its prefix (`sign_reply`); DEFAULT_KEEP is
one turn (the docs' default, as the course read it); a turn is an assistant
message holding a thinking or redacted_thinking block; cleared blocks are removed.
The offline model does not think: the block is written here, in api/, around
its answer, and says so.

The signatures of thinking blocks sent back are checked in binding.py. With thinking
on, a `tool_choice` that forces tool use (`any`, `tool`) is refused, as the API's
extended-thinking docs say it is (`check_tool_choice`; the message's wording is ours).

Left out: the rule that `clear_thinking_20251015` comes first among the edits, and budgets.
"""

from dataclasses import dataclass

from ..tokens import estimate_tokens
from . import binding
from .context_edits import EditError, amount

EDIT_TYPE = "clear_thinking_20251015"
NEEDS_THINKING = "`clear_thinking_20251015` strategy requires `thinking` to be enabled or adaptive"
DEFAULT_KEEP = 1
THINKING_TYPES = ("thinking", "redacted_thinking")


@dataclass(frozen=True)
class ClearThinking:
    """One `clear_thinking_20251015` edit: keep the newest `keep` turns' thinking (None: all)."""
    keep: int | None = DEFAULT_KEEP


def read_edit(where: str, edit: dict) -> ClearThinking:
    extra = sorted(set(edit) - {"type", "keep"})
    if extra:
        raise EditError(f"{where}.{extra[0]}: Extra inputs are not permitted")
    keep = edit.get("keep")
    if keep is None:
        return ClearThinking()
    if keep == "all" or (isinstance(keep, dict) and keep.get("type") == "all"):
        return ClearThinking(None)
    _, value = amount(f"{where}.keep", keep, ("thinking_turns",), 0)
    return ClearThinking(value)


FORCED = ("any", "tool")
FORCED_WITH_THINKING = ("tool_choice: with thinking on, tool_choice may be 'auto' or 'none', not "
                        "{kind!r}: a model that thinks does not take forced tool use")


def check_tool_choice(request: dict) -> None:
    """EditError (the API's 400) for a forced tool_choice with thinking on."""
    choice = request.get("tool_choice")
    kind = choice.get("type") if isinstance(choice, dict) else None
    if thinking_on(request) and kind in FORCED:
        raise EditError(FORCED_WITH_THINKING.format(kind=kind))


def thinking_on(request: dict) -> bool:
    thinking = request.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def _turns(messages) -> list[int]:
    return [i for i, m in enumerate(messages) if m.get("role") == "assistant"
            and isinstance(m.get("content"), list)
            and any(isinstance(b, dict) and b.get("type") in THINKING_TYPES for b in m["content"])]


def clear_thinking(request: dict, edit: ClearThinking) -> tuple[list, dict | None]:
    """(messages the model sees, the applied edit or None when it did not act)."""
    messages = request["messages"]
    turns = _turns(messages)
    older = [] if edit.keep is None else turns[:max(len(turns) - edit.keep, 0)]
    if not older:
        return messages, None
    out = list(messages)
    for i in older:
        kept = [b for b in messages[i]["content"]
                if not (isinstance(b, dict) and b.get("type") in THINKING_TYPES)]
        out[i] = {**messages[i], "content": kept}
    cleared = estimate_tokens(request) - estimate_tokens({**request, "messages": out})
    return out, {"type": EDIT_TYPE, "cleared_thinking_turns": len(older), "cleared_input_tokens": cleared}


def thinking_block(reply: dict) -> dict:
    """The short thinking block the offline server puts before an answer (see above),
    not signed yet (`sign_reply` signs it once the reply's blocks before it are known)."""
    kinds = [b.get("type") for b in reply.get("content", [])]
    text = (f"(The offline model does not think; this block stands in for thinking.) "
            f"Answering with {', '.join(kinds) or 'nothing'}.")
    return {"type": "thinking", "thinking": text, "signature": ""}


def with_thinking(reply: dict, request: dict) -> dict:
    """The reply, with a thinking block first when the request turned thinking on."""
    if not thinking_on(request):
        return reply
    return {**reply, "content": [thinking_block(reply), *reply["content"]]}


def sign_reply(reply: dict, sent: dict, secret: bytes) -> dict:
    """The reply with each thinking block signed, bound to the request as the client sent it
    (`sent`: the messages it will send back) and to the reply's blocks before it."""
    content = list(reply.get("content") or [])
    for j, block in enumerate(content):
        if block.get("type") == "thinking":
            content[j] = {**block, "signature": binding.sign(block["thinking"], sent.get("model"),
                                                             sent, content[:j], secret)}
    return {**reply, "content": content}
