"""The Messages API's request rules, as the offline server checks them: fields, shapes, pairs, window.

The server answers what the real API refuses with the API's error shape and the
API's own texts (SPEC 5.1), so the SDK raises its own exceptions:
- a body that is not a JSON object, not UTF-8, nested too deeply, or holding a
  lone surrogate (`parse_body`);
- a missing or mistyped field, in the API's wording (`messages.1.content.0.text:
  Input should be a valid string`): `check_shape`, on the messages as sent too when a
  compaction block dropped some (`SENT`);
- a tool_result whose tool_use is not in the previous turn, and a tool_use with
  no tool_result right after it, in the API's two texts (`check_pairs`);
  consecutive messages of one role are one turn, as the API merges them;
- the message list's roles, block shapes and pairs, by the API's rules where they
  differ from the pipeline's (`compact.messages`, which says what is wrong in its
  own words): consecutive messages of one role are one turn, every tool_use needs
  its result (even the last turn's), every field of a block is checked, and only the
  API's block types are taken (both refuse empty content but a final assistant message's);
- a prompt over the window: `prompt is too long: N tokens > M maximum`, N from
  the documented estimate in `workbench.offline.tokens` (`check_window`).

Left out: the API's rules for fields the offline model never reads (images'
bytes, documents, citations, tool choice), and the 4-breakpoint cache limit.
"""

import dataclasses
import json

from ..tokens import estimate_tokens

BLOCK_TYPES = ("text", "image", "document", "tool_use", "tool_result", "thinking",
               "redacted_thinking")
TOO_DEEP = "Request body is nested too deeply"


