"""The build track (issue 52): the learner writes the pipeline in notebooks/my_compact.py, one
step a notebook, and these checkers grade each step against the package's seed profile.

    from compact_course.lessons.build_track import check, hint
    check("tool_result_budget")    # reads my_compact.py beside the notebook, afresh, and grades it
    hint()                         # the next idea for the step checked last, never code

    run.py        a check: the package's answer first, the learner's function under the trap, the
                  problems in words (never an expected output), the verdict; hint()
    learner.py    the learner's file: loaded afresh, refused when it imports the course's packages
    trap.py       while the learner's function runs, the package's steps refuse to run
    words.py      every sentence, English and Chinese; the flaws' names (docs/DESIGN.md)
    histories.py  the cases' message lists, fixed and drawn
    looking.py    reading a build's output: markers, the files they name, transcripts
    budget.py, snip.py, micro.py, summary_input.py, compact_history.py   steps 1-4, one a module
    prompt_too_long.py, reactive.py   the safety net (notebook 06)
    pipeline.py, cheap_steps.py, prepare.py   the order (05) and all of it (08), read back from disk
    tool_batch.py   the compact tool's batch (07)

STEPS maps each function of the learner's file that has a checker to its module. The solutions
live in docs/TEACHING.md only ("The build track"); tests/lessons/test_build_track.py runs every checker
on them. Notebook 09 runs the learner's prepare live (compact_course/lessons/live_run.py).
Left out: grading the live run (09 checks a prediction of it, exercises/live.py).
"""

from . import (
               budget,
               cheap_steps,
               compact_history,
               micro,
               prepare,
               prompt_too_long,
               reactive,
               snip,
               summary_input,
               tool_batch,
)
from .run import BuildResult, check, hint

STEPS = {module.NAME: module for module in (budget, snip, micro, summary_input, compact_history,
                                            cheap_steps, prompt_too_long, reactive, tool_batch, prepare)}

__all__ = ["STEPS", "BuildResult", "check", "hint"]
