"""The offline model's token estimate: what its window, `count_tokens` and `usage` count.

Take the text `json.dumps([system, tools, messages], ensure_ascii=False)` of the
request; count its ASCII characters A and its other characters N; tokens =
ceil(A / 4) + N. English runs near four characters a token, Chinese near one
character a token (flaw 13 in docs/DESIGN.md). The estimate is deterministic
and cheap, and documented, so a notebook can say in advance when the server
will answer `prompt is too long`.

Left out: a real tokenizer. The real API counts differently; only the order of
magnitude is meant to match.
"""

import json
import math

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
    """ceil(ASCII characters / 4) + other characters, over the request's JSON."""
    return estimate_text_tokens(prompt_text(request))
