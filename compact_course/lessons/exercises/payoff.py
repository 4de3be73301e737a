"""labs/02 · when a compaction pays for itself, with a prompt cache.

The learner writes `calls_to_pay_off(before, after, summary=None, cold=False)`.
`before` is the request just sent (its prefix is in the cache), `after` the list a
step of the pipeline leaves, each as (name, tokens) pairs: a message with the same
name is the same message, unchanged. `summary` is step 4's summary call (input
tokens, output tokens) or None; `cold` says the next call comes after the cache
expired. The session then goes on the same way with the step or without it, each
call adding a reply and a user message (NEW). The answer: how many calls, counting
the one right after the step, until the session with the step has cost no more in
all than the session without it; None when it never does.

No sentence of lab 02 gives the count: it takes comparing two futures, the
rule that a cache entry is a whole earlier request (so the call right after a
rewrite reads nothing, not even the messages the step left unchanged), and the
summary call's bill. The reference plays both futures call by call through the
benchmark's own cache and prices (`compact_course.offline.api.usage.PromptCache`,
`compact_course.bench.cost.priced`), one block a message.

The traps, each named by `hint()`: reading the messages the step left unchanged at
the start; leaving out the summary call; a cold cache treated as warm; counting
from the second call (the first one saves nothing); and "the list is smaller, so
it pays at once".

Left out: replies (the same in both futures) and a second compaction later in
the session. The 20-block lookback and the minimum cacheable length are the
reference cache's, but no case reaches them (every list is over the minimum, each
call adds 2 blocks), so the learner's task leaves them out.
"""

import math
from fractions import Fraction

from ...bench.cost import DEFAULT_MODEL, priced
from ...display.phrases import say
from ...offline.api.usage import Prompt, PromptCache, minimum_for
from .build import rng
from .catalogue import exercise
from .check import CheckResult, check_function, hint

NEW = (("reply", 300), ("user", 200))   # what every later call adds, in both futures
GAP, PAUSE = 10, 10 * 60                 # seconds between calls; the pause of a cold cache
HORIZON = 200                            # calls played before "never"
PLACEHOLDER, MARKER = 20, 40             # tokens of step 3's placeholder and step 2's marker


# -- the reference: both futures, through the benchmark's cache ---------------------------

def _prompt(listing) -> Prompt:
    names = [name for name, _ in listing]
    tokens = [tokens for _, tokens in listing]
    return Prompt(names, tokens, [(len(listing) - 1, "5m")], sum(tokens))


def _future(before, start, summary, cold):
    """The running total of each call after `before`, when the list goes on from `start`."""
    cache, minimum = PromptCache(clock=lambda: 0.0), minimum_for(DEFAULT_MODEL)
    cache.input_usage(_prompt(before), minimum, now=0.0)
    total = 0.0 if summary is None else priced(
        {"input_tokens": summary[0], "output_tokens": summary[1]})
    listing, now = list(start), PAUSE if cold else GAP
    for call in range(1, HORIZON + 1):
        listing += [(f"{name} {call}", tokens) for name, tokens in NEW]
        total += priced(cache.input_usage(_prompt(listing), minimum, now=now))
        yield total
        now += GAP


def reference(before, after, summary=None, cold=False):
    """Both futures played side by side, up to the first call where the step has paid."""
    both = zip(_future(before, after, summary, cold), _future(before, before, None, cold))
    return next((n for n, (step, no_step) in enumerate(both, start=1) if step <= no_step), None)


# -- the same answer in closed form, and the traps as variations of it --------------------

def closed_form(before, after, summary=None, cold=False, *, shared=False, with_summary=True,
                warm=False, from_second=False):
    """(extra cost of the first call, saving of each later call), as Fractions.

    The keywords play the traps: `shared` reads the leading messages the step left
    unchanged, `with_summary=False` forgets the summary call, `warm` ignores `cold`."""
    old, new = sum(t for _, t in before), sum(t for _, t in after)
    write, read = Fraction(5, 4), Fraction(1, 10)
    kept = _shared(before, after) if shared else 0
    first = read * kept + write * (new - kept)
    if summary is not None and with_summary:
        first += summary[0] + 5 * summary[1]
    first -= (write if cold and not warm else read) * old
    return first, read * (old - new)


def calls(first: Fraction, saving: Fraction, from_second: bool = False):
    """The first n with first <= (n - 1) * saving; None when it never comes."""
    if first <= 0:
        return 1
    if saving <= 0:
        return None
    return math.ceil(first / saving) + (0 if from_second else 1)


def _shared(before, after) -> int:
    tokens = 0
    for old, new in zip(before, after):
        if old != new:
            break
        tokens += new[1]
    return tokens


# -- the cases --------------------------------------------------------------------------------

def _session() -> list:
    """The request just sent: six reads, some of them long, and a reply."""
    listing = [("request", 400)]
    for n, size in enumerate((8000, 6000, 12000, 3000, 5000, 4000), start=1):
        listing += [(f"call {n}", 60), (f"result {n}", size)]
    return [*listing, ("reply", 300)]


