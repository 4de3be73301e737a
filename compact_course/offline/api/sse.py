"""Streaming: a finished reply as the API's server-sent events, in the API's order.

    for name, data in stream_events(message):       # message: the non-streamed reply, a dict
        write(encode(name, data))                   # b"event: NAME\\ndata: {...}\\n\\n"

The order is the Messages API's: `message_start` (the message with no content
yet, and no stop reason); for each block `content_block_start`, its
`content_block_delta` events, `content_block_stop`; `message_delta` (the stop
reason, the usage, context management); `message_stop`. The deltas by block:

| block              | start carries                   | deltas                                   |
|--------------------|---------------------------------|------------------------------------------|
| text               | `text: ""`                      | `text_delta`, the text in pieces         |
| tool_use           | `input: {}`                     | `input_json_delta`, the input's JSON in pieces |
| thinking           | `thinking: ""`, `signature: ""` | `thinking_delta` pieces, one `signature_delta` |
| compaction         | `content`, `encrypted_content` null | one `compaction_delta` with both     |
| any other          | the whole block                 | none                                     |

Every other field of a block is in its start event, so what the SDK's
stream helpers accumulate (`messages.stream()`, `beta.messages.stream()`)
equals the non-streamed reply, field for field. The events come from the
reply the server has already made: the offline model is not slower or
different when streamed, only cut into pieces.

The server (server.py) asks `wants_stream(raw)` of each answered request and
hands the reply to `send_stream`, which writes the events one by one. A
client that hangs up mid-stream ends that response only: the write that
fails is the last, and the server goes on serving. A cassette's reply that
was recorded streamed (`{"events": ...}`) is sent as recorded.

Left out: `ping` events and errors sent mid-stream (the offline server finds
every error before the first byte, and answers it as a plain JSON error,
as the API does for a request it refuses whole).
"""

import json
import re

from aiohttp import web

PIECE = 48        # characters of text or JSON in one delta (the API's pieces are small too)


def _pieces(text: str) -> list:
    return [text[i:i + PIECE] for i in range(0, len(text), PIECE)] or []


def _block_events(index: int, block: dict):
    kind = block.get("type")
    if kind == "text":
        yield _start(index, {**block, "text": ""})
        for piece in _pieces(block.get("text", "")):
            yield _delta(index, {"type": "text_delta", "text": piece})
    elif kind == "tool_use":
        yield _start(index, {**block, "input": {}})
        tool_input = block.get("input") or {}
        for piece in _pieces(json.dumps(tool_input, ensure_ascii=False) if tool_input else ""):
            yield _delta(index, {"type": "input_json_delta", "partial_json": piece})
    elif kind == "thinking":
        yield _start(index, {**block, "thinking": "", "signature": ""})
        for piece in _pieces(block.get("thinking", "")):
            yield _delta(index, {"type": "thinking_delta", "thinking": piece})
        yield _delta(index, {"type": "signature_delta", "signature": block.get("signature", "")})
    elif kind == "compaction":
        yield _start(index, {**block, "content": None, "encrypted_content": None})
        yield _delta(index, {"type": "compaction_delta", "content": block.get("content"),
                             "encrypted_content": block.get("encrypted_content")})
    else:
        yield _start(index, block)
    yield "content_block_stop", {"type": "content_block_stop", "index": index}


def _start(index: int, block: dict) -> tuple:
    return "content_block_start", {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, delta: dict) -> tuple:
    return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}


def stream_events(message: dict) -> list:
    """[(event name, data), ...] that a streamed request for `message` receives."""
    usage = dict(message.get("usage") or {})
    opening = {**message, "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {**usage, "output_tokens": min(1, usage.get("output_tokens", 0))}}
    if "stop_details" in message:
        opening["stop_details"] = None
    events = [("message_start", {"type": "message_start", "message": opening})]
    for index, block in enumerate(message.get("content") or []):
        events.extend(_block_events(index, block))
    delta = {"stop_reason": message.get("stop_reason"), "stop_sequence": message.get("stop_sequence")}
    if "stop_details" in message:
        delta["stop_details"] = message["stop_details"]
    closing = {"type": "message_delta", "delta": delta, "usage": usage}
    if message.get("context_management") is not None:
        closing["context_management"] = message["context_management"]
    events.append(("message_delta", closing))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def encode(name: str, data: dict) -> bytes:
    """One server-sent event, as the API writes it."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def event_stream(message: dict) -> bytes:
    """The whole stream of `message`, as bytes."""
    return b"".join(encode(name, data) for name, data in stream_events(message))


_STREAM_TRUE = re.compile(rb'"stream"\s*:\s*true')


def wants_stream(raw: bytes) -> bool:
    """True when a request body asks for `"stream": true` (parsed only when the
    bytes say so: a large body is not parsed twice for nothing)."""
    if not _STREAM_TRUE.search(raw):
        return False
    try:
        body = json.loads(raw)
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("stream") is True


async def send_stream(request, payload: dict, headers: dict) -> web.StreamResponse:
    """Write `payload` (a message, or a cassette's recorded events) as an event stream."""
    response = web.StreamResponse(status=200, headers={
        "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache",
        "server": "offline-model", **headers})
    chunks = ([payload["events"].encode()] if isinstance(payload.get("events"), str)
              else [encode(name, data) for name, data in stream_events(payload)])
    try:
        await response.prepare(request)
        for chunk in chunks:
            await response.write(chunk)
        await response.write_eof()
    except (ConnectionError, RuntimeError):
        # The client hung up (aiohttp: "Cannot write to closing transport"): this
        # response ends here; the connection is closed and the server serves on.
        response.force_close()
    return response
