"""While the learner's function runs, the package's steps refuse to run.

A build that only hands its work to `context_compact` (or to the article's copy in
compact_course/article.py, or the agent's loop in compact_course/agent/) is not a build, even
when it reaches the package by a name put together at run time, which the reading of imports
(learner.py) cannot see. So for the length of each call the checker swaps the code of every
function and method of those modules for one that refuses, and puts it back after. A function
captured earlier refuses too: its code is swapped, not its name. The package's reference is
computed before the trap is set.

Left out: the standard library and anything else the learner may call, and the build track's
own modules (its stand-in model runs inside the call).
"""

import inspect
import sys
from contextlib import contextmanager

MARK = "__build_track_refused__"   # each trapped module's list of refused calls, while trapped
TRAPPED = ("context_compact", "compact_course")   # the pipeline, the article's copy, the agent's loop...
SPARED = ("compact_course.lessons.build_track",)   # ...but the checker itself (its stand-in model runs)


def _refuse(*args, **kwargs):
    # Runs as the code of a package function, so it reads that function's module's globals.
    __build_track_refused__.append(1)   # noqa: F821 (set in the module for the trap's length)
    raise RuntimeError("context_compact refused to run: the checker is running your own function, "
                       "and a build that calls the package's steps is not your build")


def _functions(module) -> list:
    found = []
    for value in vars(module).values():
        members = vars(value).values() if inspect.isclass(value) else [value]
        members = [m.__func__ if isinstance(m, (staticmethod, classmethod)) else m for m in members]
        found += [f for f in members if inspect.isfunction(f) and f.__module__ == module.__name__
                  and not f.__code__.co_freevars]
    return found


def modules() -> list:
    def under(name, roots):
        return any(name == root or name.startswith(root + ".") for root in roots)
    return [m for name, m in list(sys.modules.items()) if m is not None
            and under(name, TRAPPED) and not under(name, SPARED)]


@contextmanager
def package_refuses(hits: list):
    """Within the block, every function of the trapped modules raises; `hits` counts the tries."""
    swapped = []
    trapped = modules()
    functions = {id(f): f for module in trapped for f in _functions(module)}   # all found, then swapped
    try:
        for module in trapped:
            setattr(module, MARK, hits)
        for function in functions.values():
            swapped.append((function, function.__code__))
            function.__code__ = _refuse.__code__
        yield
    finally:
        for function, code in swapped:
            function.__code__ = code
        for module in trapped:
            vars(module).pop(MARK, None)
