"""Conversations from files: another agent's session file as a history the pipeline can
replay (the importers), and the course's own canned histories (histories.py).

    from compact_course.sessions import load_session, detect
    history = load_session("~/.claude/projects/p/1234.jsonl")    # the format is detected
    history = load_session("chat.json", "openai")
    history["messages"], history["active_request"], history["lines"]

    source.py       reading a file: records with their line, SessionFileError (FILE:LINE: what),
                    a line that is not JSON skipped and counted, a .jsonl that is one JSON
                    document read as it, files above MAX_SESSION_BYTES refused
    report.py       what an import read and left out, by kind: `import_report`, `import_notes`
    odd.py          what real files hold and clean ones do not: ODD, one table of kinds for
                    every importer, and the repair that keeps calls and results in valid pairs
    build.py        joining turns, checking pairs, calls never answered, the request and title
    claude_code.py  Claude Code's session JSONL (main thread, parallel batches, split replies,
                    subagent files, its own compactions)
    codex.py        OpenAI Codex CLI rollouts (response items, its own `compacted` records)
    responses.py    OpenAI Responses API items, and request bodies made of them
    atif.py         ATIF trajectories (harbor's Agent Trajectory Interchange Format, v1.x)
    messages_api.py a list, {"messages": [...]} or JSONL of Messages API messages
    openai_chat.py  OpenAI chat format (tool_calls, role "tool"), converted to blocks
    histories.py    the canned histories in data/histories/ by name, any file as a history,
                    and lab 04's session (your own file, or the sample)
    import_report.py  an import's report in the notebook's language, and its notes for a terminal

A history here is what a canned one is (`title`, `active_request`,
`messages`), plus `format`, `source`, `lines` (the line each message
starts on), the compactions the other agent recorded (`compactions`: where
each happened, the summary its model wrote, and for Claude Code the messages
it kept word for word, `kept`) and the import's report (`import_report`,
`import_notes`). Every importer reads what it can and counts what it could
not, by kind, with the same policy (odd.py): a call never answered, a result
without its call, a missing parent, arguments that are not JSON, a record or
item of an unknown type. The messages always pass the pipeline's validator and
the API's pairing rules. A file is refused (a SessionFileError naming the file
and, where there is one, the line) only when no conversation can be built from
it. A file no importer claims is a NotRead error: "FILE: this looks like X,
which is not read; these are: ..." (SHAPES says what X is), never a guess; a
`.jsonl` file that is one JSON document (pretty-printed) is read as that
document, or named as one.

Imports: the pipeline (the message checks and our markers) and, for the words of
a report, compact_course.display, so every other room may use these;
histories.py adds the canned format.
"""

import json
from pathlib import Path

from . import atif, claude_code, codex, messages_api, openai_chat, responses
from .report import shown_kind
from .source import SessionFileError, SessionFileTooLarge, json_lines, not_json, one_document, read_text

__all__ = ["SESSION_FORMATS", "NotRead", "SessionFileError", "SessionFileTooLarge", "detect",
           "load_session"]

# The session-file formats: name -> (how it loads a path, what it is), one row a format and
# file shape. (context_compact/formats.py is another thing: the texts of the pipeline's own markers.)
SESSION_FORMATS = {
    "claude-code": (claude_code.load, "Claude Code session JSONL, a subagent's agent-*.jsonl too"),
    "codex": (codex.load, "OpenAI Codex CLI rollout JSONL, rollout-<date>-<id>.jsonl"),
    "messages": (messages_api.load, "Messages API messages: a JSON list or {\"messages\": [...]}"),
    "messages-jsonl": (lambda path: messages_api.load(path, jsonl=True), "Messages API messages, one a line"),
    "openai": (openai_chat.load, "OpenAI chat format: a JSON list or {\"messages\": [...]}"),
    "openai-jsonl": (lambda path: openai_chat.load(path, jsonl=True), "OpenAI chat messages, one a line"),
    "responses": (responses.load, "an OpenAI Responses API request body: instructions, input, tools"),
    "atif": (atif.load, "an ATIF trajectory, harbor's Agent Trajectory Interchange Format v1.x"),
}
CANNED = "canned"      # the course's own format: a JSON object with title, active_request, messages


class NotRead(SessionFileError):
    """A file no importer claims: what it looks like, and the formats that are read."""

    def __init__(self, path, line, looks_like: str):
        read = "; ".join(f"{name}: {text}" for name, (_, text) in SESSION_FORMATS.items())
        super().__init__(path, line, f"this looks like {looks_like}, which is not read; "
                                     f"these are: {read}")


