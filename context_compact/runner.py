"""`PrepareEveryRequest`: the pipeline in front of every request of the SDK's tool runner, sync and async.

The SDK's tool runner sends, runs the tools and appends with no call of ours between: `prepare` in
the loop body is one call late (issue 41). The SDK's client middleware (`anthropic.Middleware`)
fills that gap: each request goes out as `prepare` of its history (through a `CompactionGuard`),
going on from what went out last; a 400 "prompt is too long" gets one `reactive_compact`. The
active request is the history's newest user prompt, or `new_turn(request)`'s for the turn under
way, never guessed. The SDK is imported when the class is first asked for.

    client = client.with_options(middleware=[PrepareEveryRequest(compactor)])
    runner = client.beta.messages.tool_runner(..., thread=False)   # the whole history each turn

Left out: streaming runners' eager tools; threads (only the new messages: refused with a word).
"""

from . import formats
from .guard import CompactionGuard
from .messages import MessageFormatError, blocks, check_request, estimate_chars, text_of
from .reactive import TOO_LONG_SPELLINGS

CARRIED = "\n\nCurrent user request:\n"   # how an archive marker of the default carries it


def last_prompt(messages) -> tuple[int, str] | None:
    """(index, request) of the newest user prompt: the last user message that is not tool results
    alone; its text, or the request a marker of ours carries ("" if none). None: no prompt."""
    for i in reversed(range(len(messages))):
        message = messages[i]
        if message.get("role") == "user" and (isinstance(message.get("content"), str) or any(
                not isinstance(b, dict) or b.get("type") != "tool_result" for b in blocks(message))):
            text = text_of(message["content"])
            if not formats.kind_of_user_text(text):
                return i, text
            summary = formats.SUMMARY_RE.match(text)
            return i, summary["request"] if summary else text.partition(CARRIED)[2]
    return None


class Preparer:
    """What `PrepareEveryRequest` does (the class itself adds the SDK's Middleware base)."""

    def __init__(self, compactor, *, guard: CompactionGuard | None = None):
        self.compactor, self.guard = compactor, guard or CompactionGuard(compactor)
        self.seen, self.sent = [], []   # the runner's history in the last request, and what went out for it
        self.request, self.given = None, None   # this turn's request; new_turn's, and the prompt it is for
        self.reactive_compactions = 0

    def new_turn(self, request: str) -> None:
        """The request of the user turn starting now (in place of its prompt's text), until a newer prompt."""
        check_request(request)
        self.given = (request, "unread")

    def handle(self, request, call_next):
        if (body := self._body(request)) is None:
            return call_next(request)
        response = call_next(request.copy(body={**body, "messages": self._prepared(body)}))
        if response.status_code in (400, 413) and _too_long(response.text()) and self._retry():
            response = call_next(request.copy(body={**body, "messages": self.sent}))
        return response

    async def handle_async(self, request, call_next):   # the same, the rest of the chain awaited
        if (body := self._body(request)) is None:
            return await call_next(request)
        response = await call_next(request.copy(body={**body, "messages": self._prepared(body)}))
        if response.status_code in (400, 413) and _too_long(await response.text()) and self._retry():
            response = await call_next(request.copy(body={**body, "messages": self.sent}))
        return response

    def _body(self, request) -> dict | None:   # a Messages API request's body; None for any other
        body = request.json
        if request.method.lower() != "post" or request.url.split("?")[0] != "/v1/messages" \
                or not isinstance(body, dict):
            return None
        if body.get("thread") is not None:
            raise ValueError("PrepareEveryRequest needs the whole history in every request: "
                             "make the tool runner with thread=False")
        return body

    def _prepared(self, body: dict) -> list:
        history = list(body.get("messages") or [])
        self.request = self._request_of(history)
        known = len(self.seen)   # the history extends the last one: go on from what went out for it
        ongoing = known and history[:known] == self.seen
        messages = self.guard.prepare([*self.sent, *history[known:]] if ongoing else history, self.request)
        self.seen, self.sent = history, messages
        return messages

    def _request_of(self, history: list) -> str:
        """new_turn's request while its prompt is the newest, else the newest prompt's text; with no
        prompt in the history, the turn's so far; else MessageFormatError."""
        prompt = last_prompt(history)
        if self.given is not None:
            request, prompted = self.given
            if prompted in ("unread", prompt) or prompt is None:
                self.given = (request, prompt if prompted == "unread" else prompted)
                return request
            self.given = None   # a newer prompt: the request given was its turn's
        if prompt is None and self.request is not None:
            return self.request
        if prompt is None or not prompt[1].strip():
            where = f"messages[{prompt[0]}], the newest prompt, holds no text" if prompt else "no user prompt"
            raise MessageFormatError(f"PrepareEveryRequest cannot tell this turn's request ({where}): "
                                     "call new_turn(request) when the turn starts")
        return prompt[1]

    def _retry(self) -> bool:   # after "prompt is too long": what went out, reactively compacted, if smaller
        retry = self.compactor.reactive_compact(self.sent, self.request)
        if estimate_chars(retry) >= estimate_chars(self.sent):   # the refusal stands
            return False
        self.sent, self.reactive_compactions = retry, self.reactive_compactions + 1
        return True


def _too_long(text: str) -> bool:   # the API's "prompt is too long", read in an error's body
    return any(spelling in text.lower() for spelling in TOO_LONG_SPELLINGS)


def __getattr__(name: str):   # PrepareEveryRequest, made when first asked for: the SDK imported then
    if name != "PrepareEveryRequest":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import anthropic

    class PrepareEveryRequest(Preparer, anthropic.Middleware):
        __doc__, __qualname__ = __doc__, "PrepareEveryRequest"
    globals()[name] = PrepareEveryRequest
    return PrepareEveryRequest
