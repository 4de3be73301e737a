"""Reading a session file: its records, each with the line it starts on.

    text = read_text(path)
    records = json_lines(path, text)          # JSONL: [(line, value), ...]
    records = json_elements(path, text)       # a JSON list, or {"messages": [...]}: the same

Every importer works from these records, so an error can always say where:
`SessionFileError` carries the file, the line and what is wrong, and prints
as `FILE:LINE: what`. A JSON list is read element by element with
`json.JSONDecoder.raw_decode`, which knows where each element starts.

A session still being written ends in a half-written line: the last line,
when it is JSON cut short, is skipped and named in `notes`; so is any other
line that is not JSON (two writers interleaved, a stray print), unless no line
is JSON at all: then the file is not JSONL and the error names its first line.
A `.jsonl` that is one JSON document (pretty-printed over many lines, or one
list) gives the records it holds. Line numbers of a JSON list are counted in
one pass over the text, however many elements it holds.

Left out: guessing an encoding (a session file is UTF-8) and files above
MAX_SESSION_BYTES (a session is read whole, as the pipeline holds it whole;
the cap is far above any real session and keeps a stray file from filling
memory).
"""

import json
import re
from pathlib import Path

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"\s*")
# Far above a real session (a long day's Claude Code session is a few tens of MB).
MAX_SESSION_BYTES = 256 * 1024 * 1024


class SessionFileError(ValueError):
    """A session file that cannot be imported: `path`, `line` (or None) and `problem`."""

    def __init__(self, path, line: int | None, problem: str):
        self.path, self.line, self.problem = str(path), line, problem
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {problem}")


class SessionFileTooLarge(SessionFileError):
    """A file above MAX_SESSION_BYTES: refused before it is read, in every format."""


def json_problem(error: json.JSONDecodeError, column: int | None = None) -> str:
    """`not JSON (...)` with the column, read as one phrase: json's own text may
    already end in "at" ("Unterminated string starting at")."""
    words = error.msg if error.msg.endswith(" at") else f"{error.msg} at"
    return f"not JSON ({words} column {column or error.colno})"


def not_json(path, error: json.JSONDecodeError) -> SessionFileError:
    return SessionFileError(path, error.lineno, json_problem(error))


def read_text(path) -> str:
    path = Path(path)
    try:
        size = path.stat().st_size if path.is_file() else 0
    except OSError:
        size = 0     # read_text below says what is wrong with the path
    if size > MAX_SESSION_BYTES:
        raise SessionFileTooLarge(path, None, f"{size:,} bytes: larger than any session file "
                                           f"(the cap is MAX_SESSION_BYTES, {MAX_SESSION_BYTES:,})")
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SessionFileError(path, None, "no such file") from None
    except IsADirectoryError:
        raise SessionFileError(path, None, "a folder, not a session file") from None
    except UnicodeDecodeError as error:
        raise SessionFileError(path, _line_at_byte(path, error.start), "not UTF-8 text") from None
    except OSError as error:
        raise SessionFileError(path, None, f"cannot read it ({error.strerror or error})") from None


def _line_at_byte(path: Path, offset: int) -> int:
    with open(path, "rb") as handle:
        return handle.read(offset).count(b"\n") + 1


