"""The offline model: a local server that speaks the Anthropic Messages API.

The article's agent talks to a real model through the `anthropic` SDK. So that
the course runs with no key and no network, this server stands in for the API
on 127.0.0.1: `POST /v1/messages` and `POST /v1/messages/count_tokens`, with
`x-api-key` or `Authorization: Bearer` (any value; nothing is checked or kept).

It refuses what the real API refuses, in the API's error shape
(`{"type": "error", "error": {"type": ..., "message": ...}}`) and with the
API's own texts, so the SDK raises its own exceptions:
- a request that is not valid JSON, or has missing or mistyped fields (400);
- a tool_result whose tool_use is not in the previous message, and a tool_use
  with no tool_result right after it (400, the API's two texts);
- a prompt over the window: `prompt is too long: N tokens > M maximum` (400),
  N from the documented estimate in `compact.offline.tokens`;
- faults on demand: 429 `rate_limit_error` or 529 `overloaded_error`, a given
  number of times, with a short `retry-after-ms` so the SDK's retries are quick;
- any other method (GET, PUT, DELETE, HEAD, ...): 405 `invalid_request_error`
  on the two endpoints, 404 `not_found_error` elsewhere, never an HTML page.
Consecutive messages of the same role are accepted and read as one turn, as
the real API merges them.

It keeps up with a class: each reply leaves in one write with TCP_NODELAY set
(two writes made Nagle's algorithm wait for the client's delayed ACK on every
call), the listen backlog holds a classroom's connections at once, and a
client that hangs up mid-reply leaves nothing on stderr.

It is bounded against a client that misbehaves: a connection that sends
nothing for IDLE_TIMEOUT seconds is closed; at most MAX_CONNECTIONS are served
at once (one more is answered 529 `overloaded_error` and closed), and so are
bodies past MAX_BODIES_AT_ONCE bytes being read at once; a body is read only
from one all-digit `Content-Length` (two of them, `+10`, `1_0`: 400), and a
`Transfer-Encoding` is refused (411) with the connection closed, so a chunk
can never be read as a request of its own. `python -m compact
bench-server` prints the rates through the SDK.

What it answers comes from `compact.offline`, a scripted, deterministic model;
its `usage`, prompt-cache counts included, from `compact.offline.api.usage`.
Left out: streaming, images' content, real rate limits, and any check of the
key (this server is for loopback only).
"""

import argparse
import json
import os
import re
import sys
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ..model.reply import MODEL_NAME, respond
from ..tokens import DEFAULT_WINDOW, estimate_tokens
from .context_management import managed_answer
from .usage import CacheControlError, PromptCache, check_breakpoints

HOST = "127.0.0.1"
MAX_BODY = 32 * 1024 * 1024
MAX_BODIES_AT_ONCE = 4 * MAX_BODY   # bytes of all the bodies being read or answered at once
MAX_CONNECTIONS = 256     # served at once; a class of 30 with its retries needs far fewer
IDLE_TIMEOUT = 30.0       # seconds a connection may wait on its client
DIGITS = re.compile(r"[0-9]{1,12}")
ROLES = ("user", "assistant")
BLOCK_TYPES = ("text", "image", "document", "tool_use", "tool_result", "thinking",
               "redacted_thinking")
FAULTS = {
    429: ("rate_limit_error", "Number of requests has exceeded your rate limit "
                              "(simulated by the offline model)."),
    529: ("overloaded_error", "Overloaded (simulated by the offline model)."),
}


