"""Check-yourself exercises: the notebooks' checkers, run against the package itself.

Each `check_<name>(answer)` takes what the learner wrote (a function, or a
prediction) and runs it on canned and seeded random cases next to the
package's own implementation: one PASS/FAIL line per case, a diff and a hint
for each miss, a one-line verdict, and a `CheckResult`. A stub that still
raises NotImplementedError, or a prediction left as None, gets a friendly
"not attempted yet" line, never a traceback.

    00 check_steps_that_act(prediction)    {history: [steps]}, one seed prepare each
    01 check_persisted(persisted)          persisted(sizes, batch_limit, large_limit) -> [index]
    02 check_cut_points(cut_points)        cut_points(kinds, max_messages, keep_head) -> (h, t)
    03 check_older_result(older_result)    older_result(text) -> what step 3 leaves
       check_placeholders(prediction)      (placeholders, omitted) on five_reads
    04 check_summary_cut(summary_cut)      summary_cut(text, limit) -> str
    05 check_lost(lost)                    lost(originals, context, transcripts, saved) -> [id]
       check_order_loss(prediction)        outputs lost, step 3 before step 1 on huge_result
    06 check_tail_start(tail_start)        tail_start(kinds, keep) -> index
    07 check_run_batch(run_batch)          run_batch(messages, tool_uses, run, compact) -> list
    08 check_fresh_from(fresh_from)        fresh_from(kinds) -> index
       check_seed_losses(prediction)       lost by the seed on long_session, timeline_150
    09 check_cache_cost(cache_cost)        cache_cost(previous, current) -> float
    11 check_settings(choice, sweep, budget)  settings for a window and budget, against the sweep
    12 check_summary_calls(prediction)     summary calls, offline compare-code run, seed

One module a notebook; `check.py` holds the running, diff and hint machinery,
`build.py` the case builders, `solutions.py` the reference solutions (kept
out of the notebooks). Every expected value is computed from the package on
every run, never written down.
"""

from .budget import check_persisted
from .check import CheckResult
from .cost import check_cache_cost
from .live import check_summary_calls
from .micro import check_older_result, check_placeholders
from .order import check_lost, check_order_loss
from .own import check_settings
from .pipeline import check_steps_that_act
from .profiles import check_fresh_from, check_seed_losses
from .reactive import check_tail_start
from .snip import check_cut_points
from .summary import check_summary_cut
from .tool import check_run_batch

# notebook -> its checkers, in the order its cells call them
CHECKERS = {
    "00": (check_steps_that_act,),
    "01": (check_persisted,),
    "02": (check_cut_points,),
    "03": (check_placeholders, check_older_result),
    "04": (check_summary_cut,),
    "05": (check_order_loss, check_lost),
    "06": (check_tail_start,),
    "07": (check_run_batch,),
    "08": (check_seed_losses, check_fresh_from),
    "09": (check_cache_cost,),
    "11": (check_settings,),
    "12": (check_summary_calls,),
}
# the checkers whose exercise is code the learner writes (the others take a prediction)
WRITES_CODE = (check_persisted, check_cut_points, check_older_result, check_summary_cut,
               check_lost, check_tail_start, check_run_batch, check_fresh_from, check_cache_cost)

__all__ = ["CHECKERS", "WRITES_CODE", "CheckResult", *(f.__name__ for fs in CHECKERS.values()
                                                        for f in fs)]
