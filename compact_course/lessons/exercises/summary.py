"""04 · step 4's own input: which messages the summarizer never sees a character of.

Step 4 sends the summarizer the JSON of the whole list; above
`SUMMARY_INPUT_CHAR_LIMIT` (80,000) it keeps the first quarter of that budget
and the last three quarters, with a marker between (context_compact/summary.py,
`summary_input`). The learner writes `unseen(sizes, limit)`: given each
message's JSON size, oldest first, the indexes of the messages of which not one
character reaches the summarizer. The notebook prints one cut of one session;
the answer for other sizes takes reasoning about where the list's brackets and
separators put each message, and that a message cut in two is still partly seen.

The reference builds real messages of exactly those JSON sizes, runs the
package's `summary_input` on them and reads where its marker sits, so a change
to the package's cut changes the expected answers. The diagnosis knows a cut
in halves, a head of three quarters, JSON without its `[`, `, ` and `]`, and a
message partly sent counted as unseen.

Left out: what the summary then says about the unseen messages (notebook 04
prints a summary).
"""

import json

from context_compact import formats
from context_compact.config import CompactionConfig

from ...display.phrases import say
from .build import rng
from .catalogue import exercise
from .check import CheckResult, check_function, hint

LIMIT = CompactionConfig.seed().summary_input_char_limit
EMPTY = len(json.dumps({"role": "user", "content": ""}))  # the smallest message built here

CASES = [
    # (label, JSON sizes oldest first, limit)
    ("under the limit: all of it is sent", [1_000, 2_000, 3_000], LIMIT),
    ("the article's limit, a long session of even messages", [4_000] * 30, LIMIT),
    ("one huge message in the middle", [5_000, 5_000, 200_000, 5_000, 5_000], LIMIT),
    ("the separators decide", [40, 57, 100, 100, 100, 100, 100, 100], 400),
    ("a small limit, many short messages", [50] * 20, 300),
    ("the newest message alone is over the limit", [2_000, 3_000, 4_000, 90_000], LIMIT),
]


def messages_of_sizes(sizes) -> list:
    """Real messages whose JSON (ensure_ascii=False) is exactly each size."""
    if any(size < EMPTY for size in sizes):
        raise ValueError(f"every size is at least {EMPTY}, the JSON of an empty message")
    return [{"role": "user", "content": "a" * (size - EMPTY)} for size in sizes]


def reference(sizes, limit) -> list:
    from context_compact.summary import summary_input
    messages = messages_of_sizes(sizes)
    whole = json.dumps(messages, ensure_ascii=False)
    sent = summary_input(messages, limit)
    if sent == whole:
        return []
    head = sent.index(formats.MIDDLE_OMITTED)
    tail = len(sent) - head - len(formats.MIDDLE_OMITTED)
    return _hidden(sizes, head, len(whole) - tail, separator=2, bracket=1)


def _hidden(sizes, hidden_from, hidden_to, *, separator, bracket, partly=False) -> list:
    """Messages inside [hidden_from, hidden_to) (or touching it, with partly)."""
    out, start = [], bracket
    for index, size in enumerate(sizes):
        end = start + size
        inside = (start < hidden_to and end > hidden_from) if partly else (
            start >= hidden_from and end <= hidden_to)
        if inside:
            out.append(index)
        start = end + separator
    return out


def _variant(sizes, limit, *, head_share=0.25, separator=2, bracket=1, partly=False) -> list:
    """The cut with one rule changed: the diagnosis's model of a mistake."""
    total = sum(sizes) + separator * max(0, len(sizes) - 1) + 2 * bracket
    if total <= limit:
        return []
    head = int(limit * head_share)
    return _hidden(sizes, head, total - (limit - head), separator=separator, bracket=bracket,
                   partly=partly)


MISTAKES = (
    # (the rule changed, the phrase that names the mistake)
    (dict(head_share=0.5), "summary: a quarter from the start"),
    (dict(head_share=0.75), "summary: a quarter from the start"),
    (dict(separator=0, bracket=0), "summary: count the brackets and separators"),
    (dict(partly=True), "summary: a message cut in two is partly seen"),
)


def random_cases(count: int = 10) -> list:
    draw, cases = rng(), []
    for n in range(count):
        sizes = [draw.choice((draw.randint(EMPTY, 400), draw.randint(400, 6_000),
                              draw.randint(6_000, 40_000))) for _ in range(draw.randint(3, 30))]
        total = sum(sizes) + 2 * (len(sizes) - 1) + 2
        limit = draw.randint(max(EMPTY, total // 5), total + 1_000)
        cases.append((f"random list {n + 1} ({len(sizes)} messages, limit {limit:,d})",
                      sizes, limit))
    return cases


def all_cases() -> list:
    return [(label, (list(sizes), limit), reference(sizes, limit))
            for label, sizes, limit in CASES + random_cases()]


def _diagnose(args, expected, got):
    sizes, limit = args
    if not isinstance(got, list) or not all(isinstance(i, int) for i in got):
        return say("summary: return a list of indexes")
    for changed, key in MISTAKES:
        if got == _variant(sizes, limit, **changed) != expected:
            return say(key)
    if got and not expected and sum(sizes) + 2 * len(sizes) <= limit:
        return say("summary: under the limit all is sent", limit=limit)
    return None


@exercise("04", writes_code=True)
def check_unseen(unseen) -> CheckResult:
    """unseen(sizes, limit) -> indexes of the messages the summarizer sees nothing of."""
    return check_function("unseen", unseen, all_cases(), hint("unseen"), diagnose=_diagnose)
