"""The offline model's reply to one request: `respond(request) -> response`.

A summary request (system prompt SUMMARY_SYSTEM) gets the extractive summary.
Any other request is read into a View; the active request picks the plan
(probe_reply.py for a probe question about the context itself; else route.py:
one of the article's experiments, or the general policy for any question about
the workspace), and the plan becomes the reply: its text, then its tool calls, with
`stop_reason` "tool_use" or "end_turn". Only the tools in the request's `tools`
are called: the general policy plans with those alone, and a scripted plan
that needs another says it cannot tell instead (so no tools, no tool_use).
Message and tool ids are digests of the request, so the same request always
gets the same bytes back.

Left out: sampling, `max_tokens` cut-offs and streaming.
"""

import hashlib
import json

from ... import formats
from ...display.lang import language_of
from ...display.phrases import say
from ..tokens import estimate_text_tokens, estimate_tokens, prompt_text
from .plan import Plan
from .probe_reply import plan_probe
from .route import choose_plan
from .summary_reply import summarize
from .view import offered_tools, read_view, system_text

MODEL_NAME = "offline-s08"


def digest(request: dict) -> str:
    """A hash of the whole request: the source of the reply's ids, so they repeat."""
    seed = f"{request.get('model')}\n{prompt_text(request)}"
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def content_of(plan: Plan, offered: frozenset, lang: str, key: str) -> tuple[list, str]:
    """The reply's content blocks and stop_reason; a tool not offered is never called."""
    missing = [name for name, _ in plan.calls if name not in offered]
    if missing:
        return [{"type": "text", "text": say("no tool offered", lang, tool=missing[0])}], "end_turn"
    content = [{"type": "text", "text": plan.text}]
    for i, (name, tool_input) in enumerate(plan.calls):
        tool_id = "toolu_" + hashlib.sha256(f"{key}:{i}".encode()).hexdigest()[:24]
        content.append({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
    return content, "tool_use" if plan.calls else "end_turn"


def respond(request: dict) -> dict:
    """The assistant message the offline model answers `request` with."""
    key = digest(request)
    if formats.SUMMARY_SYSTEM in system_text(request):
        content, stop = [{"type": "text", "text": summarize(request)}], "end_turn"
    else:
        view = read_view(request["messages"], offered_tools(request))
        # A probe question (compact.probes) first: it asks about the context itself.
        plan = plan_probe(request["messages"], view) or choose_plan(view)
        content, stop = content_of(plan, view.offered, language_of(view.request), key)
    return {
        "id": "msg_" + key[:24], "type": "message", "role": "assistant",
        "model": request.get("model", MODEL_NAME), "content": content,
        "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": estimate_tokens(request),
                  "output_tokens": estimate_text_tokens(json.dumps(content, ensure_ascii=False))},
    }
