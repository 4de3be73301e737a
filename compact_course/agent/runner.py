"""The pipeline in front of every request the SDK's tool runner makes.

`client.beta.messages.tool_runner(...)` (anthropic 2.17.0,
anthropic/lib/tools/_beta_runner.py) runs the tool loop itself: it sends a
request, yields the reply, runs the tools, appends the reply and the results,
and sends the next request, with no call of ours in between. Two ways in fail:
- `prepare` on the runner's history while a reply is yielded works on what
  the last request already sent: the tool results of that reply are appended
  after the loop body, so they go to the model unbudgeted, one call late
  (issue 41's report: a 32,984-character result);
- a prepared copy given back with `set_messages_params` is followed by the
  reply and the results the runner appends anyway: the same tool_use twice.

The SDK's client middleware (`anthropic.Middleware`, `client.with_options(
middleware=[...])`) runs inside each HTTP attempt, on the request as it goes
out. `PrepareEveryRequest` is one: on each POST /v1/messages it sends
`prepare` of the history instead of the history, so each request is budgeted
with its own newest results, and the runner's own history is never touched
(no duplicate id). The runner's history only grows; what went out for it is
kept, and the next request's new messages are added to that, so the
compactor works on its own last output as in a plain loop (nothing archived
or summarized twice). A history that does not extend the last one (the
runner's `compact_before_next_turn()` replaced it) is prepared afresh.

A 400 "prompt is too long" gets one `reactive_compact` and the same request
again, when that is smaller; summaries too close together raise
`NoProgress` (guard.py). The request of the runner's own
`compact_before_next_turn()` (the API's compaction: `compaction` set, the
reply a `compaction` block that replaces the runner's history) is prepared
like any other, so the API summarizes what the model has been reading.

    compactor = ContextCompactor(root, client=client, model=model)
    client = client.with_options(middleware=[PrepareEveryRequest(compactor, request)])
    runner = client.beta.messages.tool_runner(..., thread=False)   # the whole history each turn

The async client (`AsyncAnthropic`, its tool runner) calls `handle_async`, the same
steps with the rest of the chain awaited: one middleware serves both clients.

Left out: streaming runners' eager tools,
and message threads: a threaded request sends only the new messages, which
`prepare` cannot budget, so it is refused with a word (`thread=False`).
"""

import json

import anthropic

from context_compact import reactive
from context_compact.messages import estimate_chars

from .guard import CompactionGuard

MESSAGES_PATH = "/v1/messages"


class PrepareEveryRequest(anthropic.Middleware):
    def __init__(self, compactor, active_request: str, guard: CompactionGuard | None = None):
        self.compactor, self.active_request = compactor, active_request
        self.guard = guard or CompactionGuard(compactor)
        self.seen: list = []    # the runner's history in the last request
        self.sent: list = []    # what went out for it
        self.reactive_compactions = 0

    def handle(self, request, call_next):
        body = self._body(request)
        if body is None:
            return call_next(request)
        response = call_next(request.copy(body={**body, "messages": self._prepared(body)}))
        if response.status_code in (400, 413) and _too_long(response.text()):
            retry = self._retried()
            if retry is not None:
                response = call_next(request.copy(body={**body, "messages": retry}))
        return response

    async def handle_async(self, request, call_next):
        """The same for AsyncAnthropic: only the calls to the rest of the chain are awaited."""
        body = self._body(request)
        if body is None:
            return await call_next(request)
        response = await call_next(request.copy(body={**body, "messages": self._prepared(body)}))
        if response.status_code in (400, 413) and _too_long(await response.text()):
            retry = self._retried()
            if retry is not None:
                response = await call_next(request.copy(body={**body, "messages": retry}))
        return response

    def _body(self, request) -> dict | None:
        """The body of a Messages API request with the whole history; None for any other."""
        body = request.json
        if (request.method.lower() != "post" or request.url.split("?")[0] != MESSAGES_PATH
                or not isinstance(body, dict)):
            return None
        if body.get("thread") is not None:
            raise ValueError("PrepareEveryRequest needs the whole history in every request: "
                             "make the tool runner with thread=False")
        return body

    def _prepared(self, body: dict) -> list:
        history = list(body.get("messages") or [])
        messages = self.guard.prepare(self._continued(history), self.active_request)
        self.seen, self.sent = history, messages
        return messages

    def _retried(self) -> list | None:
        """After "prompt is too long": the reactive compaction of what went out, if smaller."""
        retry = self.compactor.reactive_compact(self.sent, self.active_request)
        if estimate_chars(retry) >= estimate_chars(self.sent):   # the refusal stands
            return None
        self.reactive_compactions += 1
        self.sent = retry
        return retry

    def _continued(self, history: list) -> list:
        """What went out last time plus the history's new messages, when the history
        extends the last one; the history itself otherwise."""
        known = len(self.seen)
        if known and len(history) >= known and history[:known] == self.seen:
            return [*self.sent, *history[known:]]
        return history


def _too_long(text: str) -> bool:
    """Is the response's body the API's "prompt is too long"?"""
    try:
        error = json.loads(text).get("error", {})
    except (ValueError, AttributeError):
        return False
    message = str(error.get("message", "")).lower()
    return any(spelling in message for spelling in reactive.TOO_LONG_SPELLINGS)
