"""The offline model's HTTP server: the Messages API's two endpoints on 127.0.0.1, on aiohttp.

The article's agent talks to a real model through the `anthropic` SDK. So that
the course runs with no key and no network, this server stands in for the API:
`POST /v1/messages` and `POST /v1/messages/count_tokens`. What it answers is
`answer.py`'s one path (the API's rules, context management, the model, usage);
this module is HTTP only:
- a key: each server makes a random one when it starts and refuses (401
  `authentication_error`) a request without it, in `x-api-key` or
  `Authorization: Bearer`, so another user of a shared machine cannot use it.
  `offline_client` sends it (`key_for(base_url)`); it is never printed or logged;
- faults on demand: 429 `rate_limit_error` or 529 `overloaded_error`, a given
  number of times, with a short `retry-after-ms` so the SDK's retries are quick;
- any other method: 405 `invalid_request_error` on the two endpoints, 404
  `not_found_error` elsewhere, JSON in the API's error shape, never an HTML page.

Why aiohttp: the SDK already installs it, it is maintained, and it serves
thousands of connections on one event loop without a thread each. Its parser
(llhttp) frames every request; the course's limits are kept on top of it:
- a body is framed by one `Content-Length` only: two of them, or one that is not
  all digits (`+10`, `1_0`), are refused by aiohttp's parser (400, closed); a
  `Transfer-Encoding` is refused here (411, closed), and one with a
  `Content-Length` by the parser: no request can hide inside another's body;
- a connection that sends no request for IDLE_TIMEOUT seconds is closed
  (aiohttp's keep-alive timer, armed from the connection's start), and a body
  not received within IDLE_TIMEOUT is a 408;
- at most MAX_CONNECTIONS connections are open at once, and the key holder's are
  never crowded out (`_Server`): at the cap a new connection takes the place of the
  oldest one that has not shown the key, and only when every connection has shown
  it is the new one answered 529 `overloaded_error` and closed; MAX_BODY bytes a
  body, MAX_BODIES_AT_ONCE bytes of bodies being read or answered at once (529 past it);
- the log is a ring of LOG_SIZE entries of bounded facts: path, status, error
  type and the error's message cut to LOG_MESSAGE_CHARS; never a header, never a body.
The server runs on its own event loop in a daemon thread, so a notebook or a
test starts it with one call; the answers themselves run in the loop's worker
threads, so a long one never stalls the other connections.

`stream: true` gets the reply as server-sent events (sse.py); with a cassette
the server answers from a recorded run (cassette.py).

Left out: TLS, real rate limits, HTTP/2.
"""

import argparse
import asyncio
import json
import os
import resource
import secrets
import shutil
import signal
import sys
import tempfile
import threading
from collections import deque
from pathlib import Path

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from ...display.text import shown
from ..model.reply import MODEL_NAME
from ..tokens import DEFAULT_WINDOW
from .answer import answer
from .cassette import Cassette, CassetteError
from .rules import error_body
from .sse import send_stream, wants_stream
from .usage import PromptCache

HOST = "127.0.0.1"
MAX_BODY = 32 * 1024 * 1024
MAX_BODIES_AT_ONCE = 4 * MAX_BODY   # bytes of all the bodies being read or answered at once
MAX_CONNECTIONS = 4096    # open at once, idle ones included; each costs a socket, no thread
IDLE_TIMEOUT = 30.0       # seconds a connection may wait on its client
BACKLOG = 1024            # connections the kernel queues before the loop accepts them
INLINE_BODY = 16 * 1024   # bytes of body answered on the event loop itself (see _handle)
LOG_SIZE = 1000           # entries kept in `requests`, newest last
LOG_MESSAGE_CHARS = 300   # of an error's message in the log
ENDPOINTS = {"/v1/messages": "messages", "/v1/messages/count_tokens": "count_tokens"}
FAULTS = {
    429: ("rate_limit_error", "Number of requests has exceeded your rate limit "
                              "(simulated by the offline model)."),
    529: ("overloaded_error", "Overloaded (simulated by the offline model)."),
}
_KEYS: dict[str, str] = {}   # base_url -> key, for the servers running in this process


def key_for(base_url: str) -> str | None:
    """The key of the offline server at `base_url` started in this process (None: none is)."""
    return _KEYS.get(str(base_url).rstrip("/"))


