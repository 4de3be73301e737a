"""labs/04 · settings for your own agent, judged against the sweep.

The learner writes a choice, `{"profile": ..., "context_char_limit": ...
(or "context_token_limit": ...)}`, and may add `keep_recent_results` and
`snip_target_messages` (the profile's own when left out: on lab 04's sample no
snip setting changes a row at the exercise's limits, so the page does not ask
for one), for a stated
window and cost budget. The checker replays the history with that choice (the
sweep's own row when the grid has it, the same replay otherwise) and judges it
against the sweep's best row for the same window and budget
(`compact_course.lessons.sweep.best_row`): it must fit the window, lose nothing, forget
no more probes than the default profile at its defaults (when the sweep was
probed), stay within the budget, and miss no more than the best row. Any setting
that does all of it passes, not only the best row's.

Lab 04 asks for a window smaller than any row of its grid fits (LAB_WINDOW),
so the answer is off the table: no best row there, so no misses case (a line
says "n/a" and why) rather than a case that always passes. The notebook sweeps
unprobed: on its sample `forgot` equals `lost` on every row, so there is no
forgets case either. LAB_BUDGET makes the passing set of the default profile at
its own keep a region the page argues for (tests/lessons/test_sweep.py): the
bill is highest at both ends, where each call sends nearly the window or where
compactions rewrite the cached prompt call after call, and lowest in between;
at steps of 1,000 characters the limits from 10,000 to 16,000 pass and no
other does. The first plausible guesses fail: the window at four characters a
token (20,000: it fits, just, and costs too much), the window itself as a token
limit, the window read as characters (5,000), the grid's lowest (over the
window), the seed profile (it loses outputs).

Left out: a grade for how close the cost is to the best; within the budget is enough.
"""

from ...display.phrases import say
from ...probes import make_probes
from ..sweep import GRID, LIMITS, Sweep, best_row, run_row
from .catalogue import exercise
from .check import CheckResult, not_attempted, report

LAB_WINDOW, LAB_BUDGET = 5_000, 29_000
KEYS = ("profile",)                           # and one limit; the other axes are optional
ONE_LIMIT = " or ".join(LIMITS)


def _hint() -> str:
    return say("own: hint")


def _problem(choice) -> str | None:
    if not isinstance(choice, dict):
        return say("own: expected a dict", keys=f"profile and {ONE_LIMIT}")
    missing = [key for key in KEYS if key not in choice]
    unknown = [key for key in choice if key not in (*KEYS, *GRID)]
    if unknown:
        return say("own: unknown keys", unknown=', '.join(map(str, unknown)),
                   keys=', '.join((*KEYS, *GRID)))
    if missing:
        return say("own: the choice lacks", missing=', '.join(missing))
    if sum(name in choice for name in LIMITS) != 1:
        return say("own: give one context limit", one_limit=ONE_LIMIT)
    if choice["profile"] not in ("seed", "default"):
        return say("own: profile is seed or default")
    return None


def _row(result: Sweep, choice: dict):
    settings = {key: choice[key] for key in GRID if key in choice}
    found = [r for r in result.rows if r.profile == choice["profile"] and r.settings == settings]
    if found:
        return found[0]
    history = result.history
    probes = None if result.most_forgotten is None else \
        make_probes(history["messages"], history["active_request"])
    return run_row(history, choice["profile"], settings, probes=probes)


@exercise("labs/04")
def check_settings(choice, result: Sweep, budget: float | None = None,
                   window: int | None = None) -> CheckResult:
    """a choice of settings for `window` (default result.window_tokens) and `budget`,
    judged against the sweep."""
    name, hint = "settings", _hint()
    probed = result.most_forgotten is not None
    window = result.window_tokens if window is None else window
    best = best_row(result.rows, window, budget, result.most_forgotten)
    total = 3 + probed + (best is not None)   # the cases below: fits, lost, budget, and these two
    if choice is None:
        return not_attempted(name, total, hint, "answer None")
    problem = _problem(choice)
    if problem:
        print(f"{name}: {problem}.")
        return CheckResult(name, 0, total, True, [])
    try:
        row = _row(result, choice)
    except ValueError as error:     # a threshold the config refuses, named by it
        print(f"{name}: {error}")
        return CheckResult(name, 0, total, True, [])
    rows = [
        (say("own: fits the window"), row.fits(window),
         say("own: over the window", row_peak_tokens=row.peak_tokens, window=window)),
        (say("own: loses no tool output"), row.lost == 0,
         say("own: outputs lost", row_lost=row.lost)),
        *([(say("own: forgets no more than the default"),
            row.forgotten <= result.most_forgotten,
            say("own: forgets more than the default", row_forgotten=row.forgotten,
                most=result.most_forgotten))] if probed else []),
        (say("own: within the budget"), budget is None or row.cost <= budget,
         say("own: over the budget", row_cost=row.cost, budget=budget)
         if budget is not None else ""),
        # No row of the grid qualifies (the notebook's small window): nothing to beat, so
        # no case that always passes; one n/a line says why.
        *([(say("own: misses no more than the best row"), row.misses <= best.misses,
            # Never the best row's figures or settings: that would be the answer.
            say("own: misses more than the best row", row_misses=row.misses))]
          if best is not None else []),
    ]
    checked = report(name, rows, hint)
    if best is None:
        print(say("own: no row of the grid qualifies"))
    return checked
