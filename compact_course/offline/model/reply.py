"""The offline model's reply to one request: `respond(request) -> response`
(docs/DESIGN.md walks through the modules it calls).

Left out: sampling, `max_tokens` cut-offs and streaming.
"""

import hashlib
import json

from context_compact import formats
from context_compact.messages import text_of

from ...display.lang import language_of
from ...display.phrases import say
from ..tokens import estimate_text_tokens, estimate_tokens, prompt_text
from .probe_reply import plan_probe
from .route import choose_plan
from .summary_reply import summarize
from .tools import Tools
from .view import Plan, read_view

MODEL_NAME = "offline-s08"


def content_of(plan: Plan, tools: Tools, lang: str, key: str) -> tuple[list, str]:
    """The reply's content blocks and stop_reason, each call in the offered tool's name and keys."""
    missing = [name for name, _ in plan.calls if name not in tools.names]
    if missing:   # a job no offered tool does: say so, and call nothing
        plan = Plan(say("no tool offered", lang, job=say("job " + missing[0], lang)))
    content = [{"type": "text", "text": plan.text}]
    for i, call in enumerate(plan.calls):
        tool_id = "toolu_" + hashlib.sha256(f"{key}:{i}".encode()).hexdigest()[:24]
        name, tool_input = tools.to_tool(*call)
        content.append({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
    return content, "tool_use" if plan.calls else "end_turn"


def respond(request: dict) -> dict:
    """The assistant message the offline model answers `request` with."""
    # A hash of the whole request: the source of the reply's ids, so the same request gets the same bytes.
    key = hashlib.sha256(f"{request.get('model')}\n{prompt_text(request)}".encode()).hexdigest()
    if formats.SUMMARY_SYSTEM in text_of(request.get("system")):   # a string, or its text blocks
        content, stop = [{"type": "text", "text": summarize(request)}], "end_turn"
    else:
        view = read_view(request["messages"], Tools(request))
        # A probe question (compact_course.probes) first: it asks about the context itself.
        plan = plan_probe(request["messages"], view) or choose_plan(view)
        content, stop = content_of(plan, view.tools, language_of(view.request), key)
    return {
        "id": "msg_" + key[:24], "type": "message", "role": "assistant",
        "model": request.get("model", MODEL_NAME), "content": content,
        "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": estimate_tokens(request),
                  "output_tokens": estimate_text_tokens(json.dumps(content, ensure_ascii=False))},
    }
