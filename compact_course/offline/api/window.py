"""A reply that reaches the end of the window: `stop_reason` "model_context_window_exceeded".

The pinned SDK's `StopReason` has "model_context_window_exceeded": the model
stopped because the context window was full, not because it was done. The
API's docs describe it for requests whose `max_tokens` is more than the
window leaves after the prompt. The offline server plays it: when the prompt
fits but the prompt and the reply together would not, the reply is cut where
the window ends and carries that stop reason. A client must not take such a
reply as final: `context_compact.reactive.hit_the_window` recognises it, and the agent
loop and the recipe compact and ask again.

The offline server's choices (docs/AFTER_THE_ARTICLE.md): the room is the
window minus the prompt's estimate (`compact_course.offline.tokens`); text blocks are
cut to the characters that fit (four ASCII characters or one other a token,
the estimate read backwards); a tool_use that does not fit whole is dropped,
since a cut call could not be run; `max_tokens` itself is not compared (the
offline model writes short replies, and never more than the window leaves).

Left out: streaming, and thinking blocks (none are written past the window).
"""

import json

from ..tokens import estimate_text_tokens

STOP_REASON = "model_context_window_exceeded"


def _fit_text(text: str, room: int) -> str:
    """The longest start of `text` whose estimate is at most `room` tokens."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_text_tokens(text[:middle]) <= room:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def _tokens(block) -> int:
    return estimate_text_tokens(json.dumps(block, ensure_ascii=False))


def stop_at_window(reply: dict, prompt_tokens: int, window: int) -> dict:
    """The reply as the window lets it out: unchanged when it fits, else cut, with STOP_REASON."""
    room = window - prompt_tokens
    if _tokens(reply["content"]) <= room:
        return reply
    kept, used = [], 0
    for block in reply["content"]:
        size = _tokens(block)
        if used + size <= room:
            kept.append(block)
            used += size
            continue
        if block.get("type") == "text":
            text = _fit_text(block["text"], max(room - used - _tokens({**block, "text": ""}), 0))
            if text:
                kept.append({**block, "text": text})
        break
    return {**reply, "content": kept, "stop_reason": STOP_REASON}
