"""The class proxy: LiteLLM's app behind a guard that lets in only the course's routes and bounded bodies.

course-proxy.service and start-proxy.sh run this instead of the `litellm` command:

    /opt/course-proxy/bin/python serve.py --config litellm.yaml --host 127.0.0.1 --port 4000

It gives LiteLLM its config with the prices of the course's table filled in (billing.py:
each model's input, cache writes and reads, output and web searches), written as
`litellm.effective.yaml` in its working folder (the state folder), and runs LiteLLM's app
under uvicorn with the settings and the protocol of connections.py (timeouts, caps per local
user), behind this guard.

Why a guard in front of LiteLLM rather than its settings: LiteLLM serves far more than the
Messages API. Its pass-through routes (`/anthropic/{endpoint}`: batches, files, any model)
accept any key the class's custom auth accepts and forward the request as sent with the
teacher's key, outside litellm.yaml's models and outside every budget; and it reads a
whole request body before it checks the key (its `max_request_size_mb` is an enterprise
feature). The guard answers before LiteLLM sees anything:

- a route other than ROUTES (method and exact path, the query string aside: the SDK adds
  `?beta=true`): 404, with the Messages API's error shape;
- a body over MAX_BODY bytes (COURSE_PROXY_MAX_BODY; 2 MiB): 413, from its Content-Length
  alone when it has one, else as soon as that many bytes have come in. The course's requests
  stay far below: the context is kept under 50,000 characters, a tool-result batch under
  200,000 and a summary's input under 80,000 (SPEC 2), a few hundred KB of JSON at most;
- more than BODIES_AT_ONCE bytes of bodies (COURSE_PROXY_BODIES_AT_ONCE; 32 MiB) held by
  requests being read or answered at once, or more than BODIES_PER_USER (4 MiB) held by one
  local user's (connections.py's peer: the user who owns the client's socket): 529
  `overloaded_error`, which the SDK retries. The share per user is what keeps one user, with
  no key, from holding the whole 32 MiB with 16 requests half sent, each declaring 2 MiB, and
  every student's call answered 529 (tried here: 5 of 5 refused while they were held).
  LiteLLM holds five to six times a body's size while it answers (24 bodies of 7.7 MiB took
  the proxy from 327 MB to 1,408 MB in issue 49, from 405 MB to 1,390 MB here), and uvicorn's
  `limit_concurrency` counts requests, not bytes;
- a body whose `model` is not a model_name of litellm.yaml: 400 (LiteLLM would send an
  unknown model straight to the provider with the proxy's ANTHROPIC_API_KEY);
- a Messages API call with a field outside FIELDS, or a `context_management` edit other than
  clearing tool results: 400. LiteLLM forwards the body's fields as sent, and some change
  what the API bills past what ledger.py's worst case bounds from the text: `speed: "fast"`
  and `inference_geo` bill at a multiple of the table's prices, `service_tier: "auto"` at
  priority prices, `mcp_servers` runs a loop of tool calls on the API's side whose results
  are input the request's text does not hold, and a compaction (`compaction`, the
  `compact_20260112` edit) is a second call, its summary's length unbounded;
- websockets: closed.

Left out: TLS (the proxy listens on 127.0.0.1).
"""

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

ROUTES = frozenset({
    ("POST", "/v1/messages"),
    ("POST", "/v1/messages/count_tokens"),
    # LiteLLM's own health answers, which ask no upstream: is it up, is it ready.
    ("GET", "/health/liveliness"),
    ("GET", "/health/readiness"),
})
MAX_BODY = int(os.environ.get("COURSE_PROXY_MAX_BODY", str(2 * 1024 ** 2)))
BODIES_AT_ONCE = int(os.environ.get("COURSE_PROXY_BODIES_AT_ONCE", str(32 * 1024 ** 2)))
# uvicorn's own settings (connections.py says what each does and what it leaves open).
UVICORN = {"limit_concurrency": 512, "timeout_keep_alive": 5, "h11_max_incomplete_event_size": 16 * 1024}
BODIES_PER_USER = int(os.environ.get("COURSE_PROXY_BODIES_PER_USER", str(4 * 1024 ** 2)))
# The Messages API fields whose cost the ledger's worst case bounds (billing.worst_case): the
# prompt's text (`cache_control` prices it as the dearest write) and max_tokens of output;
# the rest only shape the answer. What the course sends is among them (compact_course/agent/loop.py:
# model, system, tools, messages, max_tokens, cache_control, thinking; the SDK's `stream`).
FIELDS = frozenset({"model", "messages", "max_tokens", "system", "tools", "tool_choice", "thinking",
                    "stream", "metadata", "stop_sequences", "temperature", "top_p", "top_k",
                    "cache_control", "context_management"})
EDITS = frozenset({"clear_tool_uses_20250919"})   # context edits that only take tokens away
HERE = Path(__file__).resolve().parent
EFFECTIVE = "litellm.effective.yaml"


async def answer(send, status: int, kind: str, message: str) -> None:
    """An error in the Messages API's shape; the connection is closed after it."""
    body = json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"connection", b"close"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def declared_length(scope) -> int:
    """The request's Content-Length, or -1 without one (chunked) or when it is not a number."""
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return -1
    return -1


