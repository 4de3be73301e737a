"""Streaming through the offline server (issue 33): the SDK's own helpers, every reply kind.

`messages.stream()`, `beta.messages.stream()` and `create(stream=True)` get the
API's server-sent events; the message the SDK puts back together equals the
non-streamed reply to the same request, on the same server. The agent loop
and the recipe run streamed; a client that hangs up mid-stream leaves the
server serving.
"""

import json
import socket

import anthropic
import pytest

from compact_course.agent.loop import Agent
from compact_course.agent.tools import TOOLS
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.server import key_for
from context_compact.config import CompactionConfig
from context_compact.store import seeded_ids
from tests.agent.test_agent import lessons_workspace, tasks
from tests.agent.test_recipe import recipe
from tests.helpers import offline_model
from tests.offline.test_context_management import COMPACT, history

pytestmark = pytest.mark.usefixtures("no_network")

QUESTION = [{"role": "user", "content": "What is the title of s01_agent_loop/README.md?"}]
COMPACTING = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}
KINDS = {
    "text": ({"messages": QUESTION}, False),
    "tool use": ({"messages": QUESTION, "tools": TOOLS}, False),
    "compaction": ({"messages": history(30), "betas": [COMPACT],
                    "context_management": {"edits": [COMPACTING]}}, True),
    "compaction, paused": ({"messages": history(30), "betas": [COMPACT], "context_management": {
        "edits": [{**COMPACTING, "pause_after_compaction": True}]}}, True),
}


@pytest.fixture(scope="module")
def model():
    with offline_model() as pair:
        yield pair


def dumped(message) -> dict:
    found = message.model_dump(mode="json", exclude_none=True)
    for block in found["content"]:
        block.pop("parsed_output", None)     # the stream helper's own field, None here
    return found


def hang_up(server, body: bytes, times: int) -> None:
    """Ask for a stream `times` times and hang up with a reset once it has begun."""
    for _ in range(times):
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                         b"x-api-key: " + key_for(server.base_url).encode() +
                         b"\r\ncontent-length: %d\r\n\r\n" % len(body) + body)
            assert sock.recv(64).startswith(b"HTTP/1.1 200")
            # SO_LINGER with a zero timeout: close() sends a reset, as a client that dies does.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")


@pytest.mark.parametrize("kind", KINDS)
def test_a_streamed_reply_accumulates_into_the_non_streamed_one(model, kind):
    _, client = model
    request, beta = KINDS[kind]
    request = {"model": MODEL_NAME, "max_tokens": 500, **request}
    api = client.beta.messages if beta else client.messages
    whole = api.create(**request)
    with api.stream(**request) as events:
        streamed = events.get_final_message()
    assert dumped(streamed) == dumped(whole)
    expected = {"text": "end_turn", "tool use": "tool_use", "compaction": "end_turn",
                "compaction, paused": "compaction"}[kind]
    assert whole.stop_reason == expected
    if kind.startswith("compaction"):
        assert whole.content[0].type == "compaction" and whole.content[0].content


def test_the_events_arrive_in_the_apis_order(model):
    _, client = model
    events = list(client.messages.create(model=MODEL_NAME, max_tokens=500, messages=QUESTION,
                                         tools=TOOLS, stream=True))
    kinds = [e.type for e in events]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    assert kinds.count("content_block_start") == kinds.count("content_block_stop") == 2
    deltas = [e.delta.type for e in events if e.type == "content_block_delta"]
    assert set(deltas) == {"text_delta", "input_json_delta"}
    assert events[-2].delta.stop_reason == "tool_use" and events[-2].usage.output_tokens > 0


def test_a_refusal_comes_before_any_event(tmp_path):
    with offline_model(window=10) as (_, client):
        with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
            with client.messages.stream(model=MODEL_NAME, max_tokens=500, messages=QUESTION) as events:
                events.get_final_message()


def test_a_client_that_hangs_up_mid_stream_leaves_the_server_serving(model):
    server, client = model
    body = json.dumps({"model": MODEL_NAME, "max_tokens": 500, "stream": True,
                       "messages": history(3, size=200)}).encode()
    hang_up(server, body, times=5)
    with client.messages.stream(model=MODEL_NAME, max_tokens=500, messages=QUESTION) as events:
        assert events.get_final_message().stop_reason == "end_turn"


