"""Your own session, or the course's sample when there is none: what lab 04 opens.

    from compact_course.course.sessions import open_session, sample_path, records_in
    history = open_session("~/.claude/projects/<project>/<session>.jsonl")   # or None: the sample
    records_in(path)        # {record type: count}, sidechain records counted apart
    fanned_out(path)        # tool results filed under their own tool_use record (Claude Code 2.1.x)
    todays_samples()        # the made samples in today's formats (scripts/make_sessions.py)

A path that is not there gets one line saying so and what to do, and the
sample is opened instead, so the notebook runs on; a file that is there but
does not import raises its error (file, line, what is wrong): a wrong file is
not quietly swapped for the sample. Paths are printed relative to the
course's data folder, or with `~` for the home folder, never whole.

Left out: finding session files for you (Claude Code keeps them under
~/.claude/projects/; pick one with the file browser or `ls -t`).
"""

import json
from collections import Counter
from pathlib import Path

from ..display.text import shown
from .histories import data_dir, load_history

SAMPLE_NAME = "claude_code_sample.jsonl"


def sample_path() -> Path:
    return data_dir() / "sessions" / SAMPLE_NAME


def shown_path(path) -> str:
    """A path as a notebook prints it: under data/, under ~, or its name only."""
    path = Path(path).expanduser().resolve()
    for base, label in ((data_dir().resolve(), "data"), (Path.home().resolve(), "~")):
        if path.is_relative_to(base):
            return f"{label}/{path.relative_to(base).as_posix()}"
    return path.name


def open_session(path=None, source_format: str = "auto") -> dict:
    """The history of `path` (any format `replay` reads), or of the sample when path is None
    or names no file (with one line that says so)."""
    if path is not None and not Path(path).expanduser().is_file():
        # shown_path: never a whole path (a user's name is in it); shown: a typed path
        # can hold characters a terminal would obey.
        print(f"No file at {shown(shown_path(path))}: opening the sample instead. Set the path "
              f"to one of your sessions (Claude Code keeps them under ~/.claude/projects/<project>/).")
        path = None
    chosen = sample_path() if path is None else Path(path).expanduser()
    history = load_history(chosen, source_format)
    history["shown_path"] = shown_path(chosen)
    return history


def records_in(path) -> Counter:
    """What a JSONL session file holds: {type: count}, with 'sidechain' and 'meta' apart."""
    counts = Counter()
    for line in Path(path).expanduser().read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        kind = record.get("type", "?") if isinstance(record, dict) else "?"
        if isinstance(record, dict) and record.get("isSidechain"):
            kind = "sidechain"
        elif isinstance(record, dict) and record.get("isMeta"):
            kind = "meta"
        counts[kind] += 1
    return counts


def fanned_out(path) -> int:
    """How many tool_result records of a Claude Code file have as parent the record of
    their own tool_use: the records of a parallel batch fanning out, as 2.1.x writes them."""
    records = [json.loads(line) for line in Path(path).expanduser().read_text(encoding="utf-8").splitlines()
               if line.strip()]
    uses = {block.get("id"): record.get("uuid") for record in records if record.get("type") == "assistant"
            for block in record["message"]["content"] if isinstance(block, dict)}
    return sum(1 for record in records if record.get("type") == "user"
               and isinstance(record["message"]["content"], list)
               for block in record["message"]["content"] if block.get("type") == "tool_result"
               and uses.get(block["tool_use_id"]) == record["parentUuid"])


# The Codex rollout of today's format: the 2025 one beside it is the early format, before typed lines.
TODAYS = ("claude_code_2_1.jsonl", "rollout-2026-*.jsonl", "responses_request.json", "atif_trajectory.json")


def todays_samples() -> list:
    """The made sample of each of today's formats, in data/sessions/."""
    folder = data_dir() / "sessions"
    return [path for pattern in TODAYS for path in sorted(folder.glob(pattern))]
