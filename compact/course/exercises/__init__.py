"""Check-yourself exercises: the notebooks' checkers, run against the package itself.

Each `check_<name>(answer)` takes what the learner wrote (a function, or a
prediction) and runs it on canned and seeded random cases next to the
package's own implementation: one PASS/FAIL line per case, a diff and a hint
for each miss, a one-line verdict, and a `CheckResult`. A stub that still
raises NotImplementedError, or a prediction left as None, gets a friendly
"not attempted yet" line, never a traceback. The hints stay closed until the
learner runs `hint()`.

    00 check_steps_that_act(prediction)    {history: [steps]}, one seed prepare each
    01 check_largest_large_limit(f)        f(sizes, batch_limit) -> the largest large limit, or None
    02 check_archive_calls(f)              f(added, max_messages, target) -> [calls that archive]
    03 check_older_result(older_result)    older_result(text) -> what step 3 leaves
       check_placeholders(prediction)      (placeholders, omitted) on five_reads
    04 check_shrink_count(f)               f(sizes, target) -> results a stopping step 3 shrinks
    05 check_lost(lost)                    lost(originals, context, transcripts, saved) -> [id]
       check_order_loss(prediction)        outputs lost, step 3 before step 1 on huge_result
    06 check_tail_once(f)                  f(kinds, keep, request_at) -> where the tail starts
    07 check_run_batch_safely(f)           f(messages, tool_uses, run, compact) -> list
    08 check_fresh_from(fresh_from)        fresh_from(kinds) -> index
       check_seed_losses(prediction)       lost by the seed on long_session, timeline_150
    09 check_cache_cost(cache_cost)        cache_cost(previous, current) -> float
    10 check_edits_for_budget(edits)       context_management edits meeting a budget on timeline_150
    11 check_settings(choice, sweep, budget)  settings for a window and budget, against the sweep
    12 check_summary_calls(prediction)     summary calls, offline compare-code run, seed

One module a notebook; `check.py` holds the running, diff and hint machinery,
`build.py` the case builders, `hints.py` the learner's `hint()`, `solutions.py` the reference solutions (kept
out of the notebooks). Every expected value is computed from the package on
every run, never written down.
"""

from .budget import check_largest_large_limit
from .check import CheckResult
from .cost import check_cache_cost
from .hints import hint
from .live import check_summary_calls
from .micro import check_older_result, check_placeholders
from .order import check_lost, check_order_loss
from .own import check_settings
from .pipeline import check_steps_that_act
from .profiles import check_fresh_from, check_seed_losses
from .reactive import check_tail_once
from .server_edits import check_edits_for_budget
from .snip import check_archive_calls
from .summary import check_shrink_count
from .tool import check_run_batch_safely

# notebook -> its checkers, in the order its cells call them
CHECKERS = {
    "00": (check_steps_that_act,),
    "01": (check_largest_large_limit,),
    "02": (check_archive_calls,),
    "03": (check_placeholders, check_older_result),
    "04": (check_shrink_count,),
    "05": (check_order_loss, check_lost),
    "06": (check_tail_once,),
    "07": (check_run_batch_safely,),
    "08": (check_seed_losses, check_fresh_from),
    "09": (check_cache_cost,),
    "10": (check_edits_for_budget,),
    "11": (check_settings,),
    "12": (check_summary_calls,),
}
# the checkers whose exercise is code the learner writes (the others take a prediction)
WRITES_CODE = (check_largest_large_limit, check_archive_calls, check_older_result, check_shrink_count,
               check_lost, check_tail_once, check_run_batch_safely, check_fresh_from, check_cache_cost)

__all__ = ["CHECKERS", "WRITES_CODE", "CheckResult", "hint", *(f.__name__ for fs in CHECKERS.values()
                                                        for f in fs)]
