"""A cassette of any shape (issue 49): one line of error at start, or a server that answers.

A cassette is anyone's file: one nested 200,000 deep crashed `compact-course serve` with a
traceback, and `"body": 5` in a reply gave a 500 on every request. Here hypothesis
takes a good cassette (a message with each kind of block, a streamed reply, an
error, a count) and breaks it: any field replaced by any JSON value, a field
dropped, a value buried deep, the text cut short or its bytes spoiled. Each
result either loads, and then the server answers every request it holds, streamed
or not, and one it does not hold, with no 500; or is refused with a CassetteError
of one line that names the file. Anything else (a RecursionError, a TypeError) is
a traceback, and fails the test.
"""

import copy
import http.client
import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compact_course.offline.api.cassette import FORMAT, MAX_DEPTH, Cassette, CassetteError
from compact_course.offline.api.server import key_for, start_offline_server

pytestmark = pytest.mark.usefixtures("no_network")

MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
           "content": [{"type": "thinking", "thinking": "hm", "signature": "c2ln"},
                       {"type": "text", "text": "Reading it."},
                       {"type": "tool_use", "id": "toolu_1", "name": "read_file",
                        "input": {"path": "a.txt"}}],
           "stop_reason": "tool_use", "stop_sequence": None,
           "usage": {"input_tokens": 12, "output_tokens": 7}}
GOOD = {"format": FORMAT, "recorded": "2026-12-01", "models": ["claude-x"], "exchanges": [
    {"request": {"method": "POST", "path": "/v1/messages",
                 "body": {"model": "claude-x", "max_tokens": 50,
                          "messages": [{"role": "user", "content": "What is in a.txt?"}]}},
     "response": {"status": 200, "body": MESSAGE}},
    {"request": {"method": "POST", "path": "/v1/messages",
                 "body": {"model": "claude-x", "max_tokens": 50, "stream": True,
                          "messages": [{"role": "user", "content": "And b.txt?"}]}},
     "response": {"status": 200, "body": {"events": "event: message_stop\ndata: {}\n\n"}}},
    {"request": {"method": "POST", "path": "/v1/messages",
                 "body": {"model": "claude-x", "messages": []}},
     "response": {"status": 400, "body": {"type": "error", "error": {
         "type": "invalid_request_error", "message": "max_tokens: Field required"}}}},
    {"request": {"method": "POST", "path": "/v1/messages/count_tokens",
                 "body": {"model": "claude-x", "messages": [{"role": "user", "content": "hi"}]}},
     "response": {"status": 200, "body": {"input_tokens": 8}}},
]}

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 6, 10 ** 6) | st.floats(allow_nan=False)
    | st.text(max_size=12) | st.sampled_from(["\ud800", "sk-", "events", "error", "text"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "text", "thinking", "content", "usage", "output_tokens",
                         "error", "message", "events", "status", "body", "x"]), inner, max_size=3),
    max_leaves=8)


def paths(value, here=()):
    """Every place in `value`, as a tuple of keys and indexes (the top is ())."""
    yield here
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        yield from paths(inner, here + (key,))


PLACES = [place for place in paths(GOOD) if place]


def nested(depth: int, leaf) -> object:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


