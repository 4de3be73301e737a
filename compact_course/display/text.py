"""Plain text for the terminal: data shown safely, a fixed-width table, a counted noun.

    shown("title\x1b]52;c;aGk=\x07")   -> 'title\\x1b]52;c;aGk=\\x07'
    print_shown(text)                  print(shown(text))

    fixed_width([("step", "files"), ("snip_compact", "2 files")], widths=(20, 0))
    plural(1, "file")                  -> "1 file"
    plural(2, "summary", "summaries")  -> "2 summaries"

Both the replay's table (`compact_course.lessons.replay`) and the benchmark's use
`fixed_width`; it lives here because the course imports the benchmark, never
the other way round.

`shown` is THE function every text from data goes through on its way to a
terminal or a notebook's text output: a session, a history's name or title, a
workspace file, a tool's result, a model's answer, an error that quotes any of
them. A terminal obeys control bytes: OSC 52 writes the clipboard, others set
the window title or clear the screen, a lone carriage return overwrites the
line, and the bidi overrides reorder what a reader sees. `shown` writes each of
them out visibly (`\x1b`, `\r`, `\u202e`) and keeps newlines and tabs.
Used by `replay`, `sweep`, `compact-course run`, `compact-course agent` and the agent's echo.

Left out: wide and zero-width characters (shown as they are; they cannot
command a terminal), and width-aware padding in `fixed_width`.
"""

import re

# C0 controls but tab and newline, DEL, C1 controls (U+0080..U+009F: 8-bit
# CSI/OSC/ST for terminals that honour them), a carriage return not followed by
# a newline, the bidi embeddings, overrides and isolates, the line and paragraph
# separators, and lone surrogates (bytes that were not UTF-8).
UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f"
                    "\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]|\r(?!\n)")


def _visible(match: re.Match) -> str:
    code = ord(match.group())
    if code == 0x0D:
        return "\\r"
    if 0xDC80 <= code <= 0xDCFF:      # surrogateescape: one undecodable byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(text) -> str:
    """`text` (made a str) with every character a terminal could obey written out visibly."""
    return UNSAFE.sub(_visible, text if isinstance(text, str) else str(text))


def print_shown(*parts, **print_args) -> None:
    """print(), with each part through `shown` first (an echo for data)."""
    print(*(shown(part) for part in parts), **print_args)


def fixed_width(rows, widths, align: str = "<", gap: str = "") -> list[str]:
    """One line per row: each cell padded to its column's width, joined by `gap`.

    A row is a tuple of cells (a shorter one leaves the last columns empty) or
    a string kept as it is (a rule, a note, a blank line). `align` is '<' or
    '>'. Trailing blanks are cut, so a left-aligned last column needs no width.
    """
    lines = []
    for row in rows:
        if isinstance(row, str):
            lines.append(row)
            continue
        cells = [f"{str(cell):{align}{width}}" for cell, width in zip(row, widths)]
        lines.append(gap.join(cells).rstrip())
    return lines


def plural(count: int, one: str, many: str | None = None) -> str:
    """'1 file', '2 files'; `many` for a plural that is not `one` + 's'."""
    return f"{count} {one if count == 1 else many or one + 's'}"
