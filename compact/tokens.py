"""A token measure: the context's size as the model counts it, asked once per message.

Not a step of the article: the measure its steps can be given (flaw 13 in
docs/DESIGN.md). The article measures characters (`estimate_chars`), deterministic and free. A
model is limited and billed in tokens, and only its own API knows how many:
`messages.count_tokens`. `TokenMeasure(client, model)` is a measure for
`ContextCompactor(measure=...)` that asks it, through whatever client the agent
uses: the real API with a key, or the offline model, whose count is its
documented estimate (`workbench.offline.tokens`), not a tokenizer.

Asking for the whole list on every call would cost one request per call and
grow with the session. Instead the list is cut into units and each unit is
counted once and remembered, keyed on its JSON text:
- a unit is one message, except that an assistant message with `tool_use`
  blocks and the user message of results right after it are one unit: the
  API refuses a `tool_use` without its `tool_result` (and the reverse), so
  neither can be counted alone;
- a `tool_use` with no results after it, or results with no call before them
  (a step asking for one message's share, say), cannot be sent as they are:
  their tool blocks are counted as text blocks holding the same JSON
  (`countable`): the escaped quotes count more than the blocks would (within a
  quarter of the pair's count in tests/test_tokens.py);
- a unit is counted as `count(system, tools, [PROBE] + unit) - base`, where
  PROBE is a one-character user message (so every count starts with a user
  message, as a conversation does) and `base = count(system, tools, [PROBE])`, asked once;
- `measure(messages) = base + the sum of the units' counts`: the system
  prompt, the tools, the messages, and PROBE's few tokens.
A `prepare` therefore asks only for units it has not seen (a new turn, a result
that a step rewrote), and a session of N calls costs about one request per
call, not one per message per call (tests/test_tokens.py counts them).

How far the sum is from one count of the whole request: each unit is counted
as its own piece, so the tokens where two pieces meet may split differently
than in the whole request, and each piece is rounded on its own. The sum
includes PROBE once (a few tokens). On the offline model the difference is the
rounding of `ceil(ASCII / 4)` per unit, and the JSON separators between units,
so at most about one token per unit, in either direction; notebook 00 prints
it for every canned history (`compare_with_whole`). On the real API the gap
has the same cause, pieces counted apart, but its size is not documented; with a
key, the same cell of notebook 00 measures it. Treat the measure as close, not
exact, and keep a margin under a window.

Left out: any count of the reply (a response's `usage` carries it), the
thresholds (`CompactionConfig.context_token_limit`), and retries (the client's).
"""

import json

from .messages import has_tool_use, tool_results, tool_uses

PROBE = {"role": "user", "content": "."}
# The API's own context management counts input tokens too; its default triggers:
# tool result clearing (`clear_tool_uses_20250919`) and compaction (`compact_20260112`,
# "Defaults to 150000 input tokens" in the SDK's BetaCompact20260112EditParam).
API_CLEARING_TRIGGER = 100_000
API_COMPACTION_TRIGGER = 150_000


def units(messages) -> list[list]:
    """The messages cut into units: a tool_use message and its results stay together."""
    cut, i = [], 0
    while i < len(messages):
        message = messages[i]
        uses = has_tool_use(message)
        if uses and i + 1 < len(messages) and messages[i + 1].get("role") == "user":
            cut.append([message, messages[i + 1]])
            i += 2
        else:
            cut.append([message])
            i += 1
    return cut


TOOL_BLOCKS = ("tool_use", "tool_result")


def countable(unit: list) -> list:
    """The unit as count_tokens accepts it: a whole call and its results as they are; a
    lone tool_use or tool_result block as a text block holding its JSON."""
    if len(unit) == 2 or not any(tool_uses(message) or tool_results(message) for message in unit):
        return unit
    return [{**message, "content": [
        {"type": "text", "text": json.dumps(block, ensure_ascii=False)}
        if isinstance(block, dict) and block.get("type") in TOOL_BLOCKS else block
        for block in message["content"]]} for message in unit]


class TokenMeasure:
    """`measure(messages) -> tokens`, by `count_tokens`, each unit asked once.

    `system` and `tools` are those the agent sends with every request; they are
    inside `base`. `requests` counts the count_tokens calls made so far.
    """

    unit = "tokens"

    def __init__(self, client, model: str, *, system=None, tools=None):
        if not model:
            raise ValueError("a token measure needs the model's name: the API counts per model")
        self.client, self.model = client, model
        self._fixed = {key: value for key, value in (("system", system), ("tools", tools))
                       if value}
        self._counts: dict[str, int] = {}
        self._base: int | None = None
        self.requests = 0

    def count_tokens(self, messages) -> int:
        """One `count_tokens` request for `messages` with this measure's system and tools."""
        self.requests += 1
        answer = self.client.messages.count_tokens(model=self.model, messages=messages,
                                                   **self._fixed)
        return answer.input_tokens

    @property
    def base(self) -> int:
        """Tokens of the system prompt, the tools and PROBE, asked once."""
        if self._base is None:
            self._base = self.count_tokens([PROBE])
        return self._base

    def unit_tokens(self, unit: list) -> int:
        key = json.dumps(unit, ensure_ascii=False)
        known = self._counts.get(key)
        if known is None:
            known = self._counts[key] = self.count_tokens([PROBE, *countable(unit)]) - self.base
        return known

    def __call__(self, messages) -> int:
        return self.base + sum(self.unit_tokens(unit) for unit in units(messages))


def compare_with_whole(measure: TokenMeasure, messages) -> dict:
    """The measure's sum beside one count of the whole request (two figures and the gap)."""
    summed = measure(messages)
    whole = measure.count_tokens(messages)
    return {"summed": summed, "whole": whole, "difference": summed - whole,
            "units": len(units(messages))}
