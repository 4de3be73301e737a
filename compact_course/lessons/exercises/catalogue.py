"""The catalogue of exercises: which notebook each checker belongs to, filled as they are defined.

    @exercise("03", writes_code=True)
    def check_older_result(older_result): ...

A checker module says its notebook once, on the checker itself, so adding a
notebook's exercise touches its module and one import line in `__init__.py`.
`CHECKERS` maps each notebook ("00", "01", ... for the core path, "labs/01", ... for
a lab) to its checkers, in the order their module defines them; `WRITES_CODE` holds
the checkers whose exercise is a function the learner writes (the others take a
prediction or a choice); `MINUTES_ALONE` the few whose exercise a learner alone needs
more minutes for than the self-study method's usual figure (scripts/notebook_tables.py),
each with the reason on its decorator.

Left out: discovering the modules by scanning the folder (an import line names
each one, so grep and an editor find them).
"""

CHECKERS: dict[str, tuple] = {}
WRITES_CODE: list = []
MINUTES_ALONE: dict = {}


def exercise(notebook: str, *, writes_code: bool = False, minutes_alone: int | None = None):
    """Register the decorated checker as an exercise of `notebook` ("03", or "labs/01" for a lab);
    `minutes_alone`: the learner's minutes for it alone, where the method's usual figure is short."""
    number = notebook.removeprefix("labs/")
    if not (len(number) == 2 and number.isdigit()):
        raise ValueError(f"a notebook is named by two digits (a lab's as labs/NN), not {notebook!r}")

    def register(checker):
        CHECKERS[notebook] = (*CHECKERS.get(notebook, ()), checker)
        ordered = sorted(CHECKERS.items())   # the core path, then the labs, whatever the import order
        CHECKERS.clear()
        CHECKERS.update(ordered)
        if writes_code:
            WRITES_CODE.append(checker)
        if minutes_alone is not None:
            MINUTES_ALONE[checker] = minutes_alone
        return checker
    return register
