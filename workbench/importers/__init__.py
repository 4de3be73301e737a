"""Importers: another agent's session file as a history the pipeline can replay.

    from workbench.importers import load_session, detect
    history = load_session("~/.claude/projects/p/1234.jsonl")    # the format is detected
    history = load_session("chat.json", "openai")
    history["messages"], history["active_request"], history["lines"]

    source.py       reading a file: records with their line, SessionFileError (FILE:LINE: what),
                    a half-written last line skipped, files above MAX_SESSION_BYTES refused
    report.py       what an import read and left out, by kind: `import_report`, `import_notes`
    build.py        joining turns, checking pairs, the active request and the title
    claude_code.py  Claude Code's session JSONL (main thread, split replies, compactions)
    messages_api.py a list, {"messages": [...]} or JSONL of Messages API messages
    openai_chat.py  OpenAI chat format (tool_calls, role "tool"), converted to blocks

A history here is what a canned one is (`title`, `active_request`,
`messages`), plus `format`, `source`, `lines` (the line each message
starts on) and the import's report (`import_report`, `import_notes`).
Every error is a SessionFileError naming the file and, where there is one,
the line; no history is returned unless the whole file converted and its
tool pairs match.

Imports: the pipeline only (the message checks and our markers), so every
other part may use these; the course's loader (`workbench.course.sessions`)
adds the canned format.
"""

import json
from pathlib import Path

from . import claude_code, messages_api, openai_chat
from .source import SessionFileError, SessionFileTooLarge, json_lines, not_json, read_text

__all__ = ["SESSION_FORMATS", "SessionFileError", "SessionFileTooLarge", "detect", "load_session"]

# The session-file formats: name -> (how it loads a path, what it is), one row a format and
# file shape. (compact/formats.py is another thing: the texts of the pipeline's own markers.)
SESSION_FORMATS = {
    "claude-code": (claude_code.load, "Claude Code session JSONL"),
    "messages": (messages_api.load, "Messages API messages: a JSON list or {\"messages\": [...]}"),
    "messages-jsonl": (lambda path: messages_api.load(path, jsonl=True), "Messages API messages, one a line"),
    "openai": (openai_chat.load, "OpenAI chat format: a JSON list or {\"messages\": [...]}"),
    "openai-jsonl": (lambda path: openai_chat.load(path, jsonl=True), "OpenAI chat messages, one a line"),
}
CANNED = "canned"      # the course's own format: a JSON object with title, active_request, messages


def _is_jsonl(path: Path, text: str) -> bool:
    if path.suffix == ".jsonl":
        return True
    if path.suffix == ".json" or text.lstrip().startswith("["):
        return False
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return True
    return False


def _has_roles(values) -> bool:
    return isinstance(values, list) and any(isinstance(v, dict) and "role" in v for v in values)


def detect(path) -> str:
    """The format of a file, from its extension and its records; CANNED for a JSON
    value that is no list of messages (the course's loader then says what it lacks)."""
    path = Path(path).expanduser()
    text = read_text(path)
    if _is_jsonl(path, text):
        records = json_lines(path, text)
        values = [v for _, v in records]
        if claude_code.looks_like(records):
            return "claude-code"
        if not _has_roles(values):
            raise SessionFileError(path, records[0][0] if records else None,
                                   "not a session file: no record has a 'type' or a 'role'")
        return "openai-jsonl" if openai_chat.looks_like(values) else "messages-jsonl"
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as error:
        raise not_json(path, error) from None
    values = whole.get("messages") if isinstance(whole, dict) and "active_request" not in whole else whole
    if not _has_roles(values):
        return CANNED
    return "openai" if openai_chat.looks_like(values) else "messages"


def load_session(path, source_format: str = "auto") -> dict:
    """A session file as a history; SessionFileError naming the file and line if it is not one."""
    path = Path(path).expanduser()
    fmt = detect(path) if source_format == "auto" else source_format
    if fmt not in SESSION_FORMATS:
        known = ", ".join(["auto", *SESSION_FORMATS])
        hint = " (a canned history: use workbench.course.sessions.load_any)" if fmt == CANNED else ""
        raise SessionFileError(path, None, f"format {fmt!r} is not one of {known}{hint}")
    return SESSION_FORMATS[fmt][0](path)
