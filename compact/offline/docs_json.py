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
from .lang import language, say
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
    lang = language(view.request)  # the answer speaks the request's language
    if failed(call):
        return Plan(say(lang, "json could not read", path=path, line=first_line(call.text)))
    if call.kind == "whole":
        outline = json_outline_full(call.text) or json_outline(call.text)
        return Plan(json_answer(path, outline, say(lang, "json whole"), lang))
    saved = call.saved
    peek = next((c for c in reversed(view.calls) if c.kind == "whole" and saved
                 and c.name == "bash" and saved in c.command), None)
    if peek:
        return Plan(json_answer(path, json_outline(peek.text),
                                say(lang, "json peek", chars=PEEK_CHARS, saved=saved), lang))
    if call.kind == "persisted":
        outline = json_outline(call.visible)
        if outline["complete"]:
            return Plan(json_answer(path, outline, say(lang, "json preview", saved=saved), lang))
    if saved:
        return Plan.tool(
            f"The result was saved to {saved}; what is left in context stops before the first "
            f"record ends, so I'll look at the first {PEEK_CHARS} characters of the saved copy.",
            "bash", {"command": f"head -c {PEEK_CHARS} {saved}"})
    return Plan(say(lang, "json gone", path=path, omitted=formats.OMITTED))


def json_answer(path: str, outline: dict, source: str, lang: str = "en") -> str:
    top = ", ".join(k for k, _ in outline["top"])
    root = outline["root"] or say(lang, "json text")
    lines = [short(say(lang, "json head", path=path, root=root)
                   + (say(lang, "json fields", top=top) if top else "")), ""]
    if outline["top"]:
        lines.append(say(lang, "json top", fields=", ".join(
            say(lang, "json field", name=k, kind=t) for k, t in outline["top"])))
    if outline["record"]:
        where = say(lang, "json where", within=outline["record_in"]) if outline["record_in"] else ""
        lines.append(say(lang, "json record", where=where, n=len(outline["record"])))
        for key, kind in outline["record"]:
            nested = outline["nested"].get(key)
            lines.append("- " + say(lang, "json field", name=key, kind=kind) + (
                say(lang, "json nested", names=", ".join(nested)) if nested else ""))
        if not outline["complete"]:
            lines.append(say(lang, "json goes on"))
    else:
        lines.append(say(lang, "json no record"))
    lines.append(say(lang, "json source", source=source))
    return "\n".join(lines)
