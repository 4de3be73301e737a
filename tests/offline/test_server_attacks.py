"""The offline server against what issue 29's attacks found at 738125d, one test each:
another user's requests (no key needed), a crowd of idle connections (529 at 256),
unbounded work (10,000 clearing edits), a log that kept every error's text (12
refused 8 MB requests kept 136 MB), and a non-ASCII compaction signature (a 500)."""

import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time

import pytest
from anthropic.types import CompactionSignatureInvalidError

from compact_course.agent.model import offline_client
from compact_course.offline import MODEL_NAME
from compact_course.offline.api import context_management, server
from compact_course.offline.api.server import key_for

pytestmark = pytest.mark.usefixtures("no_network")  # nothing but loopback (conftest.py)

HELLO = {"model": MODEL_NAME, "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
COMPACT = "compact-2026-01-12"
CLEAR = "context-management-2025-06-27"


def post(offline, body, betas: str = "", connection=None) -> tuple[int, dict]:
    mine = connection or http.client.HTTPConnection("127.0.0.1", offline.port, timeout=30)
    mine.request("POST", "/v1/messages", body=json.dumps(body).encode(),
                 headers={"x-api-key": key_for(offline.base_url), "content-type": "application/json",
                          "anthropic-beta": betas})
    response = mine.getresponse()
    payload = json.loads(response.read())
    if connection is None:
        mine.close()
    return response.status, payload


# -- a crowd of idle connections --------------------------------------------------------------

IDLE = 2000


def open_files_for(count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # Both ends of each connection live in this process, beside what it has open already
    # (after a long run of the suite: kernels' sockets, zmq contexts).
    needed = 2 * count + len(os.listdir("/proc/self/fd")) + 256
    if soft != resource.RLIM_INFINITY and soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            pytest.skip(f"{needed} open files are needed, the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


@pytest.mark.slow
def test_with_two_thousand_idle_connections_open_a_client_still_gets_its_answer_in_a_second(offline):
    open_files_for(IDLE)
    idle = []
    try:
        for _ in range(IDLE):
            idle.append(socket.create_connection(("127.0.0.1", offline.port), timeout=10))
        for _ in range(200):     # at most 10 s: the server has taken them all
            if getattr(offline, "connections", IDLE) >= IDLE:
                break
            time.sleep(0.05)
        assert threading.active_count() < 50     # no thread per connection
        with offline_client(offline.base_url, max_retries=0) as sdk:
            started = time.monotonic()
            reply = sdk.messages.create(**HELLO)
            took = time.monotonic() - started
        assert reply.type == "message" and took < 1.0, took
    finally:
        for sock in idle:
            sock.close()


CROWD = """
import socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
held = []
for _ in range(count):
    try:
        held.append(socket.create_connection(("127.0.0.1", port), timeout=10))
    except OSError:
        pass
print(len(held), flush=True)
sys.stdin.read()     # held until the test closes stdin
"""


@pytest.mark.slow
def test_another_user_holding_4200_connections_leaves_the_students_client_served(offline):
    """Issue 49: another local user (nobody, when the test runs as root) opened 4,200
    connections without the key and held them; the student's client got 529."""
    count = server.MAX_CONNECTIONS + 104
    open_files_for(count // 2)      # this process holds the server's ends only
    as_other = (["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
                if os.geteuid() == 0 else [])
    if as_other and subprocess.run([*as_other, sys.executable, "-c", ""]).returncode:
        as_other = []   # this Python is out of nobody's reach: the server tells no user apart anyway
    files = count + 256

    def more_files():
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        wanted = files if hard == resource.RLIM_INFINITY or os.geteuid() == 0 else min(files, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, max(wanted, hard)))

    crowd = subprocess.Popen([*as_other, sys.executable, "-c", CROWD, str(offline.port), str(count)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             preexec_fn=more_files, cwd="/")
    try:
        opened = int(crowd.stdout.readline())
        assert opened >= server.MAX_CONNECTIONS, opened
        for _ in range(200):     # at most 10 s: the server holds as many as it allows
            if offline.connections >= server.MAX_CONNECTIONS:
                break
            time.sleep(0.05)
        assert offline.connections >= server.MAX_CONNECTIONS
        with offline_client(offline.base_url, max_retries=0) as sdk:
            replies = [sdk.messages.create(**HELLO).type for _ in range(5)]
        assert replies == ["message"] * 5
    finally:
        crowd.stdin.close()
        crowd.wait(timeout=30)


# -- bounded work: edits per request ------------------------------------------------------------

def edits(count: int) -> dict:
    return {"edits": [{"type": "clear_tool_uses_20250919"}] * count}


def test_a_request_of_ten_thousand_clearing_edits_is_refused_at_once(offline):
    started = time.monotonic()
    status, payload = post(offline, {**HELLO, "context_management": edits(10_000)}, CLEAR)
    assert time.monotonic() - started < 5      # before the cap: 26-34 s of CPU
    assert status == 400 and payload["error"]["type"] == "invalid_request_error"
    assert payload["error"]["message"] == (
        f"context_management.edits: at most {context_management.MAX_EDITS} edits in one request "
        f"(the offline server's limit), got 10000")


def test_the_cap_leaves_every_edit_a_request_can_mean(offline):
    status, payload = post(offline, {**HELLO, "context_management": edits(context_management.MAX_EDITS)},
                           CLEAR)
    assert status == 200 and payload["context_management"] == {"applied_edits": []}


# -- a log of bounded facts -------------------------------------------------------------------

def test_refused_requests_with_huge_fields_leave_only_bounded_log_entries(offline):
    huge = "x" * 2_000_000
    bad = {**HELLO, "messages": [{"role": "user", "content": [{"type": huge, "text": "hi"}]}]}
    connection = http.client.HTTPConnection("127.0.0.1", offline.port, timeout=30)
    for _ in range(12):
        status, payload = post(offline, bad, connection=connection)
        assert status == 400 and payload["error"]["type"] == "invalid_request_error"
    connection.close()
    entries = list(offline.requests)
    assert [e["status"] for e in entries] == [400] * 12
    assert all(len(e["message"]) <= server.LOG_MESSAGE_CHARS + 3 for e in entries)
    assert entries[0]["message"].startswith("messages.0.content.0.type: Input should be one of")
    assert sum(len(json.dumps(e)) for e in entries) < 12 * 500


def test_the_log_keeps_the_newest_entries_only(offline):
    connection = http.client.HTTPConnection("127.0.0.1", offline.port, timeout=30)
    for _ in range(server.LOG_SIZE + 20):
        post(offline, {"model": MODEL_NAME, "max_tokens": 1, "messages": []}, connection=connection)
    connection.close()
    assert len(offline.requests) == server.LOG_SIZE
    assert offline.served == server.LOG_SIZE + 20


# -- a malformed compaction signature -----------------------------------------------------------

SIGNATURES = ["é", "é.é", "abc.dé", "ü" * 5000, "", ".", "nodot", "a" * 100_000 + ".b",
              "e30.00", "bm90IGpzb24.00", 7, 1.5, True, ["a", "b"], {"a": "b"}]


@pytest.mark.parametrize("signature", SIGNATURES, ids=lambda s: repr(s)[:20])
def test_a_malformed_signature_of_any_kind_is_a_400(offline, signature):
    block = {"type": "compaction", "content": "Current goal:\nShip it.", "encrypted_content": "e30",
             "signature": signature, "tool_changes": []}
    body = {**HELLO, "messages": [{"role": "assistant", "content": [block]},
                                  {"role": "user", "content": "Go on."}]}
    status, payload = post(offline, body, COMPACT)
    assert status == 400, payload
    assert payload["error"]["details"] == {"error_code": "compaction_signature_invalid"}


def test_the_sdk_raises_its_own_class_for_a_non_ascii_signature(offline):
    block = {"type": "compaction", "content": "Goal.", "encrypted_content": "e30",
             "signature": "签名.签名", "tool_changes": []}
    with offline_client(offline.base_url, max_retries=0) as sdk:
        with pytest.raises(CompactionSignatureInvalidError):
            sdk.beta.messages.create(model=MODEL_NAME, max_tokens=16, betas=[COMPACT], messages=[
                {"role": "assistant", "content": [block]}, {"role": "user", "content": "Go on."}])
