"""What an import read and what it left out, by kind, with the lines: the
import's report, kept in the history as `import_report` and as plain `import_notes`.

    report = ImportReport()
    report.read("user", 3)                     # a record of this kind on line 3
    report.leave_out("sidechain", 12)          # left out, and why
    report.warn("off the parent chain", [5, 6], "...")   # left out AND worth a warning
    report.joined(7)                           # a record that continues the reply before it
    report.compacted({...})                    # a compaction the other agent recorded
    report.odd("call never answered", 9, "call_1")   # a record of a kind in odd.ODD, and how
    history["import_report"], history["import_notes"] = report.as_dict(), report.notes()

Nothing an importer drops goes unsaid: every record it does not turn into a
message is counted under a kind here. What a clean file would not hold (a
call never answered, a result without its call, a record of a type newer than
this reader: the kinds of `odd.ODD`) is counted apart, by kind, and said in
one line; records off the parent chain are warnings too.
`compact_course.sessions.import_report.print_notes` puts the notes on stderr, for a command line.

Left out: translating the notes (English, for a terminal; the notebooks say
the same in their own language with compact_course/sessions/import_report.py).
"""

import re
from collections import Counter

from .odd import ODD

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
KIND_CHARS = 40
DETAIL_CHARS = 100


def shown_kind(kind: str, width: int = KIND_CHARS) -> str:
    """A kind as the file spelled it, safe to print: control characters shown as
    escapes (a record's type is data, never a terminal command), cut short."""
    kind = _CONTROL.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), kind)
    return kind if len(kind) <= width else kind[:width - 3] + "..."


def line_list(lines) -> str:
    """Lines as short ranges: [3, 4, 5, 9] -> '3-5, 9'."""
    spans, lines = [], sorted(set(lines))
    for line in lines:
        if spans and line == spans[-1][1] + 1:
            spans[-1][1] = line
        else:
            spans.append([line, line])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


class ImportReport:
    def __init__(self):
        self.kinds_read = Counter()
        self.left_out = {}          # kind -> [line, ...]
        self.warnings = []          # (kind, lines, what) in the order they arose
        self.joins = []             # lines of records joined to the reply before them
        self.compactions = []       # the other agent's own compactions, as the history keeps them
        self.odd_records = {}       # kind in ODD -> [(line or None, detail or None), ...]

    def read(self, kind: str, line: int) -> None:
        self.kinds_read[shown_kind(kind)] += 1

    def leave_out(self, kind: str, line: int) -> None:
        self.left_out.setdefault(shown_kind(kind), []).append(line)

    def warn(self, kind: str, lines, what: str) -> None:
        """A warning: `what` happened to `lines` (one line or several)."""
        lines = [lines] if isinstance(lines, int) else list(lines)
        self.warnings.append((kind, lines, what))

    def odd(self, kind: str, line: int | None, detail=None) -> None:
        """A record or block of a kind in ODD (what was done with it is ODD's row), at `line`."""
        if kind not in ODD:
            raise KeyError(f"{kind!r} is not a kind of odd.ODD")
        detail = None if detail is None else shown_kind(str(detail), DETAIL_CHARS)
        self.odd_records.setdefault(kind, []).append((line, detail))

    def joined(self, line: int) -> None:
        """A record that continues the reply before it (one reply written over several lines)."""
        self.joins.append(line)

    def compacted(self, compaction: dict) -> None:
        """A compaction the other agent recorded: kept apart, in the history's `compactions`."""
        self.compactions.append(compaction)

    def as_dict(self) -> dict:
        return {"read": dict(self.kinds_read), "joined_lines": list(self.joins),
                "compactions": [{"line": c["line"], "summary_line": c.get("summary_line"),
                                 "summary_chars": len(c["summary"]),
                                 "before_in_file": c["before_in_file"]} for c in self.compactions],
                "left_out": {kind: len(lines) for kind, lines in self.left_out.items()},
                "left_out_lines": {kind: list(lines) for kind, lines in self.left_out.items()},
                "odd": {kind: len(found) for kind, found in self.odd_records.items()},
                "odd_lines": {kind: [line for line, _ in found if line]
                              for kind, found in self.odd_records.items()},
                "warnings": [{"kind": k, "lines": list(ls), "what": w} for k, ls, w in self.warnings]}

    def notes(self) -> list:
        total = sum(self.kinds_read.values())
        read = ", ".join(f"{n} {kind}" for kind, n in self.kinds_read.most_common())
        notes = [f"read {total} records: {read}" if total else "read no records"]
        if self.left_out:
            notes.append("left out: " + ", ".join(
                f"{len(lines)} {kind} (line{'s' if len(lines) > 1 else ''} {line_list(lines)})"
                for kind, lines in self.left_out.items()))
        else:
            notes.append("left out: nothing")
        if self.odd_records:
            notes.append(odd_note(self.odd_records))
        if self.joins:
            notes.append(f"joined: {len(self.joins)} record{'s' if len(self.joins) > 1 else ''} "
                         f"continuing the reply before (lines {line_list(self.joins)})")
        notes += [compaction_note(c) for c in self.compactions]
        notes += [f"warning: {what}" for _, _, what in self.warnings]
        return notes


def compaction_note(c: dict) -> str:
    """One recorded compaction, said in a line."""
    where = f"line {c['line']}" + (f", summary on line {c['summary_line']}"
                                   if c.get("summary_line") not in (None, c["line"]) else "")
    kept = ("kept apart in the history's compactions; the messages before it are read"
            if c["before_in_file"] else "kept as a message: the file does not hold what it summarized")
    what = ("a summary encrypted by the server, not readable" if c.get("encrypted")
            else f"a summary of {len(c['summary']):,} characters")
    return f"compaction recorded ({where}): {what}, {kept}"


def odd_note(odd_records: dict) -> str:
    """Every odd record, by kind, in one line: how many, where, what was done."""
    said = []
    for kind, found in odd_records.items():
        lines = [line for line, _ in found if line]
        details = list(dict.fromkeys(d for _, d in found if d))
        where = f"line{'s' if len(set(lines)) > 1 else ''} {line_list(lines)}" if lines else ""
        named = ", ".join(details[:3]) + (", ..." if len(details) > 3 else "")
        inside = "; ".join(part for part in (where, named) if part)
        said.append(f"{len(found)} {kind}" + (f" ({inside})" if inside else "") + f": {ODD[kind]}")
    return "not as expected: " + "; ".join(said)
