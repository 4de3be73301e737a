"""Plain Messages API histories: what a loop on the `anthropic` SDK would save.

Three shapes: a JSON list of messages, a JSON object with a `messages` list
(`system`, `model` and the other request fields beside it are left out, and
so is a canned history's own title: use the course's loader for those), or
JSONL with one message a line. Each message is `{"role", "content"}` as the
API takes it; the blocks are kept as they are.

A message of another role, or without a content, is left out and counted
(odd.py); the rest is read.

Left out: the request's `system` and `tools` (the pipeline compacts only
`messages`) and any field of a message but `role` and `content`.
"""

from functools import partial

from .build import to_history
from .odd import readable
from .report import ImportReport
from .source import SessionFileError, document_note, json_elements, read_text, reported_lines

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


def records(path, jsonl: bool, report: ImportReport) -> list:
    """(line, value) of each message; the lines a JSONL file could not give are counted."""
    if jsonl:
        values = reported_lines(path, report)
    else:
        values = json_elements(path, read_text(path))[1]
        document_note(path, report)
    for line, value in values:
        report.read(str(value.get("role")) if isinstance(value, dict) else type(value).__name__, line)
    return values


def load(path, jsonl: bool = False) -> dict:
    report = ImportReport()
    items = list(readable(records(path, jsonl, report), report, partial(message_of, path)))
    return to_history(path, "messages", items, report=report)
