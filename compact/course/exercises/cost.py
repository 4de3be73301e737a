"""09 · the cost of a request with a prompt cache.

The learner writes `cache_cost(previous, current)`; the reference is the
benchmark's own `compact.bench.cost.request_cost`. The traps: no cache at all
(every character at the full rate), caching past the first changed message,
and measuring with `ensure_ascii=True` on Chinese text.
"""

import json

from ... import formats
from ...messages import to_plain
from .build import rng, tool_pair
from .check import CheckResult, check_function, hint, say


def reference(previous, current) -> float:
    from ...bench.cost import message_json, request_cost
    return request_cost([message_json(to_plain(m)) for m in previous],
                        [message_json(to_plain(m)) for m in current])


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
        ("an old result shrunk: the cache breaks there",
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


def _cost(previous, current, ensure_ascii: bool) -> float:
    same = 0
    while same < min(len(previous), len(current)) and previous[same] == current[same]:
        same += 1
    size = [len(json.dumps(m, ensure_ascii=ensure_ascii)) for m in current]
    whole = len(json.dumps(current, ensure_ascii=ensure_ascii))
    return 0.1 * sum(size[:same]) + 1.25 * (whole - sum(size[:same]))


def _diagnose(args, expected, got):
    previous, current = args
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return None
    if abs(got - 1.25 * len(json.dumps(current, ensure_ascii=False))) < 1e-6:
        return say("nothing was counted as cached: the leading messages equal to previous cost 0.1.",
            "没有任何部分按缓存计算：和 previous 相同的开头消息每个字符只算 0.1。")
    if abs(got - _cost(previous, current, ensure_ascii=True)) < 1e-6:
        return say("measure with ensure_ascii=False: a Chinese character is one character, not six.",
            "用 ensure_ascii=False 来量：一个汉字是一个字符，不是六个。")
    return say("count as cached only the leading messages, up to the first one that differs.",
            "只有开头的消息按缓存计算，到第一条不同的消息为止。")


def check_cache_cost(cache_cost) -> CheckResult:
    """09: cache_cost(previous, current) -> the cache-adjusted cost of the current request."""
    return check_function(
        "cache_cost", cache_cost, _cases(), hint("cache_cost"),
        diagnose=_diagnose)
