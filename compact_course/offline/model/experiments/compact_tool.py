"""The compact tool (article section 10): glob the lessons, then write a progress
note and call `compact` in ONE batch, then confirm the write.

Left out: running `compact`; the policy only asks for it (compact_course/agent/loop.py answers).
"""

import re

from ....display.lang import language_of
from ....display.phrases import say
from ..facts import first_line
from ..view import Plan, View
from .notes import LESSONS_GLOB, lessons_found, notes_on_fresh


def plan_compact_tool(view: View, paths: list) -> Plan:
    """Glob the lessons; then write the note (the path named) and call compact in one batch."""
    note_path = paths[0]
    learned, lang = notes_on_fresh(view), language_of(view.request)
    written = written_result(view, note_path)
    if written and written.startswith("Error: "):
        return Plan.after(learned, say("tool could not write", lang, path=note_path, written=written))
    folders = lessons_found(view)
    if written:
        lessons = [say("tool lessons", lang, n=len(folders), names=", ".join(folders))] if folders else []
        compacted = say("tool compacted" if view.summaries else "tool asked", lang)
        return Plan.after(learned, "\n".join([say("tool done", lang, written=written), *lessons, compacted]))
    if folders is None:
        return Plan.after(learned, say("note list lessons", lang), ("glob", {"pattern": LESSONS_GLOB}))
    content = ("# Progress\n\nLessons in this workspace: " + (", ".join(folders) or "none found")
               + ".\nNext: read each lesson's README.\n")
    return Plan.after(learned, say("note write compact", lang, path=note_path),
                      ("write_file", {"path": note_path, "content": content}), ("compact", {}))


def written_result(view: View, path: str) -> str | None:
    """The result of my write of `path` ('Wrote ...' or 'Error: ...'), from the call or the summary."""
    for call in reversed(view.calls):
        if call.name == "write_file" and call.path == path and call.kind == "whole" \
                and call.text.startswith(("Wrote", "Error: ")):
            return first_line(call.text)
    match = re.search(r"write_file\(" + re.escape(path) + r"\) -> ((?:Wrote|Error: )[^\n]*)",
                      view.knowledge)
    return match[1] if match else None
