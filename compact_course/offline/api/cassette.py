"""Cassettes: a live run's API exchanges kept in a file, to be answered again later.

    recorder = Recorder("run.cassette.json", base_url)     # the client's base URL
    client = anthropic.Anthropic(..., http_client=recording_http_client(recorder, base_url))
    ... run the agent ...                                    # each exchange is written at once
    cassette = Cassette.load("run.cassette.json")
    status, body = cassette.answer("POST", "/v1/messages", request_body)

A teacher with a key records one run; a class without one replays it through
the offline server (`compact-course serve --cassette FILE`), which answers each
request the cassette holds with the reply recorded for it, and any other
request with a 400 naming the first place where it differs.

What is kept of an exchange is what the course needs to answer it again:
the method, the path below the base URL, the request's JSON body, the
response's status and its JSON body (or, for a streamed reply, the text of
its server-sent events). Never a header (the key travels in one), never the
base URL (it may hold a user name or an internal host). The file says when it
was recorded (a date, UTC) and which model answered (the responses' `model`).
Recording goes through httpx event hooks on the SDK's own HTTP client, so
every call the SDK makes (retries included) is seen as sent.

A cassette never holds a key. An exchange that holds a key-shaped string
(KEY_SHAPE: Anthropic's keys, the class proxy's) or the recording client's own
key, anywhere in a request or a reply, is refused when it would be written: the
file keeps the exchanges before it, the SDK call raises `KeyInCassette` (the
SDK's own kind of error, so it is not retried), naming the entry and never the
key, and no later request of that client goes out. A cassette that holds one is
refused at load too, so an old one is not served to a class.

A cassette is anyone's file, so `Cassette.load` checks every field the server
reads before it serves (`malformed`): a file of any other shape is one line
naming the file and the entry (or, for JSON no reader can parse, the line and
column), never a traceback at start or a 500 at each request. Nothing in it
nests deeper than MAX_DEPTH, so no comparison or dump of it can run out of
Python's recursion.

Left out: matching requests loosely (a replay is for the same run: the same
requests, byte for byte once parsed) and recording anything but JSON bodies.
"""

import datetime
import functools
import json
import os
import re
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlsplit

from ...display.text import shown

FORMAT = "compact-cassette/1"
SHOWN = 60     # characters of a differing value quoted in a mismatch
# A key: Anthropic's (sk-ant-api03-..., sk-ant-oat01-..., sk-ant-admin01-...) and the class
# proxy's (sk-class-..., deploy/proxy/class_keys.py). The agent's tools redact the same shape.
KEY_SHAPE = re.compile(r"sk-(?:ant|class)-[A-Za-z0-9_\-]{8,}")
MIN_SECRET = 8   # characters: a shorter "key" would match ordinary text
# Levels of nesting a cassette may hold: a tool's input in a block in a message in a
# request is 6, and Python's recursion limit (1,000) is well above it plus the stack.
MAX_DEPTH = 100


class CassetteError(ValueError):
    """A cassette that cannot be read, or written: the file and what is wrong."""


def _relative_path(url, base_url: str) -> str:
    """The request's path below the base URL's own path (the query, `?beta=true`,
    only marks the SDK's beta methods: the betas themselves travel in a header)."""
    parts, base = urlsplit(str(url)), urlsplit(base_url).path.rstrip("/")
    return parts.path[len(base):] if base and parts.path.startswith(base + "/") else parts.path


def _body_of(content: bytes, content_type: str):
    """A body as the cassette keeps it: JSON parsed, event streams as text."""
    text = content.decode("utf-8", errors="replace")
    if "event-stream" in content_type:
        return {"events": text}
    try:
        return json.loads(text) if text else None
    except json.JSONDecodeError:
        return {"text": text}