def one_document(text: str) -> bool:
    """True when a JSONL text is one JSON document instead: a list, or a value
    written over several lines (its first line alone is not JSON)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        json.loads(first)
        whole_first = True
    except json.JSONDecodeError:
        whole_first = False
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return False
    return isinstance(value, list) or not whole_first


def json_lines(path, text: str, notes: list | None = None) -> list:
    """(line number, value) for each non-blank line of a JSONL text. A line that is not
    JSON is skipped and named in `notes` as ("not JSON", line, what); a last line cut
    short (a session read while it is written) as ("half-written line", line, what).
    When no line is JSON, the error names the first. A text that is one JSON document
    gives its elements (or itself), noted as ("one JSON document", 1, what)."""
    if one_document(text):
        value = json.loads(text)
        if notes is not None:
            notes.append(("one JSON document", 1, "one JSON document, not one record a line"))
        start = _line_of(text, _skip(text, 0))
        return _array(path, text, _skip(text, 0)) if isinstance(value, list) else [(start, value)]
    records, bad, lines = [], [], text.splitlines()
    last = max((n for n, line in enumerate(lines, start=1) if line.strip()), default=0)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append((number, json.loads(line)))
        except json.JSONDecodeError as error:
            kind = "half-written line" if number == last and cut_short(line, error) else "not JSON"
            bad.append((kind, number, json_problem(error)))
    if bad and not records and bad[0][0] == "not JSON":
        raise SessionFileError(path, bad[0][1], bad[0][2])
    if notes is not None:
        notes.extend(bad)
    return records


def reported_lines(path, report) -> list:
    """json_lines of a session file, each line it skips counted in `report` (an ImportReport)."""
    notes = []
    records = json_lines(path, read_text(path), notes)
    for kind, line, problem in notes:
        report.odd(kind, line, problem.removeprefix("not JSON (").removesuffix(")"))
    return records


def document_note(path, report) -> None:
    """Count a `.jsonl` file read as the one JSON document it is (detect sends it here)."""
    if Path(path).suffix == ".jsonl":
        report.odd("one JSON document", 1, "one JSON document, not one record a line")


def cut_short(line: str, error: json.JSONDecodeError) -> bool:
    """True when a line is the start of a JSON value that was never finished:
    the text ran out inside a string or where more had to come."""
    return error.msg.startswith("Unterminated string") or error.pos >= len(line.rstrip())


class _LineCounter:
    """The line of an offset, counted on from the previous one: offsets asked for
    in increasing order cost one pass over the text in all (issue 29: counting
    from the start for each of 80,000 elements took a minute)."""

    def __init__(self, text: str):
        self.text, self.offset, self.line = text, 0, 1

    def __call__(self, offset: int) -> int:
        if offset < self.offset:
            self.offset, self.line = 0, 1
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _skip(text: str, offset: int) -> int:
    return _SPACE.match(text, offset).end()


def _decode(path, text: str, offset: int):
    try:
        return _DECODER.raw_decode(text, offset)
    except json.JSONDecodeError as error:
        raise not_json(path, error) from None


def _array(path, text: str, offset: int) -> list:
    """The elements of the JSON array that starts at `offset`, each with its line."""
    elements, offset, line_of = [], _skip(text, offset + 1), _LineCounter(text)
    while text[offset:offset + 1] != "]":
        if elements:
            if text[offset:offset + 1] != ",":
                raise SessionFileError(path, line_of(offset), "expected ',' or ']' in the list")
            offset = _skip(text, offset + 1)
        value, end = _decode(path, text, offset)
        elements.append((line_of(offset), value))
        offset = _skip(text, end)
    return elements


def json_elements(path, text: str, key: str = "messages") -> tuple:
    """(the whole value, [(line, element), ...]) of a JSON list or of an object's `key` list."""
    start = _skip(text, 0)
    whole, end = _decode(path, text, start)
    if text[_skip(text, end):].strip():
        raise SessionFileError(path, _line_of(text, _skip(text, end)), "text after the JSON value")
    if isinstance(whole, list):
        return whole, _array(path, text, start)
    if isinstance(whole, dict) and isinstance(whole.get(key), list):
        return whole, _array(path, text, _key_offset(text, start, key))
    found = f"an object without a {key!r} list" if isinstance(whole, dict) else type(whole).__name__
    raise SessionFileError(path, _line_of(text, start), f"expected a list of {key}, found {found}")


def _key_offset(text: str, offset: int, wanted: str) -> int:
    """Where the value of the top-level key `wanted` starts, in the object at `offset`
    (the last such key, as json.loads keeps the last)."""
    found, offset = None, _skip(text, offset + 1)
    while text[offset:offset + 1] != "}":
        key, offset = _DECODER.raw_decode(text, offset)
        offset = _skip(text, _skip(text, offset) + 1)        # past ':'
        found = offset if key == wanted else found
        offset = _skip(text, _DECODER.raw_decode(text, offset)[1])
        offset = _skip(text, offset + 1) if text[offset:offset + 1] == "," else offset
    return found