def _json(status: int, payload: dict, headers: dict | None = None, close: bool = False,
          reason: str | None = None) -> web.Response:
    # ASCII escapes: valid JSON for any text, lone surrogates included.
    response = web.Response(status=status, reason=reason or ("Overloaded" if status == 529 else None),
                            body=json.dumps(payload).encode("ascii"),
                            headers={"content-type": "application/json", "server": "offline-model",
                                     **(headers or {})})
    if close:
        response.force_close()
    return response


class _Refused(Exception):
    """A request refused before it is answered: status, error type, message, and whether
    the connection must close (where this request ends, and the next begins, is unknown)."""

    def __init__(self, status: int, kind: str, message: str, close: bool = False):
        super().__init__(message)
        self.status, self.kind, self.close = status, kind, close


class OfflineServer:
    """A running offline model; `base_url` is what an Anthropic client needs, `offline_client`
    (compact_course.agent.model) sends its key.

    `window` may be changed while it runs (a notebook can shrink it to show a
    refusal); `requests` logs each request's path, status, error type and a
    bounded message, in order, the newest LOG_SIZE of them.
    """

    def __init__(self, window: int = DEFAULT_WINDOW, faults=(), port: int = 0,
                 retry_after_ms: int | None = 1, key: str | None = None,
                 cassette: Cassette | None = None):
        if not isinstance(window, int) or isinstance(window, bool) or window < 1:
            raise ValueError(f"window must be a positive number of tokens, got {window!r}")
        if key is not None and not (isinstance(key, str) and len(key) >= 16 and key.isascii()
                                    and key.isprintable() and " " not in key):
            raise ValueError("key must be at least 16 printable ASCII characters without spaces")
        self.window, self.cassette = window, cassette
        self.retry_after_ms = retry_after_ms
        self.requests: deque = deque(maxlen=LOG_SIZE)
        self.served = 0
        self.secret = os.urandom(32)      # signs this server's compaction blocks; never sent
        self._key = key or secrets.token_urlsafe(32)   # a caller's own: a proxy that holds it
        self.prompt_cache = PromptCache()
        self._faults = deque()
        self._lock = threading.Lock()
        self._body_bytes = 0              # touched on the loop's thread only
        self.add_faults(*faults)
        _room_for_connections()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="offline-model")
        self._thread.start()
        try:
            self._listener = self._call(self._listen(port))
        except BaseException:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            self._loop.close()
            raise
        self.port = self._listener.sockets[0].getsockname()[1]
        self.base_url = f"http://{HOST}:{self.port}"
        self._thread.name = f"offline-model-{self.port}"
        _KEYS[self.base_url] = self._key

    def __repr__(self) -> str:
        return f"OfflineServer({self.base_url}, window={self.window})"   # never the key

    def _call(self, coroutine, timeout: float = 10):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    async def _listen(self, port: int):
        self._web = _Server(self._handle, access_log=None, keepalive_timeout=IDLE_TIMEOUT,
                            lingering_time=1.0)
        return await self._loop.create_server(self._web, HOST, port, backlog=BACKLOG,
                                              reuse_address=True)

    # -- the state a test or a notebook reads and sets --------------------------------
    def add_faults(self, *statuses: int) -> None:
        """Answer the next /v1/messages requests with these statuses (429, 529), in order."""
        for status in statuses:
            if status not in FAULTS:
                raise ValueError(f"fault must be one of {sorted(FAULTS)}, got {status!r}")
        with self._lock:
            self._faults.extend(statuses)

    def next_fault(self) -> int | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def log(self, path: str, status: int, kind: str | None, message: str | None = None) -> None:
        """One entry of bounded facts; the message is cut, the ring drops the oldest."""
        if message is not None and len(message) > LOG_MESSAGE_CHARS:
            message = message[:LOG_MESSAGE_CHARS] + "..."
        with self._lock:
            self.served += 1
            self.requests.append({"path": path[:LOG_MESSAGE_CHARS], "status": status, "error": kind,
                                  "message": message})

    @property
    def connections(self) -> int:
        """Connections open now."""
        return len(self._web.connections)

    def stop(self) -> None:
        if self._loop.is_closed():
            return
        _KEYS.pop(self.base_url, None)
        try:
            self._call(self._close())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            self._loop.close()

    async def _close(self) -> None:
        self._listener.close()
        self._web.pre_shutdown()
        await self._web.shutdown(1.0)
        await self._loop.shutdown_default_executor()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    # -- one request ---------------------------------------------------------------
    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        path = request.path.rstrip("/")
        endpoint = ENDPOINTS.get(path)
        if request.method != "POST":
            return self._other_method(request, path, endpoint)
        size = 0
        try:
            self._check_post(request, endpoint)
            self._web.admit(request.protocol)    # it showed the key: never crowded out
            size = request.content_length or 0
            raw = await self._read_body(request, size)
        except _Refused as refused:
            self.log(path, refused.status, refused.kind, str(refused))
            return _json(refused.status, error_body(refused.kind, str(refused)), self._id(),
                         close=refused.close)
        try:
            fault = self.next_fault() if endpoint == "messages" else None
            if fault:
                return self._fault(path, fault)
            asked = (endpoint, path, raw, request.headers.get("anthropic-beta", ""))
            # A small body is answered on the loop: its answer takes well under a millisecond,
            # less than a hop to a worker thread; a larger one in a worker, never stalling the rest.
            status, payload = self._answer(*asked) if size <= INLINE_BODY else \
                await self._loop.run_in_executor(None, self._answer, *asked)
        finally:
            self._body_bytes -= size
        error = payload.get("error", {}) if status != 200 else {}
        self.log(path, status, error.get("type"), error.get("message"))
        if status == 200 and endpoint == "messages" and (wants_stream(raw) or "events" in payload):
            return await send_stream(request, payload, self._id())     # sse.py
        return _json(status, payload, self._id())

    def _id(self) -> dict:
        """The request-id header: this request's number, as logged."""
        return {"request-id": f"req_offline_{self.served}"}

    def _answer(self, endpoint: str, path: str, raw: bytes, betas: str) -> tuple:
        if self.cassette is not None:     # a recorded run, answered again (cassette.py)
            return self.cassette.answer_raw(path, raw)
        return answer(endpoint, raw, self.window, self.prompt_cache, betas, self.secret)

    def _check_post(self, request: web.BaseRequest, endpoint: str | None) -> None:
        if "transfer-encoding" in request.headers:
            raise _Refused(411, "invalid_request_error", "Transfer-Encoding is not supported: "
                           "send the body with one Content-Length", close=True)
        if endpoint is None:
            raise _Refused(404, "not_found_error", f"Not found: POST {request.raw_path}")
        if not self._has_key(request):
            raise _Refused(401, "authentication_error", "x-api-key header is required: the "
                           "offline server's key (offline_client sends it)")
        size = request.content_length or 0
        if size > MAX_BODY:
            raise _Refused(413, "request_too_large", f"Request body must be at most {MAX_BODY} bytes",
                           close=True)
        if self._body_bytes + size > MAX_BODIES_AT_ONCE:
            raise _Refused(529, "overloaded_error", f"Overloaded: over {MAX_BODIES_AT_ONCE} bytes of "
                           f"request bodies are being read at once (the offline model's limit)",
                           close=True)
        self._body_bytes += size   # given back when the answer is sent (see _handle)

    def _has_key(self, request: web.BaseRequest) -> bool:
        sent = request.headers.get("x-api-key")
        if sent is None:
            scheme, _, token = request.headers.get("authorization", "").partition(" ")
            sent = token.strip() if scheme.lower() == "bearer" else None
        return sent is not None and secrets.compare_digest(sent.encode(), self._key.encode())

    async def _read_body(self, request: web.BaseRequest, size: int) -> bytes:
        if size == 0:
            return b""
        try:
            async with asyncio.timeout(IDLE_TIMEOUT):
                return await request.content.readexactly(size)
        except (TimeoutError, asyncio.IncompleteReadError):
            self._body_bytes -= size
            raise _Refused(408, "timeout_error", f"Request body not received within {IDLE_TIMEOUT:g} s",
                           close=True) from None
        except BaseException:
            self._body_bytes -= size   # the client left mid-body
            raise

    def _other_method(self, request, path: str, endpoint: str | None) -> web.Response:
        if endpoint is not None:
            status, kind = 405, "invalid_request_error"
            message = f"Method not allowed: {request.method} {path}; use POST"
        else:
            status, kind, message = 404, "not_found_error", f"Not found: {request.method} {request.raw_path}"
        self.log(path, status, kind, message)
        return _json(status, error_body(kind, message), {**self._id(), "allow": "POST"} if status == 405
                     else self._id())

    def _fault(self, path: str, status: int) -> web.Response:
        kind, message = FAULTS[status]
        self.log(path, status, kind)
        headers = {**self._id(), "x-should-retry": "true"}
        if self.retry_after_ms is not None:
            headers["retry-after-ms"] = str(self.retry_after_ms)
        return _json(status, error_body(kind, message), headers)


