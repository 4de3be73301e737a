"""Check-yourself exercises: the notebooks' checkers, run against the package itself.

Each `check_<name>(answer)` takes what the learner wrote (a function, or a
prediction) and runs it on canned and seeded random cases next to the
package's own implementation: one PASS/FAIL line per case, a diff and a hint
for each miss, a one-line verdict, and a `CheckResult`. A stub that still
raises NotImplementedError, or a prediction left as None, gets a friendly
"not attempted yet" line, never a traceback. The hints stay closed until the
learner runs `hint()`; a first wrong try is told which way it is off, the
expected value waits for `hint()` or a second try. A cell that shows a
prediction's answer runs under `if revealed("<checker name>"):`, so it opens only
once the learner made that prediction (compact_course/lessons/exercises/hints.py).

One module a notebook, each checker marked with its notebook (`@exercise("03")`,
`catalogue.py`): `CHECKERS` maps every notebook to its checkers, and each checker's
docstring says what it takes. `check.py` holds the running, diff and hint machinery,
`build.py` the case builders, `hints.py` the learner's `hint()` and the last result it
opens, `solutions.py` the reference solutions (kept out of the notebooks). Adding a
notebook's exercise: its module, and one import line below. Every expected value is
computed from the package on every run, never written down.
"""

from .budget import check_largest_large_limit
from .catalogue import CHECKERS, WRITES_CODE
from .check import CheckResult
from .dropped import check_dropped_paths
from .forgets import check_instructions
from .hints import hint, revealed
from .live import check_default_run
from .micro import check_older_result, check_placeholders
from .order import check_lost, check_order_loss
from .own import check_settings
from .payoff import check_calls_to_pay_off
from .pipeline import check_steps_that_act
from .prepare import check_my_prepare
from .profiles import check_seed_losses, check_unread_shrunk
from .reactive import check_tail_once
from .server_edits import check_edits_for_budget
from .snip import check_archive_calls
from .summary import check_unseen
from .tool import check_run_batch_safely

__all__ = ["CHECKERS", "WRITES_CODE", "CheckResult", "hint", "revealed",
           *(f.__name__ for fs in CHECKERS.values() for f in fs)]
