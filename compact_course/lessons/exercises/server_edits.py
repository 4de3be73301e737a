"""labs/03 · the same job on the server: pick the edits for a budget.

The learner writes the `edits` of a `context_management` (a list of edits, or
the whole `{"edits": [...]}`); the checker plays them on the offline server's
rules over the canned session timeline_150 (`compact_course.bench.server_designs.replay`)
and checks each line of the budget against the figures it measures. Nothing is
written down: the figures come from the replay on every run.

The budget: the cache-adjusted cost at most BUDGET_COST, the prompt cache
broken on fewer calls than the same edits without `clear_at_least` (past the
trigger, clearing breaks the cache on each call that clears one result more,
about every other call on timeline_150: the gate decides when it starts), no
tool output lost for good (a line only compaction can fail: clearing edits the
server's copy, and the client's list keeps every output; the line says so), and
the newest 3 tool uses always whole (keep at least 3). BUDGET_COST is set so
that no setting the notebook prints
meets it (its `clear_at_least` rows, the defaults: tests/bench/
test_server_designs.py checks each), and no trigger alone does: the learner
reads the session's tools (`results_by_tool`) and decides which results are
worth clearing. The many small `bash` and `glob` results save little when
cleared and break the cache each time; `exclude_tools` keeps them. The traps:
the API's defaults (the trigger fires too late to matter), a low trigger with
no `clear_at_least` (clearing starts at once), the notebook's own settings, one
of the two small tools excluded and not the other, and compaction (it loses
what it summarizes).
"""

from dataclasses import replace

from ...bench.server_designs import read_edits, replay, totals
from ...display.phrases import say
from ...offline.api import context_edits
from ...sessions.histories import load_history
from .catalogue import exercise
from .check import CheckResult, not_attempted, report

SESSION = "timeline_150"
BUDGET_COST = 850_000
BUDGET_KEEP = 3


def _hint() -> str:
    return say("server_edits: hint")


def results_by_tool() -> dict:
    """{tool name: the sizes of its results, in characters}, most called first: what the
    learner reasons from."""
    from context_compact.messages import text_of, tool_results, tool_uses
    messages = load_history(SESSION)["messages"]
    names = {u["id"]: u["name"] for m in messages for u in tool_uses(m)}
    sizes: dict = {}
    for block in (b for m in messages for b in tool_results(m)):
        sizes.setdefault(names[block["tool_use_id"]], []).append(len(text_of(block["content"])))
    return dict(sorted(sizes.items(), key=lambda item: -len(item[1])))


def budget_lines(figures: dict, edits: list, ungated: dict) -> list:
    """(line of the budget, met, what was measured) for the replayed figures; `ungated`
    are the figures of the same edits without `clear_at_least`."""
    keeps = [e.keep for e in edits if isinstance(e, context_edits.ClearToolUses)]
    return [
        (say("server_edits: cost at most", budget_cost=BUDGET_COST),
         figures["cost"] <= BUDGET_COST, f"cost {figures['cost']:,d}"),
        (say("server_edits: cache broken less often than without clear_at_least"),
         figures["breaks"] < ungated["breaks"], f"{figures['breaks']} breaks, {ungated['breaks']} without"),
        (say("server_edits: no tool output lost for good"),
         figures["lost"] == 0, f"{figures['lost']} of {figures['outputs']} lost"),
        (say("server_edits: the newest tool uses kept whole", budget_keep=BUDGET_KEEP),
         all(k >= BUDGET_KEEP for k in keeps), f"keep {min(keeps) if keeps else '-'}"),
    ]


def measure(edits) -> tuple[dict, list, dict]:
    """The replay's figures for these edits, the edits as the server reads them, and the
    figures of the same edits without `clear_at_least`."""
    config = edits if isinstance(edits, dict) else {"edits": list(edits)}
    read = read_edits(config)
    ungated = [replace(e, clear_at_least=0) if isinstance(e, context_edits.ClearToolUses) else e
               for e in read]
    messages = load_history(SESSION)["messages"]
    return totals(replay(messages, read)), read, totals(replay(messages, ungated))


@exercise("labs/03")
def check_edits_for_budget(edits) -> CheckResult:
    """edits -> the budget lines they meet on timeline_150."""
    name, total = "edits", 4
    if edits is None:
        return not_attempted(name, total, _hint(), "answer None")
    try:
        figures, read, ungated = measure(edits)
    except (ValueError, TypeError, AttributeError) as error:
        return report(name, [(say("server_edits: the server takes the edits"), False, str(error))],
                      _hint())
    lines = budget_lines(figures, read, ungated)
    rows = [(line, ok, "" if ok else measured) for line, ok, measured in lines]
    return report(name, rows, _hint())
