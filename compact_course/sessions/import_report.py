"""An import's report (compact_course/sessions/report.py) in the notebook's language.

    for line in report_lines(history["import_report"]):
        print(line)

The counts and kinds come from the file (a kind is the record's own `type`,
or why it was left out); the sentences around them come from the phrasebook,
so the Chinese edition reads them in Chinese.

Left out: the warnings' free text and the details of odd records (`history["import_notes"]`,
English, for the terminal); here each warning and each odd kind is said again from its
kind and its lines.
"""

import sys

from ..display.phrases import say
from ..display.text import shown
from .report import line_list


def report_lines(report: dict, lang: str | None = None) -> list:
    read = report["read"]
    kinds = say("and", lang).join(f"{n} {kind}" for kind, n in sorted(read.items(), key=lambda kv: -kv[1]))
    lines = [say("import read", lang, total=sum(read.values()), kinds=kinds)]
    left = report["left_out_lines"]
    if left:
        lines.append(say("import left out", lang, kinds=say("and", lang).join(
            say("import lines", lang, count=len(at), kind=kind, lines=line_list(at),
                s="s" if len(at) > 1 else "")
            for kind, at in left.items())))
    else:
        lines.append(say("import nothing left out", lang))
    if joined := report.get("joined_lines"):
        lines.append(say("import joined", lang, count=len(joined), s="s" if len(joined) > 1 else "",
                         lines=line_list(joined)))
    for c in report.get("compactions", ()):
        kept = say("import compaction apart" if c["before_in_file"] else "import compaction kept", lang)
        lines.append(say("import compaction", lang, line=c["line"], chars=c["summary_chars"], kept=kept))
    if report.get("odd"):
        lines.append(odd_line(report, lang))
    for warning in report["warnings"]:
        lines.append(say(f"import warn {warning['kind']}", lang, lines=line_list(warning["lines"])))
    return lines


def odd_line(report: dict, lang: str | None = None) -> str:
    """Every odd kind (compact_course/sessions/odd.py) in one line: how many, where, what was done."""
    said = []
    for kind, count in report["odd"].items():
        at, done = report["odd_lines"].get(kind, []), say(f"import odd {kind}", lang)
        said.append(say("import odd kind", lang, count=count, kind=kind, lines=line_list(at), done=done,
                        s="s" if len(set(at)) > 1 else "") if at
                    else say("import odd kind nowhere", lang, count=count, kind=kind, done=done))
    return say("import odd", lang, kinds=say("import odd and", lang).join(said))


def print_notes(prog: str, history: dict, file=None) -> None:
    """An imported history's notes on stderr, one line each, named by the command
    (a canned history has none: nothing is printed). A note quotes the file (a
    record's kind), so it goes through `shown`: echoed, never obeyed."""
    for note in history.get("import_notes", []):
        print(shown(f"{prog}: {note}"), file=file or sys.stderr)