def key_at(value, where: str, secrets=()) -> str | None:
    """Where in `value` (a parsed JSON value) a key-shaped string or one of `secrets`
    is, as `where.field[3].text`; None when nowhere. Walked with a stack, not recursion:
    any depth. A field name that holds one is named by its parent, never itself."""
    secrets = [secret for secret in secrets if secret and len(secret) >= MIN_SECRET]
    pending = [(where, value)]
    while pending:
        here, item = pending.pop()
        if isinstance(item, str) and _holds_key(item, secrets):
            return here
        if isinstance(item, dict):
            for name, inner in reversed(item.items()):
                if _holds_key(name, secrets):
                    return f"{here} (a field's name)"
                pending.append((_field(here, name), inner))
        elif isinstance(item, list):
            pending.extend((f"{here}[{index}]", inner) for index, inner in reversed(list(enumerate(item))))
    return None


def _holds_key(text: str, secrets) -> bool:
    return bool(KEY_SHAPE.search(text)) or any(secret in text for secret in secrets)


def _field(where: str, name: str) -> str:
    return f"{where}.{name}" if name.isidentifier() else f"{where}[{_short(name)}]"


@functools.cache
def key_in_cassette():
    """`KeyInCassette`: a CassetteError that is also the SDK's own kind of error, so the
    SDK neither retries the call nor turns it into "Connection error." (made on first
    use: this module does not import anthropic until it records)."""
    import anthropic

    class KeyInCassette(CassetteError, anthropic.AnthropicError):
        """A recorded exchange that holds a key: refused, the entry named, never the key."""
    return KeyInCassette


class Recorder:
    """Writes a cassette as exchanges happen: the file is whole after each one
    (written to a temporary name, then renamed), so a run cut short keeps what it did.
    `secrets`: the recording client's own key(s), refused like a key-shaped string."""

    def __init__(self, path, base_url: str, today: str | None = None, secrets=()):
        self.path, self.base_url = Path(path), base_url
        self.recorded = today or datetime.datetime.now(datetime.UTC).date().isoformat()
        self.exchanges: list = []
        self.secrets = tuple(secret for secret in secrets if isinstance(secret, str))
        self.refused: str | None = None     # why recording stopped, once an exchange held a key

    def on_request(self, request) -> None:
        """An httpx request hook: after a refusal, nothing more goes out."""
        if self.refused:
            raise key_in_cassette()(self.refused)

    def on_response(self, response) -> None:
        """An httpx response hook: read the reply and keep the exchange (or refuse it)."""
        response.read()
        request = response.request
        exchange = {
            "request": {"method": request.method, "path": _relative_path(request.url, self.base_url),
                        "body": _body_of(request.content, request.headers.get("content-type", ""))},
            "response": {"status": response.status_code,
                         "body": _body_of(response.content, response.headers.get("content-type", ""))},
        }
        where = key_at(exchange, f"exchanges[{len(self.exchanges)}]", self.secrets)
        if where:
            self.refused = shown(
                f"{self.path}: not recorded: {where} holds a key-shaped string or this client's "
                f"key, and a cassette never holds a key; the run stops here, and the cassette "
                f"keeps the {len(self.exchanges)} exchanges before it")
            raise key_in_cassette()(self.refused)
        self.exchanges.append(exchange)
        self.save()

    def models(self) -> list:
        found = [_answered_by(e["response"]["body"]) for e in self.exchanges]
        return sorted({m for m in found if m})

    def as_dict(self) -> dict:
        return {"format": FORMAT, "recorded": self.recorded, "models": self.models(),
                "exchanges": self.exchanges}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".cassette-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(self.as_dict(), file, ensure_ascii=False, indent=1)
                file.write("\n")
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _answered_by(body) -> str | None:
    """The model a response names: a message's `model`, or the one in a stream's message_start."""
    if isinstance(body, dict) and isinstance(body.get("model"), str):
        return body["model"]
    if isinstance(body, dict) and isinstance(body.get("events"), str):
        for line in body["events"].splitlines():
            if line.startswith("data: ") and '"message_start"' in line:
                message = json.loads(line[6:]).get("message", {})
                return message.get("model") if isinstance(message, dict) else None
    return None


