"""09 · the live agent run: predict the default profile's run of experiment 3.

The notebook runs experiment 3 (compare two code files of about 30,000
characters each) with the seed profile, which pays for one summary. The
prediction is about the run the notebook does *not* show: the same task under
the default profile, at the article's 50,000. The learner predicts how many
files step 1 saves to `.task_outputs/` and how many model calls the agent
makes. Neither number is printed before the learner's own run: the files
follow from flaw 18's rule (a result over 40% of the limit is saved as it
arrives), the calls from the offline model's rule, in the notebook's first
cell, that it searches the saved copy before it quotes from a preview.

The reference runs the task for real, with the offline model (a deterministic
program, not a language model) on a scratch copy of the sample workspace, and
reads both numbers from the agent and its store.

Left out: a prediction about a real model's run, which differs run by run.
"""

import shutil
import tempfile
from pathlib import Path

from ...display.phrases import say
from ...sessions.histories import data_dir
from .catalogue import exercise
from .check import CheckResult, check_prediction, hint


def _run(profile: str):
    from ...agent.loop import run_task
    from ..replay import seeded_ids
    with tempfile.TemporaryDirectory(prefix="compact-exercise-") as scratch:
        workspace = Path(scratch) / "workspace"
        shutil.copytree(data_dir() / "workspace", workspace)
        return run_task("compare-code", workspace, profile=profile, echo=None,
                        new_id=seeded_ids())


def summary_calls_in_live_run(profile: str = "seed") -> dict:
    """Summary calls in the offline compare-code run, read from the run's records."""
    agent = _run(profile)
    return {"summary_calls": sum(r.model_calls for r in agent.compactor.records)}


def default_run() -> dict:
    """Files step 1 saves and model calls the agent makes: compare-code, default profile."""
    agent = _run("default")
    saved = [name for name in agent.compactor.store.written if name.startswith(".task_outputs/")]
    return {"files_saved": len(saved), "model_calls": agent.model_calls}


def _diagnose(label, expected, got):
    """The hint for the mistake a wrong number most likely comes from, or None."""
    if not isinstance(got, int) or isinstance(got, bool):
        return None
    if label == "files_saved" and got < expected:
        return say("live: each read is over 40% of the limit")
    if label == "model_calls" and got == 3:
        return say("live: two reads and an answer")
    if label == "model_calls" and got == 4:
        return say("live: that is the seed run's count")
    return None


@exercise("09")
def check_default_run(answer) -> CheckResult:
    """predict {files_saved: n, model_calls: m} for experiment 3 under the default profile."""
    return check_prediction("default_run", answer, default_run(), hint("default_run"),
                            diagnose=_diagnose)
