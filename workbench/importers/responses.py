"""OpenAI Responses API items, and request bodies made of them, as Messages API blocks.

    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": ...}]}
    {"role": "user", "content": "..."}                         (the short form: no type)
    {"type": "function_call", "call_id", "name", "arguments": "<JSON text>"}  -> tool_use
    {"type": "function_call_output", "call_id", "output": "..." or [parts]}  -> tool_result
    {"type": "custom_tool_call", "call_id", "name", "input": "<free text>"}   -> tool_use
    {"type": "custom_tool_call_output", "call_id", "output"}                 -> tool_result
    {"type": "local_shell_call", "call_id", "action": {...}}                 -> tool_use

A request body is `{"model", "instructions", "input", "tools", ...}` with
`input` a string (one user message) or a list of items; the Codex CLI's
rollouts (codex.py) hold the same items one a line. `ITEMS` is the table: a
row an item type, each saying what the item becomes, or why it is left out.

A custom tool takes free text, and a tool_use's input is an object: the text
becomes `{"input": TEXT}`. A part `input_image` with a `data:` URL becomes a
base64 image block, any other URL an image with a `url` source.

Left out, each counted in the report: `system` and `developer` messages
(instructions, like the body's own `instructions`), `reasoning` (the
model's own, mostly encrypted; its summary is no turn the model reads back
as text), `web_search_call` (a search the server ran: the file holds the
query, never what it found), `item_reference`, and the body's `tools` and
settings. A call never answered is left out of the messages and named in a
warning (a session stopped mid-call); a result whose call is not in the file
is an error, as everywhere here.
"""

import json

from .build import to_history, unanswered
from .openai_chat import image_block
from .report import ImportReport, shown_kind
from .source import SessionFileError, json_elements, not_json, read_text

INSTRUCTIONS = ("system", "developer")


def _image(path, line: int, part) -> dict:
    url = part.get("image_url")
    url = url.get("url") if isinstance(url, dict) else url
    if not isinstance(url, str):
        raise SessionFileError(path, line, f"an {part.get('type')} part without an image_url")
    return image_block(url)


def _text(path, line: int, part) -> dict:
    if not isinstance(part.get("text"), str):
        raise SessionFileError(path, line, f"an {part.get('type')} part without its text")
    return {"type": "text", "text": part["text"]}


PARTS = {"input_text": _text, "output_text": _text, "text": _text, "summary_text": _text,
         "input_image": _image, "refusal": lambda path, line, part: {
             "type": "text", "text": str(part.get("refusal", ""))}}


def _named(kind) -> str:
    """A type as an error names it: a text quoted and cut short, anything else by its kind."""
    return repr(shown_kind(kind)) if isinstance(kind, str) else f"{type(kind).__name__} (not a text)"


