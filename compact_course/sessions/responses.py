"""OpenAI Responses API items, and request bodies made of them, as Messages API blocks.

    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": ...}]}
    {"role": "user", "content": "..."}                         (the short form: no type)
    {"type": "function_call", "call_id", "name", "arguments": "<JSON text>"}  -> tool_use
    {"type": "function_call_output", "call_id", "output": "..." or [parts]}  -> tool_result
    {"type": "custom_tool_call", "call_id", "name", "input": "<free text>"}   -> tool_use
    {"type": "custom_tool_call_output", "call_id", "output"}                 -> tool_result
    {"type": "local_shell_call", "call_id", "action": {...}}                 -> tool_use
    {"type": "tool_search_call", "call_id", "arguments"} / tool_search_output -> a pair
    {"type": "agent_message", "author", "recipient", "content": [parts]}     -> user text

A request body is `{"model", "instructions", "input", "tools", ...}` with
`input` a string (one user message) or a list of items; the Codex CLI's
rollouts (codex.py) hold the same items one a line. `ITEMS` is the table: a
row an item type, each saying what the item becomes, or why it is left out.
The item types are those of openai/codex's `ResponseItem`
(codex-rs/protocol/src/models.rs), which the CLI writes to its rollouts.

A custom tool takes free text, and a tool_use's input is an object: the text
becomes `{"input": TEXT}`. Arguments that are not a JSON object are kept raw
under `arguments` (odd.py). A part `input_image` with a `data:` URL becomes a
base64 image block, any other URL an image with a `url` source. An
`agent_message` is what another agent of the session sent this one (Codex's
multi-agent mailbox): the model reads it as input, so it is a user text that
names who wrote it; its encrypted parts are left out.

Left out, each counted in the report: `system` and `developer` messages
(instructions, like the body's own `instructions`), `reasoning` (the
model's own, mostly encrypted; its summary is no turn the model reads back
as text), `web_search_call` and `image_generation_call` (work the server did:
the file holds the request, never what it found), `item_reference`, settings
(`configuration_update`, `additional_tools`, `compaction_trigger`), encrypted
compactions, and the body's `tools` and settings. An item or a part of a type
this table does not know is left out and counted as odd (odd.py), as is a
record it cannot read.
"""

import json
from functools import partial

from .build import to_history
from .odd import call_input, readable
from .openai_chat import image_block
from .report import ImportReport, shown_kind
from .source import SessionFileError, document_note, json_elements, not_json, read_text

INSTRUCTIONS = ("system", "developer")


def _image(part) -> dict | None:
    url = part.get("image_url")
    url = url.get("url") if isinstance(url, dict) else url
    return image_block(url) if isinstance(url, str) else None


def _text(part) -> dict | None:
    return {"type": "text", "text": part["text"]} if isinstance(part.get("text"), str) else None


def _refusal(part) -> dict:
    return {"type": "text", "text": str(part.get("refusal", ""))}


# part type -> what it becomes (None: left out and counted)
PARTS = {"input_text": _text, "output_text": _text, "text": _text, "summary_text": _text,
         "input_image": _image, "refusal": _refusal}


def _named(kind) -> str:
    """A type as a note names it: a text quoted and cut short, anything else by its kind."""
    return repr(shown_kind(kind)) if isinstance(kind, str) else f"{type(kind).__name__} (not a text)"


