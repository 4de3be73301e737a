"""09 · the live agent run: predict what your own `prepare` does on a run no page shows.

Before the run, the learner writes, for each step of the pipeline, the model calls at which it
fires, and the files on disk after (`saved_results` in .task_outputs/tool-results/,
`transcripts` in .transcripts/), for experiment 1 of the article (the five lessons' titles) at
the article's numbers. The reference is the learner's own run (compact_course/lessons/live_run.py:
their `prepare` from my_compact.py, or the article's while theirs is not written), so the
prediction is checked against what their code did. An attempted prediction is followed by the
run's record (the steps fired at each call, the files on disk) once it passes or from the second
wrong try, when the check shows the expected values too; a first wrong try is told only which
values are wrong (hint() adds none); a prediction left as None prints
neither, so the stored notebook (built with None) shows no answer.

Left out: a hint that depends on the learner's run (one hint: how to count).
"""

from ...display.phrases import say
from ..live_run import STEPS, LiveRun
from . import hints
from .catalogue import exercise
from .check import CheckResult, check_prediction, hint


def record(run: LiveRun) -> None:
    """The steps fired at each call (the calls where one did), then the files on disk."""
    print(say("live: record"))
    for n, steps in enumerate(run.fired, 1):
        if steps:
            print(say("live: call", n=n, steps=", ".join(steps)))
    print(say("live: disk", **run.on_disk))


@exercise("09")
def check_my_run(prediction, run=None) -> CheckResult:
    """predict {step: [the calls it fires at], saved_results: n, transcripts: n} for your run."""
    if not isinstance(run, LiveRun):
        print(say("live: no run"))
        return CheckResult("my_run", 0, 0, False, [], hint("my_run"))
    result = check_prediction("my_run", prediction, run.values(), hint("my_run"), reveal="second")
    # The record holds every expected value: shown when the check passes, or from the second
    # wrong try, when the check itself shows them; the first shows none, hint() neither.
    if result.attempted and (result.ok or hints.FAILED.get("my_run", 0) > 1):
        record(run)
    return result


__all__ = ["STEPS", "check_my_run"]
