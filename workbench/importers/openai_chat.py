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
any other URL an image block with a `url` source.

Left out: the older `function_call` / role `function` form (an error names
the line), audio and file parts, and `name` fields.
"""

import json
import re

from .build import to_history
from .messages_api import records
from .report import ImportReport
from .source import SessionFileError

INSTRUCTIONS = ("system", "developer")
_DATA_URL = re.compile(r"data:(?P<media>[\w/+.-]+);base64,(?P<data>.*)", re.S)


def _text_parts(path, line: int, content) -> list:
    """A user's or assistant's content as Messages API blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        raise SessionFileError(path, line, "content must be a text, a list of parts or null")
    return [_part(path, line, part) for part in content]


def _part(path, line: int, part) -> dict:
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text" and isinstance(part.get("text"), str):
        return {"type": "text", "text": part["text"]}
    if kind == "image_url":
        url = part.get("image_url", {}).get("url") if isinstance(part.get("image_url"), dict) else None
        if not isinstance(url, str):
            raise SessionFileError(path, line, "an image_url part without a url")
        return image_block(url)
    raise SessionFileError(path, line, f"a content part of type {kind!r}: only text and image_url are read")


def image_block(url: str) -> dict:
    """An image block for a URL: base64 for a `data:` URL, a `url` source for any other."""
    found = _DATA_URL.fullmatch(url)
    source = ({"type": "base64", "media_type": found["media"], "data": found["data"]} if found
              else {"type": "url", "url": url})
    return {"type": "image", "source": source}


def _tool_use(path, line: int, call) -> dict:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(call.get("id"), str) \
            or not isinstance(function.get("name"), str):
        raise SessionFileError(path, line, "a tool call without an id, a function or its name")
    try:
        arguments = json.loads(function.get("arguments") or "{}")
    except (TypeError, json.JSONDecodeError):
        raise SessionFileError(path, line, f"tool call {call['id']!r}: arguments are not JSON") from None
    if not isinstance(arguments, dict):
        raise SessionFileError(path, line, f"tool call {call['id']!r}: arguments must be a JSON object")
    return {"type": "tool_use", "id": call["id"], "name": function["name"], "input": arguments}


def _assistant(path, line, value) -> dict:
    calls = value.get("tool_calls") or []
    if not isinstance(calls, list):
        raise SessionFileError(path, line, "tool_calls must be a list")
    return {"role": "assistant", "content": _text_parts(path, line, value.get("content"))
            + [_tool_use(path, line, call) for call in calls]}


def _tool(path, line, value) -> dict:
    if not isinstance(value.get("tool_call_id"), str) or not value["tool_call_id"]:
        raise SessionFileError(path, line, "a tool message without a tool_call_id")
    parts = _text_parts(path, line, value.get("content"))
    content = parts[0]["text"] if len(parts) == 1 and parts[0]["type"] == "text" else parts
    return {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": value["tool_call_id"], "content": content}]}


def _user(path, line, value) -> dict:
    return {"role": "user", "content": _text_parts(path, line, value.get("content"))}


CONVERT = {"assistant": _assistant, "tool": _tool, "user": _user}


def message_of(path, line: int, value):
    """The Messages API message of one chat message; None for instructions."""
    role = value.get("role") if isinstance(value, dict) else None
    if role in INSTRUCTIONS:
        return None
    if role == "function" or (isinstance(value, dict) and "function_call" in value):
        raise SessionFileError(path, line, "the older function_call form is not read; use tool_calls")
    if role not in CONVERT:
        raise SessionFileError(path, line, f"role {role!r}: expected user, assistant, tool or system")
    return CONVERT[role](path, line, value)


def load(path, jsonl: bool = False) -> dict:
    report, items = ImportReport(), []
    for line, value in records(path, jsonl, report):
        message = message_of(path, line, value)
        if message is None:
            report.leave_out(f"{value['role']} (instructions)", line)
        else:
            items.append((line, message))
    return to_history(path, "openai", items, report=report)


def looks_like(values) -> bool:
    """Chat-format markers: a tool role, tool calls, instructions as messages, image_url parts."""
    return any(isinstance(v, dict) and (v.get("role") in ("tool", "function", *INSTRUCTIONS)
                                        or "tool_calls" in v or "tool_call_id" in v
                                        or "function_call" in v)
               for v in values)
