"""The offline model's HTTP layer against a client that misbehaves (issues 19 and 29):
a body is framed by one all-digit Content-Length only (aiohttp's parser refuses
the rest, listed below), a Transfer-Encoding is refused and the connection
closed (no hidden request behind a chunk), a quiet connection is closed after
the idle timeout, connections and body bytes at once are bounded, and every
refusal is in the API's error shape."""

import json
import socket
import time
from collections import deque

import pytest

from compact_course.offline.api import server
from compact_course.offline.api.server import key_for, start_offline_server

pytestmark = pytest.mark.usefixtures("no_network")  # nothing but loopback (conftest.py)

GOOD = json.dumps({"model": "offline-s08", "max_tokens": 10,
                   "messages": [{"role": "user", "content": "hi"}]}).encode()


def exchange(port: int, data: bytes, wait: float = 5) -> bytes:
    """Send raw bytes, read until the server closes (or `wait` passes with nothing)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(data)
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except TimeoutError:
            pass
    return received


def responses(raw: bytes) -> list[tuple[int, dict, dict]]:
    """(status, headers, JSON body) of each response in `raw`."""
    found = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:])
        headers = {k.lower(): v for k, v in headers.items()}
        size = int(headers["content-length"])
        found.append((int(lines[0].split()[1]), headers, json.loads(rest[:size])))
        raw = rest[size:]
    return found


KEY = {}   # the key of the server under test, set by the fixtures


def post(headers: str, body: bytes = b"", host: str = "Host: x\r\n") -> bytes:
    return (f"POST /v1/messages HTTP/1.1\r\n{host}x-api-key: {KEY['key']}\r\n"
            f"content-type: application/json\r\n{headers}\r\n").encode() + body


def started(**options):
    handle = start_offline_server(**options)
    KEY["key"] = key_for(handle.base_url)
    return handle


@pytest.fixture
def offline():
    with started() as handle:
        yield handle


def test_a_chunked_body_is_refused_and_its_chunk_never_runs_as_a_request(offline):
    hidden = (b"POST /v1/messages/count_tokens HTTP/1.1\r\nHost: x\r\nx-api-key: "
              + KEY["key"].encode() + b"\r\ncontent-length: 2\r\n\r\n{}")
    chunk = f"{len(hidden):x}\r\n".encode() + hidden + b"\r\n0\r\n\r\n"
    got = responses(exchange(offline.port, post("Transfer-Encoding: chunked\r\n", chunk)))
    assert len(got) == 1, got              # one answer: the chunk was not read as a request
    status, headers, payload = got[0]
    assert status == 411 and headers["connection"] == "close"
    assert payload == {"type": "error", "error": {
        "type": "invalid_request_error",
        "message": "Transfer-Encoding is not supported: send the body with one Content-Length"}}
    assert [r["path"] for r in offline.requests] == ["/v1/messages"]


def refused_by_the_parser(got, said: str) -> None:
    """One 400 in the API's shape, the connection closed, naming what aiohttp's parser refused."""
    assert len(got) == 1, got
    status, headers, payload = got[0]
    assert status == 400 and headers["connection"] == "close"
    assert payload["error"]["type"] == "invalid_request_error"
    assert payload["error"]["message"] == f"The HTTP request was refused by the server's parser: {said}"


# What aiohttp's parser (llhttp) refuses before a handler runs, each a 400 with the connection closed.
def test_transfer_encoding_with_a_content_length_is_refused_too(offline):
    got = responses(exchange(offline.port, post(f"Transfer-Encoding: chunked\r\nContent-Length: "
                                                f"{len(GOOD)}\r\n", GOOD)))
    refused_by_the_parser(got, "Content-Length can't be present with Transfer-Encoding")


@pytest.mark.parametrize("value", ["1_0", "+10", '" 10"', "0x10", "10.0", "-1", "١٠"])
def test_a_content_length_that_is_not_all_digits_is_refused(offline, value):
    got = responses(exchange(offline.port, post(f"Content-Length: {value}\r\n", b"{}" + b" " * 8)))
    refused_by_the_parser(got, "Invalid character in Content-Length")
    assert offline.requests == deque()     # no handler ran


def test_a_content_length_of_thirteen_digits_is_too_large(offline):
    got = responses(exchange(offline.port, post(f"Content-Length: {'9' * 13}\r\n", b"{}")))
    assert [(s, h["connection"], p["error"]["type"]) for s, h, p in got] == [
        (413, "close", "request_too_large")]


def test_two_content_lengths_are_refused_whatever_they_say(offline):
    for first, second in ((len(GOOD), len(GOOD)), (2, len(GOOD)), (len(GOOD), 2)):
        got = responses(exchange(offline.port, post(f"Content-Length: {first}\r\n"
                                                    f"Content-Length: {second}\r\n", GOOD)))
        refused_by_the_parser(got, "Duplicate Content-Length")


@pytest.mark.parametrize("header, said", [
    ("Transfer-Encoding: chunked, gzip", "Invalid `Transfer-Encoding` header value"),
    ("Content-Length : 7", "Invalid header field char"),
    ("X-Nothing: 1", "Missing 'Host' header in request."),
    (f"Content-Length: {len(GOOD)}\r\n 1", "Unexpected whitespace after header value")])
def test_other_framings_a_proxy_might_read_differently_are_refused(offline, header, said):
    host = "" if header.startswith("X-Nothing") else "Host: x\r\n"
    got = responses(exchange(offline.port, post(f"{header}\r\n", GOOD, host)))
    refused_by_the_parser(got, said)


def test_a_good_request_on_the_same_connection_still_works(offline):
    one = post(f"Content-Length: {len(GOOD)}\r\n", GOOD)
    got = responses(exchange(offline.port, one + one
                             + b"POST /v1/messages HTTP/1.1\r\nhost: x\r\nconnection: close\r\nx-api-key: "
                             + KEY["key"].encode() + b"\r\ncontent-length: "
                             + str(len(GOOD)).encode() + b"\r\n\r\n" + GOOD))
    assert [status for status, _, _ in got] == [200, 200, 200]


def test_every_connection_has_an_idle_timeout(offline):
    # aiohttp's default keep-alive is an hour: a connection could wait that long.
    assert offline._web._kwargs["keepalive_timeout"] == server.IDLE_TIMEOUT
    assert 0 < server.IDLE_TIMEOUT <= 60


@pytest.mark.slow
def test_a_quiet_connection_is_closed_after_the_idle_timeout(monkeypatch, capfd):
    monkeypatch.setattr(server, "IDLE_TIMEOUT", 0.5)
    offline = started()
    begun = time.monotonic()
    # Headers promise 100 bytes; only 10 come. The server closes, answering nothing.
    half = exchange(offline.port, post("Content-Length: 100\r\n", b"{" * 10), wait=10)
    assert time.monotonic() - begun < 8
    got = responses(half)
    said = [(status, payload["error"]["type"]) for status, _, payload in got]
    assert said in ([], [(408, "timeout_error")])
    # A connection that sends nothing at all is closed too.
    begun = time.monotonic()
    assert exchange(offline.port, b"", wait=10) == b""
    assert time.monotonic() - begun < 8
    # And the server still answers, and has said nothing on stderr (no traceback).
    assert responses(exchange(offline.port, post(f"Content-Length: {len(GOOD)}\r\n"
                                                 f"connection: close\r\n", GOOD)))[0][0] == 200
    offline.stop()
    assert capfd.readouterr().err == ""


def keyed(count: int, port: int) -> list:
    """`count` connections that have each shown the key (one answered request), kept open."""
    held = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(post(f"Content-Length: {len(GOOD)}\r\n", GOOD))
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        held.append(sock)
    return held


def closed_unanswered(sock) -> bool:
    """The server closed `sock` without a byte (not a 529: that has a body)."""
    sock.settimeout(2)
    try:
        return sock.recv(65536) == b""
    except (TimeoutError, ConnectionResetError):
        return False


def test_connections_past_the_limit_get_an_overloaded_error_when_each_has_shown_the_key(monkeypatch):
    monkeypatch.setattr(server, "MAX_CONNECTIONS", 3)
    with started() as offline:
        held = keyed(3, offline.port)
        try:
            got = responses(exchange(offline.port, post(f"Content-Length: {len(GOOD)}\r\n", GOOD)))
            assert [(status, headers["connection"], payload["error"]["type"])
                    for status, headers, payload in got] == [(529, "close", "overloaded_error")]
            for sock in held:        # none was closed to make room: each answers again
                sock.sendall(post(f"Content-Length: {len(GOOD)}\r\n", GOOD))
                assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        finally:
            for sock in held:
                sock.close()
        time.sleep(0.3)         # they close, their slots come back
        got = responses(exchange(offline.port, post(f"Content-Length: {len(GOOD)}\r\n"
                                                    f"connection: close\r\n", GOOD)))
        assert [status for status, _, _ in got] == [200]


def test_a_crowd_without_the_key_holding_every_connection_cannot_keep_the_key_holder_out(monkeypatch):
    """Issue 49: another local user held all the connections (4,200 of 4,096) and the
    student's own client got 529. Now the crowd's oldest is closed to make room."""
    from compact_course.agent.model import offline_client
    monkeypatch.setattr(server, "MAX_CONNECTIONS", 20)
    with started() as offline:
        crowd = [socket.create_connection(("127.0.0.1", offline.port), timeout=5) for _ in range(25)]
        try:
            for _ in range(100):
                if offline.connections >= 20:
                    break
                time.sleep(0.05)
            assert offline.connections >= 20
            held = keyed(2, offline.port)        # and the key holder's own, kept open
            with offline_client(offline.base_url, max_retries=0) as sdk:
                for _ in range(3):
                    assert sdk.messages.create(model="offline-s08", max_tokens=10, messages=[
                        {"role": "user", "content": "hi"}]).type == "message"
            for sock in held:
                sock.sendall(post(f"Content-Length: {len(GOOD)}\r\nconnection: close\r\n", GOOD))
                assert sock.recv(65536).startswith(b"HTTP/1.1 200")
                sock.close()
            # The crowd's oldest made room, and its newest is still open: a connection past the
            # cap closes the oldest that has not shown the key, not the crowd at once. (How many
            # of the crowd went depends on when the kernel handed the server the ones past the
            # cap, so only the two ends are asserted.)
            assert [closed_unanswered(crowd[0]), closed_unanswered(crowd[-1])] == [True, False]
        finally:
            for sock in crowd:
                sock.close()


def test_bodies_past_the_total_cap_get_an_overloaded_error(monkeypatch):
    monkeypatch.setattr(server, "MAX_BODIES_AT_ONCE", 1000)
    with started() as offline:
        # One connection holds 900 bytes of the budget while its body trickles in.
        holder = socket.create_connection(("127.0.0.1", offline.port), timeout=5)
        try:
            holder.sendall(post("Content-Length: 900\r\n", b"{"))
            time.sleep(0.3)
            got = responses(exchange(offline.port, post("Content-Length: 200\r\n", b"{" * 200)))
            assert [(status, payload["error"]["type"]) for status, _, payload in got] == [
                (529, "overloaded_error")]
            small = responses(exchange(offline.port, post(f"Content-Length: {len(GOOD)}\r\n"
                                                          f"connection: close\r\n", GOOD)))
            assert [status for status, _, _ in small] == [200]     # it fits beside the holder
        finally:
            holder.close()
        time.sleep(0.3)
        got = responses(exchange(offline.port, post("Content-Length: 200\r\nconnection: close\r\n",
                                                    b" " * 200)))
        assert [status for status, _, _ in got] == [400]           # read, then refused as JSON
