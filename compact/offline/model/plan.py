"""What one reply of the offline model is made of, and how a note stays one line.

A `Plan` is the reply's text and the tool calls to make (none for a final
answer). The helpers keep a note to one line of at most NOTE_MAX characters,
what the extractive summary keeps of a line, so a note survives a summary whole.

Left out: the response's JSON shape and its tool ids (reply.py writes them).
"""

import re
from dataclasses import dataclass, field

from .facts import MAX_LINE as NOTE_MAX  # a summary keeps one line of this length per note
from .facts import first_line, short  # noqa: F401 - the policy modules take them from here


@dataclass
class Plan:
    text: str
    calls: list = field(default_factory=list)   # (name, input) pairs

    @classmethod
    def tool(cls, text: str, name: str, tool_input: dict) -> "Plan":
        return cls(text, [(name, tool_input)])


def lines_note(*lines) -> str:
    return "\n".join(line for line in lines if line)


def names_fitting(prefix: str, names, limit: int = NOTE_MAX, empty: str = "none") -> str:
    """`prefix` + as many names as fit in one note line (`empty` when none does)."""
    shown = []
    for name in names:
        if len(prefix + ", ".join(shown + [name])) > limit:
            break
        shown.append(name)
    return prefix + (", ".join(shown) if shown else empty)


def last_match(pattern, text: str):
    """The last match of `pattern` in `text`, or None: the newest note is the one that counts."""
    found = None
    for found in re.finditer(pattern, text):  # noqa: B007 - keep only the last one
        pass
    return found