def start_offline_server(window: int = DEFAULT_WINDOW, faults=(), port: int = 0,
                         retry_after_ms: int | None = 1, key: str | None = None,
                         cassette=None) -> OfflineServer:
    """Start the offline model on 127.0.0.1 (port 0: a free one) on its own thread; `key`:
    the key it requires (None: a random one, made now); with `cassette` (a Cassette or a
    path) it answers from that recorded run instead."""
    if cassette is not None and not isinstance(cassette, Cassette):
        cassette = Cassette.load(cassette)
    return OfflineServer(window=window, faults=faults, port=port, retry_after_ms=retry_after_ms,
                         key=key, cassette=cassette)


def _room_for_connections() -> None:
    """Raise this process's soft limit of open files toward MAX_CONNECTIONS (a socket each),
    within the hard limit; past it, a connection would be refused by the kernel instead."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MAX_CONNECTIONS + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        limit = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))


# -- aiohttp's pieces, for the limits above ---------------------------------------------

class _Protocol(RequestHandler):
    """aiohttp's connection handler; its own refusals (a bad request line, two
    Content-Lengths, ...) are JSON in the API's shape, and nothing goes to stderr."""

    def handle_error(self, request, status=500, exc=None, message=None):
        if status >= 500:   # an exception out of the handler: a bug of ours, named, never its text
            kind, text = "api_error", f"offline server failed: {type(exc).__name__}"
        else:
            said = (message or getattr(exc, "message", "") or "").split("\n", 1)[0].rstrip(":")
            kind = "request_too_large" if status in (413, 414, 431) else "invalid_request_error"
            text = f"The HTTP request was refused by the server's parser: {said or status}"
        return _json(status, error_body(kind, text[:LOG_MESSAGE_CHARS]), {"connection": "close"},
                     close=True)

    def log_exception(self, *args, **kw) -> None:
        pass   # a client that hangs up mid-request is no fault of the server: nothing to say