def recording_http_client(recorder: Recorder, base_url: str):
    """The SDK's default HTTP client, with `recorder` hooked to every response
    (a loopback base URL is reached without a proxy, as the offline client is)."""
    import anthropic
    options = {"event_hooks": {"request": [recorder.on_request], "response": [recorder.on_response]}}
    if urlsplit(base_url).hostname in ("127.0.0.1", "localhost"):
        options["mounts"] = {"all://127.0.0.1": None}
    return anthropic.DefaultHttpxClient(**options)


def recording_client(client, cassette_path, today: str | None = None):
    """A copy of an `anthropic.Anthropic` client that records to `cassette_path`;
    (client, recorder). The copy keeps the key, base URL and retries of `client`; the
    recorder refuses an exchange that holds that key."""
    base_url = str(client.base_url)
    recorder = Recorder(cassette_path, base_url, today, secrets=(client.api_key, client.auth_token))
    return client.with_options(http_client=recording_http_client(recorder, base_url)), recorder


# -- replay -------------------------------------------------------------------------

def first_difference(recorded, sent, where: str = "body") -> str | None:
    """Where two JSON values first differ, and how; None when they are equal."""
    if type(recorded) is not type(sent):
        return f"{where}: recorded {_short(recorded)}, sent {_short(sent)}"
    if isinstance(recorded, dict):
        for key in list(recorded) + [k for k in sent if k not in recorded]:
            if key not in sent:
                return f"{where}.{key}: recorded {_short(recorded[key])}, sent nothing"
            if key not in recorded:
                return f"{where}.{key}: recorded nothing, sent {_short(sent[key])}"
            found = first_difference(recorded[key], sent[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list):
        for index, (a, b) in enumerate(zip(recorded, sent)):
            found = first_difference(a, b, f"{where}[{index}]")
            if found:
                return found
        if len(recorded) != len(sent):
            return f"{where}: recorded {len(recorded)} items, sent {len(sent)}"
        return None
    return None if recorded == sent else f"{where}: recorded {_short(recorded)}, sent {_short(sent)}"


def _short(value) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (RecursionError, ValueError):     # a sent body nested deeper than the stack
        return "(a value nested too deep to quote)"
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."


class Cassette:
    """A recorded run, answering the requests it holds."""

    def __init__(self, data: dict, source: str = "cassette"):
        self.source, self.data = source, data
        self.exchanges = data["exchanges"]
        self.served = 0      # the next exchange in recorded order
        self._lock = threading.Lock()    # the server answers in worker threads too

    @classmethod
    def load(cls, path) -> "Cassette":
        data = _parsed(path)
        deep = deeper_than(data, MAX_DEPTH)
        if deep is not None:
            raise CassetteError(shown(f"{path}: {deep or '(the top)'}: nested deeper than "
                                      f"{MAX_DEPTH} levels"))
        if not isinstance(data, dict) or data.get("format") != FORMAT \
                or not isinstance(data.get("exchanges"), list):
            raise CassetteError(f"{path}: not a cassette (expected format {FORMAT!r} "
                                f"and a list of exchanges)")
        wrong = malformed(data)
        if wrong:   # at load, in one line: not a 500 at every request
            raise CassetteError(shown(f"{path}: {wrong}"))
        where = key_at(data["exchanges"], "exchanges")
        if where:   # recorded before cassettes refused keys: never served to a class
            raise CassetteError(shown(f"{path}: {where} holds a key-shaped string; a cassette "
                                      f"never holds a key: record it again"))
        return cls(data, str(path))

    @property
    def models(self) -> list:
        return self.data.get("models", [])

    def describe(self) -> str:
        """'7 exchanges recorded 2026-12-01, answered by claude-...'."""
        # Through `shown`: a cassette is anyone's file, and its text reaches a terminal.
        return (f"{len(self.exchanges)} exchanges recorded {shown(self.data.get('recorded', '(no date)'))}, "
                f"answered by {shown(', '.join(map(str, self.models))) or '(no model named)'}")

    def answer(self, method: str, path: str, body) -> tuple:
        """(status, body) recorded for this request; (400, the API's error shape)
        naming the first difference when the cassette holds no such request.
        Requests are looked for from the next one in recorded order, then from the
        start (a notebook run twice on one server asks everything again). Whether
        the request streams is no difference: the server sends the reply either way."""
        with self._lock:
            order = list(range(self.served, len(self.exchanges))) + list(range(self.served))
            for index in order:
                request = self.exchanges[index]["request"]
                if request["method"] == method and request["path"] == path \
                        and _unstreamed(request["body"]) == _unstreamed(body):
                    self.served = index + 1
                    response = self.exchanges[index]["response"]
                    return response["status"], response["body"]
            return 400, {"type": "error", "error": {
                "type": "invalid_request_error", "message": self.mismatch(method, path, body)}}

    def mismatch(self, method: str, path: str, body) -> str:
        if not self.exchanges:
            return f"the cassette {Path(self.source).name} holds no exchange"
        index = self.served if self.served < len(self.exchanges) else len(self.exchanges) - 1
        request = self.exchanges[index]["request"]
        if (request["method"], request["path"]) != (method, path):
            found = f"recorded {request['method']} {request['path']}, sent {method} {path}"
        else:
            found = first_difference(_unstreamed(request["body"]), _unstreamed(body)) or "the same body"
        return (f"not in the cassette {Path(self.source).name}: request {index + 1} of "
                f"{len(self.exchanges)} differs at {found}")

    def answer_raw(self, path: str, raw: bytes) -> tuple:
        """The server's entry: (status, payload) for a POST of `raw` to `path`."""
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            return 400, {"type": "error", "error": {"type": "invalid_request_error",
                                                    "message": f"Request body is not valid JSON: {error}"}}
        return self.answer("POST", path, body)


def _parsed(path):
    """The JSON of a cassette file, or CassetteError in one line: the file and why."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CassetteError(shown(f"{path}: not a cassette ({error})")) from None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError as error:      # JSONDecodeError, NaN, an integer of 5,000 digits
        raise CassetteError(shown(f"{path}: not a cassette ({error})")) from None
    except RecursionError:
        line, column = _too_deep_at(text)
        raise CassetteError(f"{path}: not a cassette (nested deeper than {MAX_DEPTH} levels "
                            f"at line {line} column {column})") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+"|[\[\]{}]')


def _too_deep_at(text: str) -> tuple:
    """(line, column) where `text` first nests deeper than MAX_DEPTH (strings skipped)."""
    depth, at = 0, 0
    for token in _TOKENS.finditer(text):
        if token[0] in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                at = token.start()
                break
        elif token[0] in "]}":
            depth -= 1
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def deeper_than(value, limit: int, where: str = "") -> str | None:
    """The path of the first value in `value` nested deeper than `limit` levels (the top
    is level 1), cut to its first five steps (`exchanges[0].request.body.messages`); None
    when none is. Walked with a stack."""
    pending = [(value, 1, where, 0)]
    while pending:
        item, depth, here, steps = pending.pop()
        if not isinstance(item, (dict, list)):
            continue
        if depth > limit:
            return here
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        for key, inner in pairs:
            step = (_field(here, key) if isinstance(key, str) else f"{here}[{key}]") if steps < 5 \
                else here
            pending.append((inner, depth + 1, step.lstrip("."), steps + 1))
    return None


# What the server reads of a reply, by when it reads it: (which replies, field, the kinds
# it may be (None: absent or null too), what is expected). Anything else is sent as recorded.
REPLY_FIELDS = (
    ("any", "events", (str,), "the text of an event stream"),
    ("error", "error", (dict,), "an object with the error's type and message"),
    ("message", "usage", (dict, None), "an object of token counts"),
    ("message", "content", (list, None), "a list of content blocks"),
)


def malformed(data: dict) -> str:
    """The first field of a cassette that the server could not answer with, named; ''
    when none. `data` nests no deeper than MAX_DEPTH (checked first)."""
    if "models" in data and not (isinstance(data["models"], list)
                                 and all(isinstance(m, str) for m in data["models"])):
        return f"models: a list of model names expected, got {_short(data['models'])}"
    if "recorded" in data and not isinstance(data["recorded"], str):
        return f"recorded: a date expected, got {_short(data['recorded'])}"
    for index, exchange in enumerate(data["exchanges"]):
        wrong = _malformed_exchange(exchange, f"exchanges[{index}]")
        if wrong:
            return wrong
    return ""


def _malformed_exchange(exchange, where: str) -> str:
    if not isinstance(exchange, dict):
        return f"{where}: an object with a request and a response expected, got {_short(exchange)}"
    request, response = exchange.get("request"), exchange.get("response")
    if not _holds(request, {"method": str, "path": str, "body": object}):
        return f"{where}.request: an object with method, path and body expected, got {_short(request)}"
    if not _holds(response, {"status": int, "body": object}):
        return f"{where}.response: an object with status and body expected, got {_short(response)}"
    status, body = response["status"], response["body"]
    if isinstance(status, bool) or not 200 <= status <= 599:
        return f"{where}.response.status: an HTTP status from 200 to 599 expected, got {_short(status)}"
    if not isinstance(body, dict):
        return f"{where}.response.body: an object (the reply's JSON) expected, got {_short(body)}"
    try:    # a stream is sent as UTF-8: a lone surrogate (JSON's "\ud800") cannot be
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return f"{where}.response.body: a text with a lone surrogate, which is no UTF-8 text"
    return _malformed_reply(body, status, f"{where}.response.body")


def _malformed_reply(body: dict, status: int, where: str) -> str:
    """The first field of a reply the server could not send (see REPLY_FIELDS)."""
    kind = "error" if status != 200 else "message" if "events" not in body else "events"
    for which, name, kinds, expected in REPLY_FIELDS:
        if which in ("any", kind) and name in body and not _of_kind(body[name], kinds):
            return f"{where}.{name}: {expected} expected, got {_short(body[name])}"
    if kind == "error" and isinstance(body.get("error"), dict):
        for name in ("type", "message"):
            if not _of_kind(body["error"].get(name), (str, None)):
                return f"{where}.error.{name}: a text expected, got {_short(body['error'][name])}"
    if kind == "message":
        return _unstreamable(body, where)
    return ""


def _unstreamable(message: dict, where: str) -> str:
    """What of a message sse.stream_events could not send: a token count that is no
    number, a block that is no object, a text or thinking that is no text."""
    used = (message.get("usage") or {}).get("output_tokens", 0)
    if not isinstance(used, (int, float)) or isinstance(used, bool):
        return f"{where}.usage.output_tokens: a number expected, got {_short(used)}"
    for index, block in enumerate(message.get("content") or []):
        if not isinstance(block, dict):
            return f"{where}.content[{index}]: a content block (an object) expected, got {_short(block)}"
        field = block.get("type") if block.get("type") in ("text", "thinking") else None
        if field and not isinstance(block.get(field, ""), str):
            return f"{where}.content[{index}].{field}: a text expected, got {_short(block[field])}"
    return ""


def _of_kind(value, kinds) -> bool:
    return (value is None and None in kinds) or isinstance(value, tuple(k for k in kinds if k))


def _holds(value, fields: dict) -> bool:
    """`value` is an object with each of `fields`, of its type."""
    return isinstance(value, dict) and all(name in value and isinstance(value[name], kind)
                                           for name, kind in fields.items())


def _unstreamed(body):
    return {k: v for k, v in body.items() if k != "stream"} if isinstance(body, dict) else body
