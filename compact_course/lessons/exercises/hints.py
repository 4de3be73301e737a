"""The learner's `hint()` and `revealed()`: what a check opens only when asked.

A checker prints what failed and which way, on every run: never an expected
value (check.py). The hint tied to each mistake and the checker's general hint
wait for the learner's `hint()` in a cell of their own; each gives the next
idea, not the code. Every checker hands its result to `remember` (check.py
imports this module, never the other way round): the result carries its own
hints.

`revealed(name)` gates a cell that shows a prediction's answer: it opens once
the learner has run that prediction's checker with every value filled in, so
Run All on a notebook shipped unsolved shows no answer.

Left out: a ladder of hints revealed one at a time; state beyond the kernel
(a restarted kernel holds the prediction cells back again).
"""

import json
from pathlib import Path

from ...display.lang import choose
from ...display.phrases import say

# Each checker's hint, in both languages: data, kept beside the code that prints it.
HINTS = json.loads(Path(__file__).with_name("texts.json").read_text(encoding="utf-8"))["hints"]

LAST: list = []      # the last check's result (a CheckResult), for hint()
MADE: set = set()    # prediction checkers run with every value filled in
# The checkers that take a prediction (check_prediction's names; tests/lessons/test_reveal.py keeps
# the list true): a function's checker never opens a cell, so revealed() refuses its name.
PREDICTIONS = frozenset({"steps_that_act", "placeholders", "order_loss", "my_run",
                         "dropped_paths"})


def hint_text(name: str) -> str:
    """The hint of checker `name` in the notebook's language."""
    return choose(HINTS[name]["en"], HINTS[name]["zh"])


def remember(result):
    """Keep `result` for hint(), and make sure a notebook has the name; return it."""
    LAST[:] = [result]
    _hint_in_scope()
    return result


def made(name: str) -> None:
    """The learner committed to every value of prediction `name`."""
    MADE.add(name)


def revealed(name: str) -> bool:
    """True once prediction `name` was checked with every value filled in, this kernel;
    otherwise print one line saying so and return False."""
    if name not in PREDICTIONS:  # a typo would hold the cell back for ever, silently
        raise ValueError(f"revealed({name!r}): no prediction has that name; "
                         f"the names are {', '.join(sorted(PREDICTIONS))}")
    if name in MADE:
        return True
    print(say("check held back"))
    return False


def forget() -> None:
    """A fresh kernel's state: no check run, nothing revealed (for tests)."""
    LAST.clear()
    MADE.clear()


def hint() -> None:
    """Print the hints of the check that ran last: the next idea, never the value."""
    if not LAST:
        print(say("check no check yet"))
        return
    print(LAST[0].hint())


def _hint_in_scope() -> None:
    """Every verdict says "run hint()": in a notebook, make sure the name is there.

    A notebook that imports only its checker would answer that advice with a
    NameError; a name the learner gave to something else is left alone."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.user_ns.setdefault("hint", hint)