class _Overloaded(asyncio.Protocol):
    """One connection past MAX_CONNECTIONS: a 529 in the API's shape, written at once, then
    closed within a second. What the client sends meanwhile is dropped unread: closing on
    unread bytes would reset the connection before the client reads the 529."""

    def connection_made(self, transport) -> None:
        data = json.dumps(error_body("overloaded_error", f"Overloaded: {MAX_CONNECTIONS} connections "
                                     f"are open (the offline model's limit)")).encode()
        transport.write(b"HTTP/1.1 529 Overloaded\r\ncontent-type: application/json\r\n"
                        b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(data), data))
        transport.write_eof()
        asyncio.get_running_loop().call_later(1.0, transport.close)

    def data_received(self, data: bytes) -> None:
        pass


class _Server(web.Server):
    """aiohttp's low-level server, with a cap on open connections that another user of
    the machine cannot fill.

    aiohttp caps nothing, and knows a peer only by its address: on loopback every peer
    is 127.0.0.1, so a cap per address would be one cap for everyone, and another local
    user holding MAX_CONNECTIONS idle connections locked the key holder out (529). The
    peer that counts here is whether a connection has shown this server's key: a request
    on it that carries the key makes it the key holder's (`admit`), and those are never
    closed to make room. At the cap, a new connection takes the place of the oldest one
    that has not shown the key (closed unanswered); only when every open connection has
    shown it is the new one answered 529. A student's client sends its request within a
    millisecond of connecting, while a crowd would have to open MAX_CONNECTIONS more
    connections in that time (at most BACKLOG are accepted an event-loop turn) to close
    it first; each connection the crowd opens closes one of its own.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._unproven: dict = {}     # connections that have not shown the key, oldest first

    def __call__(self):
        if len(self._connections) >= MAX_CONNECTIONS and not self._make_room():
            return _Overloaded()
        protocol = _Protocol(self, loop=self._loop, **self._kwargs)
        self._unproven[protocol] = None
        return protocol

    def _make_room(self) -> bool:
        """Close the oldest open connection that has not shown the key; False: none is."""
        for protocol in self._unproven:
            if protocol.transport is not None:   # made, and not closed yet
                break
        else:
            return False
        del self._unproven[protocol]
        protocol.force_close()
        return True

    def admit(self, protocol) -> None:
        self._unproven.pop(protocol, None)

    def connection_lost(self, handler, exc=None) -> None:
        self._unproven.pop(handler, None)
        super().connection_lost(handler, exc)


# -- python -m compact_course serve ------------------------------------------------

def _number(low: int, high: int | None, what: str):
    """An argparse type: a whole number from `low` to `high` (None: no upper bound)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{text} is not {what}")
        return value
    return parse