def run_agent(workspace, stream: bool) -> Agent:
    with offline_model() as (_, client):
        agent = Agent(workspace, client, MODEL_NAME, config=CompactionConfig.named("default"),
                      echo=None, new_id=seeded_ids())
        agent.stream = stream
        agent.ask(tasks.TITLES)
    return agent


def test_the_agent_loop_runs_streamed(tmp_path):
    streamed = run_agent(lessons_workspace(tmp_path / "a"), stream=True)
    whole = run_agent(lessons_workspace(tmp_path / "b"), stream=False)
    assert streamed.answer == whole.answer and "# s05: Lesson 5" in streamed.answer
    assert streamed.model_calls == whole.model_calls > 1


def test_the_recipe_runs_streamed(tmp_path):
    loop, workspace = recipe(), lessons_workspace(tmp_path)
    with offline_model() as (_, client):
        compactor = loop.make_compactor(workspace, client, MODEL_NAME, CompactionConfig(), seeded_ids())
        answer = loop.ask(client, MODEL_NAME, compactor, [], tasks.TITLES, workspace, stream=True)
    assert "# s05: Lesson 5 - Subtitle 5" in answer


def test_a_client_that_hangs_up_while_a_long_stream_is_written_leaves_the_server_healthy(tmp_path):
    """A recorded stream of 16 MB cannot sit in the socket's buffers: the server is still
    writing when the client resets the connection."""
    from compact_course.agent.model import offline_client
    from compact_course.offline.api.cassette import FORMAT, Cassette
    from compact_course.offline.api.server import start_offline_server
    request = {"model": MODEL_NAME, "max_tokens": 500, "messages": QUESTION}
    events = "event: ping\ndata: {\"type\": \"ping\"}\n\n" * (16 * 1024 * 1024 // 36)
    short = {"type": "message", "id": "msg_1", "role": "assistant", "model": MODEL_NAME,
             "content": [{"type": "text", "text": "short"}], "stop_reason": "end_turn",
             "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    cassette = Cassette({"format": FORMAT, "exchanges": [
        {"request": {"method": "POST", "path": "/v1/messages", "body": {**request, "stream": True}},
         "response": {"status": 200, "body": {"events": events}}},
        {"request": {"method": "POST", "path": "/v1/messages", "body": {**request, "max_tokens": 9}},
         "response": {"status": 200, "body": short}}]})
    with start_offline_server(cassette=cassette) as server:
        body = json.dumps({**request, "stream": True}).encode()
        hang_up(server, body, times=3)
        with offline_client(server.base_url, max_retries=0) as client:
            with client.messages.stream(**{**request, "max_tokens": 9}) as stream:
                assert stream.get_final_message().content[0].text == "short"
        assert [r["status"] for r in server.requests] == [200] * 4


# -- the reply kinds the offline model writes only on request: thinking, a cut at the window --

THINK = {"type": "enabled", "budget_tokens": 2000}


def test_a_streamed_reply_with_thinking_accumulates_into_the_non_streamed_one(model):
    _, client = model
    request = {"model": MODEL_NAME, "max_tokens": 3000, "messages": QUESTION, "thinking": THINK}
    whole = client.messages.create(**request)
    with client.messages.stream(**request) as events:
        deltas = {event.delta.type for event in events if event.type == "content_block_delta"}
        streamed = events.get_final_message()
    assert whole.content[0].type == "thinking" and whole.content[0].signature
    assert {"thinking_delta", "signature_delta", "text_delta"} <= deltas
    assert dumped(streamed) == dumped(whole)


def test_a_streamed_reply_cut_at_the_window_accumulates_into_the_non_streamed_one():
    from tests.agent.test_window_exceeded import QUESTION as ASKED
    from tests.agent.test_window_exceeded import history, tight
    messages = [*history(), {"role": "user", "content": ASKED}]
    request = {"model": MODEL_NAME, "max_tokens": 1000, "messages": messages}
    with offline_model() as (server, client):
        tight(client, server, messages)
        whole = client.messages.create(**request)
        with client.messages.stream(**request) as events:
            streamed = events.get_final_message()
    assert whole.stop_reason == "model_context_window_exceeded"
    assert dumped(streamed) == dumped(whole)
