"""Reading a `messages` list in the Messages API format.

Every step works on plain dicts. The `anthropic` SDK hands back typed objects
(`TextBlock`, `ToolUseBlock`, ...); `to_plain` turns them into dicts first, since
`json.dumps(default=str)` would measure and write their Python repr instead
(flaw 12 in docs/DESIGN.md). A `tool_result`'s content may be a string or a
list of blocks; its text is what we measure, save and preview, never `str()`
of a list (flaw 11).

`validate_messages` checks the API's pairing rule, the shapes the steps read
(text blocks inside a tool result included), that every value is one JSON can
hold (no NaN or Infinity, no integer too long for the JSON encoder), that no
two tool_use blocks share an id, and that nothing is nested deeper than
MAX_DEPTH; it names the message, the block and the id when it fails. A hostile
shape (a text that is a number, 500 nested lists) is a MessageFormatError, never
a TypeError, ValueError of the encoder or RecursionError; so is an active request
that is not a text.

Left out: the API's other rules (alternating roles, non-empty text, field
types of every block kind); the offline model checks those (server.py).
"""

import json
import math

ROLES = ("user", "assistant")
# Levels of dicts and lists from the message list down. Real messages need a
# handful; the limit keeps to_plain and json.dumps far from Python's recursion limit.
MAX_DEPTH = 100
_JSON_SCALARS = (str, int, float, bool, type(None))


class MessageFormatError(ValueError):
    """A message list the API would refuse; the text says where."""


class _TooDeep(Exception):
    pass


def to_plain(value):
    """A deep copy made only of dicts, lists and JSON scalars.

    MessageFormatError (naming the message, block and id when `value` is a
    message list) if it is nested more than MAX_DEPTH levels deep.
    """
    try:
        return _plain(value, 0)
    except _TooDeep:
        raise MessageFormatError(
            f"{_deep_place(value)} is nested more than {MAX_DEPTH} levels deep") from None


def _plain(value, depth: int):
    if depth > MAX_DEPTH:
        raise _TooDeep
    if isinstance(value, dict):
        return {key: _plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item, depth + 1) for item in value]
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump(mode="json", exclude_none=True), depth)
    return value


def _children(value):
    """(key, child) pairs of a dict, list or SDK object; none for a scalar."""
    if hasattr(value, "model_dump") and not isinstance(value, (dict, list, tuple)):
        value = value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, (list, tuple)):
        return list(enumerate(value))
    return []


def _deep_path(value) -> tuple:
    """The keys down to the first value deeper than MAX_DEPTH (walked without recursion)."""
    stack = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) > MAX_DEPTH:
            return path
        stack.extend((child, (*path, key)) for key, child in _children(item))
    return ()


def _deep_place(value) -> str:
    path = _deep_path(value)
    if len(path) < 3 or path[1] != "content" or not isinstance(path[2], int):
        return "a value" if not path or not isinstance(path[0], int) else f"messages[{path[0]}]"
    block = dict(_children(dict(_children(value[path[0]]))["content"])).get(path[2])
    return _block_place(path[0], path[2], dict(_children(block)))


def _block_place(i: int, j: int, block) -> str:
    """messages[i].content[j], and the block's id when it has one."""
    where = f"messages[{i}].content[{j}]"
    return where + _id_note(block)


def _id_note(block) -> str:
    if isinstance(block, dict):
        for key in ("id", "tool_use_id"):
            if isinstance(block.get(key), str):
                return f" ({key} {block[key]!r})"
    return ""


def estimate_chars(messages) -> int:
    """The article's measure: characters of the JSON of the whole list."""
    return len(json.dumps(to_plain(messages), ensure_ascii=False))


def json_len(value) -> int:
    """Characters of one value's JSON, as the article's measure counts them."""
    return len(json.dumps(value, ensure_ascii=False))


def blocks(message) -> list:
    content = message.get("content")
    return content if isinstance(content, list) else []


def tool_results(message) -> list:
    return [b for b in blocks(message) if isinstance(b, dict) and b.get("type") == "tool_result"]


def tool_uses(message) -> list:
    return [b for b in blocks(message) if isinstance(b, dict) and b.get("type") == "tool_use"]


def is_tool_result(message) -> bool:
    return message.get("role") == "user" and bool(tool_results(message))