def shrink(listing, numbers) -> list:
    """Step 3: the results named by `numbers` become placeholders."""
    names = {f"result {n}" for n in numbers}
    return [(f"placeholder {name.split()[1]}", PLACEHOLDER) if name in names else (name, tokens)
            for name, tokens in listing]


def archive(listing, newest: int) -> list:
    """Step 2: the first 3 messages, the marker, the newest `newest` (one more when the
    tail would open on a result: the cut never parts a call from its result)."""
    if listing[-newest][0].startswith("result"):
        newest += 1
    return [*listing[:3], ("marker", MARKER), *listing[-newest:]]


def _canned() -> list:
    session = _session()
    short = [("request", 400), ("call 1", 60), ("result 1", 8000), ("reply", 300)]
    same_size = [("result 2, reworded", 6000) if name == "result 2" else (name, tokens)
                 for name, tokens in session]
    summary, small = [("summary message", 1600)], [("summary message", 1200)]
    return [
        ("step 3 shrinks one old result", (session, shrink(session, [1]), None, False)),
        ("step 3 shrinks every result but the newest 3", (session, shrink(session, [1, 2, 3]), None, False)),
        ("step 3 shrinks the newest result it may", (session, shrink(session, [3]), None, False)),
        ("step 2 keeps the first 3 and the newest 3", (session, archive(session, 3), None, False)),
        ("step 4, with its summary call", (session, summary, (20_000, 900), False)),
        ("step 4 on a short list", (short, small, (9_000, 700), False)),
        ("step 3 after a long pause", (session, shrink(session, [1]), None, True)),
        ("step 4 after a long pause", (session, summary, (20_000, 900), True)),
        ("step 4 on a short list, after a long pause", (short, small, (9_000, 700), True)),
        ("a rewrite that saves nothing", (session, same_size, None, False)),
    ]


def _random_case(draw):
    listing = [("request", draw.randint(200, 1500))]
    reads = draw.randint(4, 9)
    for n in range(1, reads + 1):
        listing += [(f"call {n}", draw.randint(40, 80)),
                    (f"result {n}", draw.choice((500, 2000, 4000, 8000, 15000)))]
    listing.append(("reply", draw.randint(100, 600)))
    kind, cold, summary = draw.choice(("one", "older", "archive", "summary")), draw.random() < 0.3, None
    if kind == "one":
        after = shrink(listing, [draw.randint(1, reads - 3)])
    elif kind == "older":
        after = shrink(listing, range(1, reads - 2))
    elif kind == "archive":
        after = archive(listing, draw.randint(2, 6))
    else:
        after = [("summary message", draw.randint(1100, 2500))]
        summary = (min(sum(t for _, t in listing), 20_000), draw.randint(400, 1200))
    return listing, after, summary, cold


def _clear(args) -> bool:
    """A case whose answer no rounding can move: lists over the cache's minimum, and no tie."""
    before, after, summary, cold = args
    if min(sum(t for _, t in before), sum(t for _, t in after)) < minimum_for(DEFAULT_MODEL):
        return False
    first, saving = closed_form(*args)
    if first == 0 or saving <= 0 or calls(first, saving) > HORIZON // 2:
        return False
    return (first / saving).denominator != 1


def random_cases(count: int = 8) -> list:
    draw, cases = rng(), []
    while len(cases) < count:
        args = _random_case(draw)
        if _clear(args):
            cases.append((f"random step {len(cases) + 1}", args))
    return cases


def _cases() -> list:
    return [(label, args, reference(*args)) for label, args in _canned() + random_cases()]


# -- a miss, explained ----------------------------------------------------------------------

def _diagnose(args, expected, got):
    before, after, summary, cold = args
    if got is not None and (isinstance(got, bool) or not isinstance(got, int)):
        return say("payoff: return a whole number of calls")
    if expected is None:
        return say("payoff: saves nothing")
    if got is None:
        return say("payoff: it always pays in the end")
    traps = [("payoff: the unchanged start is not read", {"shared": True}),
             ("payoff: the summary call is billed", {"with_summary": False}),
             ("payoff: a cold cache", {"warm": True})]
    for key, variant in traps:
        wrong = calls(*closed_form(*args, **variant))
        if wrong != expected and got == wrong:
            return say(key)
    first, saving = closed_form(*args)
    if got == calls(first, saving, from_second=True):
        return say("payoff: the first call saves nothing")
    if got == 1:
        return say("payoff: the first call writes everything")
    return None


@exercise("labs/02", writes_code=True)
def check_calls_to_pay_off(calls_to_pay_off) -> CheckResult:
    """calls_to_pay_off(before, after, summary, cold) -> calls until the step has paid for itself."""
    return check_function("calls_to_pay_off", calls_to_pay_off, _cases(), hint("calls_to_pay_off"),
                          diagnose=_diagnose)
