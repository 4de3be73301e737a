"""09 · the live agent run: predict what your own `prepare` does on a run no page shows.

Before the run, the learner writes, for each step of the pipeline, the model calls at which it
fires, and the files on disk after (`saved_results` in .task_outputs/tool-results/,
`transcripts` in .transcripts/), for experiments 2 and 3 of the article asked in one
conversation, at the article's numbers. The reference is the learner's own run
(compact_course/lessons/live_run.py: their `prepare` from my_compact.py, or the article's
while theirs is not written), so the prediction is checked against what their code did. A
wrong prediction is told which way each value is off, on every try (check.py: no run shows an
expected value); the run's record (the steps fired at each call, the files on disk) follows
once the prediction passes; a prediction left as None prints neither, so the stored notebook
(built with None) shows no answer.

Left out: a hint that depends on the learner's run (one hint: how to count).
"""

from ...display.phrases import say
from ..live_run import STEPS, LiveRun
from .catalogue import exercise
from .check import CheckResult, check_prediction, hint


def record(run: LiveRun) -> None:
    """The steps fired at each call (the calls where one did), then the files on disk."""
    print(say("live: record"))
    for n, steps in enumerate(run.fired, 1):
        if steps:
            print(say("live: call", n=n, steps=", ".join(steps)))
    print(say("live: disk", **run.on_disk))


# Six parts (four steps' calls, two folders' files) over seven calls, each worked out from
# the learner's own rules: a prediction of many parts, not the method's 3 minutes.
@exercise("09", minutes_alone=15)
def check_my_run(prediction, run=None) -> CheckResult:
    """predict {step: [the calls it fires at], saved_results: n, transcripts: n} for your run."""
    if not isinstance(run, LiveRun):
        print(say("live: no run"))
        return CheckResult("my_run", 0, 0, False, [], hint("my_run"))
    result = check_prediction("my_run", prediction, run.values(), hint("my_run"))
    # The record holds every expected value: shown once the prediction passes, never before.
    if result.ok:
        record(run)
    return result


__all__ = ["STEPS", "check_my_run"]
