"""Reading what a build left: its messages as plain JSON, its markers, the files they name.

The checker compares a learner's output with the package's by structure, not by bytes: file
names may differ (a transcript's is random, a saved result's may be collision-safe), so a
marker is read for the path it names, and the file behind it for what it holds. Every read
stays inside the case's own folder. Left out: the package's own readers (context_compact/store.py),
which the checker does not lean on to judge a build against that very package.
"""

import json
import re
from pathlib import Path

from .words import say

PERSISTED = re.compile(r"\A<persisted-output>\nFull output: (?P<path>[^\n]+)\nPreview:\n"
                       r"(?P<preview>.*)\n</persisted-output>\Z", re.DOTALL)
ARCHIVED = re.compile(r"\A\[(?P<count>\d+) messages archived at (?P<path>[^\n\]]+)\]\Z")
SAVED = re.compile(r"\A\[Earlier tool result saved at (?P<path>[^\n\]]+)\]\Z")
OMITTED = "[Earlier tool result omitted.]"
SUMMARY = re.compile(r"\A\[(?P<kind>[^\]\n]+)\]\n\nCurrent user request:\n(?P<request>.*)\n\n"
                     r"Conversation summary \(reference only\):\n(?P<summary>.*)\n\n"
                     r"Full transcript: (?P<path>[^\n]+)\Z", re.DOTALL)
TRANSCRIPTS = ".transcripts"
TOOL_RESULTS = ".task_outputs/tool-results"


def plain(value):
    """Dicts, lists and scalars: SDK objects dumped, keys holding None left out (as to_plain does)."""
    if hasattr(value, "model_dump") and not isinstance(value, (dict, list)):
        value = value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def text_of(content) -> str:
    """A content's text: the string, or its text blocks' texts joined with a newline."""
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content
                         if isinstance(b, dict) and b.get("type") == "text")
    return content if isinstance(content, str) else ""


def others(content) -> list:
    """A content's blocks that are not text (an image)."""
    return [b for b in content if not (isinstance(b, dict) and b.get("type") == "text")] \
        if isinstance(content, list) else []


def results(messages) -> list:
    """(message index, block) of every tool_result, oldest first."""
    return [(i, b) for i, m in enumerate(messages)
            if isinstance(m, dict) and isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


def inside(root: Path, path: str, folder: str) -> Path | None:
    """The file `path` names (relative to root, or absolute) when it is a file in root/folder."""
    try:
        where = (Path(path) if Path(path).is_absolute() else root / path).resolve()
    except (OSError, ValueError):
        return None
    home = (root / folder).resolve()
    return where if where.parent == home and where.is_file() else None


def file_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def transcript(root: Path, path: str) -> list | None:
    """The messages a transcript holds, or None if it is not one (a line that is not JSON)."""
    found = inside(root, path, TRANSCRIPTS)
    data = file_text(found) if found else None
    if data is None:
        return None
    try:
        return [json.loads(line) for line in data.splitlines() if line.strip()]
    except ValueError:
        return None


def transcript_problems(root: Path, path: str, given: list) -> list:
    """What is wrong with the transcript `path` names, which must hold `given` (plain), in order."""
    records = transcript(root, path)
    if records is None:
        return [say("transcript missing", folder=TRANSCRIPTS)]
    found = [] if re.fullmatch(r"transcript_[^/]+\.jsonl", Path(path).name) else [say("transcript name")]
    if Path(path).is_absolute():   # inside() reads it; the contract says relative to root
        found.append(say("transcript absolute"))
    if records != given:   # exact: a None field the SDK left unset is a difference (flaw 12)
        reprs = any("Block(" in json.dumps(m) for m in records)
        nulls = not reprs and plain(records) == given
        found.append(say("transcript reprs") if reprs else say("transcript nulls") if nulls
                     else say("transcript not whole"))
    return found


def has_null(value) -> bool:
    """Whether a dict anywhere in `value` holds None: the SDK's unset fields, dumped without
    exclude_none=True (flaw 12)."""
    if isinstance(value, dict):
        return any(v is None or has_null(v) for v in value.values())
    return isinstance(value, list) and any(has_null(v) for v in value)


def archive_problems(root: Path, message) -> list:
    """Flaw 12 in the transcript a marker or summary message names: reprs, or unset fields as null."""
    content = message.get("content") if isinstance(message, dict) else None
    match = isinstance(content, str) and (ARCHIVED.match(content) or SUMMARY.match(content))
    records = transcript(root, match["path"]) if match else None
    if not records:
        return []
    if any("Block(" in json.dumps(m) for m in records):
        return [say("transcript reprs")]
    return [say("transcript nulls")] if has_null(records) else []


def is_list_of_messages(value) -> bool:
    return isinstance(value, list) and all(isinstance(m, dict) for m in value)
