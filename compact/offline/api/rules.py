"""The Messages API's request rules, as the offline server checks them: fields, shapes, pairs, window.

The server answers what the real API refuses with the API's error shape and the
API's own texts (SPEC 5.1), so the SDK raises its own exceptions:
- a body that is not a JSON object, not UTF-8, nested too deeply, or holding a
  lone surrogate (`parse_body`);
- a missing or mistyped field, in the API's wording (`messages.1.content.0.text:
  Input should be a valid string`): `check_shape`;
- a tool_result whose tool_use is not in the previous turn, and a tool_use with
  no tool_result right after it, in the API's two texts (`check_pairs`);
  consecutive messages of one role are one turn, as the API merges them;
- a prompt over the window: `prompt is too long: N tokens > M maximum`, N from
  the documented estimate in `compact.offline.tokens` (`check_window`).

Left out: the API's rules for fields the offline model never reads (images'
bytes, documents, citations, tool choice), and the 4-breakpoint cache limit.
"""

import json

from ..tokens import estimate_tokens

ROLES = ("user", "assistant")
BLOCK_TYPES = ("text", "image", "document", "tool_use", "tool_result", "thinking",
               "redacted_thinking")
TOO_DEEP = "Request body is nested too deeply"


class RequestError(Exception):
    """A request the API would refuse: HTTP status, error type, message."""

    def __init__(self, message: str, status: int = 400, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.kind = status, kind


def error_body(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _need(body: dict, field: str, kind: type, name: str):
    if field not in body:
        raise RequestError(f"{field}: Field required")
    value = body[field]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise RequestError(f"{field}: Input should be a valid {name}")
    return value


def check_shape(body, endpoint: str) -> None:
    """Fields and types, in the API's wording (`messages.1.content.0.text: ...`)."""
    if not isinstance(body, dict):
        raise RequestError("Request body must be a JSON object")
    model = _need(body, "model", str, "string")
    if not model:
        raise RequestError("model: String should have at least 1 character")
    if endpoint == "messages":
        if _need(body, "max_tokens", int, "integer") < 1:
            raise RequestError("max_tokens: Input should be greater than or equal to 1")
        if body.get("stream"):
            raise RequestError("stream: the offline model does not stream; send stream=false")
    messages = _need(body, "messages", list, "list")
    if not messages:
        raise RequestError("messages: at least one message is required")
    for i, message in enumerate(messages):
        _check_message(i, message, last=i == len(messages) - 1)
    _check_system(body.get("system"))
    _check_tools(body.get("tools"))


def _check_message(i: int, message, last: bool) -> None:
    where = f"messages.{i}"
    if not isinstance(message, dict):
        raise RequestError(f"{where}: Input should be a valid dictionary")
    if "role" not in message:
        raise RequestError(f"{where}.role: Field required")
    role = message["role"]
    if role not in ROLES:
        raise RequestError(f"{where}.role: Input should be 'user' or 'assistant'")
    if "content" not in message:
        raise RequestError(f"{where}.content: Field required")
    content = message["content"]
    if not isinstance(content, (str, list)):
        raise RequestError(f"{where}.content: Input should be a valid string or list")
    if not content and not (last and role == "assistant"):
        raise RequestError(f"{where}: all messages must have non-empty content except "
                           f"for the optional final assistant message")
    if isinstance(content, list):
        for j, block in enumerate(content):
            _check_block(f"{where}.content.{j}", role, block)


def _check_block(where: str, role: str, block) -> None:
    if not isinstance(block, dict):
        raise RequestError(f"{where}: Input should be a valid dictionary")
    kind = block.get("type")
    if kind not in BLOCK_TYPES:
        raise RequestError(f"{where}.type: Input should be one of "
                           f"{', '.join(repr(t) for t in BLOCK_TYPES)}; got {kind!r}")
    if kind == "text":
        if not isinstance(block.get("text"), str):
            raise RequestError(f"{where}.text: Field required" if "text" not in block
                               else f"{where}.text: Input should be a valid string")
        if not block["text"]:
            raise RequestError(f"{where}.text: text content blocks must be non-empty")
    elif kind == "tool_use":
        if role != "assistant":
            raise RequestError(f"{where}: tool_use blocks may only appear in assistant messages")
        for field, expected, name in (("id", str, "string"), ("name", str, "string"),
                                      ("input", dict, "dictionary")):
            if field not in block:
                raise RequestError(f"{where}.{field}: Field required")
            if not isinstance(block[field], expected):
                raise RequestError(f"{where}.{field}: Input should be a valid {name}")
    elif kind == "tool_result":
        if role != "user":
            raise RequestError(f"{where}: tool_result blocks may only appear in user messages")
        if not isinstance(block.get("tool_use_id"), str):
            raise RequestError(f"{where}.tool_use_id: Field required" if "tool_use_id" not in block
                               else f"{where}.tool_use_id: Input should be a valid string")
        inner = block.get("content", "")
        if not isinstance(inner, (str, list)):
            raise RequestError(f"{where}.content: Input should be a valid string or list")
        for k, part in enumerate(inner if isinstance(inner, list) else []):
            if not isinstance(part, dict) or part.get("type") not in ("text", "image", "document"):
                raise RequestError(f"{where}.content.{k}: Input should be a text, image "
                                   f"or document block")


def _check_system(system) -> None:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        raise RequestError("system: Input should be a valid string or list")
    for j, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text" \
                or not isinstance(block.get("text"), str):
            raise RequestError(f"system.{j}: Input should be a text block")


def _check_tools(tools) -> None:
    if tools is None:
        return
    if not isinstance(tools, list):
        raise RequestError("tools: Input should be a valid list")
    for j, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise RequestError(f"tools.{j}: Input should be a valid dictionary")
        if not isinstance(tool.get("name"), str) or not tool["name"]:
            raise RequestError(f"tools.{j}.name: Field required")
        if "type" not in tool and not isinstance(tool.get("input_schema"), dict):
            raise RequestError(f"tools.{j}.input_schema: Field required")


def _turns(messages) -> list[list[int]]:
    """Indexes grouped into turns: consecutive messages of one role are one turn."""
    turns = []
    for i, message in enumerate(messages):
        if turns and messages[turns[-1][-1]]["role"] == message["role"]:
            turns[-1].append(i)
        else:
            turns.append([i])
    return turns


def _blocks(messages, indexes, kind):
    """(message index, block index, block) of one kind, over a turn."""
    return [(i, j, b) for i in indexes if isinstance(messages[i]["content"], list)
            for j, b in enumerate(messages[i]["content"]) if b.get("type") == kind]


def check_pairs(messages) -> None:
    """The API's pairing rule, checked turn by turn, with its own texts."""
    turns = _turns(messages)
    for t, turn in enumerate(turns):
        previous = turns[t - 1] if t > 0 else []
        asked = {b["id"] for _, _, b in _blocks(messages, previous, "tool_use")}
        for i, j, block in _blocks(messages, turn, "tool_result"):
            if block["tool_use_id"] not in asked:
                raise RequestError(
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                    f"`tool_result` blocks: {block['tool_use_id']}. Each `tool_result` block "
                    f"must have a corresponding `tool_use` block in the previous message.")
        uses = _blocks(messages, turn, "tool_use")
        following = turns[t + 1] if t + 1 < len(turns) else []
        answered = {b["tool_use_id"] for _, _, b in _blocks(messages, following, "tool_result")}
        missing = [(i, b["id"]) for i, _, b in uses if b["id"] not in answered]
        if missing:
            raise RequestError(
                f"messages.{missing[0][0]}: `tool_use` ids were found without `tool_result` "
                f"blocks immediately after: {', '.join(m[1] for m in missing)}. Each "
                f"`tool_use` block must have a corresponding `tool_result` block in the "
                f"next message.")


def check_window(body: dict, window: int) -> int:
    tokens = estimate_tokens(body)
    if tokens > window:
        raise RequestError(f"prompt is too long: {tokens} tokens > {window} maximum")
    return tokens



def parse_body(raw: bytes):
    """The JSON body, or a 400: not UTF-8, not JSON, nested too deeply, or holding
    a lone surrogate (`\\ud800` is valid JSON but no text: it cannot be encoded)."""
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise RequestError(f"Request body is not valid JSON: {error}") from None
    except RecursionError:
        raise RequestError(TOO_DEEP) from None
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        raise RequestError(f"Request body is not valid JSON: a lone surrogate "
                           f"{error.object[error.start]!r} is not valid Unicode text") from None
    except RecursionError:
        raise RequestError(TOO_DEEP) from None
    return body
