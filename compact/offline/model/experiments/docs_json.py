"""Experiment 2 of the article (section 13): the fields of one record of a large JSON
file, from the whole text, its preview, or a peek at its saved copy.

Left out: reading the whole saved copy back (it would overflow the context
again), and any check of the values.
"""

from .... import formats
from ....display.lang import language_of
from ....display.phrases import say
from ..facts import first_line, short
from ..plan import Plan
from ..view import View, failed
from .json_shape import json_outline

PEEK_CHARS = 8000


def plan_json(view: View, paths: list) -> Plan:
    """Read the file, peek at its saved copy if the preview is not enough, then answer."""
    path = paths[0]
    calls = view.reads(path)
    lang = language_of(view.request)  # notes and answer speak the request's language
    if not calls:
        return Plan(say("note read first", lang, path=path), [("read_file", {"path": path})])
    call = calls[-1]
    if failed(call):
        return Plan(say("json could not read", lang, path=path, line=first_line(call.text)))
    if call.kind == "whole":
        return Plan(json_answer(path, json_outline(call.text), say("json whole", lang), lang))
    saved = call.saved
    peek = next((c for c in reversed(view.calls) if c.kind == "whole" and saved
                 and c.name == "bash" and saved in c.command), None)
    if peek:
        return Plan(json_answer(path, json_outline(peek.text),
                                say("json peek", lang, chars=PEEK_CHARS, saved=saved), lang))
    if call.kind == "persisted":
        outline = json_outline(call.visible)
        if outline["complete"]:
            return Plan(json_answer(path, outline, say("json preview", lang, saved=saved), lang))
    if saved:
        return Plan(say("note peek", lang, saved=saved, chars=PEEK_CHARS),
                    [("bash", {"command": f"head -c {PEEK_CHARS} {saved}"})])
    return Plan(say("json gone", lang, path=path, omitted=formats.OMITTED))


def json_answer(path: str, outline: dict, source: str, lang: str = "en") -> str:
    top = ", ".join(k for k, _ in outline["top"])
    root = outline["root"] or say("json text", lang)
    lines = [short(say("json head", lang, path=path, root=root)
                   + (say("json fields", lang, top=top) if top else "")), ""]
    if outline["top"]:
        lines.append(say("json top", lang, fields=", ".join(
            say("json field", lang, name=k, kind=t) for k, t in outline["top"])))
    if outline["record"]:
        where = say("json where", lang, within=outline["record_in"]) if outline["record_in"] else ""
        lines.append(say("json record", lang, where=where, n=len(outline["record"])))
        for key, kind in outline["record"]:
            nested = outline["nested"].get(key)
            lines.append("- " + say("json field", lang, name=key, kind=kind) + (
                say("json nested", lang, names=", ".join(nested)) if nested else ""))
        if not outline["complete"]:
            lines.append(say("json goes on", lang))
    else:
        lines.append(say("json no record", lang))
    lines.append(say("json source", lang, source=source))
    return "\n".join(lines)
