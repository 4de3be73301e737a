"""Experiment 2 of the article (section 13): the fields of one record of a large JSON file.

The plan: read the file. Its result is far over step 1's limits, so the
pipeline persists it and leaves a preview. If the whole text is in context,
describe it; if only the preview is and the first record closes in it,
describe that; otherwise look at the first PEEK_CHARS characters of the saved
copy (`head -c`) and describe those. A result shrunk to `[Earlier tool result
omitted.]` leaves nothing to describe, and the answer says so.

Left out: reading the whole saved copy back (it would overflow the context
again), and any check of the values.
"""

import re

from .. import formats
from .json_shape import json_outline, json_outline_full
from .plan import Plan, first_line, short
from .view import View, failed

PEEK_CHARS = 8000
JSON_PATH_RE = re.compile(r"(?<![\w./-])[\w./-]+\.json\b")


def plan_json(view: View, path: str) -> Plan:
    """Read the file, peek at its saved copy if the preview is not enough, then answer."""
    calls = view.reads(path)
    if not calls:
        return Plan.tool(f"I'll read {path} first.", "read_file", {"path": path})
    call = calls[-1]
    if failed(call):
        return Plan(f"I could not read {path}: {first_line(call.text)}")
    if call.kind == "whole":
        outline = json_outline_full(call.text) or json_outline(call.text)
        return Plan(json_answer(path, outline, "the whole file, as read in this context"))
    saved = call.saved
    peek = next((c for c in reversed(view.calls) if c.kind == "whole" and saved
                 and c.name == "bash" and saved in c.command), None)
    if peek:
        return Plan(json_answer(path, json_outline(peek.text),
                                f"the first {PEEK_CHARS} characters of the saved copy {saved}"))
    if call.kind == "persisted":
        outline = json_outline(call.visible)
        if outline["complete"]:
            return Plan(json_answer(path, outline, f"the persisted preview (full text: {saved})"))
    if saved:
        return Plan.tool(
            f"The result was saved to {saved}; what is left in context stops before the first "
            f"record ends, so I'll look at the first {PEEK_CHARS} characters of the saved copy.",
            "bash", {"command": f"head -c {PEEK_CHARS} {saved}"})
    return Plan(f"I can't describe {path}: its tool result was shrunk to {formats.OMITTED} "
                f"and nothing left in this context records its structure.")


def json_answer(path: str, outline: dict, source: str) -> str:
    top = ", ".join(k for k, _ in outline["top"])
    lines = [short(f"{path}: a JSON {outline['root'] or 'text'}"
                   + (f" with fields {top}" if top else "")), ""]
    if outline["top"]:
        lines.append("Top level: " + ", ".join(f"{k} ({t})" for k, t in outline["top"]) + ".")
    if outline["record"]:
        where = f" (the first element of '{outline['record_in']}')" if outline["record_in"] else ""
        lines.append(f"One record{where} has {len(outline['record'])} main fields:")
        for key, kind in outline["record"]:
            nested = outline["nested"].get(key)
            lines.append(f"- {key} ({kind})" + (
                f": a list of objects with {', '.join(nested)}" if nested else ""))
        if not outline["complete"]:
            lines.append("The record goes on past the text I have seen; these are its fields "
                         "up to that point.")
    else:
        lines.append("No complete record is visible in the text I have.")
    lines.append(f"Source: {source}.")
    return "\n".join(lines)
