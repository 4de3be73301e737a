"""Experiment 2 of the article (section 13): the fields of one record of a large JSON file,
from the whole text, its preview, or a peek at its saved copy; and `json_outline`, the shape
of a JSON text even when it is cut off mid-value.

Left out: reading the whole saved copy back (it would overflow the context again),
values, and every record after the first.
"""

import json
import re
from dataclasses import dataclass, field

from context_compact import formats

from ....display.lang import language_of
from ....display.phrases import say
from ..facts import first_line, short
from ..view import Plan, View

PEEK_CHARS = 8000
# A value's type by its first character; anything else is a number.
JSON_TYPES = {'"': "string", "{": "object", "[": "list", "t": "boolean", "f": "boolean",
              "n": "null"}
VALUE_START = re.compile(r"\s*(\S?)")
# A whole string literal (an escaped character may be any, a newline too), else a quote
# alone, else a character of JSON's structure; numbers and literals are skipped.
TOKEN_RE = re.compile(r'"(?:[^"\\]|\\.)*"|["{}\[\]:,]', re.DOTALL)


@dataclass
class Frame:
    kind: str                    # "{" or "["
    key: str | None = None       # the key this container sits under
    keys: list = field(default_factory=list)
    types: dict = field(default_factory=dict)
    children: list = field(default_factory=list)
    expect_key: bool = True
    complete: bool = False


def json_outline(text: str) -> dict:
    """The shape of a JSON text, even a cut one: top-level fields and the first record (the
    first object inside a list), with the fields of its nested lists of objects."""
    stack, root, record, key = [], None, None, None
    for token in TOKEN_RE.finditer(text):
        char, top = token[0], stack[-1] if stack else None
        if char == '"':   # a quote that opens no whole string: the text is cut inside one
            break
        if char[0] == '"' and top and top.kind == "{" and top.expect_key:
            try:
                key = json.loads(char)
            except ValueError:   # an escape JSON does not know: keep the literal's inside
                key = char[1:-1]
            top.keys.append(key)
            top.expect_key = False
        elif char == ":" and top and top.kind == "{":
            top.types[key] = JSON_TYPES.get(VALUE_START.match(text, token.end())[1], "number")
        elif char in "{[":
            frame = Frame(char, key=key if top and top.kind == "{" else None)
            if top is None:
                root = frame
            else:
                top.children.append(frame)
            if char == "{" and top and top.kind == "[" and record is None:
                record = (frame, top.key)
            stack.append(frame)
        elif char in "}]" and stack:
            stack.pop().complete = True
        elif char == "," and top and top.kind == "{":
            top.expect_key = True
    top = root if root and root.kind == "{" else Frame("{")
    frame, where = record or (Frame("{"), None)   # no record: an empty one, not complete
    return {"root": {"{": "object", "[": "list"}.get(root.kind) if root else None,
            "top": [(k, top.types.get(k, "?")) for k in top.keys],
            "record_in": where, "record": [(k, frame.types.get(k, "?")) for k in frame.keys],
            "complete": frame.complete,
            "nested": {child.key: child.children[0].keys for child in frame.children
                       if child.kind == "[" and child.children and child.children[0].kind == "{"}}


def plan_json(view: View, paths: list) -> Plan:
    """Read the file, peek at its saved copy if the preview is not enough, then answer."""
    path = paths[0]
    calls = view.reads(path)
    lang = language_of(view.request)  # notes and answer speak the request's language
    if not calls:
        return Plan(say("note read first", lang, path=path), [("read_file", {"path": path})])
    call, saved = calls[-1], calls[-1].saved
    peek = next((c for c in reversed(view.calls) if c.kind == "whole" and saved
                 and c.name == "bash" and saved in c.command), None)
    if call.failed:
        return Plan(say("json could not read", lang, path=path, line=first_line(call.text)))
    if call.kind == "whole":
        outline, source = json_outline(call.text), say("json whole", lang)
    elif peek:
        outline, source = json_outline(peek.text), say("json peek", lang, chars=PEEK_CHARS, saved=saved)
    elif call.kind == "persisted" and json_outline(call.visible)["complete"]:
        outline, source = json_outline(call.visible), say("json preview", lang, saved=saved)
    elif saved:
        return Plan(say("note peek", lang, saved=saved, chars=PEEK_CHARS),
                    [("bash", {"command": f"head -c {PEEK_CHARS} {saved}"})])
    else:
        return Plan(say("json gone", lang, path=path, omitted=formats.OMITTED))
    return Plan(json_answer(path, outline, source, lang))


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
