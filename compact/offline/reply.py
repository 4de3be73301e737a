"""The offline model's reply to one request: `respond(request) -> response`.

A summary request (system prompt SUMMARY_SYSTEM) gets the extractive summary.
Any other request is read into a View; the active request picks the plan
(route.py: one of the article's experiments, or the general policy for any
question about the workspace), and the plan becomes the reply: its text, then its tool calls, with
`stop_reason` "tool_use" or "end_turn". A tool the request does not offer is
not called; the text says so instead. Message and tool ids are digests of the
request, so the same request always gets the same bytes back.

Left out: sampling, `max_tokens` cut-offs and streaming.
"""

import hashlib
import json

from .. import formats
from .plan import Plan
from .route import choose_plan
from .summary_reply import summarize
from .tokens import estimate_text_tokens, estimate_tokens, prompt_text
from .view import read_view, system_text

MODEL_NAME = "offline-s08"


def digest(request: dict) -> str:
    """A hash of the whole request: the source of the reply's ids, so they repeat."""
    seed = f"{request.get('model')}\n{prompt_text(request)}"
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def content_of(plan: Plan, request: dict, key: str) -> tuple[list, str]:
    """The reply's content blocks and stop_reason; a tool not offered is not called."""
    offered = {t.get("name") for t in request.get("tools") or [] if isinstance(t, dict)}
    missing = [name for name, _ in plan.calls if name not in offered]
    if missing:
        text = (f"{plan.text}\n(I would call {missing[0]} next, but this request offers no "
                f"such tool.)")
        return [{"type": "text", "text": text}], "end_turn"
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
        plan = choose_plan(read_view(request["messages"]))
        content, stop = content_of(plan, request, key)
    return {
        "id": "msg_" + key[:24], "type": "message", "role": "assistant",
        "model": request.get("model", MODEL_NAME), "content": content,
        "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": estimate_tokens(request),
                  "output_tokens": estimate_text_tokens(json.dumps(content, ensure_ascii=False))},
    }
