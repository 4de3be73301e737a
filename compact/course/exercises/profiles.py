"""08 · the article against the default profile.

Code: `fresh_from(kinds)`, the fix for flaw 3. The default profile never
shrinks a result the model has not read yet: one newer than the model's last
reply. The learner returns the index of the first such message; the reference
is the package's `compact.micro.fresh_from` on real messages of those kinds.
The traps: the last reply is the *last* assistant message, not the first; a
list with no assistant message is fresh from 0; a list ending on an
assistant message has nothing fresh (its length).

Prediction: how many tool outputs the seed profile loses on two long sessions.
"""

from ...display.phrases import say as phrase
from .build import messages_of_kinds, random_kinds, rng
from .catalogue import exercise
from .check import CheckResult, check_function, check_prediction, hint

CASES = [
    ("a batch after the last reply", ["user", "tool_use", "tool_result", "tool_use", "tool_result"]),
    ("ends on an assistant reply", ["user", "tool_use", "tool_result", "assistant"]),
    ("no reply yet", ["user"]),
    ("a new request after a reply", ["user", "assistant", "user"]),
]


def reference(kinds) -> int:
    from ...micro import fresh_from
    return fresh_from(messages_of_kinds(kinds))


def random_cases(count: int = 10) -> list:
    draw = rng()
    return [(f"random history {n + 1}", random_kinds(draw, draw.randint(1, 30)))
            for n in range(count)]


def _diagnose(args, expected, got):
    (kinds,) = args
    if not isinstance(got, int) or isinstance(got, bool):
        return phrase("profiles: return one index")
    replies = [i for i, kind in enumerate(kinds) if kind in ("assistant", "tool_use")]
    if replies and got == replies[0] + 1:
        return phrase("profiles: that is after the first reply")
    if replies and got == replies[-1]:
        return phrase("profiles: the reply itself is read fresh")
    if not replies:
        return phrase("profiles: no assistant message yet everything")
    return phrase("profiles: a tool_use message is an assistant")


@exercise("08", writes_code=True)
def check_fresh_from(fresh_from) -> CheckResult:
    """fresh_from(kinds) -> index of the first message newer than the model's last reply."""
    cases = [(label, (list(kinds),), reference(kinds)) for label, kinds in CASES + random_cases()]
    return check_function(
        "fresh_from", fresh_from, cases, hint("fresh_from"),
        diagnose=_diagnose)


def seed_losses() -> dict:
    """Tool outputs the seed profile loses for good on the two long histories."""
    from ..replay import outputs_lost
    return {name: outputs_lost(name, profile="seed") for name in ("long_session", "timeline_150")}


@exercise("08")
def check_seed_losses(answer) -> CheckResult:
    """predict {long_session: n, timeline_150: m}, outputs the seed profile loses."""
    return check_prediction(
        "seed_losses", answer, seed_losses(), hint("seed_losses"))