class RequestError(Exception):
    """A request the API would refuse: HTTP status, error type, message."""

    def __init__(self, message: str, status: int = 400, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.kind = status, kind


def error_body(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}


# -- the API's rules -----------------------------------------------------------

def _need(body: dict, field: str, kind: type, name: str):
    if field not in body:
        raise RequestError(f"{field}: Field required")
    value = body[field]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise RequestError(f"{field}: Input should be a valid {name}")
    return value


def check_shape(body, endpoint: str) -> None:
    """Fields and types, in the API's wording (`messages.1.content.0.text: ...`)."""
    if not isinstance(body, dict):
        raise RequestError("Request body must be a JSON object")
    model = _need(body, "model", str, "string")
    if not model:
        raise RequestError("model: String should have at least 1 character")
    if endpoint == "messages":
        if _need(body, "max_tokens", int, "integer") < 1:
            raise RequestError("max_tokens: Input should be greater than or equal to 1")
        if body.get("stream"):
            raise RequestError("stream: the offline model does not stream; send stream=false")
    messages = _need(body, "messages", list, "list")
    if not messages:
        raise RequestError("messages: at least one message is required")
    for i, message in enumerate(messages):
        _check_message(i, message, last=i == len(messages) - 1)
    _check_system(body.get("system"))
    _check_tools(body.get("tools"))


def _check_message(i: int, message, last: bool) -> None:
    where = f"messages.{i}"
    if not isinstance(message, dict):
        raise RequestError(f"{where}: Input should be a valid dictionary")
    if "role" not in message:
        raise RequestError(f"{where}.role: Field required")
    role = message["role"]
    if role not in ROLES:
        raise RequestError(f"{where}.role: Input should be 'user' or 'assistant'")
    if "content" not in message:
        raise RequestError(f"{where}.content: Field required")
    content = message["content"]
    if not isinstance(content, (str, list)):
        raise RequestError(f"{where}.content: Input should be a valid string or list")
    if not content and not (last and role == "assistant"):
        raise RequestError(f"{where}: all messages must have non-empty content except "
                           f"for the optional final assistant message")
    if isinstance(content, list):
        for j, block in enumerate(content):
            _check_block(f"{where}.content.{j}", role, block)


def _check_block(where: str, role: str, block) -> None:
    if not isinstance(block, dict):
        raise RequestError(f"{where}: Input should be a valid dictionary")
    kind = block.get("type")
    if kind not in BLOCK_TYPES:
        raise RequestError(f"{where}.type: Input should be one of "
                           f"{', '.join(repr(t) for t in BLOCK_TYPES)}; got {kind!r}")
    if kind == "text":
        if not isinstance(block.get("text"), str):
            raise RequestError(f"{where}.text: Field required" if "text" not in block
                               else f"{where}.text: Input should be a valid string")
        if not block["text"]:
            raise RequestError(f"{where}.text: text content blocks must be non-empty")
    elif kind == "tool_use":
        if role != "assistant":
            raise RequestError(f"{where}: tool_use blocks may only appear in assistant messages")
        for field, expected, name in (("id", str, "string"), ("name", str, "string"),
                                      ("input", dict, "dictionary")):
            if field not in block:
                raise RequestError(f"{where}.{field}: Field required")
            if not isinstance(block[field], expected):
                raise RequestError(f"{where}.{field}: Input should be a valid {name}")
    elif kind == "tool_result":
        if role != "user":
            raise RequestError(f"{where}: tool_result blocks may only appear in user messages")
        if not isinstance(block.get("tool_use_id"), str):
            raise RequestError(f"{where}.tool_use_id: Field required" if "tool_use_id" not in block
                               else f"{where}.tool_use_id: Input should be a valid string")
        inner = block.get("content", "")
        if not isinstance(inner, (str, list)):
            raise RequestError(f"{where}.content: Input should be a valid string or list")
        for k, part in enumerate(inner if isinstance(inner, list) else []):
            if not isinstance(part, dict) or part.get("type") not in ("text", "image", "document"):
                raise RequestError(f"{where}.content.{k}: Input should be a text, image "
                                   f"or document block")


def _check_system(system) -> None:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        raise RequestError("system: Input should be a valid string or list")
    for j, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text" \
                or not isinstance(block.get("text"), str):
            raise RequestError(f"system.{j}: Input should be a text block")


def _check_tools(tools) -> None:
    if tools is None:
        return
    if not isinstance(tools, list):
        raise RequestError("tools: Input should be a valid list")
    for j, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise RequestError(f"tools.{j}: Input should be a valid dictionary")
        if not isinstance(tool.get("name"), str) or not tool["name"]:
            raise RequestError(f"tools.{j}.name: Field required")
        if "type" not in tool and not isinstance(tool.get("input_schema"), dict):
            raise RequestError(f"tools.{j}.input_schema: Field required")


def _turns(messages) -> list[list[int]]:
    """Indexes grouped into turns: consecutive messages of one role are one turn."""
    turns = []
    for i, message in enumerate(messages):
        if turns and messages[turns[-1][-1]]["role"] == message["role"]:
            turns[-1].append(i)
        else:
            turns.append([i])
    return turns


def _blocks(messages, indexes, kind):
    """(message index, block index, block) of one kind, over a turn."""
    return [(i, j, b) for i in indexes if isinstance(messages[i]["content"], list)
            for j, b in enumerate(messages[i]["content"]) if b.get("type") == kind]


def check_pairs(messages) -> None:
    """The API's pairing rule, checked turn by turn, with its own texts."""
    turns = _turns(messages)
    for t, turn in enumerate(turns):
        previous = turns[t - 1] if t > 0 else []
        asked = {b["id"] for _, _, b in _blocks(messages, previous, "tool_use")}
        for i, j, block in _blocks(messages, turn, "tool_result"):
            if block["tool_use_id"] not in asked:
                raise RequestError(
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                    f"`tool_result` blocks: {block['tool_use_id']}. Each `tool_result` block "
                    f"must have a corresponding `tool_use` block in the previous message.")
        uses = _blocks(messages, turn, "tool_use")
        following = turns[t + 1] if t + 1 < len(turns) else []
        answered = {b["tool_use_id"] for _, _, b in _blocks(messages, following, "tool_result")}
        missing = [(i, b["id"]) for i, _, b in uses if b["id"] not in answered]
        if missing:
            raise RequestError(
                f"messages.{missing[0][0]}: `tool_use` ids were found without `tool_result` "
                f"blocks immediately after: {', '.join(m[1] for m in missing)}. Each "
                f"`tool_use` block must have a corresponding `tool_result` block in the "
                f"next message.")


def check_window(body: dict, window: int) -> int:
    tokens = estimate_tokens(body)
    if tokens > window:
        raise RequestError(f"prompt is too long: {tokens} tokens > {window} maximum")
    return tokens


TOO_DEEP = "Request body is nested too deeply"


def parse_body(raw: bytes):
    """The JSON body, or a 400: not UTF-8, not JSON, nested too deeply, or holding
    a lone surrogate (`\\ud800` is valid JSON but no text: it cannot be encoded)."""
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise RequestError(f"Request body is not valid JSON: {error}") from None
    except RecursionError:
        raise RequestError(TOO_DEEP) from None
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        raise RequestError(f"Request body is not valid JSON: a lone surrogate "
                           f"{error.object[error.start]!r} is not valid Unicode text") from None
    except RecursionError:
        raise RequestError(TOO_DEEP) from None
    return body


def answer(endpoint: str, raw: bytes, window: int, cache: PromptCache | None = None,
           betas: str = "", secret: bytes = b"") -> tuple[int, dict]:
    """(HTTP status, JSON payload) for one request body; no HTTP involved.

    `betas` is the anthropic-beta header, `secret` the key of this server's
    compaction signatures (context_management.py plays the API's own context
    management). Every refusal is the API's error shape; a bug of ours is a 500
    `api_error`, never an unanswered request.
    """
    try:
        body = parse_body(raw)
        return managed_answer(endpoint, body, betas, secret,
                              lambda kind, inner: plain_answer(kind, inner, window, cache))
    except RequestError as error:
        return error.status, error_body(error.kind, str(error))
    except RecursionError:
        # Only a body nested this deep gets here: the input's fault, not ours.
        return 400, error_body("invalid_request_error", TOO_DEEP)
    except Exception as error:  # noqa: BLE001 - answered in the API's shape, see above
        return 500, error_body("api_error",
                               f"offline model failed: {type(error).__name__}: {error}")


def plain_answer(endpoint: str, body, window: int, cache: PromptCache | None = None) -> tuple[int, dict]:
    """The answer to a request as it stands, with the API's rules checked."""
    check_shape(body, endpoint)
    check_pairs(body["messages"])
    if endpoint == "count_tokens":
        return 200, {"input_tokens": estimate_tokens(body)}
    check_window(body, window)
    try:
        check_breakpoints(body)
    except CacheControlError as error:
        raise RequestError(str(error)) from None
    reply = respond(body)
    reply["usage"] = (cache or PromptCache()).usage(body, reply["content"])
    return 200, reply


# -- the server ------------------------------------------------------------------

class OfflineServer:
    """A running offline model; `base_url` is what an Anthropic client needs.

    `window` may be changed while it runs (a notebook can shrink it to show a
    refusal); `requests` logs each request's path, status and error, in order.
    """

    def __init__(self, window: int = DEFAULT_WINDOW, faults=(), port: int = 0,
                 retry_after_ms: int | None = 1):
        if not isinstance(window, int) or isinstance(window, bool) or window < 1:
            raise ValueError(f"window must be a positive number of tokens, got {window!r}")
        self.window = window
        self.retry_after_ms = retry_after_ms
        self.requests: list[dict] = []   # path, status, error type and text; never headers
        self.secret = os.urandom(32)      # signs this server's compaction blocks; never sent
        self.prompt_cache = PromptCache()
        self._faults = deque()
        self._lock = threading.Lock()
        self.add_faults(*faults)
        self._httpd = _Server((HOST, port), _Handler)
        self._httpd.offline = self
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://{HOST}:{self.port}"
        # A short poll so stop() returns at once instead of after half a second.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        name=f"offline-model-{self.port}", daemon=True)
        self._thread.start()

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
        with self._lock:
            self.requests.append({"path": path, "status": status, "error": kind,
                                  "message": message})

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


def start_offline_server(window: int = DEFAULT_WINDOW, faults=(), port: int = 0,
                         retry_after_ms: int | None = 1) -> OfflineServer:
    """Start the offline model on 127.0.0.1 (port 0: a free one) in a daemon thread."""
    return OfflineServer(window=window, faults=faults, port=port, retry_after_ms=retry_after_ms)


class _Server(ThreadingHTTPServer):
    """A thread per connection up to MAX_CONNECTIONS, a backlog for a classroom, a
    budget of body bytes, quiet when a client leaves or times out."""

    daemon_threads = True
    # socketserver listens with a backlog of 5: with 50 clients connecting at
    # once, 1-10% of them were reset. The kernel caps it at net.core.somaxconn.
    request_queue_size = 1024

    def __init__(self, address, handler):
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._body_lock = threading.Lock()
        self._body_bytes = 0
        super().__init__(address, handler)

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            return self._overloaded(request)
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()   # no thread started: the slot is free again
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def _overloaded(self, request) -> None:
        """One connection too many: a 529 in the API's shape, written at once, then closed."""
        data = json.dumps(error_body("overloaded_error", f"Overloaded: {MAX_CONNECTIONS} "
                                     f"connections are open (the offline model's limit)")).encode()
        head = (f"HTTP/1.1 529 Overloaded\r\ncontent-type: application/json\r\n"
                f"content-length: {len(data)}\r\nconnection: close\r\n\r\n").encode()
        try:
            request.settimeout(1)
            request.sendall(head + data)
        except OSError:
            pass
        self.shutdown_request(request)

    def reserve(self, size: int) -> bool:
        """Take `size` bytes of the body budget; False when it would go over."""
        with self._body_lock:
            if self._body_bytes + size > MAX_BODIES_AT_ONCE:
                return False
            self._body_bytes += size
            return True

    def release(self, size: int) -> None:
        with self._body_lock:
            self._body_bytes -= size

    def handle_error(self, request, client_address):
        # A client that hangs up mid-request or mid-reply (BrokenPipeError,
        # ConnectionResetError, ...) or goes quiet past IDLE_TIMEOUT is no fault
        # of the server: nothing to say.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


REASONS = {529: "Overloaded"}  # statuses http.HTTPStatus does not know


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "offline-model"
    # TCP_NODELAY: a reply is one write anyway (see _send), and small writes
    # must never wait for the client's delayed ACK (40 ms a call on Linux).
    disable_nagle_algorithm = True
    ENDPOINTS = {"/v1/messages": "messages", "/v1/messages/count_tokens": "count_tokens"}
    # socketserver sets it on the socket: a read or write waiting longer raises TimeoutError,
    # and http.server closes the connection (between requests) or we do (mid-body).
    timeout = IDLE_TIMEOUT
    _reserved = 0   # body bytes this request holds of the server's budget

    def handle_one_request(self):
        try:
            super().handle_one_request()
        finally:
            self.server.release(self._reserved)
            self._reserved = 0

    def log_message(self, *args):
        # Quiet on purpose: stderr stays clean, and no header is ever written anywhere.
        pass

    def __getattr__(self, name: str):
        # http.server calls do_<METHOD> and answers a method it lacks with an
        # HTML 501; every method but POST gets the API's JSON error instead.
        if name.startswith("do_") and name != "do_POST":
            return self._other_method
        raise AttributeError(name)

    def _other_method(self):
        path = self.path.split("?", 1)[0].rstrip("/")
        self._discard_body()
        if path in self.ENDPOINTS:
            status, kind = 405, "invalid_request_error"
            message = f"Method not allowed: {self.command} {path}; use POST"
        else:
            status, kind, message = 404, "not_found_error", f"Not found: {self.command} {self.path}"
        self.server.offline.log(path, status, kind, message)
        self._send(status, error_body(kind, message), {"allow": "POST"} if status == 405 else None)

    def send_error(self, code, message=None, explain=None):
        """http.server's own refusals (a bad request line, a header too long, ...),
        in the API's JSON shape rather than its HTML page; the connection closes."""
        self.close_connection = True
        kind = "request_too_large" if code in (413, 414, 431) else "invalid_request_error"
        self._send(code, error_body(kind, message or self.responses.get(code, ("Error",))[0]))

    def do_POST(self):
        offline = self.server.offline
        path = self.path.split("?", 1)[0].rstrip("/")
        endpoint = self.ENDPOINTS.get(path)
        try:
            raw = self._read_body()
            if endpoint is None:
                raise RequestError(f"Not found: POST {self.path}", 404, "not_found_error")
            if not self._has_key():
                raise RequestError("x-api-key header is required", 401, "authentication_error")
        except RequestError as error:
            offline.log(path, error.status, error.kind)
            return self._send(error.status, error_body(error.kind, str(error)))
        fault = offline.next_fault() if endpoint == "messages" else None
        if fault:
            return self._fault(path, fault)
        status, payload = answer(endpoint, raw, offline.window, offline.prompt_cache,
                                 self.headers.get("anthropic-beta", ""), offline.secret)
        offline.log(path, status, payload.get("error", {}).get("type") if status != 200 else None,
                    message=payload["error"]["message"] if status != 200 else None)
        self._send(status, payload)

    # -- pieces ---------------------------------------------------------------
    def _has_key(self) -> bool:
        if self.headers.get("x-api-key"):
            return True
        scheme, _, token = (self.headers.get("authorization") or "").partition(" ")
        return scheme.lower() == "bearer" and bool(token.strip())

    def _read_body(self) -> bytes:
        """The body, from one all-digit Content-Length; anything else closes the connection,
        since where this request ends, and so where the next begins, is then unknown."""
        lengths = self.headers.get_all("content-length") or []
        if self.headers.get("transfer-encoding") is not None:
            self.close_connection = True
            raise RequestError("Transfer-Encoding is not supported: send the body with one "
                               "Content-Length", 411)
        if not lengths:
            return b""
        if len(lengths) > 1:
            self.close_connection = True
            raise RequestError(f"Content-Length must be sent once, got {len(lengths)} of them")
        if not DIGITS.fullmatch(lengths[0]):   # int() would take "+10", "1_0" and " 10"
            self.close_connection = True
            raise RequestError("Content-Length must be a number")
        size = int(lengths[0])
        if size > MAX_BODY:
            self.close_connection = True
            raise RequestError(f"Request body must be at most {MAX_BODY} bytes",
                               413, "request_too_large")
        if not self.server.reserve(size):
            self.close_connection = True
            raise RequestError(f"Overloaded: over {MAX_BODIES_AT_ONCE} bytes of request bodies "
                               f"are being read at once (the offline model's limit)",
                               529, "overloaded_error")
        self._reserved += size
        try:
            return self.rfile.read(size)
        except TimeoutError:
            self.close_connection = True
            raise RequestError(f"Request body not received within {self.timeout:g} s", 408,
                               "timeout_error") from None

    def _discard_body(self) -> None:
        try:
            self._read_body()
        except RequestError:
            self.close_connection = True

    def _fault(self, path: str, status: int):
        offline = self.server.offline
        kind, message = FAULTS[status]
        offline.log(path, status, kind)
        headers = {"x-should-retry": "true"}
        if offline.retry_after_ms is not None:
            headers["retry-after-ms"] = str(offline.retry_after_ms)
        self._send(status, error_body(kind, message), headers)

    def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
        """The status line, the headers and the body in one write.

        With the headers and the body in two writes, Nagle's algorithm held the
        body until the client's delayed ACK: 43 ms for every call.
        """
        # ASCII escapes: valid JSON for any text, lone surrogates included.
        data = json.dumps(payload).encode("ascii")
        phrase = REASONS.get(status) or self.responses.get(status, ("",))[0]
        fields = {"server": self.version_string(), "date": self.date_time_string(),
                  "content-type": "application/json", "content-length": str(len(data)),
                  "request-id": f"req_offline_{len(self.server.offline.requests)}",
                  **(headers or {})}
        if self.close_connection:
            fields["connection"] = "close"
        head = "".join([f"{self.protocol_version} {status} {phrase}\r\n",
                        *(f"{name}: {value}\r\n" for name, value in fields.items()), "\r\n"])
        # A reply to HEAD has the headers of the reply to GET, and no body.
        body = b"" if self.command == "HEAD" else data
        self.wfile.write(head.encode("latin-1") + body)


# -- python -m compact serve -------------------------------------------------------

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


def main_serve(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m compact serve",
        description="Run the offline model alone on 127.0.0.1, for any Anthropic client.")
    parser.add_argument("--port", type=_number(0, 65535, "a port number (0 to 65535)"),
                        default=8765, help="port (0: any free one)")
    parser.add_argument("--window", type=_number(1, None, "a positive number of tokens"),
                        default=DEFAULT_WINDOW,
                        help="context window in estimated tokens (default %(default)s)")
    parser.add_argument("--fail", type=int, action="append", default=[], choices=sorted(FAULTS),
                        help="answer the next request with this status; repeat for more")
    args = parser.parse_args(argv)
    try:
        server = start_offline_server(window=args.window, faults=args.fail, port=args.port)
    except (OSError, ValueError) as error:
        print(f"error: cannot serve on {HOST}:{args.port}: {error}", file=sys.stderr)
        return 1
    print(f"Offline model listening on {server.base_url} (window {server.window} tokens).")
    print(f"Point a client at it: ANTHROPIC_BASE_URL={server.base_url} "
          f"ANTHROPIC_API_KEY=offline MODEL_ID={MODEL_NAME}")
    print("Ctrl-C stops it.", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        server.stop()
    return 0
