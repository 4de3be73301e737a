"""Plain Messages API histories: what a loop on the `anthropic` SDK would save.

Three shapes: a JSON list of messages, a JSON object with a `messages` list
(`system`, `model` and the other request fields beside it are left out, and
so is a canned history's own title: use the course's loader for those), or
JSONL with one message a line. Each message is `{"role", "content"}` as the
API takes it; the blocks are kept as they are.

Left out: the request's `system` and `tools` (the pipeline compacts only
`messages`) and any field of a message but `role` and `content`.
"""

from .build import to_history
from .source import SessionFileError, json_elements, json_lines, read_text

ROLES = ("user", "assistant")


def message_of(path, line: int, value) -> dict:
    if not isinstance(value, dict):
        raise SessionFileError(path, line, f"expected a message object, found {type(value).__name__}")
    role = value.get("role")
    if role not in ROLES:
        raise SessionFileError(path, line, f"role {role!r}: a Messages API message is 'user' or 'assistant'")
    if not isinstance(value.get("content"), (str, list)):
        raise SessionFileError(path, line, "content must be a text or a list of blocks")
    return {"role": role, "content": value["content"]}


def records(path, jsonl: bool) -> list:
    text = read_text(path)
    return json_lines(path, text) if jsonl else json_elements(path, text)[1]


def load(path, jsonl: bool = False) -> dict:
    items = [(line, message_of(path, line, value)) for line, value in records(path, jsonl)]
    return to_history(path, "messages", items)
