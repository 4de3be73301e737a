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
from .report import ImportReport
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


def records(path, jsonl: bool, report: ImportReport | None = None) -> list:
    """(line, value) of each message; a half-written last JSONL line is left out, and reported."""
    text = read_text(path)
    if not jsonl:
        values = json_elements(path, text)[1]
    else:
        notes = []
        values = json_lines(path, text, notes)
        for _, line, problem in notes if report else ():
            report.leave_out("half-written line", line)
            report.warn("half-written", line, f"line {line} is half-written and is left out: {problem}")
    for line, value in values if report else ():
        report.read(str(value.get("role")) if isinstance(value, dict) else type(value).__name__, line)
    return values


def load(path, jsonl: bool = False) -> dict:
    report = ImportReport()
    items = [(line, message_of(path, line, value)) for line, value in records(path, jsonl, report)]
    return to_history(path, "messages", items, report=report)
