"""Server-sent events of a reply (compact_course/offline/api/sse.py), checked by the SDK itself.

Every reply kind is cut into the API's events, and the SDK's own stream
accumulator (the code behind `messages.stream()` and `beta.messages.stream()`)
must build the same message as the non-streamed reply, field for field.
"""

import json

import httpx2
import pytest
from anthropic.lib.streaming._beta_messages import accumulate_event as beta_accumulate
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import Message
from anthropic.types.beta import BetaMessage

from compact_course.offline.api.sse import PIECE, encode, event_stream, stream_events

USAGE = {"input_tokens": 1200, "output_tokens": 87, "cache_creation_input_tokens": 0,
         "cache_read_input_tokens": 1000}


def message(content, stop_reason="end_turn", **extra):
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": "offline-s08",
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": USAGE, **extra}


LONG = "The first-level titles of the five lessons, one a line, quoted as read. " * 4
REPLIES = {
    "text": message([{"type": "text", "text": LONG}]),
    "tool use": message([{"type": "text", "text": "Reading both."},
                         {"type": "tool_use", "id": "toolu_1", "name": "read_file",
                          "input": {"path": "s01_agent_loop/README.md", "limit": 40, "note": "é" * 60}},
                         {"type": "tool_use", "id": "toolu_2", "name": "compact", "input": {}}],
                        "tool_use"),
    "thinking": message([{"type": "thinking", "thinking": "Which file names the title? " * 5,
                          "signature": "c2lnbmF0dXJl"},
                         {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"},
                         {"type": "text", "text": "s01."}]),
    "compaction": message([{"type": "compaction", "content": "Goal: titles. Files: five READMEs.",
                            "encrypted_content": None, "signature": "bWFj", "tool_changes": []}],
                          "compaction",
                          context_management={"applied_edits": []}),
    "max tokens": message([{"type": "text", "text": "The titles are"}], "max_tokens"),
    "refusal": message([], "refusal", stop_details={"type": "refusal", "category": "cyber",
                                                    "explanation": None}),
    "pause turn": message([{"type": "text", "text": "Paused."}], "pause_turn"),
    "stop sequence": message([{"type": "text", "text": "one"}], "stop_sequence", stop_sequence="END"),
}


def accumulated(reply: dict, beta: bool):
    snapshot, buffers, step = None, {}, beta_accumulate if beta else accumulate_event
    for _, data in stream_events(reply):
        event = json.loads(json.dumps(data))        # as the client parses it off the wire
        if beta:
            snapshot = step(event=event, current_snapshot=snapshot, json_bufs=buffers,
                            request_headers=httpx2.Headers())
        else:
            snapshot = step(event=event, current_snapshot=snapshot, json_bufs=buffers)
    return snapshot


@pytest.mark.parametrize("kind", REPLIES)
@pytest.mark.parametrize("beta", [False, True], ids=["messages", "beta.messages"])
def test_the_sdk_accumulates_the_non_streamed_reply(kind, beta):
    reply = REPLIES[kind]
    if not beta and kind in ("compaction", "refusal"):
        pytest.skip("a beta reply")
    model = BetaMessage if beta else Message
    expected = model.model_validate(reply).model_dump(mode="json", exclude_none=True)
    got = accumulated(reply, beta).model_dump(mode="json", exclude_none=True)
    for block in got["content"]:
        block.pop("parsed_output", None)
    assert got == expected


def test_the_events_come_in_the_apis_order():
    names = [name for name, _ in stream_events(REPLIES["tool use"])]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    blocks = names[1:-2]
    ends = ["content_block_start", "content_block_stop"]
    assert [n for n in blocks if n != "content_block_delta"] == ends * 3
    starts = [i for i, n in enumerate(blocks) if n == "content_block_start"]
    assert all(blocks[i + 1] in ("content_block_delta", "content_block_stop") for i in starts)
    opening = stream_events(REPLIES["tool use"])[0][1]["message"]
    assert opening["content"] == [] and opening["stop_reason"] is None
    closing = stream_events(REPLIES["tool use"])[-2][1]
    assert closing["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert closing["usage"] == USAGE


def test_deltas_are_pieces_of_the_text_and_of_the_inputs_json():
    events = [data for _, data in stream_events(REPLIES["tool use"])]
    pieces = [e["delta"]["partial_json"] for e in events
              if e["type"] == "content_block_delta" and e["index"] == 1]
    assert len(pieces) > 1 and all(len(p) <= PIECE for p in pieces)
    assert json.loads("".join(pieces)) == REPLIES["tool use"]["content"][1]["input"]
    # A tool without input sends no delta: the SDK keeps the start's {}.
    assert not [e for e in events if e["type"] == "content_block_delta" and e["index"] == 2]


def test_an_event_is_written_as_the_api_writes_it():
    assert encode("message_stop", {"type": "message_stop"}) == (
        b'event: message_stop\ndata: {"type": "message_stop"}\n\n')
    stream = event_stream(REPLIES["text"]).decode()
    assert stream.count("\n\n") == len(stream_events(REPLIES["text"])) and stream.endswith("\n\n")
