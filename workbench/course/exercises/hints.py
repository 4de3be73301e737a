"""The learner's `hint()`: the hints of the last check, opened only when asked.

A checker prints what failed and how (the input, the first difference); the
hint tied to each mistake, and the checker's general hint, wait until the
learner runs `hint()` in a cell of their own, so that trying first stays the
default. Every checker hands its result to `remember` (check.py imports this
module, never the other way round): the result carries its own hints.

Left out: a ladder of hints revealed one at a time.
"""

from ...display.phrases import say

LAST: list = []  # the last check's result (a CheckResult), for hint()


def remember(result):
    """Keep `result` for hint(), and make sure a notebook has the name; return it."""
    LAST[:] = [result]
    _hint_in_scope()
    return result


def hint() -> None:
    """Print the hints of the check that ran last in this kernel."""
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