def parts(path, line: int, content, report: ImportReport) -> list:
    """A message's or an output's content as Messages API blocks; a part of a type not
    read is left out and counted."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        raise SessionFileError(path, line, "content must be a text or a list of parts")
    blocks = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        block = PARTS[kind](part) if isinstance(kind, str) and kind in PARTS else None
        if block is None:
            report.odd("unknown content part", line, kind if isinstance(kind, str) else type(part).__name__)
        else:
            blocks.append(block)
    return blocks


def _message(path, line: int, item, report):
    role = item.get("role")
    if role in INSTRUCTIONS:
        report.leave_out(f"{role} (instructions)", line)
        return None
    if role not in ("user", "assistant"):
        raise SessionFileError(path, line, f"a message of role {role!r}: expected user, assistant, "
                                           f"system or developer")
    return {"role": role, "content": parts(path, line, item.get("content"), report)}


def _call_id(path, line: int, item) -> str:
    call_id = item.get("call_id")
    if not isinstance(call_id, str) or not call_id:
        raise SessionFileError(path, line, f"a {item.get('type')} without a call_id")
    return call_id


def _use(call_id: str, name, tool_input: dict) -> dict:
    return {"role": "assistant", "content": [
        {"type": "tool_use", "id": call_id, "name": str(name or "tool"), "input": tool_input}]}


def _function_call(path, line: int, item, report) -> dict:
    call_id = _call_id(path, line, item)
    tool_input, odd = call_input(item.get("arguments"))
    if odd:
        report.odd(odd, line, call_id)
    return _use(call_id, item.get("name"), tool_input)


def _custom_call(path, line: int, item, report) -> dict:
    return _use(_call_id(path, line, item), item.get("name"), {"input": str(item.get("input", ""))})


def _shell_call(path, line: int, item, report) -> dict:
    action = item.get("action") if isinstance(item.get("action"), dict) else {}
    return _use(_call_id(path, line, item), "local_shell", action)


def _search_call(path, line: int, item, report) -> dict:
    return _function_call(path, line, {**item, "name": "tool_search"}, report)


def _output(path, line: int, item, report) -> dict:
    output = item.get("output")
    if isinstance(output, dict):           # older rollouts: {"content": ..., "success": ...}
        output = output.get("content", "")
    if not isinstance(output, (str, list)) and output is not None:
        output = json.dumps(output, ensure_ascii=False)
    blocks = parts(path, line, output, report)
    content = blocks[0]["text"] if len(blocks) == 1 and blocks[0]["type"] == "text" else blocks
    return {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": _call_id(path, line, item), "content": content}]}


def _search_output(path, line: int, item, report) -> dict:
    tools = json.dumps(item.get("tools", []), ensure_ascii=False)
    return _output(path, line, {**item, "output": tools}, report)


AGENT_MESSAGE = "[message from "


def agent_message(author, recipient, texts: list) -> dict | None:
    """What another agent sent this one, as the user text the model read (None if no text)."""
    body = "\n".join(t for t in texts if t)
    return {"role": "user", "content": f"{AGENT_MESSAGE}{author} to {recipient}]\n{body}"} if body else None


def _agent_message(path, line: int, item, report):
    blocks = parts(path, line, item.get("content"), report)
    return agent_message(item.get("author"), item.get("recipient"),
                         [b["text"] for b in blocks if b["type"] == "text"])


# item type -> what it becomes (a function of path, line, item, report), or why it is left out (a str)
ITEMS = {
    "message": _message,
    "function_call": _function_call,
    "function_call_output": _output,
    "custom_tool_call": _custom_call,
    "custom_tool_call_output": _output,
    "local_shell_call": _shell_call,
    "tool_search_call": _search_call,
    "tool_search_output": _search_output,
    "agent_message": _agent_message,
    "reasoning": "reasoning",
    "web_search_call": "web_search_call (no result in the file)",
    "image_generation_call": "image_generation_call (done by the server)",
    "item_reference": "item_reference",
    "ghost_snapshot": "ghost_snapshot (Codex's undo point)",
    "compaction": "compaction (encrypted)",
    "compaction_summary": "compaction (encrypted)",
    "context_compaction": "compaction (encrypted)",
    "compaction_trigger": "compaction_trigger (a request setting)",
    "configuration_update": "configuration_update (a request setting)",
    "additional_tools": "additional_tools (tool definitions)",
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
        report.odd("unknown item type", line, _named(kind))
        return None
    if isinstance(row, str):
        report.leave_out(row, line)
        return None
    return row(path, line, item, report)


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
    document_note(path, report)
    if isinstance(whole["input"], str):
        report.read("input (a string)", 1)
        values = [(1, {"role": "user", "content": whole["input"]})]
    else:
        values = json_elements(path, text, "input")[1]
    for key in ("instructions", "tools"):
        if whole.get(key):
            report.read(key, 1)
            report.leave_out(key, 1)
    if isinstance(whole["input"], list):
        for line, item in values:
            report.read(item_kind(item), line)
    converted = readable(values, report, partial(convert, path, report=report))
    items = [(line, message) for line, message in converted if message is not None]
    return to_history(path, "responses", items, report=report)
