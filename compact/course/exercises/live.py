"""12 · the live agent run: predict the summary calls of the offline compare-code run.

The reference runs the task for real, with the offline model (a deterministic
program, not a language model) on a scratch copy of the sample workspace, and
reads the count from the compactor's step records.
"""

import shutil
import tempfile
from pathlib import Path

from ..histories import data_dir
from .catalogue import exercise
from .check import CheckResult, check_prediction, hint


def summary_calls_in_live_run(profile: str = "seed") -> dict:
    """Summary calls in the offline compare-code run, read from the run's records."""
    from ...agent.loop import run_task
    from ..replay import seeded_ids
    with tempfile.TemporaryDirectory(prefix="compact-exercise-") as scratch:
        workspace = Path(scratch) / "workspace"
        shutil.copytree(data_dir() / "workspace", workspace)
        agent = run_task("compare-code", workspace, profile=profile, echo=None,
                         new_id=seeded_ids())
        calls = sum(r.model_calls for r in agent.compactor.records)
    return {"summary_calls": calls}


@exercise("12")
def check_summary_calls(answer) -> CheckResult:
    """predict how many summaries the seed profile asks for in the live run."""
    return check_prediction(
        "summary_calls", answer, summary_calls_in_live_run(), hint("summary_calls"))
