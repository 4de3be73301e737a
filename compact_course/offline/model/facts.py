"""The key facts of a file's text in one line: what a summary keeps of a file it read.

Left out: meaning; facts are copied or counted, never inferred, and cut at MAX_LINE.
"""

import json
import re

MAX_LINE = 160
# Top-level names only: a file's methods would crowd its functions out of one line.
TOP_DEF_RE = re.compile(r"^(?:async\s+)?(?:def|class)\s+(\w+)", re.MULTILINE)
MORE_RE = re.compile(r"^\.\.\. \((\d+) more lines\)$")


def short(text: str, limit: int = MAX_LINE) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def line_count(text: str) -> int:
    """Lines of the file: those shown, plus the `... (N more lines)` a limit cut off."""
    lines = text.splitlines()
    more = MORE_RE.match(lines[-1]) if lines else None
    return len(lines) - 1 + int(more[1]) if more else len(lines)


def fitting(prefix: str, names, limit: int = MAX_LINE, empty: str = "", more: bool = True) -> str:
    """`prefix` + as many names as fit in `limit` characters (`empty` for none) [+ how many more]."""
    names, shown = list(names), []
    for name in names:
        if len(prefix + ", ".join(shown + [name])) > limit - (12 if more else 0):
            break
        shown.append(name)
    rest = len(names) - len(shown)
    return prefix + (", ".join(shown) or empty) + (f" (+{rest} more)" if more and rest else "")


def title_of(text: str) -> str | None:
    """A Markdown text's first first-level title."""
    return next((ln.strip() for ln in text.splitlines() if ln.startswith("# ")), None)


def json_fields(text: str) -> str | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, list):
        data = data[0] if data and isinstance(data[0], dict) else {}
        return fitting("a list; its first record has fields ", data) if data else "a list"
    return fitting("fields ", data) if isinstance(data, dict) else "a single value"


def file_facts(path: str, text: str) -> str:
    """One line of facts about a file read whole (or its first lines)."""
    if text.startswith("Error: "):
        return short("could not be read: " + first_line(text))
    count = f"{line_count(text)} lines"
    if path.endswith(".md") and (title := title_of(text)):
        return short(f"{count}; title '{title}'")
    if path.endswith(".py"):
        names = list(dict.fromkeys(TOP_DEF_RE.findall(text)))
        return fitting(f"{count}; defines ", names) if names else count
    if path.endswith(".json") and (fields := json_fields(text)):
        return short(f"{count}; {fields}")
    return short(f"{count}; first line '{first_line(text)}'")
