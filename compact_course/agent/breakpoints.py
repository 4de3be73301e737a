"""Where a request's cache breakpoints go, and how long each lives: the cache's lifetime as
a choice (issue 43), one rule a row.

The API keeps a cached prefix 5 minutes from its last use (`ttl` "5m", a write at 1.25
of base input) or an hour ("1h", a write at 2); a read is the same price either way
(compact_course.bench.prices). A tool loop's calls come seconds apart, so 5 minutes serve
them; a user's pause can outlast 5 minutes, and then a 5-minute prefix is gone and the
next call writes it all again. Each rule below says, for one request, which messages end
with a breakpoint and with which lifetime; the client knows all it needs when it sends:
the messages, which of them the user typed, and the time since its last call.

- "5m": one 5-minute breakpoint on the last block (the API's automatic caching; the
  article's code and the course's agent send it);
- "1h": one 1-hour breakpoint on the last block;
- "1h-prefix": a 1-hour breakpoint on the latest message the user typed, and a 5-minute
  one on the last block: the prefix a pause leaves behind lives the hour, the tool loop
  after it the 5 minutes (the API takes 1-hour breakpoints before 5-minute ones only);
- "1h-after-pause": "5m" until the session has seen a gap over 5 minutes between two
  calls, "1h" from that call on;
- "adaptive": "1h-prefix" while every tool result came back within 5 minutes of the call
  that asked for it, "1h" from the first call after one that took longer (a slow tool
  would let the tail's 5 minutes lapse inside the loop).

What the client has seen is `seen`, a set: "long gap" (a gap over 5 minutes between two
calls) and "slow tool" (such a gap before a call whose last message is a tool result).

Left out: the system prompt and tools (the agent's fit the last block's prefix), and a
breakpoint of its own for them.
"""

FIVE_MINUTES = 5 * 60


def _prefix(count: int, typed: int | None) -> list:
    """1 hour on the latest typed message, 5 minutes on the last block (one mark when they meet)."""
    if typed is None or typed >= count - 1:
        return [(count - 1, "1h")]
    return [(typed, "1h"), (count - 1, "5m")]


# rule -> (messages, latest typed message or None, what was seen) -> [(message, ttl)], count >= 1
TTL_RULES = {
    "5m": lambda count, typed, seen: [(count - 1, "5m")],
    "1h": lambda count, typed, seen: [(count - 1, "1h")],
    "1h-prefix": lambda count, typed, seen: _prefix(count, typed),
    "1h-after-pause": lambda count, typed, seen: [(count - 1, "1h" if "long gap" in seen else "5m")],
    "adaptive": lambda count, typed, seen: (
        [(count - 1, "1h")] if "slow tool" in seen else _prefix(count, typed)),
}


def check_rule(rule: str) -> str:
    if rule not in TTL_RULES:
        raise ValueError(f"unknown cache ttl rule {rule!r}: use one of {', '.join(TTL_RULES)}")
    return rule


def typed_by_user(message: dict) -> bool:
    """Whether the user typed `message`: a user message that carries no tool result."""
    if message.get("role") != "user":
        return False
    content = message.get("content")
    return isinstance(content, str) or not any(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content or [])


def breakpoints(rule: str, count: int, typed: int | None, seen=frozenset()) -> list:
    """(message index, ttl) of each breakpoint for a request of `count` messages whose
    latest typed message is at `typed` (None: none), after what the client has `seen`."""
    return TTL_RULES[check_rule(rule)](count, typed, seen) if count else []


def seen_after(seen, gap: float, after_user: bool) -> frozenset:
    """What the client has seen once it sends a call `gap` seconds after the one before;
    `after_user`: the call's last message is one the user typed (else a tool result)."""
    if gap <= FIVE_MINUTES:
        return frozenset(seen)
    return frozenset({*seen, "long gap", *(() if after_user else ("slow tool",))})


def latest_typed(messages) -> int | None:
    return next((k for k in range(len(messages) - 1, -1, -1) if typed_by_user(messages[k])), None)


def with_breakpoints(messages: list, rule: str, seen=frozenset()) -> list:
    """The messages as sent under `rule`: each breakpoint a `cache_control` on the last
    block of its message (a string content becomes one text block); copies, never the input."""
    marked = list(messages)
    for index, ttl in breakpoints(rule, len(messages), latest_typed(messages), seen):
        message = marked[index]
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        control = {"type": "ephemeral"} if ttl == "5m" else {"type": "ephemeral", "ttl": ttl}
        blocks[-1] = {**blocks[-1], "cache_control": control}
        marked[index] = {**message, "content": blocks}
    return marked
