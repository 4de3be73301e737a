"""The canned histories: conversations the course replays through each step; and lab
04's session, your own file or the course's sample.

    from compact_course.sessions.histories import load_history, list_histories
    history = load_history("five_reads")        # or a path to a .json file
    history["messages"], history["active_request"]
    history = open_session("~/.claude/projects/<project>/<session>.jsonl")   # or None: the sample
    records_in(path)        # {record type: count}, sidechain records counted apart
    fanned_out(path)        # tool results filed under their own tool_use record (Claude Code 2.1.x)
    todays_samples()        # the made samples in today's formats (scripts/make_sessions.py)

A history is one JSON object: `name`, `title`, `lesson`, `step` (the step it
was made to show), `active_request` (what the user typed for the turn that is
about to be prepared), `notes`, sometimes `window_tokens`, and `messages` in
the Messages API format. They are made by `scripts/make_histories.py` from the
sample workspace in `data/workspace/`, with real tool output.

The data lives beside the package in a checkout, not inside it. `data_dir()`
finds it: `$COMPACT_DATA` when set; else the checkout this package runs from
(`pip install -e .`, as requirements.txt does); else the nearest `data/` at or
above the working folder (a notebook run from `notebooks/` of a clone, with the
package installed as a copy). Importing never needs the data; a load without
it says where it looked.

A path may also be another agent's session file (Claude Code JSONL, plain
Messages API, OpenAI chat format): `compact_course.sessions` converts it, or says
which line is wrong.

`open_session`: a path that is not there gets one line saying so and what to
do, and the sample is opened instead, so the notebook runs on; a file that is
there but does not import raises its error (file, line, what is wrong): a wrong
file is not quietly swapped for the sample. Paths are printed relative to the
course's data folder, or with `~` for the home folder, never whole.

Left out on purpose: making or editing histories (the script does that): a
file that fails the API's pairing rules is refused here, with the reason,
before any step sees it. Finding session files for you (Claude Code keeps them
under ~/.claude/projects/; pick one with the file browser or `ls -t`).
"""

import copy
import json
import os
from collections import Counter
from pathlib import Path

from context_compact.messages import MessageFormatError, validate_messages

from ..display.text import shown
from . import CANNED, NotRead, SessionFileError, SessionFileTooLarge, detect, load_session

DATA_ENV = "COMPACT_DATA"
CHECKOUT_DATA = Path(__file__).resolve().parents[2] / "data"
REQUIRED = ("title", "active_request", "messages")


class HistoryError(ValueError):
    """A name or file that is not a history; the message is one line."""


class CourseDataMissing(FileNotFoundError):
    """The course's data/ folder is not where it was looked for; the message says where that was."""


def data_dir() -> Path:
    """The course's data/ folder (histories/ and workspace/ in it); see the module's docstring."""
    named = os.environ.get(DATA_ENV)
    if named:
        folder = Path(named).expanduser()
        if (folder / "histories").is_dir():
            return folder
        raise CourseDataMissing(f"{DATA_ENV}={named}: no histories/ folder there; "
                                "set it to the data/ folder of a checkout of the course")
    here = Path.cwd().resolve()
    tried = list(dict.fromkeys([CHECKOUT_DATA, *(folder / "data" for folder in (here, *here.parents))]))
    for folder in tried:
        if (folder / "histories").is_dir():
            return folder
    raise CourseDataMissing(
        "the course's data (data/histories/) was not found; looked in "
        + ", ".join(str(folder) for folder in tried)
        + f". Run from a checkout of the course, or set {DATA_ENV} to its data/ folder")


def __getattr__(name: str):
    # HISTORY_DIR is found when asked for, so importing this module never needs the data.
    if name == "HISTORY_DIR":
        return data_dir() / "histories"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _names() -> list[str]:
    try:
        return list_histories()
    except CourseDataMissing:
        return []


def list_histories() -> list[str]:
    """Names of the canned histories, sorted."""
    return sorted(p.stem for p in (data_dir() / "histories").glob("*.json"))


def _locate(name_or_path) -> Path:
    text = str(name_or_path)
    try:
        names = list_histories()
    except CourseDataMissing:
        if Path(text).is_file():  # a history given by its path needs no data folder
            return Path(text)
        raise
    if text in names:
        return data_dir() / "histories" / f"{text}.json"
    path = Path(text)
    if path.is_file():
        return path
    if path.exists():
        raise HistoryError(f"{text}: not a file")
    known = ", ".join(names) or "none"
    raise HistoryError(f"{text}: no such file, and no history of that name (known: {known})")


def check_history(data, source: str = "history") -> dict:
    """Return `data` if it is a history; else raise HistoryError naming what is wrong."""
    if not isinstance(data, dict):
        raise HistoryError(f"{source}: not a history (expected a JSON object, "
                           f"got {type(data).__name__})")
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise HistoryError(f"{source}: not a history (missing {', '.join(missing)})")
    if not isinstance(data["active_request"], str):
        raise HistoryError(f"{source}: active_request must be a string")
    if not data["messages"]:
        raise HistoryError(f"{source}: messages is empty")
    try:
        validate_messages(data["messages"])
    except MessageFormatError as error:
        raise HistoryError(f"{source}: {error}") from None
    return data


def _imported_format(path: Path, source_format: str) -> str:
    """The file's format; CANNED when it is none an importer reads, so that the
    canned checks below say what the file lacks (a .jsonl file is never canned)."""
    if source_format != "auto":
        return source_format
    try:
        return detect(path)
    except NotRead as error:
        if path.suffix == ".jsonl":
            raise
        raise HistoryError(f"{error}; nor is it a canned history (title, active_request, "
                           f"messages)") from None
    except SessionFileError as error:
        if path.suffix == ".jsonl" or isinstance(error, SessionFileTooLarge):
            raise
        return CANNED


def load_history(name_or_path, source_format: str = "auto") -> dict:
    """A canned history by name (see `list_histories`), a path, or a dict (copied, checked).

    A path in another format (see `compact_course.sessions.SESSION_FORMATS`) is imported;
    `source_format` names the format instead of detecting it.
    """
    if isinstance(name_or_path, dict):
        return check_history(copy.deepcopy(name_or_path))
    path = _locate(name_or_path)
    try:
        # json's C parser recurses: a file nested 100,000 deep is no history, whatever its format
        if str(name_or_path) not in _names() and _imported_format(path, source_format) != CANNED:
            return check_history(load_session(path, source_format), str(path))
    except RecursionError:
        raise HistoryError(f"{path}: not a history (nested too deeply to read)") from None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise HistoryError(f"{path}: not a history (not UTF-8 text)") from None
    except json.JSONDecodeError as error:
        raise HistoryError(f"{path}: not a history (invalid JSON at line {error.lineno}, "
                           f"column {error.colno})") from None
    except OSError as error:
        raise HistoryError(f"{path}: cannot read ({error.strerror or error})") from None
    except RecursionError:
        raise HistoryError(f"{path}: not a history (nested too deeply to read)") from None
    data = check_history(data, str(path))
    data.setdefault("name", path.stem)
    return data


def model_calls(history: dict) -> int:
    """How many model replies the history holds (one per assistant message)."""
    return sum(1 for m in history["messages"] if m.get("role") == "assistant")


# -- lab 04's session: your own file, or the sample ---------------------------------

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
