"""Images and documents as the API counts them: by pixels and pages, never by base64 length.

The API's docs (platform.claude.com/docs/en/build-with-claude/vision and .../pdf-support): an
image is about width x height / 750 tokens, scaled down first to a long edge of 1,568 pixels
and about 1,600 tokens; a PDF page is 1,500-3,000 tokens (its text and its picture: the upper
end here). Sizes are read from PNG, GIF and JPEG headers; an image not read (WebP, another
format, by URL or file id) counts as unknown: the maximum. The character measure counts a token as
CHARS_PER_TOKEN characters. Steps 1 and 3 move a tool result's text only: an image (a user's own
or a tool's) stays in context, counted so; step 4 and reactive_compact take it to the transcript
whole. Left out: newer models' larger images, a PDF's pages by URL or id.
"""

import base64
import binascii
import math
import re
import zlib
from contextlib import suppress

PIXELS_PER_TOKEN, IMAGE_MAX_EDGE, IMAGE_MAX_TOKENS, PAGE_TOKENS = 750, 1568, 1600, 3000
CHARS_PER_TOKEN = 4    # English and base64 alike run near 4 characters a token
_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_SEEN: dict = {}   # (kind, length, hash of the base64) -> (tokens, words): the base64 is not kept


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, GIF or JPEG header; None for anything else (WebP too)."""
    def number(start, end, order="big"):
        return int.from_bytes(data[start:end], order)
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return number(16, 20), number(20, 24)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return number(6, 8, "little"), number(8, 10, "little")
    at = 2 if data[:2] == b"\xff\xd8" else len(data)
    while at + 9 <= len(data) and data[at] == 0xFF:   # JPEG: segment by segment to a frame's start
        marker = data[at + 1]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):   # not DHT, JPG, DAC
            return number(at + 7, at + 9), number(at + 5, at + 7)
        at += 1 if marker == 0xFF else 2 + number(at + 2, at + 4)   # 0xFF: a fill byte
    return None


def image_tokens(size) -> int:
    """The API's tokens for an image of `size` (width, height), scaled down first to its maximum."""
    if not size or min(size) < 1:
        return IMAGE_MAX_TOKENS
    pixels = size[0] * size[1]
    scale = min(1.0, IMAGE_MAX_EDGE / max(size), math.sqrt(IMAGE_MAX_TOKENS * PIXELS_PER_TOKEN / pixels))
    return min(IMAGE_MAX_TOKENS, max(1, math.ceil(pixels * scale * scale / PIXELS_PER_TOKEN)))


def pdf_pages(data: bytes) -> int:
    """A PDF's page objects, those in compressed object streams too (8 MB of each read); at least 1.
    Found with `find`, each part of the file read once: a lazy regex is quadratic on a broken file."""
    pages, at = len(_PAGE.findall(data)), data.find(b"/ObjStm")
    while at >= 0:
        start = data.find(b"stream", at, at + 512)   # the object's dictionary, then its stream
        end = data.find(b"endstream", start) if start >= 0 else at + 7
        if end < 0:
            break
        if start >= 0:
            body = data[start + 6:end]
            body = body[2:] if body[:2] == b"\r\n" else body[1:]   # after "stream": CRLF or LF
            with suppress(zlib.error):
                pages += len(_PAGE.findall(zlib.decompressobj().decompress(body, 8 << 20)))
        at = data.find(b"/ObjStm", end)
    return max(pages, 1)


def weigh(block) -> tuple[int, str, str]:
    """(the API's tokens, the base64 it stands for, words naming it) for an image or a document."""
    source = block["source"] if isinstance(block.get("source"), dict) else {}
    data = source["data"] if source.get("type") == "base64" and isinstance(source.get("data"), str) else ""
    key = (block["type"], len(data), hash(data))   # a string keeps its hash: seen again, a lookup
    if key not in _SEEN:
        if len(_SEEN) > 4096:   # bounded: a long session's media, not all media ever seen
            _SEEN.clear()
        try:
            raw = base64.b64decode(data[:len(data) // 4 * 4])
        except (binascii.Error, ValueError):
            raw = b""
        if block["type"] == "image":
            size = image_size(raw)
            tokens, words = image_tokens(size), "x".join(map(str, size)) if size else "size unread"
        else:
            pages = pdf_pages(raw)
            tokens, words = pages * PAGE_TOKENS, f"{pages} page(s)"
        _SEEN[key] = tokens, f"{words}, {len(raw):,} bytes"
    kind = f"{block['type']} {source.get('media_type') or source.get('type') or ''}".rstrip()
    return _SEEN[key][0], data, f"{kind}, {_SEEN[key][1]}"


def media(message) -> list:
    """Each image and non-text document of a message, those in its tool results too."""
    found = []
    for block in message.get("content") if isinstance(message.get("content"), list) else ():
        inner = block.get("content") if isinstance(block, dict) and block.get("type") == "tool_result" else ()
        found += filter(_is_medium, [block, *(inner if isinstance(inner, list) else ())])
    return found


def _is_medium(block) -> bool:   # an image, or a document that is not text (a text document is its text)
    kind = block.get("type") if isinstance(block, dict) else None
    source = block.get("source") if kind == "document" and isinstance(block.get("source"), dict) else {}
    return kind == "image" or kind == "document" and source.get("type") not in ("text", "content")


def extra_chars(message, text: str) -> int:
    """What the character measure adds to `text`, a message's JSON, for its media: tokens in, base64 out."""
    if '"source"' not in text:   # no medium: the common case, and free
        return 0
    return sum(tokens * CHARS_PER_TOKEN - len(data) for tokens, data, _ in map(weigh, media(message)))


def without_media(messages) -> list:
    """The messages, each image and document a text naming it (a summarizer's input, never base64).
    A message without one is the same object; the caller's are never edited."""
    return [{**m, "content": [_named(b, f"messages[{i}].content[{j}]") for j, b in enumerate(m["content"])]}
            if media(m) else m for i, m in enumerate(messages)]


def _named(block, at: str):   # a block, its media (a tool result's too) made texts naming them
    if _is_medium(block):
        return {"type": "text", "text": f"[{weigh(block)[2]} at {at}: not summarized]"}
    inner = block.get("content") if isinstance(block, dict) and block.get("type") == "tool_result" else None
    if isinstance(inner, list):
        return {**block, "content": [_named(part, f"{at}.content[{k}]") for k, part in enumerate(inner)]}
    return block
