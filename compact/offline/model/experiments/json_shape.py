"""The shape of a JSON text, whole or cut off: top-level fields and the first record.

In experiment 2 the file is far over step 1's limits, so what the model may
have in context is a 2,000-character preview, or the first few thousand
characters of the saved copy: JSON that stops mid-value. `json_outline` walks
such a text character by character, without parsing it, and reports the
top-level fields with their types, the first object inside a list (the
"record") with its fields, the fields of that record's nested lists of
objects, and whether the record closed before the text ended.
The same walk outlines a whole, valid JSON text.

Left out: values, and every record after the first.
"""

import json
import re
from dataclasses import dataclass, field

JSON_TYPES = {'"': "string", "{": "object", "[": "list", "t": "boolean", "f": "boolean",
              "n": "null"}
NON_SPACE = re.compile(r"\S")


def value_type(char: str) -> str:
    return JSON_TYPES.get(char, "number")


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
    """The shape of a JSON text, even a cut one: top-level fields and the first record.

    The record is the first object inside a list; its nested lists of objects
    are described by the fields of their first element.
    """
    stack, root, record, key, i = [], None, None, None, 0
    while i < len(text):
        char = text[i]
        top = stack[-1] if stack else None
        if char == '"':
            end = _string_end(text, i)
            if end is None:
                break
            if top and top.kind == "{" and top.expect_key:
                key = _string_value(text[i:end])
                top.keys.append(key)
                top.expect_key = False
            i = end
            continue
        if char == ":" and top and top.kind == "{":
            top.types[key] = value_type(_next_char(text, i + 1))
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
        i += 1
    return _outline_dict(root, record)


def _string_end(text: str, start: int) -> int | None:
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return None


def _string_value(literal: str) -> str:
    try:
        return json.loads(literal)
    except ValueError:
        return literal[1:-1]


def _next_char(text: str, start: int) -> str:
    match = NON_SPACE.search(text, start)
    return match.group() if match else ""


def _outline_dict(root, record) -> dict:
    outline = {"root": {"{": "object", "[": "list"}.get(root.kind) if root else None,
               "top": [], "record_in": None, "record": [], "complete": False, "nested": {}}
    if root and root.kind == "{":
        outline["top"] = [(k, root.types.get(k, "?")) for k in root.keys]
    if record:
        frame, where = record
        outline.update(record_in=where, complete=frame.complete,
                       record=[(k, frame.types.get(k, "?")) for k in frame.keys])
        outline["nested"] = {child.key: child.children[0].keys for child in frame.children
                             if child.kind == "[" and child.children
                             and child.children[0].kind == "{"}
    return outline