def parts(path, line: int, content) -> list:
    """A message's or an output's content as Messages API blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        raise SessionFileError(path, line, "content must be a text or a list of parts")
    blocks = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if not isinstance(kind, str) or kind not in PARTS:
            raise SessionFileError(path, line, f"a content part of type {_named(kind)}: the parts "
                                               f"read are {', '.join(PARTS)}")
        blocks.append(PARTS[kind](path, line, part))
    return blocks


def _message(path, line: int, item):
    role = item.get("role")
    if role in INSTRUCTIONS:
        return None
    if role not in ("user", "assistant"):
        raise SessionFileError(path, line, f"a message of role {role!r}: expected user, assistant, "
                                           f"system or developer")
    return {"role": role, "content": parts(path, line, item.get("content"))}


def _call_id(path, line: int, item) -> str:
    call_id = item.get("call_id")
    if not isinstance(call_id, str) or not call_id:
        raise SessionFileError(path, line, f"a {item.get('type')} without a call_id")
    return call_id


def _use(call_id: str, name, tool_input: dict) -> dict:
    return {"role": "assistant", "content": [
        {"type": "tool_use", "id": call_id, "name": str(name or "tool"), "input": tool_input}]}


def _function_call(path, line: int, item) -> dict:
    call_id = _call_id(path, line, item)
    try:
        arguments = json.loads(item.get("arguments") or "{}")
    except (TypeError, json.JSONDecodeError):
        raise SessionFileError(path, line, f"function_call {call_id!r}: arguments are not JSON") from None
    if not isinstance(arguments, dict):
        raise SessionFileError(path, line, f"function_call {call_id!r}: arguments must be a JSON object")
    return _use(call_id, item.get("name"), arguments)


def _custom_call(path, line: int, item) -> dict:
    return _use(_call_id(path, line, item), item.get("name"), {"input": str(item.get("input", ""))})


def _shell_call(path, line: int, item) -> dict:
    action = item.get("action") if isinstance(item.get("action"), dict) else {}
    return _use(_call_id(path, line, item), "local_shell", action)


def _output(path, line: int, item) -> dict:
    output = item.get("output")
    if isinstance(output, dict):           # older rollouts: {"content": ..., "success": ...}
        output = output.get("content", "")
    blocks = parts(path, line, output)
    content = blocks[0]["text"] if len(blocks) == 1 and blocks[0]["type"] == "text" else blocks
    return {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": _call_id(path, line, item), "content": content}]}


# item type -> what it becomes (a function of path, line, item), or why it is left out (a str)
ITEMS = {
    "message": _message,
    "function_call": _function_call,
    "function_call_output": _output,
    "custom_tool_call": _custom_call,
    "custom_tool_call_output": _output,
    "local_shell_call": _shell_call,
    "reasoning": "reasoning",
    "web_search_call": "web_search_call (no result in the file)",
    "item_reference": "item_reference",
    "ghost_snapshot": "ghost_snapshot (Codex's undo point)",
    "compaction": "compaction (encrypted)",
    "compaction_summary": "compaction (encrypted)",
}


def item_kind(item) -> str:
    """The report's kind of an item: its type (a message without one is the short form)."""
    if not isinstance(item, dict):
        return type(item).__name__
    kind = item.get("type") or ("message" if "role" in item else "untyped")
    role = item.get("role")
    return f"{kind} ({role})" if kind == "message" and isinstance(role, str) else str(kind)


def convert(path, line: int, item, report: ImportReport):
    """The Messages API message of one item, or None (left out, and counted)."""
    if not isinstance(item, dict):
        raise SessionFileError(path, line, f"expected an item object, found {type(item).__name__}")
    kind = item.get("type") or ("message" if "role" in item else None)
    row = ITEMS.get(kind) if isinstance(kind, str) else None
    if row is None:
        raise SessionFileError(path, line, f"an item of type {_named(kind)}: the items read are "
                                           f"{', '.join(ITEMS)}")
    message = None if isinstance(row, str) else row(path, line, item)
    if message is None:
        report.leave_out(row if isinstance(row, str) else f"{item.get('role')} (instructions)", line)
    return message


def looks_like(whole) -> bool:
    """A Responses API request body: an object with an `input`, and no `messages`."""
    return isinstance(whole, dict) and "input" in whole and "messages" not in whole \
        and isinstance(whole["input"], (str, list))


def load(path) -> dict:
    report = ImportReport()
    text = read_text(path)
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as error:
        raise not_json(path, error) from None
    if not looks_like(whole):
        raise SessionFileError(path, None, "not a Responses API request body: no 'input' string "
                                           "or list of items")
    if isinstance(whole["input"], str):
        report.read("input (a string)", 1)
        values = [(1, {"role": "user", "content": whole["input"]})]
    else:
        values = json_elements(path, text, "input")[1]
    for key in ("instructions", "tools"):
        if whole.get(key):
            report.read(key, 1)
            report.leave_out(key, 1)
    items = []
    for line, item in values:
        if isinstance(whole["input"], list):
            report.read(item_kind(item), line)
        message = convert(path, line, item, report)
        if message is not None:
            items.append((line, message))
    return to_history(path, "responses", unanswered(items, report), report=report)