def has_tool_use(message) -> bool:
    return message.get("role") == "assistant" and bool(tool_uses(message))


def text_of(content) -> str:
    """The text of a content value: the string itself, or its text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content
                         if isinstance(b, dict) and b.get("type") == "text")
    return ""


def non_text_blocks(content) -> list:
    """The blocks of a content value that are not text (images, documents)."""
    if isinstance(content, list):
        return [b for b in content if not (isinstance(b, dict) and b.get("type") == "text")]
    return []


def with_text(content, text: str):
    """Replace the text of a content value, keeping images and other blocks."""
    others = non_text_blocks(content)
    if not others:
        return text
    return [{"type": "text", "text": text}, *others]


def all_tool_results(messages) -> list:
    """(message index, block) for every tool result, oldest first."""
    return [(i, b) for i, m in enumerate(messages) for b in tool_results(m)]


def user_text(message) -> str:
    """What a person typed: a user message's text, tool results left out."""
    if message.get("role") != "user":
        return ""
    return text_of(message.get("content"))


def check_request(active_request) -> None:
    """MessageFormatError unless the active request is a text (or None: no request)."""
    if active_request is not None and not isinstance(active_request, str):
        raise MessageFormatError(f"active_request must be a text, got {type(active_request).__name__}")


def request_positions(messages, active_request: str) -> list[int]:
    """Indexes of user messages where the current request can be read."""
    check_request(active_request)
    if not active_request:
        return []
    return [i for i, m in enumerate(messages) if active_request in user_text(m)]


def validate_messages(messages, changed=None) -> None:
    """Raise MessageFormatError unless the list follows the API's rules.

    A final assistant message may still wait for its tool results. `changed`
    (the compactor's incremental check, compact/working.py): only the messages
    at these indexes, and the pairs on both sides of each; None checks them all.
    """
    if not isinstance(messages, list):
        raise MessageFormatError(f"messages must be a list, got {type(messages).__name__}")
    indexes = range(len(messages)) if changed is None else changed
    for i in indexes:
        _check_shape(i, messages[i])
    if changed is not None:
        indexes = sorted({j for i in changed for j in (i - 1, i, i + 1) if 0 <= j < len(messages)})
    for i in indexes:
        _check_pairs(messages, i, messages[i])
    _check_unique_ids(messages)   # ids are global: one pass over the blocks, whatever changed


def _check_unique_ids(messages) -> None:
    """No two tool_use blocks share an id (the API refuses it: which result is whose?)."""
    first = {}
    for i, message in enumerate(messages):
        for j, block in enumerate(blocks(message)):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                if block["id"] in first:
                    raise MessageFormatError(
                        f"messages[{i}].content[{j}]: tool_use id {block['id']!r} is already "
                        f"used by {first[block['id']]}; tool_use ids must be unique")
                first[block["id"]] = f"messages[{i}].content[{j}]"


def _check_number(where: str, item) -> None:
    """A number JSON can carry: finite, and an integer the encoder can write out."""
    if isinstance(item, float) and not math.isfinite(item):
        raise MessageFormatError(f"{where} holds {item!r}; JSON has no NaN or Infinity")
    if isinstance(item, int) and not isinstance(item, bool):
        try:
            str(item)
        except ValueError:   # over sys.get_int_max_str_digits(): json.dumps would raise it
            raise MessageFormatError(f"{where} holds an integer too long to write as JSON "
                                     f"(over {item.bit_length()} bits)") from None


def plain_message(messages, i: int):
    """to_plain of messages[i] alone; the error names the place as to_plain(messages) would."""
    try:
        return _plain(messages[i], 1)   # depth 1: a message inside its list
    except _TooDeep:
        raise MessageFormatError(
            f"{_deep_place(messages)} is nested more than {MAX_DEPTH} levels deep") from None


