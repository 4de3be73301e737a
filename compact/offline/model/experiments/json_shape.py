"""The shape of a JSON text, whole or cut off: top-level fields and the first record.

Left out: values, and every record after the first.
"""

import json
import re
from dataclasses import dataclass, field

# A value's type by its first character; anything else is a number.
JSON_TYPES = {'"': "string", "{": "object", "[": "list", "t": "boolean", "f": "boolean",
              "n": "null"}
VALUE_START = re.compile(r"\s*(\S?)")
# A whole string literal; an escaped character may be any, a newline too. No match: the text is cut.
STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


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
            string = STRING_RE.match(text, i)
            if string is None:
                break
            if top and top.kind == "{" and top.expect_key:
                key = string_value(string[0])
                top.keys.append(key)
                top.expect_key = False
            i = string.end()
            continue
        if char == ":" and top and top.kind == "{":
            top.types[key] = JSON_TYPES.get(VALUE_START.match(text, i + 1)[1], "number")
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


def string_value(literal: str) -> str:
    try:
        return json.loads(literal)
    except ValueError:
        return literal[1:-1]


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
