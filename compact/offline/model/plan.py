"""What one reply of the offline model is made of: its text and the tool calls to make.

Left out: the response's JSON shape and its tool ids (reply.py writes them).
"""

from dataclasses import dataclass, field


@dataclass
class Plan:
    text: str
    calls: list = field(default_factory=list)   # (name, input) pairs, in the model's tool names

    @classmethod
    def after(cls, notes: list, text: str, *calls) -> "Plan":
        """My notes on the results just received, then `text`, then `calls`."""
        return cls("\n".join(line for line in [*notes, text] if line), list(calls))