@st.composite
def broken(draw) -> bytes:
    """A cassette's bytes, broken in one of several ways (one or two replaced fields first)."""
    data = copy.deepcopy(GOOD)
    for place in draw(st.lists(st.sampled_from(PLACES), max_size=2)):
        target = data
        try:
            for key in place[:-1]:
                target = target[key]
            target[place[-1]] = draw(JSON)
        except (KeyError, IndexError, TypeError):    # an earlier change took the place away
            pass
    place = draw(st.sampled_from(PLACES))
    *parent_keys, last = place
    parent = data
    try:
        for key in parent_keys:
            parent = parent[key]
        parent[last]
    except (KeyError, IndexError, TypeError):
        parent, last = data, "format"
    how = draw(st.sampled_from(["replace", "drop", "bury", "cut", "spoil"]))
    if how == "replace":
        parent[last] = draw(JSON)
    elif how == "drop":
        del parent[last]
    elif how == "bury":     # written into the text: json.dumps itself cannot go so deep
        parent[last] = "BURIED"
    text = json.dumps(data, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    if how == "bury":
        depth = draw(st.sampled_from([MAX_DEPTH - 10, MAX_DEPTH, MAX_DEPTH + 1, 5000, 200_000]))
        text = text.replace(b'"BURIED"', b"[" * depth + b"1" + b"]" * depth, 1)
    if how == "cut":
        text = text[:draw(st.integers(0, len(text)))]
    elif how == "spoil":
        at = draw(st.integers(0, len(text) - 1))
        spoiled = draw(st.sampled_from([b"\xff", b"\x00", b"[" * 3000, b"1e999999", b"NaN"]))
        text = text[:at] + spoiled + text[at:]
    return text


def ask(port: int, key: str, path: str, body, stream: bool = False) -> tuple:
    """(status, bytes) of one POST, on a connection of its own (`body` bytes: sent as they are)."""
    if stream and isinstance(body, dict):
        body = {**body, "stream": True}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", path if path.startswith("/") else "/" + path,
                           body=body if isinstance(body, bytes) else json.dumps(body).encode(),
                           headers={"x-api-key": key, "content-type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@given(broken())
def test_a_broken_cassette_is_one_line_of_error_or_a_server_that_answers(tmp_path_factory, raw):
    path = tmp_path_factory.mktemp("shapes") / "broken.cassette.json"
    path.write_bytes(raw)
    try:
        cassette = Cassette.load(path)
    except CassetteError as error:
        said = str(error)
        assert "\n" not in said and said.startswith(f"{path}: "), said
        return
    with start_offline_server(cassette=cassette) as server:
        key = key_for(server.base_url)
        sent = [(exchange["request"]["path"], exchange["request"]["body"])
                for exchange in cassette.exchanges if isinstance(exchange["request"]["path"], str)]
        for where, body in [*sent, ("/v1/messages", {"model": "not recorded"})]:
            for stream in (False, True):
                status, reply = ask(server.port, key, where, body, stream)
                assert status != 500, (where, body, reply[:300])
                assert reply, (where, status)


def serve(path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "compact_course", "serve", "--port", "0",
                           "--cassette", str(path)], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("shape, said", [
    ("deep", "not a cassette (nested deeper than 100 levels at line 1 column "),
    ("five", "exchanges[0].response.body: an object (the reply's JSON) expected, got 5"),
    ("buried", "exchanges[0].request.body.messages: nested deeper than 100 levels"),
    ("status", "exchanges[0].response.status: an HTTP status from 200 to 599 expected, got 99"),
    ("content", "exchanges[0].response.body.content[1].text: a text expected, got 5"),
    ("key", "exchanges[0].response.body.content[1].text holds a key-shaped string; a cassette "
            "never holds a key: record it again"),
])
def test_compact_serve_says_a_broken_cassette_in_one_line_without_a_traceback(tmp_path, shape, said):
    """The two the issue found (200,000 deep; `"body": 5`) and three more, through the
    command a teacher runs."""
    data = copy.deepcopy(GOOD)
    exchange = data["exchanges"][0]
    if shape == "five":
        exchange["response"]["body"] = 5
    elif shape == "buried":
        exchange["request"]["body"]["messages"] = nested(150, "x")
    elif shape == "status":
        exchange["response"]["status"] = 99
    elif shape == "content":
        exchange["response"]["body"]["content"][1]["text"] = 5
    elif shape == "key":     # recorded before cassettes refused keys
        exchange["response"]["body"]["content"][1]["text"] = "sk-class-" + "Q" * 43
    text = json.dumps(data)
    if shape == "deep":
        text = text.replace('"max_tokens": 50', '"max_tokens": ' + "[" * 200_000 + "]" * 200_000, 1)
    path = tmp_path / f"{shape}.cassette.json"
    path.write_text(text, encoding="utf-8")
    done = serve(path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: {path}: {said}"), done.stderr


@pytest.mark.parametrize("depth", [900, 200_000])
def test_a_request_nested_deep_gets_a_400_from_a_cassette_not_a_500(tmp_path, depth):
    """What a client sends is anyone's too: nested past the stack, it is a 400 that says so;
    nested just short of it, the mismatch quotes what it can."""
    path = tmp_path / "good.cassette.json"
    path.write_text(json.dumps(GOOD), encoding="utf-8")
    with start_offline_server(cassette=path) as server:
        raw = '{"model": "claude-x", "max_tokens": 50, "messages": ' + "[" * depth + "]" * depth + "}"
        status, reply = ask(server.port, key_for(server.base_url), "/v1/messages", raw.encode())
    reply = json.loads(reply)
    assert status == 400 and reply["error"]["type"] == "invalid_request_error", reply
