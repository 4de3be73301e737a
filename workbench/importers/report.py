"""What an import read and what it left out, by kind, with the lines: the
import's report, kept in the history as `import_report` and as plain `import_notes`.

    report = ImportReport()
    report.read("user", 3)                     # a record of this kind on line 3
    report.leave_out("sidechain", 12)          # left out, and why
    report.warn("half-written", 40, "...")     # left out AND worth a warning
    report.joined(7)                           # a record that continues the reply before it
    report.compacted({...})                    # a compaction the other agent recorded
    history["import_report"], history["import_notes"] = report.as_dict(), report.notes()

Nothing an importer drops goes unsaid: every record it does not turn into a
message is counted under a kind here, and the kinds that may surprise (a
half-written line, records off the parent chain) are warnings too.
`workbench.display.import_report.print_notes` puts the notes on stderr, for a command line.

Left out: translating the notes (English, for a terminal; the notebooks say
the same in their own language with workbench/display/import_report.py).
"""

import re
from collections import Counter

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
KIND_CHARS = 40


def shown_kind(kind: str) -> str:
    """A kind as the file spelled it, safe to print: control characters shown as
    escapes (a record's type is data, never a terminal command), cut short."""
    kind = _CONTROL.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), kind)
    return kind if len(kind) <= KIND_CHARS else kind[:KIND_CHARS - 3] + "..."


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

    def read(self, kind: str, line: int) -> None:
        self.kinds_read[shown_kind(kind)] += 1

    def leave_out(self, kind: str, line: int) -> None:
        self.left_out.setdefault(shown_kind(kind), []).append(line)

    def warn(self, kind: str, lines, what: str) -> None:
        """A warning: `what` happened to `lines` (one line or several)."""
        lines = [lines] if isinstance(lines, int) else list(lines)
        self.warnings.append((kind, lines, what))

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