def _check_values(where: str, value, depth: int) -> None:
    """Every value JSON can hold, string keys, at most MAX_DEPTH levels; walked without recursion."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if level > MAX_DEPTH:
            raise MessageFormatError(f"{where} is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, dict):
            for key, inner in item.items():
                if not isinstance(key, str):
                    raise MessageFormatError(
                        f"{where} holds a key of type {type(key).__name__} ({key!r}); keys must be strings")
                stack.append((inner, level + 1))
        elif isinstance(item, (list, tuple)):
            stack.extend((inner, level + 1) for inner in item)
        elif not isinstance(item, _JSON_SCALARS):
            raise MessageFormatError(
                f"{where} holds a value of type {type(item).__name__}; only JSON values "
                f"(dicts, lists, strings, numbers, booleans, None) can be sent")
        else:
            _check_number(where, item)


def _check_shape(i, message):
    if not isinstance(message, dict):
        raise MessageFormatError(f"messages[{i}] must be a dict, got {type(message).__name__}")
    # Values first: the checks below read them, and depth 1 is the message itself.
    content = message.get("content")
    _check_values(f"messages[{i}]", {k: v for k, v in message.items() if k != "content"}, 1)
    if isinstance(content, list):
        for j, block in enumerate(content):
            _check_values(_block_place(i, j, block), block, 3)
    else:
        _check_values(f"messages[{i}].content", content, 2)
    role = message.get("role")
    if role is None:
        raise MessageFormatError(f"messages[{i}] has no role")
    if role not in ROLES:
        raise MessageFormatError(f"messages[{i}] has role {role!r}; expected 'user' or 'assistant'")
    content = message.get("content")
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise MessageFormatError(
            f"messages[{i}].content must be a string or a list of blocks, "
            f"got {type(content).__name__}")
    for j, block in enumerate(content):
        _check_block(f"messages[{i}].content[{j}]", role, block)


def _check_block(where: str, role: str, block) -> None:
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        raise MessageFormatError(f"{where} must be a dict with a 'type'")
    kind = block["type"]
    if kind == "tool_use":
        if role != "assistant":
            raise MessageFormatError(f"{where} is a tool_use in a {role} message")
        if not isinstance(block.get("id"), str) or not block["id"]:
            raise MessageFormatError(f"{where} is a tool_use without an id")
    elif kind == "tool_result":
        if role != "user":
            raise MessageFormatError(f"{where} is a tool_result in a {role} message")
        if not isinstance(block.get("tool_use_id"), str) or not block["tool_use_id"]:
            raise MessageFormatError(f"{where} is a tool_result without a tool_use_id")
        inner = block.get("content", "")
        if not isinstance(inner, (str, list)):
            raise MessageFormatError(
                f"{where} (tool_use_id {block['tool_use_id']!r}) has content of type "
                f"{type(inner).__name__}; expected a string or a list of blocks")
        if isinstance(inner, list):
            for k, item in enumerate(inner):
                # The steps read these blocks' text: a number there would be a TypeError.
                _check_inner_block(f"{where}.content[{k}] (tool_use_id {block['tool_use_id']!r})", item)
    elif kind == "text" and not isinstance(block.get("text"), str):
        raise MessageFormatError(f"{where} is a text block without a string 'text'")


def _check_inner_block(where: str, block) -> None:
    """A block inside a tool_result's content: a dict with a type; text blocks hold a string."""
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        raise MessageFormatError(f"{where} must be a dict with a 'type'")
    if block["type"] == "text" and not isinstance(block.get("text"), str):
        raise MessageFormatError(f"{where} is a text block without a string 'text'")


def _check_pairs(messages, i, message):
    # Shapes are checked first, for every message: here every block is a dict
    # with a type, and every id is a non-empty string.
    results = tool_results(message)
    if results:
        asked = {b["id"] for b in tool_uses(messages[i - 1])} if i > 0 else set()
        where = f"messages[{i - 1}]" if i > 0 else "a message before it (there is none)"
        for j, block in enumerate(message["content"]):
            if block.get("type") == "tool_result" and block["tool_use_id"] not in asked:
                raise MessageFormatError(
                    f"messages[{i}].content[{j}]: tool_result for id {block['tool_use_id']!r} "
                    f"has no tool_use with that id in {where}")
    uses = tool_uses(message)
    if uses and i + 1 < len(messages):
        answered = {b["tool_use_id"] for b in tool_results(messages[i + 1])}
        missing = [b["id"] for b in uses if b["id"] not in answered]
        if missing:
            raise MessageFormatError(
                f"messages[{i}]: tool_use ids {missing} have no tool_result "
                f"in messages[{i + 1}]")
