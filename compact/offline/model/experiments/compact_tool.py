"""The compact tool (article section 10): a progress note and `compact` in one batch.

The plan: glob the lessons, then, in ONE tool batch, write the note and call
`compact`. The agent runs the whole batch, answers `compact` with
`Compaction requested after this tool batch.`, and compacts only after every
result is in. The final answer confirms the write from its result or, after
the compaction, from the summary, so the note is never written twice.

Left out: running `compact`; the policy only asks for it (compact/agent/loop.py answers).
"""

import re

from ....display.lang import language_of
from ....display.phrases import say
from ..plan import Plan, first_line, lines_note
from ..view import View
from .notes import LESSONS_GLOB, lessons_found, notes_on_fresh


def plan_compact_tool(view: View, note_path: str) -> Plan:
    """Glob the lessons; then write the note and call compact in one batch; then confirm."""
    learned, lang = notes_on_fresh(view), language_of(view.request)
    written = written_result(view, note_path)
    if written and written.startswith("Error: "):
        return Plan(lines_note(*learned, say("tool could not write", lang, path=note_path, written=written)))
    if written:
        return Plan(lines_note(*learned, compact_tool_answer(view, note_path, written)))
    folders = lessons_found(view)
    if folders is None:
        return Plan.tool(lines_note(*learned, say("note list lessons", lang)),
                         "glob", {"pattern": LESSONS_GLOB})
    content = ("# Progress\n\nLessons in this workspace: " + (", ".join(folders) or "none found")
               + ".\nNext: read each lesson's README.\n")
    return Plan(lines_note(*learned, say("note write compact", lang, path=note_path)),
                [("write_file", {"path": note_path, "content": content}), ("compact", {})])


def written_result(view: View, path: str) -> str | None:
    """The result of my write of `path` ('Wrote ...' or 'Error: ...'), if I made one."""
    for call in reversed(view.calls):
        if call.name == "write_file" and call.path == path and call.kind == "whole" \
                and call.text.startswith(("Wrote", "Error: ")):
            return first_line(call.text)
    match = re.search(r"write_file\(" + re.escape(path) + r"\) -> ((?:Wrote|Error: )[^\n]*)",
                      view.knowledge)
    return match[1] if match else None


def compact_tool_answer(view: View, path: str, written: str) -> str:
    folders = lessons_found(view) or []
    lang = language_of(view.request)  # the answer speaks the request's language
    lines = [say("tool done", lang, written=written)]
    if folders:
        lines.append(say("tool lessons", lang, n=len(folders), names=", ".join(folders)))
    lines.append(say("tool compacted" if view.compacted else "tool asked", lang))
    return "\n".join(lines)
