"""OpenAI chat-format logs, converted to the Messages API's blocks.

    {"role": "assistant", "content": "...", "tool_calls": [{"id", "type": "function",
        "function": {"name", "arguments": "<JSON text>"}}]}      -> text + tool_use blocks
    {"role": "tool", "tool_call_id": "...", "content": "..."}     -> a tool_result block
    {"role": "user", "content": "..." or [{"type": "text"}, {"type": "image_url"}]}

The same three shapes as the Messages API importer (a list, `{"messages": [...]}`,
JSONL). Tool messages that follow one another become one user message of
results, as the Messages API wants every result of a batch in one message; a
user's text right after them joins that message. `system` and `developer`
messages are instructions, not turns, and are left out, like the request's
`system` field. An image given as a `data:` URL becomes a base64 image block,
any other URL an image block with a `url` source. A `tool_call` content part
(files converted from other formats put the call among the parts) is a call
like those of `tool_calls`. Arguments that are not a JSON object are kept raw
(odd.py's `call_input`), and counted.

Left out, each counted (odd.py): the older `function_call` / role `function`
form, audio and file parts and any other part type, and `name` fields.
"""

import re
from functools import partial

from .build import to_history
from .messages_api import records
from .odd import call_input, readable
from .report import ImportReport
from .source import SessionFileError

INSTRUCTIONS = ("system", "developer")
_DATA_URL = re.compile(r"data:(?P<media>[\w/+.-]+);base64,(?P<data>.*)", re.S)


def _text_parts(path, line: int, content, report: ImportReport) -> list:
    """A user's or assistant's content as Messages API blocks; a part of another type
    is left out and counted."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        raise SessionFileError(path, line, "content must be a text, a list of parts or null")
    blocks = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        block = PARTS[kind](path, line, part, report) if isinstance(kind, str) and kind in PARTS else None
        if block is None:
            report.odd("unknown content part", line, kind if isinstance(kind, str) else type(part).__name__)
        else:
            blocks.append(block)
    return blocks


def _text(path, line: int, part, report):
    return {"type": "text", "text": part["text"]} if isinstance(part.get("text"), str) else None


def _image_url(path, line: int, part, report):
    url = part.get("image_url", {}).get("url") if isinstance(part.get("image_url"), dict) else None
    return image_block(url) if isinstance(url, str) else None


def _tool_call_part(path, line: int, part, report):
    """A call written as a content part: {"type": "tool_call", "id", "name" or "function", "arguments"}."""
    function = part.get("function") if isinstance(part.get("function"), dict) else {}
    call = {"id": part.get("id") or part.get("tool_call_id"),
            "function": {"name": part.get("name") or function.get("name"),
                         "arguments": part.get("arguments", function.get("arguments"))}}
    return _tool_use(path, line, call, report)


# part type -> what it becomes (None: left out and counted)
PARTS = {"text": _text, "image_url": _image_url, "tool_call": _tool_call_part}


def image_block(url: str) -> dict:
    """An image block for a URL: base64 for a `data:` URL, a `url` source for any other."""
    found = _DATA_URL.fullmatch(url)
    source = ({"type": "base64", "media_type": found["media"], "data": found["data"]} if found
              else {"type": "url", "url": url})
    return {"type": "image", "source": source}


def _tool_use(path, line: int, call, report: ImportReport) -> dict:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(call.get("id"), str) \
            or not isinstance(function.get("name"), str):
        raise SessionFileError(path, line, "a tool call without an id, a function or its name")
    tool_input, odd = call_input(function.get("arguments"))
    if odd:
        report.odd(odd, line, call["id"])
    return {"type": "tool_use", "id": call["id"], "name": function["name"], "input": tool_input}


def _assistant(path, line, value, report) -> dict:
    calls = value.get("tool_calls") or []
    if not isinstance(calls, list):
        raise SessionFileError(path, line, "tool_calls must be a list")
    return {"role": "assistant", "content": _text_parts(path, line, value.get("content"), report)
            + [_tool_use(path, line, call, report) for call in calls]}


def _tool(path, line, value, report) -> dict:
    if not isinstance(value.get("tool_call_id"), str) or not value["tool_call_id"]:
        raise SessionFileError(path, line, "a tool message without a tool_call_id")
    parts = _text_parts(path, line, value.get("content"), report)
    content = parts[0]["text"] if len(parts) == 1 and parts[0]["type"] == "text" else parts
    return {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": value["tool_call_id"], "content": content}]}


def _user(path, line, value, report) -> dict:
    return {"role": "user", "content": _text_parts(path, line, value.get("content"), report)}


CONVERT = {"assistant": _assistant, "tool": _tool, "user": _user}


def message_of(path, report: ImportReport, line: int, value):
    """The Messages API message of one chat message; None for instructions (counted)."""
    role = value.get("role") if isinstance(value, dict) else None
    if role in INSTRUCTIONS:
        report.leave_out(f"{role} (instructions)", line)
        return None
    if role == "function" or (isinstance(value, dict) and "function_call" in value):
        raise SessionFileError(path, line, "the older function_call form is not read; use tool_calls")
    if role not in CONVERT:
        raise SessionFileError(path, line, f"role {role!r}: expected user, assistant, tool or system")
    return CONVERT[role](path, line, value, report)


def load(path, jsonl: bool = False) -> dict:
    report = ImportReport()
    converted = readable(records(path, jsonl, report), report, partial(message_of, path, report))
    items = [(line, message) for line, message in converted if message is not None]
    return to_history(path, "openai", items, report=report)


def looks_like(values) -> bool:
    """Chat-format markers: a tool role, tool calls, instructions as messages, image_url parts."""
    return any(isinstance(v, dict) and (v.get("role") in ("tool", "function", *INSTRUCTIONS)
                                        or "tool_calls" in v or "tool_call_id" in v
                                        or "function_call" in v)
               for v in values)
