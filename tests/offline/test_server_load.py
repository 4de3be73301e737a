"""The offline model under a classroom's load, at the socket level: many clients
at once, clients that hang up, methods other than POST, and how a reply is
written. Timing is printed by `python -m compact_course bench-server`, never asserted here."""

import contextlib
import http.client
import io
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import anthropic
import pytest

from compact_course.agent.model import offline_client
from compact_course.bench import server_rate
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.server import key_for, start_offline_server

pytestmark = pytest.mark.usefixtures("no_network")  # nothing but loopback (conftest.py)

HELLO = {"model": MODEL_NAME, "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.slow
def test_fifty_concurrent_sdk_clients_of_ten_requests_get_no_connection_error(offline):
    clients, per_client = 50, 10
    barrier = threading.Barrier(clients)
    outcomes, lock = [], threading.Lock()

    def student():
        with offline_client(offline.base_url, max_retries=0) as sdk:
            sdk = sdk.with_options(timeout=30)
            barrier.wait(timeout=30)   # all connect at the same moment
            for _ in range(per_client):
                try:
                    outcome = sdk.messages.create(**HELLO).type
                except anthropic.APIError as error:
                    outcome = type(error).__name__
                with lock:
                    outcomes.append(outcome)

    threads = [threading.Thread(target=student, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert len(outcomes) == clients * per_client
    assert [o for o in outcomes if o != "message"] == []
    assert [r["status"] for r in offline.requests].count(200) == clients * per_client


def test_the_backlog_holds_a_classroom_of_connections_while_none_is_accepted():
    release = threading.Event()
    with start_offline_server() as handle:
        # The event loop stops here: connections queue in the kernel, none is accepted.
        handle._loop.call_soon_threadsafe(release.wait, 30)
        # With socketserver's backlog of 5, the seventh connect here timed out.
        sockets = [socket.create_connection(("127.0.0.1", handle.port), timeout=5)
                   for _ in range(150)]
        release.set()
        for sock in sockets:
            sock.sendall(b"GET /v1/messages HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        statuses = [sock.makefile("rb").readline().split()[1] for sock in sockets]
        for sock in sockets:
            sock.close()
    assert statuses == [b"405"] * 150


@contextlib.contextmanager
def server_stderr():
    """What the server's threads write to stderr while the block runs."""
    captured = io.StringIO()
    real = sys.stderr
    sys.stderr = captured
    try:
        yield captured
    finally:
        sys.stderr = real




def test_clients_that_hang_up_mid_request_or_mid_reply_leave_stderr_quiet(offline):
    long_text = "a long request " * 15_000
    body = json.dumps({**HELLO, "messages": [{"role": "user", "content": long_text}]})
    head = (f"POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: {key_for(offline.base_url)}\r\n"
            f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n")
    reset_on_close = struct.pack("ii", 1, 0)   # SO_LINGER on, 0 s: close sends an RST
    with server_stderr() as captured:
        for n in range(20):
            sock = socket.create_connection(("127.0.0.1", offline.port), timeout=10)
            # Odd rounds hang up halfway through the body, even ones once the
            # request is whole, without reading the reply: the server's read or
            # write fails with a reset connection or a broken pipe.
            sock.sendall(head.encode() + body.encode()[: len(body) // 2 if n % 2 else None])
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, reset_on_close)
            sock.close()
        for _ in range(600):   # at most 30 s: every connection has closed
            if not offline.connections:
                break
            time.sleep(0.05)
        assert offline.connections == 0
        # The server still answers.
        with offline_client(offline.base_url, max_retries=0) as sdk:
            assert sdk.messages.create(**HELLO).type == "message"
    assert captured.getvalue() == ""


def test_a_bug_of_ours_is_a_500_in_the_api_shape_and_stderr_stays_quiet(monkeypatch):
    from compact_course.offline.api import answer as path

    def broken(request):
        raise ValueError("a bug of ours " + "x" * 10_000)

    monkeypatch.setattr(path, "respond", broken)
    with start_offline_server() as handle, server_stderr() as captured:
        response, data = raw(handle, "POST", "/v1/messages", body=json.dumps(HELLO).encode())
        entry = handle.requests[-1]
    assert response.status == 500
    message = json.loads(data)["error"]["message"]
    assert message.startswith("offline model failed: ValueError: a bug of ours") and len(message) <= 300
    assert (entry["status"], entry["error"]) == (500, "api_error") and len(entry["message"]) <= 303
    assert captured.getvalue() == ""


def raw(offline, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", offline.port, timeout=10)
    connection.request(method, path, body=body,
                       headers={"x-api-key": key_for(offline.base_url), **(headers or {})})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response, data


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"])
@pytest.mark.parametrize("path", ["/v1/messages", "/v1/messages/count_tokens/", "/v1/models"])
def test_other_methods_get_a_4xx_json_error_in_the_api_shape(offline, method, path):
    response, data = raw(offline, method, path, body=b"{}")
    assert response.getheader("content-type") == "application/json"
    payload = json.loads(data)
    if path == "/v1/models":
        assert response.status == 404
        assert payload == {"type": "error", "error": {
            "type": "not_found_error", "message": f"Not found: {method} {path}"}}
    else:
        assert response.status == 405 and response.getheader("allow") == "POST"
        assert payload == {"type": "error", "error": {
            "type": "invalid_request_error",
            "message": f"Method not allowed: {method} {path.rstrip('/')}; use POST"}}


def test_a_method_aiohttp_does_not_know_is_refused_by_its_parser(offline):
    response, data = raw(offline, "BREW", "/v1/messages", body=b"{}")
    assert (response.status, response.getheader("connection")) == (400, "close")
    assert json.loads(data)["error"] == {"type": "invalid_request_error", "message": "The HTTP request "
                                         "was refused by the server's parser: Invalid method encountered"}


def test_head_gets_the_405_headers_and_no_body(offline):
    response, data = raw(offline, "HEAD", "/v1/messages")
    assert response.status == 405 and data == b""
    assert int(response.getheader("content-length")) > 0


def test_after_a_refused_method_the_same_connection_answers_a_post(offline):
    connection = http.client.HTTPConnection("127.0.0.1", offline.port, timeout=10)
    key = key_for(offline.base_url)
    connection.request("PUT", "/v1/messages", body=b'{"a": 1}', headers={"x-api-key": key})
    first = connection.getresponse()
    assert first.status == 405 and first.read()
    connection.request("POST", "/v1/messages", body=json.dumps(HELLO).encode(),
                       headers={"x-api-key": key, "content-type": "application/json"})
    second = connection.getresponse()
    assert second.status == 200 and json.loads(second.read())["type"] == "message"
    connection.close()


def test_a_malformed_request_line_gets_json_not_html(offline):
    with socket.create_connection(("127.0.0.1", offline.port), timeout=10) as sock:
        sock.sendall(b"NONSENSE\r\n\r\n")
        reply = sock.makefile("rb").read()
    head, _, body = reply.partition(b"\r\n\r\n")
    # aiohttp answers a request line it cannot read in HTTP/1.0.
    assert head.startswith(b"HTTP/1.0 400 ") and b"connection: close" in head.lower()
    assert json.loads(body)["error"]["type"] == "invalid_request_error"
    assert b"<html" not in reply.lower()


@pytest.fixture
def sends(monkeypatch):
    """Each write on the server's side of every connection, and TCP_NODELAY as set."""
    seen = {"sends": [], "nodelay": []}
    from asyncio.selector_events import _SelectorSocketTransport as transport
    original = transport.write

    def write(self, data):
        sock = self.get_extra_info("socket")
        seen["nodelay"].append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        seen["sends"].append(bytes(data))
        return original(self, data)

    monkeypatch.setattr(transport, "write", write)
    return seen


@pytest.mark.parametrize("method, path, status", [("POST", "/v1/messages", 200),
                                                  ("POST", "/v1/messages/count_tokens", 200),
                                                  ("POST", "/v1/nothing", 404),
                                                  ("GET", "/v1/messages", 405)])
def test_one_reply_is_one_write_on_a_socket_with_tcp_nodelay(offline, sends, method, path, status):
    response, data = raw(offline, method, path, body=json.dumps(HELLO).encode(),
                         headers={"content-type": "application/json"})
    assert response.status == status
    assert sends["nodelay"] == [1]     # asyncio sets TCP_NODELAY on every TCP connection
    assert len(sends["sends"]) == 1
    head, _, body = sends["sends"][0].partition(b"\r\n\r\n")
    assert head.startswith(f"HTTP/1.1 {status} ".encode()) and body == data


def test_a_529_has_its_reason_phrase(sends):
    with start_offline_server(faults=[529]) as handle:
        response, data = raw(handle, "POST", "/v1/messages", body=json.dumps(HELLO).encode())
    assert response.status == 529 and response.reason == "Overloaded"
    assert json.loads(data)["error"]["type"] == "overloaded_error"
    assert len(sends["sends"]) == 1


@pytest.mark.slow
def test_the_benchmark_counts_calls_and_failures(capsys):
    with start_offline_server() as handle:
        one = server_rate.sequential(handle.base_url, 5)
        many = server_rate.concurrent(handle.base_url, 3, 4)
        assert (one.calls, one.failed, many.calls, many.failed) == (5, 0, 12, 0)
        # The warm-up call that opens the sequential connection is count_tokens.
        assert [r["status"] for r in handle.requests] == [200] * (1 + 5 + 12)
        handle.add_faults(429, 529)
        faulty = server_rate.sequential(handle.base_url, 3)
    assert faulty.failures == {"RateLimitError": 1, "OverloadedError": 1}
    assert server_rate.main(["--requests", "3", "--clients", "2", "--per-client", "2",
                             "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "sequential, 1 client" in out and "concurrent, 2 clients" in out
    assert out.count("requests/s") == 4 and out.count("failed: none") == 4
    assert out.count("x the echo's time per call") == 2 and "the answer alone, no HTTP" in out


@pytest.mark.slow
def test_python_m_compact_bench_server_prints_both_rates(tmp_path):
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["PYTHONPATH"] = str(root)
    done = subprocess.run([sys.executable, "-m", "compact_course", "bench-server", "--requests", "20",
                           "--clients", "5", "--per-client", "4", "--rounds", "1"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rates = re.findall(r"^  (sequential, 1 client|concurrent, 5 clients) +(\d+) calls in .*"
                       r" ([\d.]+) requests/s, .*failed: none$", done.stdout, re.MULTILINE)
    # The offline model's two runs, then the echo's two, on the same library.
    assert [(label, calls) for label, calls, _ in rates] == [("sequential, 1 client", "20"),
                                                             ("concurrent, 5 clients", "20")] * 2
    assert all(float(rate) > 0 for _, _, rate in rates) and done.stderr == ""
    times = re.findall(r"the offline model takes ([\d.]+)x the echo's time per call", done.stdout)
    assert len(times) == 2 and all(float(t) > 0 for t in times)
