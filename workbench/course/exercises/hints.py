"""The learner's `hint()`: the hints of the last check, opened only when asked.

A checker prints what failed and how (the input, the first difference); the
hint tied to each mistake, and the checker's general hint, wait until the
learner runs `hint()` in a cell of their own, so that trying first stays the
default.

Left out: a ladder of hints revealed one at a time.
"""

from . import check


def hint() -> None:
    """Print the hints of the check that ran last in this kernel."""
    if not check.LAST:
        print(check._w("no check yet"))
        return
    print(check.LAST[0].hint())
