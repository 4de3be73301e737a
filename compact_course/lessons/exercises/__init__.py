"""Check-yourself exercises: the notebooks' checkers, run against the package itself.

Each `check_<name>(answer)` takes what the learner wrote (a function, or a
prediction) and runs it on canned and seeded random cases next to the
package's own implementation: one PASS/FAIL line per case, the input and which
way each miss is off, a hint for it behind `hint()`, a one-line verdict, and a
`CheckResult`. A stub that still raises NotImplementedError, or a prediction left as None, gets a friendly
"not attempted yet" line, never a traceback. The hints stay closed until the
learner runs `hint()`; a wrong try is told which way it is off, on every run,
and no run or hint prints the expected value. A cell that shows a
prediction's answer runs under `if revealed("<checker name>"):`, so it opens only
once the learner made that prediction (compact_course/lessons/exercises/hints.py).

One module a notebook, each checker marked with its notebook (`@exercise("03")`,
`catalogue.py`): `CHECKERS` maps every notebook to its checkers, and each checker's
docstring says what it takes. `check.py` holds the running, diff and hint machinery,
`build.py` the case builders, `hints.py` the learner's `hint()` and the last result it
opens, `solutions.py` the reference solutions (kept out of the notebooks). Adding a
notebook's exercise: its module, and one line a checker in `MODULES` below. Every
expected value is computed from the package on every run, never written down.

A checker is imported when a notebook asks for it (PEP 562's module `__getattr__`), so
notebook 01's `from compact_course.lessons.exercises import check_largest_large_limit`
loads budget.py alone, not the 18 other checkers and what they use (lab 06's loads the
SDK). `CHECKERS` and `WRITES_CODE` import every checker's module first, in `MODULES`'
order, so they are whole whoever asks first.
"""

import importlib

from . import catalogue
from .check import CheckResult
from .hints import hint, revealed

# Each checker and the module that defines it (test_exercises checks this table against
# the catalogue: a checker missing here, or named with the wrong module, fails).
MODULES = {
    "check_largest_large_limit": "budget",
    "check_dropped_paths": "dropped",
    "check_instructions": "forgets",
    "check_older_result": "micro",
    "check_placeholders": "micro",
    "check_lost": "order",
    "check_my_run": "live",
    "check_order_loss": "order",
    "check_settings": "own",
    "check_calls_to_pay_off": "payoff",
    "check_steps_that_act": "pipeline",
    "check_unread_shrunk": "profiles",
    "check_tail_once": "reactive",
    "check_edits_for_budget": "server_edits",
    "check_archive_calls": "snip",
    "check_unseen": "summary",
    "check_run_batch_safely": "tool",
}

__all__ = ["CHECKERS", "MINUTES_ALONE", "WRITES_CODE", "CheckResult", "hint", "revealed", *MODULES]


def __getattr__(name: str):
    if name in MODULES:
        return getattr(importlib.import_module(f".{MODULES[name]}", __name__), name)
    if name in MODULES.values():   # a checker's module, `exercises.micro`, loaded in any order
        return importlib.import_module(f".{name}", __name__)
    if name in ("CHECKERS", "MINUTES_ALONE", "WRITES_CODE"):
        for module in dict.fromkeys(MODULES.values()):
            importlib.import_module(f".{module}", __name__)
        return getattr(catalogue, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
