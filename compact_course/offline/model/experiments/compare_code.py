"""Experiment 3 of the article (section 13): how two code files manage context and memory,
from each file as read, a note, the summary, or an outline once its text is gone.

Left out: understanding code; the facts are names matched against two word lists.
"""

from ....display.lang import language_of
from ....display.phrases import say
from ..view import Plan, View
from .notes import code_facts, notes_on_fresh, parse_code_note


def outline_command(path: str) -> str:
    return f"grep -nE '^[[:space:]]*(async +)?(class|def) ' {path}"


def find_code_facts(view: View, path: str) -> tuple:
    """(facts, where they came from) or (None, 'error' / 'gone' / 'unread')."""
    for call in reversed(view.reads(path)):
        if call.failed:
            return None, "error"
        if call.kind == "whole":
            return code_facts(call.text), "read"
    for source, text in (("note", "\n".join(view.notes)), ("summary", "\n".join(view.summaries))):
        if facts := parse_code_note(path, text):
            return facts, source
    for call in reversed(view.calls):
        if call.name == "bash" and call.command == outline_command(path) and call.kind == "whole":
            return code_facts(call.text, outline=True), "outline"
    seen = view.reads(path) or f"read_file({path})" in view.knowledge
    return None, "gone" if seen else "unread"


def plan_code(view: View, paths: list) -> Plan:
    """Read each file (or its outline, once its text is gone), then compare them."""
    learned, lang = notes_on_fresh(view), language_of(view.request)
    lines, known = [say("code comparing", lang, paths=say("code and", lang).join(paths)), ""], {}
    nothing = say("code nothing", lang)
    for path in paths:
        facts, why = find_code_facts(view, path)
        if why == "unread":
            return Plan.after(learned, say("note next read", lang, path=path), ("read_file", {"path": path}))
        if why == "gone" and not any(c.command == outline_command(path) for c in view.calls):
            return Plan.after(learned, say("note outline", lang, path=path),
                              ("bash", {"command": outline_command(path)}))
        if not facts:
            lines.append(say("code failed" if why == "error" else "code gone", lang, path=path))
            continue
        known[path] = facts
        size = say("code lines", lang, n=facts["lines"]) if facts["lines"] else ""
        lines.append(say("code facts", lang, path=path, size=size,
                         context=", ".join(facts["context"]) or nothing,
                         memory=", ".join(facts["memory"]) or nothing,
                         source=say("code " + why, lang)))
    if len(known) >= 2:
        context_side = max(known, key=lambda p: len(known[p]["context"]))
        memory_side = max(known, key=lambda p: len(known[p]["memory"]))
        lines += ["", say("code in short", lang, context_side=context_side)
                  + (say("code memory", lang, memory_side=memory_side)
                     if known[memory_side]["memory"] else say("code no memory", lang))]
    return Plan.after(learned, "\n".join(lines))
