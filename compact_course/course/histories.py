"""The canned histories: conversations the course replays through each step.

    from compact_course.course.histories import load_history, list_histories
    history = load_history("five_reads")        # or a path to a .json file
    history["messages"], history["active_request"]

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
Messages API, OpenAI chat format): `compact_course.importers` converts it, or says
which line is wrong.

Left out on purpose: making or editing histories (the script does that): a
file that fails the API's pairing rules is refused here, with the reason,
before any step sees it.
"""

import copy
import json
import os
from pathlib import Path

from context_compact.messages import MessageFormatError, validate_messages

from ..importers import CANNED, NotRead, SessionFileError, SessionFileTooLarge, detect, load_session

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

    A path in another format (see `compact_course.importers.SESSION_FORMATS`) is imported;
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
