"""Plain text for figures: a fixed-width table and a counted noun.

    fixed_width([("step", "files"), ("snip_compact", "2 files")], widths=(20, 0))
    plural(1, "file")                  -> "1 file"
    plural(2, "summary", "summaries")  -> "2 summaries"

Both the replay's table (`compact.course.replay`) and the benchmark's use
`fixed_width`; it lives here because the course imports the benchmark, never
the other way round.
"""


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
