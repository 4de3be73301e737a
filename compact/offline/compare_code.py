"""Experiment 3 of the article (section 13): how two code files manage context and memory.

The plan: read each file, one a turn, noting its size and the def and class
names that speak of the context (budget, snip, compact, ...) or of memory.
Then answer file by file, saying where the facts came from: the file as read,
a note, the summary, or an outline. When a file's text has left the context
and neither a note nor the summary kept its facts, take its outline with a
`grep` of its def and class lines rather than read the whole file again.

Left out: understanding code; the facts are names matched against two word lists.
"""

import re

from .notes import code_facts, notes_on_fresh, parse_code_note
from .plan import Plan, lines_note
from .view import View, failed

PY_PATH_RE = re.compile(r"(?<![\w./-])[\w./-]+\.py\b")


def outline_command(path: str) -> str:
    return f"grep -nE '^[[:space:]]*(async +)?(class|def) ' {path}"


def find_code_facts(view: View, path: str) -> tuple:
    """(facts, where they came from) or (None, 'unread' / 'gone')."""
    for call in reversed(view.reads(path)):
        if failed(call):
            return None, "error"
        if call.kind == "whole":
            return code_facts(call.text), "read"
    for source, text in (("note", "\n".join(view.notes)), ("summary", "\n".join(view.summaries))):
        facts = parse_code_note(path, text)
        if facts:
            return facts, source
    for call in reversed(view.calls):
        if call.name == "bash" and call.command == outline_command(path) \
                and call.kind == "whole":
            return code_facts(call.text, outline=True), "outline"
    seen = view.reads(path) or f"read_file({path})" in view.knowledge
    return None, "gone" if seen else "unread"


def plan_code(view: View, paths: list) -> Plan:
    """Read each file (or its outline, once its text is gone), then compare them."""
    learned = notes_on_fresh(view)
    for path in paths:
        facts, why = find_code_facts(view, path)
        if facts:
            continue
        if why == "unread":
            return Plan.tool(lines_note(*learned, f"Next I read {path}."),
                             "read_file", {"path": path})
        if why == "error":
            continue
        tried = any(c.command == outline_command(path) for c in view.calls)
        if not tried:
            return Plan.tool(lines_note(
                *learned, f"I read {path} before, but its text is no longer in context; "
                          f"its outline is enough for the comparison."),
                "bash", {"command": outline_command(path)})
    return Plan(lines_note(*learned, code_answer(view, paths)))


CODE_SOURCES = {
    "read": "the file as read in this context",
    "note": "my own note, taken when I read it",
    "summary": "the conversation summary",
    "outline": "an outline of its class and def lines, taken after its text left the context",
}


def code_answer(view: View, paths: list) -> str:
    lines, known = ["Comparing " + " and ".join(paths) + ":", ""], {}
    for path in paths:
        facts, why = find_code_facts(view, path)
        if why == "error":
            lines.append(f"- {path}: I could not read it, so I can't say how it works.")
            continue
        if not facts:
            lines.append(f"- {path}: no longer in this context (its result was shrunk and I "
                         f"kept no note), so I can't say how it works.")
            continue
        known[path] = facts
        size = f" ({facts['lines']} lines)" if facts["lines"] else ""
        lines.append(f"- {path}{size}: current context through "
                     f"{', '.join(facts['context']) or 'nothing named for it'}; persistent "
                     f"memory through {', '.join(facts['memory']) or 'nothing named for it'}. "
                     f"(From {CODE_SOURCES[why]}.)")
    if len(known) >= 2:
        context_side = max(known, key=lambda p: len(known[p]["context"]))
        memory_side = max(known, key=lambda p: len(known[p]["memory"]))
        lines += ["", f"In short: {context_side} manages the current context, keeping the "
                      f"messages list under the window within one session; "
                      + (f"{memory_side} keeps persistent memory that outlives a compaction "
                         f"or a new session." if known[memory_side]["memory"]
                         else "neither names a persistent memory.")]
    return "\n".join(lines)
