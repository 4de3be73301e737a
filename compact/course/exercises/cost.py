"""09 · what a request is billed with a prompt cache, in tokens.

The learner writes `cache_cost(previous, current)`; the reference is the API's
rule for two requests in a row, each with one breakpoint at its end, simplified:
tokens are each message's JSON (the bill, `compact.bench.cost`, counts blocks and
the JSON around them), with no minimum length (the cases are small), no 20-block
lookback and no expiry (the two requests are seconds apart). The traps: no cache at all (every token written),
reading the leading messages that match although a message of `previous`
changed (the API reads only a whole earlier request), measuring with
`ensure_ascii=True` on Chinese text, and counting characters instead of tokens.
"""

import json

from ... import formats
from ...display.phrases import say as phrase
from ...messages import to_plain
from ...offline.tokens import estimate_text_tokens
from .build import rng, tool_pair
from .catalogue import exercise
from .check import CheckResult, check_function, hint


def reference(previous, current) -> float:
    previous, current = [to_plain(m) for m in previous], [to_plain(m) for m in current]
    tokens = _tokens(current)
    read = len(previous) if previous and current[:len(previous)] == previous else 0
    return 0.1 * sum(tokens[:read]) + 1.25 * sum(tokens[read:])


def _cases() -> list:
    ask = {"role": "user", "content": "Compare the two files."}
    pair = tool_pair([("toolu_01", "def main():\n    return 0\n")])
    reply = {"role": "assistant", "content": [{"type": "text", "text": "They differ in main."}]}
    shrunk = tool_pair([("toolu_01", formats.OMITTED)])
    chinese = {"role": "user", "content": "请比较这两个文件。"}
    canned = [
        ("the first request, nothing cached", ([], [ask])),
        ("one message appended", ([ask, *pair], [ask, *pair, reply])),
        ("the same request again", ([ask, *pair], [ask, *pair])),
        ("an old result shrunk: nothing is read",
         ([ask, *pair, reply], [ask, *shrunk, reply])),
        ("the first message changed", ([ask, reply], [chinese, reply])),
        ("Chinese text, one appended", ([chinese], [chinese, reply])),
    ]
    draw, pool = rng(), [ask, reply, chinese, *pair, *shrunk]
    for n in range(6):
        previous = [draw.choice(pool) for _ in range(draw.randint(0, 6))]
        current = previous[:draw.randint(0, len(previous))] + [
            draw.choice(pool) for _ in range(draw.randint(1, 4))]
        canned.append((f"random requests {n + 1}", (previous, current)))
    return [(label, (prev, cur), reference(prev, cur)) for label, (prev, cur) in canned]


def _tokens(messages, ensure_ascii: bool = False) -> list:
    return [estimate_text_tokens(json.dumps(m, ensure_ascii=ensure_ascii)) for m in messages]


def _trap(previous, current, size, partial: bool = False) -> float:
    """A wrong cost: `size` measures each message; `partial` reads the leading matches."""
    same = 0
    while same < min(len(previous), len(current)) and previous[same] == current[same]:
        same += 1
    if not partial and same < len(previous):
        same = 0
    sizes = size(current)
    return 0.1 * sum(sizes[:same]) + 1.25 * sum(sizes[same:])


def _diagnose(args, expected, got):
    previous, current = args
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return None
    if abs(got - 1.25 * sum(_tokens(current))) < 1e-6:
        return phrase("cost: nothing was counted as read")
    if abs(got - _trap(previous, current, _tokens, partial=True)) < 1e-6:
        return phrase("cost: the api reads only a whole")
    if abs(got - _trap(previous, current, lambda ms: _tokens(ms, ensure_ascii=True))) < 1e-6:
        return phrase("cost: ensure_ascii")
    if abs(got - _trap(previous, current, lambda ms: [len(json.dumps(m, ensure_ascii=False))
                                                        for m in ms])) < 1e-6:
        return phrase("cost: count tokens")
    return phrase("cost: read previous's tokens only when current")


@exercise("09", writes_code=True)
def check_cache_cost(cache_cost) -> CheckResult:
    """cache_cost(previous, current) -> what the current request is billed, in tokens."""
    return check_function(
        "cache_cost", cache_cost, _cases(), hint("cache_cost"),
        diagnose=_diagnose)