def _types(values) -> str:
    kinds = sorted({shown_kind(str(v["type"])) for v in values if isinstance(v, dict) and "type" in v})
    return ", ".join(kinds[:6]) + (", ..." if len(kinds) > 6 else "")


def _is_gemini(values) -> bool:
    return isinstance(values, list) and any(isinstance(m, dict) and m.get("role") == "model"
                                            and "parts" in m for m in values)


def _all_typed(values) -> bool:
    return bool(values) and all(isinstance(v, dict) and "type" in v for v in values)


# What a file no importer claims looks like: (test of the whole value, what to call it), first match.
SHAPES = [
    (lambda v: v is None, "an empty file"),
    (lambda v: isinstance(v, dict) and "choices" in v,
     "an OpenAI Chat Completions response (one reply, not a conversation)"),
    (lambda v: isinstance(v, dict) and v.get("object") == "response" and "output" in v,
     "a Responses API response (its output items, not the request that holds the conversation)"),
    (lambda v: isinstance(v, dict) and v.get("type") == "message" and v.get("role") == "assistant",
     "a Messages API response (one reply, not a conversation)"),
    (lambda v: _is_gemini(v), "a Gemini conversation (role 'model', 'parts')"),
    (lambda v: isinstance(v, list) and _all_typed(v), lambda v: f"JSONL records typed {_types(v)}"),
    (lambda v: isinstance(v, dict), lambda v: "a JSON object with keys " + ", ".join(
        shown_kind(str(k)) for k in list(v)[:8])),
    (lambda v: isinstance(v, list) and all(isinstance(m, str) for m in v), "a JSON list of strings"),
    (lambda v: isinstance(v, list), "records with neither a 'role' nor a 'type'"),
    (lambda v: True, lambda v: f"a JSON {type(v).__name__}"),
]


def not_read(path, value, line=None, document: bool = False) -> NotRead:
    """The error for a file no importer claims, from what it holds (`value`: the whole
    JSON value, or the list of a JSONL file's records; None for an empty file).
    `document`: a .jsonl file that is one JSON document, said so first."""
    for test, name in SHAPES:
        if test(value):
            looks = name(value) if callable(name) else name
            return NotRead(path, line, f"one JSON document (not one record a line): {looks}"
                           if document else looks)
    raise AssertionError("the last row of SHAPES matches everything")


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


def _is_canned(whole) -> bool:
    return isinstance(whole, dict) and "messages" in whole and ("active_request" in whole or "title" in whole)


def detect(path) -> str:
    """The format of a file, from its extension and its records; CANNED for the course's
    own format (the course's loader reads it); NotRead when no importer claims the file."""
    path = Path(path).expanduser()
    text = read_text(path)
    document = path.suffix == ".jsonl" and one_document(text)
    if _is_jsonl(path, text) and not document:
        records = json_lines(path, text)
        values = [v for _, v in records]
        if codex.looks_like(records):
            return "codex"
        if claude_code.looks_like(records):
            return "claude-code"
        if not _has_roles(values):
            raise not_read(path, values or None, records[0][0] if records else None)
        return "openai-jsonl" if openai_chat.looks_like(values) else "messages-jsonl"
    try:
        whole = json.loads(text) if text.strip() else None
    except json.JSONDecodeError as error:
        raise not_json(path, error) from None
    records = [(1, v) for v in whole] if isinstance(whole, list) else []
    if codex.looks_like(records):
        return "codex"
    if claude_code.looks_like(records):
        return "claude-code"
    if atif.looks_like(whole):
        return "atif"
    if responses.looks_like(whole):
        return "responses"
    if _is_canned(whole):
        return CANNED
    values = whole.get("messages") if isinstance(whole, dict) else whole
    if not _has_roles(values) or _is_gemini(values):
        raise not_read(path, whole, document=document)
    return "openai" if openai_chat.looks_like(values) else "messages"


def load_session(path, source_format: str = "auto") -> dict:
    """A session file as a history; SessionFileError naming the file and line if it is not one."""
    path = Path(path).expanduser()
    fmt = detect(path) if source_format == "auto" else source_format
    if fmt not in SESSION_FORMATS:
        known = ", ".join(["auto", *SESSION_FORMATS])
        hint = " (a canned history: use compact_course.sessions.histories.load_any)" if fmt == CANNED else ""
        raise SessionFileError(path, None, f"format {fmt!r} is not one of {known}{hint}")
    return SESSION_FORMATS[fmt][0](path)