class RequestError(Exception):
    """A request the API would refuse: HTTP status, error type, message."""

    def __init__(self, message: str, status: int = 400, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.kind = status, kind


@dataclasses.dataclass(frozen=True)
class Rules:
    """What the server takes that varies: the block types, and whether the first message
    must be the user's (Bedrock's rule, and the API's until late 2024)."""
    block_types: tuple
    inner_types: tuple
    first_user: bool = False


API = Rules(block_types=BLOCK_TYPES, inner_types=("text", "image", "document"))
_NEXT = "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
_AFTER = "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
# The fields of a block the API checks: (field, type, the type's name in its texts).
FIELDS = {"tool_use": (("id", str, "string"), ("name", str, "string"), ("input", dict, "dictionary")),
          "tool_result": (("tool_use_id", str, "string"),), "text": (("text", str, "string"),)}
ROLE_OF = {"tool_use": "assistant", "tool_result": "user"}


# The messages as sent, before a compaction block is read and what it replaced dropped
# (server_compaction.adopt): every message is checked, the block among them.
SENT = dataclasses.replace(API, block_types=(*BLOCK_TYPES, "compaction"))


def error_body(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _need(body: dict, field: str, kind: type, name: str):
    if field not in body:
        raise RequestError(f"{field}: Field required")
    value = body[field]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise RequestError(f"{field}: Input should be a valid {name}")
    return value


def check_shape(body, endpoint: str, rules: Rules = API) -> None:
    """Fields and types, in the API's wording (`messages.1.content.0.text: ...`); `rules`:
    SENT for the messages as sent, compaction blocks and all."""
    if not isinstance(body, dict):
        raise RequestError("Request body must be a JSON object")
    model = _need(body, "model", str, "string")
    if not model:
        raise RequestError("model: String should have at least 1 character")
    if endpoint == "messages":
        if _need(body, "max_tokens", int, "integer") < 1:
            raise RequestError("max_tokens: Input should be greater than or equal to 1")
        if not isinstance(body.get("stream", False), bool):
            raise RequestError("stream: Input should be a valid boolean")
    messages = _need(body, "messages", list, "list")
    if not messages:
        raise RequestError("messages: at least one message is required")
    for i, message in enumerate(messages):
        check_message(i, message, rules, last=i == len(messages) - 1)
    _check_system(body.get("system"))
    _check_tools(body.get("tools"))


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


def check_message(i: int, message, rules: Rules = API, last: bool = False) -> None:
    """One message's shape, in the API's words: a dict, its role, its content, each block."""
    at = f"messages.{i}"
    if not isinstance(message, dict):
        raise RequestError(f"{at}: Input should be a valid dictionary")
    if "role" not in message:
        raise RequestError(f"{at}.role: Field required")
    role = message["role"]
    if role not in ("user", "assistant"):
        raise RequestError(f"{at}.role: Input should be 'user' or 'assistant'")
    if "content" not in message:
        raise RequestError(f"{at}.content: Field required")
    content = message["content"]
    if not isinstance(content, (str, list)):
        raise RequestError(f"{at}.content: Input should be a valid string or list")
    if rules.first_user and i == 0 and role != "user":
        raise RequestError('messages: first message must use the "user" role')
    if not content and not (last and role == "assistant"):
        raise RequestError(f"{at}: all messages must have non-empty content except for the optional "
                           "final assistant message")
    for j, block in enumerate(content if isinstance(content, list) else []):
        _check_block(rules, f"{at}.content.{j}", role, block)


def _check_block(rules: Rules, at: str, role: str, block) -> None:
    if not isinstance(block, dict):
        raise RequestError(f"{at}: Input should be a valid dictionary")
    kind = block.get("type")
    if not isinstance(kind, str) or kind not in rules.block_types:
        types = ", ".join(repr(t) for t in rules.block_types)
        raise RequestError(f"{at}.type: Input should be one of {types}; got {kind!r}")
    if ROLE_OF.get(kind, role) != role:
        raise RequestError(f"{at}: {kind} blocks may only appear in {ROLE_OF[kind]} messages")
    for field, kind_of, type_name in FIELDS.get(kind, ()):
        if field not in block:
            raise RequestError(f"{at}.{field}: Field required")
        if not isinstance(block[field], kind_of):
            raise RequestError(f"{at}.{field}: Input should be a valid {type_name}")
        if field == "text" and not block[field]:
            raise RequestError(f"{at}.text: text content blocks must be non-empty")
    inner = block.get("content", "") if kind == "tool_result" else ""
    if not isinstance(inner, (str, list)):
        raise RequestError(f"{at}.content: Input should be a valid string or list")
    for k, part in enumerate(inner if isinstance(inner, list) else []):
        if not isinstance(part, dict) or part.get("type") not in rules.inner_types:
            raise RequestError(f"{at}.content.{k}: Input should be a text, image or document block")


def _turns(messages) -> list:
    """The API's turns: runs of consecutive messages of one role, as lists of indexes."""
    runs = []
    for i, message in enumerate(messages):
        if runs and messages[runs[-1][-1]]["role"] == message["role"]:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _of_kind(messages, turn: list, kind: str) -> list:
    """(message index, block index, block) of each block of `kind` in a turn."""
    return [(i, j, b) for i in turn for j, b in enumerate(messages[i]["content"])
            if isinstance(messages[i]["content"], list) and b.get("type") == kind]


def check_pairs(messages, rules: Rules = API) -> None:
    """The API's pairing rule, turn by turn, in its own words: every tool_result answers a
    tool_use of the turn before, and every tool_use has its result in the turn right after."""
    runs = _turns(messages)
    for t, turn in enumerate(runs):
        asked = {b["id"] for *_, b in _of_kind(messages, runs[t - 1], "tool_use")} if t else set()
        for i, j, block in _of_kind(messages, turn, "tool_result"):
            if block["tool_use_id"] not in asked:
                raise RequestError(f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                                   f"`tool_result` blocks: {block['tool_use_id']}. " + _NEXT)
        following = runs[t + 1] if t + 1 < len(runs) else []
        answered = {b["tool_use_id"] for *_, b in _of_kind(messages, following, "tool_result")}
        uses = _of_kind(messages, turn, "tool_use")
        missing = [(i, b["id"]) for i, _, b in uses if b["id"] not in answered]
        if missing:
            raise RequestError(f"messages.{missing[0][0]}: `tool_use` ids were found without `tool_result` "
                               f"blocks immediately after: {', '.join(m[1] for m in missing)}. " + _AFTER)


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
