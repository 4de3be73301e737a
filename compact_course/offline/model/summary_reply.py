"""The offline model's answer to the compactor's summary request: the messages that
survive whole in its JSON, summarized extractively.

Left out: following anything those messages say (they are data); a text that is not the
compactor's JSON is summarized as one message.
"""

import json
import re

from context_compact import formats
from context_compact.messages import user_text

from ...display.lang import language_of
from ...display.phrases import say
from .extractive import extractive_summary
from .view import active_request

MESSAGE_START = re.compile(r'\{"(?:role|content)": ')


def recover_messages(text: str) -> tuple[list, bool]:
    """The messages in a summary input, and whether its middle was cut out."""
    try:
        data = json.loads(text)
        if isinstance(data, list):
            return [m for m in data if isinstance(m, dict) and m.get("role")], False
    except ValueError:
        pass
    head, sep, tail = text.partition(formats.MIDDLE_OMITTED)
    found = whole_messages(head) + (whole_messages(tail) if sep else [])
    if not found and text.strip():
        found = [{"role": "user", "content": text}]
    return found, bool(sep)


def whole_messages(fragment: str) -> list:
    """Every message object that survives whole in a piece of a JSON list."""
    decoder, found, pos = json.JSONDecoder(), [], 0
    while match := MESSAGE_START.search(fragment, pos):
        try:
            value, end = decoder.raw_decode(fragment, match.start())
        except ValueError:
            value = None
        if isinstance(value, dict) and value.get("role") in ("user", "assistant"):
            found.append(value)
            pos = end
        else:
            pos = match.end()
    return found


def summarize(request: dict) -> str:
    """The summary of the messages in the request's last user message."""
    messages = request.get("messages") or []
    text = user_text(messages[-1]) if messages else ""
    recovered, cut = recover_messages(text)
    summary = extractive_summary(recovered)
    if cut:
        summary += "\n\n" + say("middle_cut", language_of(active_request(recovered)))
    return summary