def _key_file(server: OfflineServer) -> Path:
    """The key, in a new folder only this user can read (printed: the path, never the key)."""
    folder = Path(tempfile.mkdtemp(prefix="compact-serve-"))   # mode 0700
    path = folder / "key"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(server._key)
    return path


def _kept_key(path: str) -> str:
    """The key kept in `path` (its first line), which no one else may read: a unit hands it over
    (systemd's LoadCredential), or a shell as its standard input (`--key-file /dev/stdin`)."""
    with open(path) as file:
        if os.fstat(file.fileno()).st_mode & 0o077:
            raise ValueError("others may read or write it: chmod 600 it")
        key = file.readline().strip()
    if not key:
        raise ValueError("it holds no key on its first line")
    return key


def main_serve(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m compact_course serve",
        description="Run the offline model alone on 127.0.0.1, for any Anthropic client.")
    parser.add_argument("--port", type=_number(0, 65535, "a port number (0 to 65535)"),
                        default=8765, help="port (0: any free one)")
    parser.add_argument("--window", type=_number(1, None, "a positive number of tokens"),
                        default=DEFAULT_WINDOW,
                        help="context window in estimated tokens (default %(default)s)")
    parser.add_argument("--fail", type=int, action="append", default=[], choices=sorted(FAULTS),
                        help="answer the next request with this status; repeat for more")
    parser.add_argument("--cassette", metavar="FILE",
                        help="answer from this recorded run (compact-course record)")
    parser.add_argument("--key-file", metavar="FILE",
                        help="require the key in FILE (its first line; readable by you alone), the same at "
                             "every start, instead of a new one each start")
    args = parser.parse_args(argv)
    try:
        kept = _kept_key(args.key_file) if args.key_file else None
    except (OSError, ValueError) as error:
        print(f"error: --key-file {shown(args.key_file)}: {shown(str(error))}", file=sys.stderr)
        return 1
    try:
        server = start_offline_server(window=args.window, faults=args.fail, port=args.port,
                                      cassette=args.cassette, key=kept)
    except CassetteError as error:   # its file and field, in one line (already through shown)
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as error:
        print(f"error: cannot serve on {HOST}:{args.port}: {error}", file=sys.stderr)
        return 1
    key = Path(args.key_file) if kept is not None else _key_file(server)
    print(f"Offline model listening on {server.base_url} (window {server.window} tokens).")
    if server.cassette is not None:
        print(f"It answers from {shown(args.cassette)}: {server.cassette.describe()}.")
    # A cassette answers requests in the model's name it recorded: the client must send it.
    model = server.cassette.models[0] if server.cassette is not None and server.cassette.models \
        else MODEL_NAME
    print(f"Its key is in {key} (yours alone; {'a new one' if kept is None else 'the same'} each start). "
          "Point a client at it:")
    print(f"  ANTHROPIC_BASE_URL={server.base_url} ANTHROPIC_API_KEY=$(cat {key}) MODEL_ID={shown(model)}")
    print("Ctrl-C stops it.", flush=True)
    signal.signal(signal.SIGTERM, signal.default_int_handler)   # `kill` too removes the key
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        server.stop()
        if kept is None:
            shutil.rmtree(key.parent, ignore_errors=True)
    return 0
