"""The API's context editing, played offline: `clear_tool_uses_20250919`.

The real API (beta `context-management-2025-06-27`) clears old tool results on
its side, before the prompt reaches the model, once the prompt is past a
trigger; the client keeps and sends its full history every time. This module
does the same to the offline model's prompt, with the SDK's knobs
(`anthropic.types.beta.BetaClearToolUses20250919EditParam`):
- `trigger`: `{"type": "input_tokens" | "tool_uses", "value": N}`, default 100,000
  input tokens. Clearing starts once the prompt exceeds it (the docs' word).
- `keep`: `{"type": "tool_uses", "value": N}`, default 3: "Number of tool uses
  to retain in the conversation" (the SDK's docstring): the newest N stay whole,
  every older one is cleared, oldest first;
- `clear_at_least`: `{"type": "input_tokens", "value": N}`: a gate. "Context will
  only be modified if at least this many tokens can be removed": when clearing
  every older use would remove fewer, nothing is cleared;
- `exclude_tools`: tool names never cleared;
- `clear_tool_inputs`: also clear the tool_use's `input` (true: every cleared use;
  a list: the uses of those tools).
It reports `{"type", "cleared_tool_uses", "cleared_input_tokens"}`, the shape of
`BetaClearToolUses20250919EditResponse`.

The offline server's choices, where the API's docs say nothing (docs/AFTER_THE_ARTICLE.md):
- the trigger is compared with the prompt as sent (tokens, or its tool uses);
- a tool use whose result is still to come, or whose clearing frees nothing
  (already the placeholder), is neither cleared nor counted;
- the text left in place of a result: `CLEARED_RESULT`; a cleared input is `{}`;
- tokens: the offline estimate (`compact_course.offline.tokens`), not the API's tokenizer.

Left out: `clear_thinking_20251015` (the offline model does not think).
"""

import json
from dataclasses import dataclass

from ..tokens import estimate_text_tokens, estimate_tokens

EDIT_TYPE = "clear_tool_uses_20250919"
BETA = "context-management-2025-06-27"
CLEARED_RESULT = "[Tool result cleared by context editing.]"
DEFAULT_TRIGGER = {"type": "input_tokens", "value": 100_000}
DEFAULT_KEEP = {"type": "tool_uses", "value": 3}


class EditError(ValueError):
    """An edit the API would refuse: the message names the field."""


@dataclass(frozen=True)
class ClearToolUses:
    """One `clear_tool_uses_20250919` edit, its defaults filled in."""
    trigger_type: str = "input_tokens"
    trigger: int = DEFAULT_TRIGGER["value"]
    keep: int = DEFAULT_KEEP["value"]
    clear_at_least: int = 0
    exclude_tools: tuple = ()
    clear_inputs: bool | tuple = False


FIELDS = ("type", "trigger", "keep", "clear_at_least", "exclude_tools", "clear_tool_inputs")


def amount(where: str, value, kinds: tuple, low: int) -> tuple[str, int]:
    """A `{"type": ..., "value": N}` object: (type, N), or EditError naming it."""
    if not isinstance(value, dict):
        raise EditError(f"{where}: Input should be a valid dictionary")
    if value.get("type") not in kinds:
        raise EditError(f"{where}.type: Input should be {' or '.join(repr(k) for k in kinds)}")
    number = value.get("value")
    if not isinstance(number, int) or isinstance(number, bool):
        raise EditError(f"{where}.value: Input should be a valid integer")
    if number < low:
        raise EditError(f"{where}.value: Input should be greater than or equal to {low}")
    return value["type"], number


def _names(where: str, value) -> tuple:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise EditError(f"{where}: Input should be a valid list of tool names")
    return tuple(value)


