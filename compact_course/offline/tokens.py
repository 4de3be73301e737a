"""The offline model's token estimate: what its window, `count_tokens` and `usage` count.

Take the text `json.dumps([system, tools, messages], ensure_ascii=False)` of the
request; count its ASCII characters A and its other characters N; tokens =
ceil(A / 4) + N. English runs near four characters a token, Chinese near one
character a token (flaw 13 in docs/DESIGN.md). Images and documents count as the
API counts them, by pixels and pages (context_compact/media.py), their base64 left
out of the text. The estimate is deterministic
and cheap, and documented, so a notebook can say in advance when the server
will answer `prompt is too long`.

Left out: a real tokenizer. The real API counts differently; only the order of
magnitude is meant to match.
"""

import json
import math

from context_compact.media import media, weigh

ASCII_PER_TOKEN = 4
# The offline model's window, in tokens of this estimate: the real API's 200k.
DEFAULT_WINDOW = 200_000


def prompt_text(request: dict) -> str:
    return json.dumps([request.get("system") or "", request.get("tools") or [],
                       request.get("messages") or []], ensure_ascii=False)


def estimate_text_tokens(text: str) -> int:
    ascii_chars = len(text.encode("ascii", "ignore"))
    return math.ceil(ascii_chars / ASCII_PER_TOKEN) + (len(text) - ascii_chars)


def estimate_tokens(request: dict) -> int:
    """ceil(ASCII characters / 4) + other characters, over the request's JSON without the base64
    of its images and documents; those by the API's rule (pixels, pages)."""
    messages = request.get("messages") if isinstance(request.get("messages"), list) else []
    weights = [weigh(block) for message in messages for block in media(message)]
    text = prompt_text(request)
    ascii_chars = len(text.encode("ascii", "ignore"))
    base64_chars = sum(len(data) for _, data, _ in weights)   # ASCII, all of it
    return (math.ceil((ascii_chars - base64_chars) / ASCII_PER_TOKEN) + len(text) - ascii_chars
            + sum(tokens for tokens, _, _ in weights))
