"""10 · the same job on the server: pick the edits for a budget.

The learner writes the `edits` of a `context_management` (a list of edits, or
the whole `{"edits": [...]}`); the checker plays them on the offline server's
rules over the canned session timeline_150 (`compact.bench.server_designs.replay`)
and checks each line of the budget against the figures it measures. Nothing is
written down: the figures come from the replay on every run.

The budget: the cache-adjusted cost at most BUDGET_COST, the prompt cache
broken on fewer calls than the same edits without `clear_at_least` (past the
trigger, clearing changes the prompt on every call: the gate decides when it
starts), no tool output lost for good, and the newest 3 tool uses always whole
(keep at least 3). The traps: the API's defaults (the trigger fires too late
to matter), a low trigger with no `clear_at_least` (clearing starts at once),
and compaction (it loses what it summarized).
"""

from dataclasses import replace

from ...bench.server_designs import read_edits, replay, totals
from ...offline.api import context_edits
from ..histories import load_history
from .check import CheckResult, not_attempted, report, say

SESSION = "timeline_150"
BUDGET_COST = 900_000
BUDGET_KEEP = 3


def _hint() -> str:
    return say("lower the clearing trigger well under the default, and set clear_at_least so that "
               "clearing starts only once a large amount can go; compaction loses what it summarizes.",
               "把清除的触发阈值降到远低于默认值，并设置 clear_at_least，让清除等到能清掉一大段时才开始；"
               "压缩会丢掉它摘要掉的内容。")


def budget_lines(figures: dict, edits: list, ungated: dict) -> list:
    """(line of the budget, met, what was measured) for the replayed figures; `ungated`
    are the figures of the same edits without `clear_at_least`."""
    keeps = [e.keep for e in edits if isinstance(e, context_edits.ClearToolUses)]
    return [
        (say(f"cost at most {BUDGET_COST:,d}", f"成本不超过 {BUDGET_COST:,d}"),
         figures["cost"] <= BUDGET_COST, f"cost {figures['cost']:,d}"),
        (say("cache broken less often than without clear_at_least", "缓存失效次数少于不设 clear_at_least 时"),
         figures["breaks"] < ungated["breaks"], f"{figures['breaks']} breaks, {ungated['breaks']} without"),
        (say("no tool output lost for good", "没有工具输出被永久丢失"),
         figures["lost"] == 0, f"{figures['lost']} of {figures['outputs']} lost"),
        (say(f"the newest {BUDGET_KEEP} tool uses kept whole", f"最新的 {BUDGET_KEEP} 次工具调用保持完整"),
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


def check_edits_for_budget(edits) -> CheckResult:
    """10: edits -> the budget lines they meet on timeline_150."""
    name, total = "edits", 4
    if edits is None:
        return not_attempted(name, total, _hint(), "answer None")
    try:
        figures, read, ungated = measure(edits)
    except (ValueError, TypeError, AttributeError) as error:
        return report(name, [(say("the server takes the edits", "服务器接受这些 edits"), False, str(error))],
                      _hint())
    rows = [(line, ok, "" if ok else measured) for line, ok, measured in budget_lines(figures, read, ungated)]
    return report(name, rows, _hint())
