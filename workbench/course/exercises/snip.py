"""02 · step 2, snip_compact: a snip that does not archive on every call.

The article's cut keeps 51 messages, one over its own trigger of 50, so every
call after the first archives the whole list again (flaws 4 and 5). The
learner writes `archive_calls(added, max_messages, target)`: call k adds
`added[k - 1]` messages, then step 2 runs; a snip that cuts the list down to
`target` messages (the marker counted) archives on which calls? Answering it
means seeing what a cut leaves for the next call; the article prints only the
cut.

The reference runs the package's step 2 (the default profile, whose
`snip_target_messages` is this `target`) call after call on a growing list of
plain turns, in a scratch folder, and notes the calls that wrote a transcript.
The diagnosis recognises the article's cut (51 kept), a cut that forgets the
marker, and a trigger of ">=" for ">".

Left out: tool pairs at the cut (notebook 02 shows them; here every message
is a plain turn, so the cut lands where the arithmetic says).
"""

import tempfile

from compact.config import CompactionConfig

from ...display.phrases import say
from .build import rng
from .catalogue import exercise
from .check import CheckResult, check_function, hint

KEEP_HEAD = 3
CASES = [
    # (label, added per call, max_messages, target)
    ("the article's trigger, one message a call", [1] * 60, 50, 30),
    ("a long first session, then one a call", [55] + [1] * 30, 50, 30),
    ("two messages a call", [2] * 45, 50, 30),
    ("a target just under the trigger", [1] * 40, 20, 19),
    ("big batches", [12, 15, 30, 4, 25, 25], 50, 30),
    ("never over the trigger", [5] * 10, 50, 30),
    ("exactly at the trigger: no archive", [50, 0, 1], 50, 30),
]


def _plain(start: int, count: int) -> list:
    return [{"role": "user" if n % 2 == 0 else "assistant",
             "content": f"Message {n}." if n % 2 == 0 else [{"type": "text", "text": f"Reply {n}."}]}
            for n in range(start, start + count)]


def reference(added, max_messages, target) -> list[int]:
    """Calls on which the package's step 2 (default profile) wrote a transcript."""
    from compact.compactor import ContextCompactor
    from compact.snip import snip_compact

    from ...offline.model.extractive import extractive_summary  # never asked: no summary here
    config = CompactionConfig.named("default", snip_max_messages=max_messages,
                                    snip_target_messages=target, snip_keep_head=KEEP_HEAD)
    calls, messages, made = [], [], 0
    with tempfile.TemporaryDirectory(prefix="compact-exercise-") as root:
        compactor = ContextCompactor(root, extractive_summary, config)
        for call, count in enumerate(added, start=1):
            messages = messages + _plain(made, count)
            made += count
            before = len(compactor.store.written)
            messages = snip_compact(messages, compactor)
            if len(compactor.store.written) > before:
                calls.append(call)
    return calls


def simulate(added, max_messages, left_after, over=lambda n, m: n > m) -> list[int]:
    """The calls that archive when a cut leaves `left_after` messages (for the diagnosis)."""
    calls, length = [], 0
    for call, count in enumerate(added, start=1):
        length += count
        if over(length, max_messages):
            calls.append(call)
            length = left_after
    return calls


def random_cases(count: int = 8) -> list:
    draw, cases = rng(), []
    for n in range(count):
        max_messages = draw.choice((20, 30, 50))
        target = draw.randint(KEEP_HEAD + 2, max_messages - 1)
        added = [draw.choice((1, 1, 2, 3, 8)) for _ in range(draw.randint(25, 60))]
        cases.append((f"random session {n + 1} ({len(added)} calls, max {max_messages}, "
                      f"target {target})", added, max_messages, target))
    return cases


def all_cases() -> list:
    """The canned cases and the random ones, each with the package's answer."""
    return [(label, (list(added), mx, target), reference(added, mx, target))
            for label, added, mx, target in CASES + random_cases()]


def _diagnose(args, expected, got):
    added, max_messages, target = args
    if not isinstance(got, list):
        return say("snip: return a list of call numbers")
    if got == simulate(added, max_messages, max_messages + 1):
        return say("snip: that is the article's cut", max_messages_1=max_messages + 1)
    if got in (simulate(added, max_messages, target - 1), simulate(added, max_messages, target + 1)):
        return say("snip: after a cut the list holds", target=target)
    if got == simulate(added, max_messages, target, lambda n, m: n >= m):
        return say("snip: step 2 acts when the list", max_messages=max_messages)
    if got and got[0] == 0:
        return say("snip: number the calls from 1")
    return None


@exercise("02", writes_code=True)
def check_archive_calls(archive_calls) -> CheckResult:
    """archive_calls(added, max_messages, target) -> the calls on which step 2 archives."""
    return check_function("archive_calls", archive_calls, all_cases(), hint("archive_calls"),
                          diagnose=_diagnose)
