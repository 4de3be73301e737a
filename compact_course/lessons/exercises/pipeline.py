"""00 · the pipeline: predict which steps act on four canned histories (seed profile).

The reference is a replay of each history through `prepare` with the
article's numbers: the steps whose record says they changed something, in
the order they ran.
"""

from .catalogue import exercise
from .check import CheckResult, check_prediction, hint

HISTORIES = ("five_reads", "huge_result", "long_session", "two_code_files")


def steps_that_act() -> dict:
    """{history: [steps that changed something]} for one seed `prepare` on each."""
    from ..replay import replay
    return {name: replay(name, profile="seed").fired() for name in HISTORIES}


@exercise("00")
def check_steps_that_act(answer) -> CheckResult:
    """predict {history: [step names]}, the steps one seed prepare runs to effect."""
    return check_prediction(
        "steps_that_act", answer, steps_that_act(), hint("steps_that_act"))
