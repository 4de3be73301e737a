"""One request through the offline server, on one straight path, with no HTTP in it.

    parse -> the thinking blocks sent back, checked (binding)
          -> what it asks of context management -> the request the model reads
          -> the API's rules, once -> the context edits -> the window -> the model
          -> compaction and usage added -> thinking signed -> the answer

`answer(endpoint, raw, ...)` is that path written out: each step is a call into
the module that owns it (`rules`, `context_management`, the model's `respond`,
`usage`), and none of them calls back. A request that asks nothing of context
management (no `context_management`, no `compaction`, no compaction block) reads
as it was sent.

Every refusal is the API's error shape, with the API's status; a bug of ours is
a 500 `api_error` whose message is cut to MAX_ERROR_CHARS, never an unanswered
request.

Left out: HTTP (server.py), streaming.
"""

from ..model.reply import respond
from ..tokens import estimate_tokens
from . import binding, context_edits
from . import context_management as cm
from . import server_compaction as sc
from .rules import (
    SENT,
    TOO_DEEP,
    RequestError,
    check_pairs,
    check_shape,
    check_window,
    error_body,
    parse_body,
)
from .thinking import check_tool_choice, sign_reply, with_thinking
from .usage import CacheControlError, PromptCache, check_breakpoints
from .window import stop_at_window

MAX_ERROR_CHARS = 300   # of a bug's message in a 500: enough to name it, never a body's worth
REFUSED = (cm.ManagementError, sc.CompactionError, context_edits.EditError, CacheControlError)


def answer(endpoint: str, raw: bytes, window: int, cache: PromptCache | None = None,
           betas: str = "", secret: bytes = b"") -> tuple[int, dict]:
    """(HTTP status, JSON payload) for one request body to `endpoint` ("messages" or
    "count_tokens"). `betas` is the anthropic-beta header, `secret` the key of this
    server's compaction signatures."""
    try:
        sent = parse_body(raw)
        body, transformations = binding.check(sent, _betas(betas), secret) \
            if isinstance(sent, dict) else (sent, None)
        asked = cm.read_asked(body, betas)
        request = cm.request_read(body, asked, secret) if asked else body
        if asked and request.get("messages") is not body.get("messages"):
            check_shape(body, endpoint, SENT)   # what a compaction block replaced is checked too
        check_shape(request, endpoint)
        check_pairs(request["messages"])
        check_breakpoints(request)
        check_tool_choice(request)
        if endpoint == "count_tokens":
            return 200, cm.counted(request, asked) if asked else {"input_tokens": estimate_tokens(request)}
        if asked and asked.on_demand:
            return 200, cm.compact_now(request, secret)
        edited = cm.run_edits(request, asked.edits if asked else [], secret)
        if edited.paused:
            return 200, cm.paused(request, edited)
        prompt = {**request, "messages": edited.messages}
        tokens = check_window(prompt, window)
        reply = stop_at_window(with_thinking(respond(prompt), prompt), tokens, window)
        reply["usage"] = (cache or PromptCache()).usage(prompt, reply["content"])
        reply = sign_reply(cm.with_edits(reply, edited) if asked else reply, sent, secret)
        return 200, reply if transformations is None else {**reply, "input_transformations": transformations}
    except RequestError as error:
        return error.status, error_body(error.kind, str(error))
    except REFUSED as error:
        return 400, cm.error_payload(str(error), getattr(error, "code", None))
    except RecursionError:
        # Only a body nested this deep gets here: the input's fault, not ours.
        return 400, error_body("invalid_request_error", TOO_DEEP)
    except Exception as error:  # noqa: BLE001 - answered in the API's shape, see above
        text = f"offline model failed: {type(error).__name__}: {error}"
        return 500, error_body("api_error", text[:MAX_ERROR_CHARS])


def _betas(header: str) -> set:
    return {b.strip() for b in (header or "").split(",") if b.strip()}