def read_edit(where: str, edit: dict) -> ClearToolUses:
    """The edit as sent, checked field by field, with the API's defaults."""
    extra = sorted(set(edit) - set(FIELDS))
    if extra:
        raise EditError(f"{where}.{extra[0]}: Extra inputs are not permitted")
    kind, trigger = amount(f"{where}.trigger", edit.get("trigger") or DEFAULT_TRIGGER,
                            ("input_tokens", "tool_uses"), 1)
    _, keep = amount(f"{where}.keep", edit.get("keep") or DEFAULT_KEEP, ("tool_uses",), 0)
    at_least = edit.get("clear_at_least")
    _, at_least = amount(f"{where}.clear_at_least", at_least, ("input_tokens",), 0) \
        if at_least is not None else ("input_tokens", 0)
    exclude = _names(f"{where}.exclude_tools", edit.get("exclude_tools") or [])
    inputs = edit.get("clear_tool_inputs") or False
    if not isinstance(inputs, bool):
        inputs = _names(f"{where}.clear_tool_inputs", inputs)
    return ClearToolUses(kind, trigger, keep, at_least, exclude, inputs)


@dataclass
class _Use:
    message: int          # index of the assistant message holding the tool_use
    block: int
    name: str
    result: tuple | None  # (message, block) of its tool_result, None while it waits
    tokens: int           # what clearing it frees, in estimated tokens


def _piece(value) -> int:
    return estimate_text_tokens(json.dumps(value, ensure_ascii=False))


def _uses(messages, edit: ClearToolUses) -> list[_Use]:
    results = {}
    for i, message in enumerate(messages):
        for j, block in enumerate(message["content"] if isinstance(message["content"], list) else []):
            if block.get("type") == "tool_result":
                results[block.get("tool_use_id")] = (i, j)
    found = []
    for i, message in enumerate(messages):
        for j, block in enumerate(message["content"] if isinstance(message["content"], list) else []):
            if block.get("type") != "tool_use":
                continue
            where = results.get(block.get("id"))
            tokens = 0
            if where:
                content = messages[where[0]]["content"][where[1]].get("content", "")
                tokens += _piece(content) - _piece(CLEARED_RESULT)
            if _clears_input(edit, block.get("name")):
                tokens += _piece(block.get("input", {})) - _piece({})
            found.append(_Use(i, j, block.get("name"), where, max(tokens, 0)))
    return found


def _clears_input(edit: ClearToolUses, name) -> bool:
    return edit.clear_inputs is True or (isinstance(edit.clear_inputs, tuple) and name in edit.clear_inputs)


def _older(uses: list[_Use], edit: ClearToolUses) -> list[_Use]:
    """Every tool use but the newest `keep`, oldest first, that clearing can take."""
    newest = len(uses) - edit.keep
    return [u for k, u in enumerate(uses) if k < newest and u.name not in edit.exclude_tools
            and u.result is not None and u.tokens > 0]


def clear_tool_uses(request: dict, edit: ClearToolUses) -> tuple[list, dict | None]:
    """(messages the model sees, the applied edit or None when it did not act)."""
    messages = request["messages"]
    uses = _uses(messages, edit)
    before = estimate_tokens(request)
    measure = before if edit.trigger_type == "input_tokens" else len(uses)
    taken = _older(uses, edit) if measure > edit.trigger else []
    if not taken or sum(u.tokens for u in taken) < edit.clear_at_least:
        return messages, None
    cleared = _cleared(messages, taken, edit)
    after = estimate_tokens({**request, "messages": cleared})
    return cleared, {"type": EDIT_TYPE, "cleared_tool_uses": len(taken),
                     "cleared_input_tokens": before - after}


def _cleared(messages, taken: list[_Use], edit: ClearToolUses) -> list:
    """A copy of `messages` with the taken uses' results (and inputs when asked) cleared."""
    out = list(messages)
    touched = {u.message for u in taken} | {u.result[0] for u in taken}
    for i in touched:
        # New dicts and lists down to the changed blocks: the request as sent stays whole.
        out[i] = {**messages[i], "content": list(messages[i]["content"])}
    for use in taken:
        i, j = use.result
        out[i]["content"][j] = {**out[i]["content"][j], "content": CLEARED_RESULT}
        if _clears_input(edit, use.name):
            out[use.message]["content"][use.block] = {**out[use.message]["content"][use.block], "input": {}}
    return out
