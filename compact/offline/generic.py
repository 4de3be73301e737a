"""Any other request: what the workspace holds and what its files begin with.

The plan: read up to three files the request names; when it names none, glob
`*` and read the README (or the first two files). The answer lists what was
found and each file's first line, or says that a file's text is no longer in
the context. This keeps the REPL answering any question without pretending
to understand it.

Left out: anything past a file's first line.
"""

import re

from .notes import FILES_NOTE, notes_on_fresh_generic
from .plan import Plan, first_line, last_match, lines_note
from .view import View

FILE_RE = re.compile(r"(?:[\w.-]+/)*[\w-]+\.(?:md|py|json|txt|log|toml|ya?ml|cfg|ini|js|ts|"
                     r"html|css|sh|csv)\b")


def plan_generic(view: View) -> Plan:
    """Read the files the request names (or the README), then say how each begins."""
    learned = notes_on_fresh_generic(view)
    paths = list(dict.fromkeys(FILE_RE.findall(view.request)))
    listing = None
    if not paths:
        listing = files_found(view)
        if listing is None:
            return Plan.tool(lines_note(*learned, "I'll look at what the workspace holds."),
                             "glob", {"pattern": "*"})
        paths = [p for p in listing if p.lower() == "readme.md"] or \
                [p for p in listing if FILE_RE.fullmatch(p)][:2]
    for path in paths[:3]:
        if first_line_of(view, path) is None and not view.reads(path):
            return Plan.tool(lines_note(*learned, f"Next I read {path}."),
                             "read_file", {"path": path})
    return Plan(lines_note(*learned, generic_answer(view, paths[:3], listing)))


def files_found(view: View) -> list | None:
    for call in reversed(view.calls):
        if call.name == "glob" and call.arg("pattern") == "*" and call.kind == "whole":
            return [ln for ln in call.text.splitlines() if ln and ln != "(no match)"]
    # The newest note wins: it lists what the model knows now.
    match = last_match(re.escape(FILES_NOTE) + r"([^\n]*)", view.knowledge)
    return [p.strip() for p in match[1].rstrip(".").split(",")] if match else None


def first_line_of(view: View, path: str) -> str | None:
    for call in reversed(view.reads(path)):
        if call.visible:
            return first_line(call.visible)
    match = re.search(re.escape(path) + r": first line '([^\n]*)'", view.knowledge) or \
        re.search(r"read_file\(" + re.escape(path) + r"\) -> ([^\n]*)", view.knowledge)
    return match[1] if match else None


def generic_answer(view: View, paths: list, listing) -> str:
    lines = []
    if listing:
        lines.append(f"The workspace holds {len(listing)} entries at the top: "
                     f"{', '.join(listing)}.")
    elif listing is not None:
        lines.append("The workspace is empty: a glob for * matched nothing.")
    for path in paths:
        line = first_line_of(view, path)
        if line is None:
            lines.append(f"- {path}: its text is no longer in this context.")
        elif line.startswith("Error: "):
            lines.append(f"- {path}: I could not read it ({line}).")
        else:
            lines.append(f"- {path} begins: {line!r}")
    lines.append("That is what I could read for this request; ask about a file to go further.")
    return "\n".join(lines)
