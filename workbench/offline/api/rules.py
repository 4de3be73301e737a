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
- the message list's roles, block shapes and pairs are checked by the pipeline's
  own validator (`compact.messages`), with `API`: the rules where the API differs
  from the pipeline, named, and the API's texts;
- a prompt over the window: `prompt is too long: N tokens > M maximum`, N from
  the documented estimate in `workbench.offline.tokens` (`check_window`).

Left out: the API's rules for fields the offline model never reads (images'
bytes, documents, citations, tool choice), and the 4-breakpoint cache limit.
"""

import dataclasses
import json

from compact import messages as shared

from ..tokens import estimate_tokens

BLOCK_TYPES = ("text", "image", "document", "tool_use", "tool_result", "thinking",
               "redacted_thinking")
TOO_DEEP = "Request body is nested too deeply"


class RequestError(Exception):
    """A request the API would refuse: HTTP status, error type, message."""

    def __init__(self, message: str, status: int = 400, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.kind = status, kind


# The message list is checked by the pipeline's validator (compact/messages.py), with the
# API's rules where they differ from the pipeline's, and the API's texts.
API = shared.Rules(
    wording=1, error=RequestError,
    turns=True,                                  # consecutive messages of one role are one turn
    open_last=False,                             # a tool_use needs its result, even in the last turn
    block_types=BLOCK_TYPES, inner_types=("text", "image", "document"),
    inner_text=False,                            # the model reads what it can; the API checks no more
    every_field=True,                            # tool_use's name and input too
    nonempty=("text",),                          # "text content blocks must be non-empty"
    nonempty_content=True)                       # but the final assistant message's


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


def check_shape(body, endpoint: str, rules: shared.Rules = API) -> None:
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
        shared.check_message(i, message, rules, last=i == len(messages) - 1)
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


def check_pairs(messages) -> None:
    """The API's pairing rule, turn by turn, with its own texts (the shared validator)."""
    shared.check_pairs(messages, API)


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
