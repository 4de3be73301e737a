"""06 · reactive_compact: a kept tail that reads the request once.

The article keeps exactly the newest 5 messages verbatim and puts the request
in the summary message too: when the request's own message is among those 5,
the model reads it twice (flaw 14). The learner writes
`tail_once(kinds, keep, request_at)`: the index where the kept tail starts so
that the newest `keep` messages stay (never parting a tool_use from its
tool_result) and the request, the user message at `request_at`, is read once,
in the summary message. The article prints only its own tail.

The reference is the package's `context_compact.reactive.tail_start` with
`request_once=True` (the default profile) on real messages of those kinds,
the request being the text of message `request_at`. The diagnosis knows the
article's tail, a tail that starts at the request (reading it twice), and a
tail pulled back to the request when the request is already summarized.

Left out: the summary itself (notebook 04 prints one).
"""

from ...display.phrases import say
from .build import messages_of_kinds, random_kinds, rng
from .catalogue import exercise
from .check import CheckResult, check_function, hint

CASES = [
    # (label, kinds, keep, request_at)
    ("the request is older than the tail", ["user", "assistant"] * 5, 5, 0),
    ("the request is just before the tail", ["user", "assistant", "user", "tool_use",
                                             "tool_result", "tool_use", "tool_result",
                                             "assistant"], 5, 2),
    # the article's tail starts at 3 and holds the request (4): it is read twice there
    ("the request is in the tail", ["user", "assistant", "user", "assistant", "user",
                                    "tool_use", "tool_result", "assistant"], 5, 4),
    ("the request is the newest message", ["user", "assistant", "user", "assistant", "user",
                                           "assistant", "user"], 5, 6),
    ("the cut would open on a tool_result",
     ["user", "tool_use", "tool_result", "tool_use", "tool_result", "tool_use",
      "tool_result", "assistant", "user"], 5, 0),
    ("shorter than keep", ["user", "assistant", "user"], 5, 0),
    ("the request first, all in the tail", ["user", "tool_use", "tool_result", "assistant"], 5, 0),
]


def reference(kinds, keep, request_at) -> int:
    from context_compact.reactive import tail_start
    messages = messages_of_kinds(kinds)
    return tail_start(messages, keep, messages[request_at]["content"], request_once=True)


def article_tail(kinds, keep) -> int:
    """The article's tail: the newest keep, one earlier rather than split a pair."""
    start = max(0, len(kinds) - keep)
    if start > 0 and kinds[start] == "tool_result" and kinds[start - 1] == "tool_use":
        start -= 1
    return start


def random_cases(count: int = 10) -> list:
    draw, cases = rng(), []
    for n in range(count):
        keep = draw.choice((2, 3, 5, 8))
        kinds = random_kinds(draw, draw.randint(2, 24))
        request_at = draw.choice([i for i, kind in enumerate(kinds) if kind == "user"][-3:])
        cases.append((f"random history {n + 1} ({len(kinds)} messages, keep {keep}, "
                      f"request at {request_at})", kinds, keep, request_at))
    return cases


def all_cases() -> list:
    return [(label, (list(kinds), keep, at), reference(kinds, keep, at))
            for label, kinds, keep, at in CASES + random_cases()]


def _diagnose(args, expected, got):
    kinds, keep, request_at = args
    if not isinstance(got, int) or isinstance(got, bool):
        return say("reactive: return one index the first message")
    article = article_tail(kinds, keep)
    if got == article and expected != article:
        return say("reactive: that is the article's tail message", request_at=request_at)
    if got == request_at:
        return say("reactive: the tail starts at the request")
    if expected == article and got == request_at + 1 and request_at + 1 < article:
        return say("reactive: the request message is already before", request_at=request_at)
    if 0 < got < len(kinds) and kinds[got] == "tool_result" and kinds[got - 1] == "tool_use":
        return say("reactive: your tail opens on kinds", got=got)
    if got < 0:
        return say("reactive: never start below 0")
    return None


@exercise("06", writes_code=True)
def check_tail_once(tail_once) -> CheckResult:
    """tail_once(kinds, keep, request_at) -> where a tail that reads the request once starts."""
    return check_function("tail_once", tail_once, all_cases(), hint("tail_once"),
                          diagnose=_diagnose)
