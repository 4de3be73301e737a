"""Reading a `messages` list in the Messages API format, and the rules the steps rely on.

The steps work on plain dicts: `to_plain` turns the SDK's objects into dicts, whose repr
`json.dumps(default=str)` would measure and write (flaw 12 in docs/DESIGN.md); a tool
result's list of blocks has the text of its text blocks, never `str()` of the list (flaw
11). `validate_messages` says in the pipeline's words (which message, block and id) what a
list breaks: pairs, unique ids, roles, the shapes the steps read, values JSON can hold;
never a TypeError or a RecursionError. Left out: the API's own wording and its other rules
(merged turns, every field, block types): the offline server's (compact_course/offline/api/rules.py).
"""

import json
import math

from .media import extra_chars

ROLES = ("user", "assistant")
MAX_DEPTH = 100   # levels from the list down: real messages need a handful
_SCALARS = (str, int, float, bool, type(None))
# Made once (json.dumps makes one a call); a cycle is a RecursionError, as deep nesting is.
_ENCODER = json.JSONEncoder(ensure_ascii=False, check_circular=False)


class MessageFormatError(ValueError):
    """A list the API would refuse or the steps could not read; the text says where."""


def to_plain(value, at: int | None = None):
    """A deep copy of dicts, lists and JSON scalars (`at`: the value is messages[at]);
    MessageFormatError, naming the message and block, past MAX_DEPTH levels."""
    deep = []
    plain = _plain(value, 0 if at is None else 1, deep)
    if deep:
        listed = [(at, plain)] if at is not None else enumerate(plain if isinstance(plain, list) else [])
        for i, message in listed:
            check_message(i, message)
        raise MessageFormatError(f"a value is nested more than {MAX_DEPTH} levels deep")
    return plain


def _plain(value, depth: int, deep: list):
    if hasattr(value, "model_dump") and not isinstance(value, (dict, list, tuple)):
        value = value.model_dump(mode="json", exclude_none=True)
    if depth > MAX_DEPTH and isinstance(value, (dict, list, tuple)):
        deep.append(depth)   # left as it is: the check of values names where
    if depth > MAX_DEPTH or not isinstance(value, (dict, list, tuple)):
        return value
    if isinstance(value, dict):
        return {key: _plain(item, depth + 1, deep) for key, item in value.items()}
    return [_plain(item, depth + 1, deep) for item in value]


def encode(value) -> str:
    return _ENCODER.encode(value)   # json.dumps(value, ensure_ascii=False)


def estimate_chars(messages) -> int:
    """The article's measure, characters of the list's JSON; images and documents by the API's rule
    (context_compact/media.py), not by their base64."""
    plain = to_plain(messages)
    text = json.dumps(plain, ensure_ascii=False)
    if '"source"' not in text or not isinstance(plain, list):   # no medium: no message encoded again
        return len(text)
    return len(text) + sum(extra_chars(m, encode(m)) for m in plain if isinstance(m, dict))


def blocks(message) -> list:
    return message["content"] if isinstance(message.get("content"), list) else []


def tool_results(message) -> list:
    return [b for b in blocks(message) if isinstance(b, dict) and b.get("type") == "tool_result"]


def tool_uses(message) -> list:
    return [b for b in blocks(message) if isinstance(b, dict) and b.get("type") == "tool_use"]


def is_tool_result(message) -> bool:   # a user message of tool results
    return message.get("role") == "user" and bool(tool_results(message))


def has_tool_use(message) -> bool:   # an assistant message that calls tools
    return message.get("role") == "assistant" and bool(tool_uses(message))