class Guard:
    """An ASGI app in front of `app`: only `routes` get through, with at most `max_body` bytes,
    and at most `bodies_at_once` bytes of bodies held by the requests it is serving, at most
    `bodies_per_user` by one peer's (`peer_of(client, server)`, connections.py's; without it,
    the client's address)."""

    def __init__(self, app, models, routes=ROUTES, max_body: int = MAX_BODY,
                 bodies_at_once: int = BODIES_AT_ONCE, bodies_per_user: int = BODIES_PER_USER,
                 peer_of=None):
        self.app, self.models, self.routes, self.max_body = app, frozenset(models), routes, max_body
        self.bodies_at_once, self.holding = bodies_at_once, 0
        self.bodies_per_user, self.held_by = bodies_per_user, Counter()
        self.peer_of = peer_of or (lambda client, server: f"address {client[0] if client else '?'}")

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":   # LiteLLM's start-up and shutdown
            return await self.app(scope, receive, send)
        if scope["type"] != "http":
            return await send({"type": "websocket.close", "code": 1008})
        if (scope["method"], scope["path"]) not in self.routes:
            return await answer(send, 404, "not_found_error",
                                f"{scope['method']} {scope['path']} is not served by the class proxy: "
                                "only the Messages API is (POST /v1/messages, /v1/messages/count_tokens).")
        if scope["method"] == "GET":   # the health answers: no body, no model
            return await self.app(scope, receive, send)
        declared = declared_length(scope)
        if declared > self.max_body:
            return await answer(send, 413, "request_too_large",
                                f"The request is over the class proxy's {self.max_body} bytes.")
        held = declared if declared >= 0 else self.max_body   # a chunked body may grow to the limit
        peer = self.peer_of(scope.get("client"), scope.get("server"))
        if self.holding + held > self.bodies_at_once or self.held_by[peer] + held > self.bodies_per_user:
            return await answer(send, 529, "overloaded_error",
                                "The class proxy holds as many requests as it can: try again in a moment.")
        self.holding += held
        self.held_by[peer] += held
        try:
            await self.serve(scope, receive, send)
        finally:
            self.holding -= held
            self.held_by[peer] -= held
            if not self.held_by[peer]:
                del self.held_by[peer]

    async def serve(self, scope, receive, send):
        body = await self.read_body(receive)
        if body is None:
            return await answer(send, 413, "request_too_large",
                                f"The request is over the class proxy's {self.max_body} bytes.")
        value = parsed(body)
        model = value.get("model") if isinstance(value, dict) else None
        if not isinstance(model, str) or model not in self.models:   # a list is no model (nor hashable)
            return await answer(send, 400, "invalid_request_error",
                                f"model: {model!r} is not a model of the class proxy; "
                                f"it serves {', '.join(sorted(self.models))}.")
        unbounded = unbounded_field(value) if scope["path"] == "/v1/messages" else ""
        if unbounded:
            return await answer(send, 400, "invalid_request_error",
                                f"{unbounded} is not served by the class proxy: it bounds each call's "
                                "cost before sending it, and this could cost more than the bound.")
        return await self.app(scope, replay(body, receive), send)

    async def read_body(self, receive):
        """The whole body, or None as soon as it passes max_body (or the client leaves)."""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            size += len(message.get("body", b""))
            if size > self.max_body:
                return None
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                return b"".join(chunks)


def parsed(body: bytes):
    """The body as JSON, or None when it is not JSON."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError):   # not JSON, or nested past the parser's depth
        return None


def unbounded_field(body: dict) -> str:
    """The first field of a Messages API call whose cost the worst case does not bound ('' if none)."""
    for name in body:
        if name not in FIELDS:
            return f"{name!r} (a field the class proxy does not price)"
    edits = body.get("context_management")
    if edits is None:
        return ""
    edits = edits.get("edits") if isinstance(edits, dict) else None
    for index, edit in enumerate(edits if isinstance(edits, list) else [None]):
        kind = edit.get("type") if isinstance(edit, dict) else None
        if kind not in EDITS:
            return f"context_management.edits.{index} (type {kind!r}, an edit that is a call of its own)"
    return ""


def replay(body: bytes, receive):
    """A receive() that hands the app the body read already, then waits as the real one does."""
    given = []

    async def again():
        if not given:
            given.append(True)
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", required=True, help="litellm.yaml")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=4000)
    args = parser.parse_args(argv)
    # LiteLLM imports the config's custom_auth and callbacks by name from here.
    sys.path.insert(0, str(HERE))
    import billing
    try:
        config = billing.with_prices(billing.read_config(args.config), os.environ)
    except (OSError, ValueError, KeyError) as error:
        print(f"error: {args.config}: {error}", file=sys.stderr)
        return 1
    effective = Path.cwd() / EFFECTIVE
    effective.write_text(f"# Written by serve.py from {args.config} and {billing.TABLE}: edit those.\n"
                         + yaml_text(config))
    # LiteLLM's start-up reads its config from here (what its own CLI hands it otherwise).
    os.environ["CONFIG_FILE_PATH"] = str(effective)
    import uvicorn
    from connections import ClassProtocol
    from litellm.proxy.proxy_server import app
    guard = Guard(app, [entry["model_name"] for entry in config["model_list"]], peer_of=ClassProtocol.peer_of)
    uvicorn.run(guard, host=args.host,
                port=args.port, log_level="info", http=ClassProtocol, **UVICORN)
    return 0


def yaml_text(value) -> str:
    import yaml
    return yaml.safe_dump(value, sort_keys=False)


if __name__ == "__main__":
    sys.exit(main())
