"""A token measure: the context's size as the model counts it, each part asked once.

Not a step: a measure the steps can be given (flaw 13 in docs/DESIGN.md), by the client's
`messages.count_tokens`. Units (a message, or a tool_use message with its results: the API
refuses either alone) are counted once, `count([PROBE] + unit) - base`; the measure is `base`
plus the units: close to one count of the whole, not exact (notebook 00 prints the gap).
Left out: the reply's tokens (its `usage`), the thresholds, retries (the client's).
"""

import json

from .messages import has_tool_use, tool_results, tool_uses

PROBE = {"role": "user", "content": "."}   # every count starts with a user message
# The API's own default triggers, in input tokens: clear_tool_uses_20250919 and compact_20260112.
API_CLEARING_TRIGGER, API_COMPACTION_TRIGGER = 100_000, 150_000


def units(messages) -> list[list]:
    """The messages cut into units: a tool_use message and its results stay together."""
    cut, i = [], 0
    while i < len(messages):
        pair = has_tool_use(messages[i]) and i + 1 < len(messages) and messages[i + 1].get("role") == "user"
        cut.append(messages[i:i + 2] if pair else [messages[i]])
        i += 2 if pair else 1
    return cut


def countable(unit: list) -> list:
    """The unit as count_tokens takes it: a lone tool_use or tool_result as a text block of its JSON."""
    if len(unit) == 2 or not any(tool_uses(message) or tool_results(message) for message in unit):
        return unit
    return [{**message, "content": [
        {"type": "text", "text": json.dumps(block, ensure_ascii=False)}
        if isinstance(block, dict) and block.get("type") in ("tool_use", "tool_result") else block
        for block in message["content"]]} for message in unit]


class TokenMeasure:
    """`measure(messages) -> tokens`, each unit asked once (`system`, `tools`: the agent's)."""

    unit = "tokens"

    def __init__(self, client, model: str, *, system=None, tools=None):
        if not model:
            raise ValueError("a token measure needs the model's name: the API counts per model")
        self.client, self.model, self.requests, self._base, self._counts = client, model, 0, None, {}
        self._fixed = {key: value for key, value in (("system", system), ("tools", tools)) if value}

    def count_tokens(self, messages) -> int:
        """One `count_tokens` request for `messages` with this measure's system and tools."""
        self.requests += 1
        return self.client.messages.count_tokens(model=self.model, messages=messages,
                                                 **self._fixed).input_tokens

    @property
    def base(self) -> int:
        """Tokens of the system prompt, the tools and PROBE, asked once."""
        if self._base is None:
            self._base = self.count_tokens([PROBE])
        return self._base

    def unit_tokens(self, unit: list) -> int:
        key = json.dumps(unit, ensure_ascii=False)
        if key not in self._counts:
            self._counts[key] = self.count_tokens([PROBE, *countable(unit)]) - self.base
        return self._counts[key]

    def __call__(self, messages) -> int:
        return self.base + sum(self.unit_tokens(unit) for unit in units(messages))
