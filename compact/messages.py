"""Reading a `messages` list in the Messages API format.

Every step works on plain dicts. The `anthropic` SDK hands back typed objects
(`TextBlock`, `ToolUseBlock`, ...); `to_plain` turns them into dicts first, since
`json.dumps(default=str)` would measure and write their Python repr instead
(flaw 12 in docs/DESIGN.md). A `tool_result`'s content may be a string or a
list of blocks; its text is what we measure, save and preview, never `str()`
of a list (flaw 11).

`validate_messages` checks the API's pairing rule and names the message, the
block and the id when it fails.

Left out: the API's other rules (alternating roles, non-empty text, field
types of every block kind); the offline model checks those (server.py).
"""

import json

ROLES = ("user", "assistant")


class MessageFormatError(ValueError):
    """A message list the API would refuse; the text says where."""


def to_plain(value):
    """A deep copy made only of dicts, lists and JSON scalars."""
    if isinstance(value, dict):
        return {key: to_plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    if hasattr(value, "model_dump"):
        return to_plain(value.model_dump(mode="json", exclude_none=True))
    return value


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


def request_positions(messages, active_request: str) -> list[int]:
    """Indexes of user messages where the current request can be read."""
    if not active_request:
        return []
    return [i for i, m in enumerate(messages) if active_request in user_text(m)]


def validate_messages(messages) -> None:
    """Raise MessageFormatError unless the list follows the API's rules.

    A final assistant message may still wait for its tool results.
    """
    if not isinstance(messages, list):
        raise MessageFormatError(f"messages must be a list, got {type(messages).__name__}")
    for i, message in enumerate(messages):
        _check_shape(i, message)
    for i, message in enumerate(messages):
        _check_pairs(messages, i, message)


def _check_shape(i, message):
    if not isinstance(message, dict):
        raise MessageFormatError(f"messages[{i}] must be a dict, got {type(message).__name__}")
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
    elif kind == "text" and not isinstance(block.get("text"), str):
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