def thinking_count(messages) -> int:   # thinking and redacted_thinking blocks of the assistant's
    return sum(1 for m in messages if m.get("role") == "assistant" for b in blocks(m)
               if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"))


def text_of(content) -> str:
    """The text of a content value: the string itself, or its text blocks joined."""
    if isinstance(content, list):
        return "\n".join([b.get("text", "") for b in content
                          if isinstance(b, dict) and b.get("type") == "text"])
    return content if isinstance(content, str) else ""


def non_text_blocks(content) -> list:
    """The blocks of a content value that are not text (images, documents)."""
    return [b for b in blocks({"content": content}) if not (isinstance(b, dict) and b.get("type") == "text")]


def with_text(content, text: str):
    """Replace the text of a content value, keeping images and other blocks."""
    others = non_text_blocks(content)
    return [{"type": "text", "text": text}, *others] if others else text


def user_text(message) -> str:   # what a person typed: a user message's text, tool results left out
    return text_of(message.get("content")) if message.get("role") == "user" else ""


def check_request(active_request) -> None:   # MessageFormatError unless a text (or None)
    if active_request is not None and not isinstance(active_request, str):
        raise MessageFormatError(f"active_request must be a text, got {type(active_request).__name__}")


def request_positions(messages, active_request: str) -> list[int]:
    """Indexes of user messages where the current request can be read."""
    check_request(active_request)
    return [i for i, m in enumerate(messages) if m.get("role") == "user"
            and active_request in text_of(m.get("content"))] if active_request else []


# -- the rules ----------------------------------------------------------------------------

def validate_messages(messages, changed=None) -> None:
    """MessageFormatError unless the list follows the rules (a last assistant message may still
    wait for its results, and be empty: the API's prefill); `changed`: only these and their neighbours."""
    if not isinstance(messages, list):
        raise MessageFormatError(f"messages must be a list, got {type(messages).__name__}")
    n = len(messages)
    for i in range(n) if changed is None else changed:
        check_message(i, messages[i])
    ids = [_tool_ids(m) for m in messages]   # ids are global: every message's, whatever changed
    for i in range(n) if changed is None else sorted({k for j in changed for k in (j - 1, j, j + 1)
                                                      if 0 <= k < n}):
        if not messages[i]["content"] and not (i == n - 1 and messages[i]["role"] == "assistant"):
            raise MessageFormatError(f"messages[{i}] has empty content; only a final assistant message may")
        _check_pairs(messages, i, ids)
    _check_unique_ids(messages, ids)


def check_message(i: int, message) -> None:
    """One message: its role, content and blocks, values JSON can hold first (the checks read them)."""
    for key, item in message.items() if isinstance(message, dict) else [(None, message)]:
        if key != "content" and (type(item) is not str or not isinstance(key, str)):
            _check_values({key: item} if isinstance(message, dict) else message, 1, (i,))
    if not isinstance(message, dict):
        raise MessageFormatError(f"messages[{i}] must be a dict, got {type(message).__name__}")
    if "role" not in message:
        raise MessageFormatError(f"messages[{i}] has no role")
    role, content = message["role"], message.get("content")
    if role not in ROLES:
        raise MessageFormatError(f"messages[{i}] has role {role!r}; expected 'user' or 'assistant'")
    if not isinstance(content, (str, list)):
        _check_values(content, 2, (i, "content"))
        raise MessageFormatError(f"messages[{i}].content must be a string or a list of blocks, "
                                 f"got {type(content).__name__}")
    for j, block in enumerate(blocks(message)):
        _check_block(i, j, role, block)


# The field each block kind must hold as a string, and the words when it does not.
FIELDS = {"tool_use": ("id", "is a tool_use without an id"),
          "tool_result": ("tool_use_id", "is a tool_result without a tool_use_id"),
          "text": ("text", "is a text block without a string 'text'")}
ROLE_OF = {"tool_use": "assistant", "tool_result": "user"}


def _check_block(i: int, j: int, role: str, block) -> None:
    at = (i, j, block)
    for key, item in block.items() if isinstance(block, dict) else [(None, block)]:
        if type(item) is not str or not isinstance(key, str):
            _check_values({key: item} if isinstance(block, dict) else block, 3, at)
    kind = block.get("type") if isinstance(block, dict) else None
    if not isinstance(kind, str):
        raise MessageFormatError(f"{_place(i, j)} must be a dict with a 'type'")
    if ROLE_OF.get(kind, role) != role:
        raise MessageFormatError(f"{_place(i, j)} is a {kind} in a {role} message")
    field, words = FIELDS.get(kind, (None, ""))
    value = block.get(field)
    if field and not (isinstance(value, str) and (value or kind == "text")):   # an id is never ""
        raise MessageFormatError(f"{_place(i, j)} {words}")
    inner = block.get("content", "") if kind == "tool_result" else ""
    if not isinstance(inner, (str, list)):
        raise MessageFormatError(f"{_place(i, j)} (tool_use_id {value!r}) has content of type "
                                 f"{type(inner).__name__}; expected a string or a list of blocks")
    for k, part in enumerate(inner if isinstance(inner, list) else []):
        inner_kind = part.get("type") if isinstance(part, dict) else None
        if not isinstance(inner_kind, str):
            raise MessageFormatError(f"{_place(i, j)}.content[{k}] (tool_use_id {value!r}) must be a "
                                     "dict with a 'type'")
        if inner_kind == "text" and not isinstance(part.get("text"), str):   # the steps read it
            raise MessageFormatError(f"{_place(i, j)}.content[{k}] (tool_use_id {value!r}) is a text "
                                     "block without a string 'text'")


def _tool_ids(message) -> tuple[list, list]:   # a checked message's tool_use ids, and those it answers
    uses, results = [], []
    for block in blocks(message):
        kind = block.get("type")
        if kind == "tool_use":
            uses.append(block["id"])
        elif kind == "tool_result":
            results.append(block["tool_use_id"])
    return uses, results


def _check_pairs(messages, i: int, ids: list) -> None:   # results answer the message before; uses, after
    uses, results = ids[i]
    for tool_id in results:
        if not i or tool_id not in ids[i - 1][0]:
            j = next(j for j, b in enumerate(messages[i]["content"])
                     if b.get("type") == "tool_result" and b["tool_use_id"] == tool_id)
            before = f"messages[{i - 1}]" if i else "a message before it (there is none)"
            raise MessageFormatError(f"messages[{i}].content[{j}]: tool_result for id {tool_id!r} has "
                                     f"no tool_use with that id in {before}")
    missing = [tool_id for tool_id in uses if i + 1 < len(messages) and tool_id not in ids[i + 1][1]]
    if missing:
        raise MessageFormatError(f"messages[{i}]: tool_use ids {missing} have no tool_result in "
                                 f"messages[{i + 1}]")


def _check_unique_ids(messages, ids: list) -> None:   # else which result would be whose?
    seen = set()
    for tool_id in (tool_id for uses, _ in ids for tool_id in uses):
        if tool_id in seen:   # its second use: name it and the first
            (a, b), (i, j) = [(i, j) for i, m in enumerate(messages) for j, block in enumerate(blocks(m))
                              if block.get("type") == "tool_use" and block["id"] == tool_id][:2]
            raise MessageFormatError(f"messages[{i}].content[{j}]: tool_use id {tool_id!r} is already "
                                     f"used by messages[{a}].content[{b}]; tool_use ids must be unique")
        seen.add(tool_id)


def _check_values(value, depth: int, where: tuple) -> None:
    """Values JSON can hold, string keys, at most MAX_DEPTH levels (and so deep a recursion)."""
    if isinstance(value, (dict, list, tuple)):
        if depth > MAX_DEPTH:
            raise MessageFormatError(f"{_place(*where)} is nested more than {MAX_DEPTH} levels deep")
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            if isinstance(value, dict) and not isinstance(key, str):
                raise MessageFormatError(f"{_place(*where)} holds a key of type {type(key).__name__} "
                                         f"({key!r}); keys must be strings")
            if type(item) is not str:   # most values are: nothing to walk
                _check_values(item, depth + 1, where)
    elif not isinstance(value, _SCALARS):
        raise MessageFormatError(f"{_place(*where)} holds a value of type {type(value).__name__}; only "
                                 "JSON values (dicts, lists, strings, numbers, booleans, None) can be sent")
    elif isinstance(value, float) and not math.isfinite(value):
        raise MessageFormatError(f"{_place(*where)} holds {value!r}; JSON has no NaN or Infinity")
    elif isinstance(value, int) and not isinstance(value, bool):
        try:
            str(value)
        except ValueError:   # over sys.get_int_max_str_digits(): json.dumps would raise it
            raise MessageFormatError(f"{_place(*where)} holds an integer too long to write as JSON "
                                     f"(over {value.bit_length()} bits)") from None


def _place(i: int, j=None, block=None) -> str:   # messages[i][.content][[j] (its id)]
    if not isinstance(j, int):
        return f"messages[{i}]" + (".content" if j == "content" else "")
    key = next((k for k in ("id", "tool_use_id") if isinstance(block, dict)
                and isinstance(block.get(k), str)), "")
    return f"messages[{i}].content[{j}]" + (f" ({key} {block[key]!r})" if key else "")
