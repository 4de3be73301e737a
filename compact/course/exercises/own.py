"""11 · settings for your own agent, judged against the sweep.

The learner writes a choice, `{"profile": ..., "context_char_limit": ...
(or "context_token_limit": ...), "keep_recent_results": ...,
"snip_target_messages": ...}`, for a stated
window and cost budget. The checker replays the history with that choice (the
sweep's own row when the grid has it, the same replay otherwise) and judges it
against the sweep's best row for the same window and budget
(`compact.course.sweep.best_row`): it must fit the window, lose nothing, stay
within the budget, and miss no more than the best row. Any setting that does
all four passes, not only the best row's.

Left out: a grade for how close the cost is to the best; within the budget is enough.
"""

from ..sweep import GRID, LIMITS, Sweep, best_row, run_row
from .catalogue import exercise
from .check import CheckResult, not_attempted, report, say

KEYS = ("profile", *(name for name in GRID if name not in LIMITS))
ONE_LIMIT = " or ".join(LIMITS)


def _hint() -> str:
    return say("read the sweep's table: a row marked '*' is one answer; any row that fits, "
               "loses nothing, stays within the budget and misses no more than it passes.",
               "读扫描的表格：标着 '*' 的那一行就是一个答案；任何一行只要放得进窗口、不丢失、"
               "不超预算、缺失不比它多，都能通过。")


def _problem(choice) -> str | None:
    if not isinstance(choice, dict):
        return say(f"expected a dict with {', '.join(KEYS)}", f"需要一个包含 {', '.join(KEYS)} 的 dict")
    missing = [key for key in KEYS if key not in choice]
    if missing:
        return say(f"the choice lacks {', '.join(missing)}", f"选择里缺少 {', '.join(missing)}")
    if sum(name in choice for name in LIMITS) != 1:
        return say(f"give one context limit: {ONE_LIMIT}", f"给出一个上下文阈值：{ONE_LIMIT}")
    if choice["profile"] not in ("seed", "default"):
        return say("profile is 'seed' or 'default'", "profile 只能是 'seed' 或 'default'")
    return None


def _row(result: Sweep, choice: dict):
    settings = {key: choice[key] for key in GRID if key in choice}
    found = [r for r in result.rows if r.profile == choice["profile"] and r.settings == settings]
    return found[0] if found else run_row(result.history, choice["profile"], settings)


@exercise("11")
def check_settings(choice, result: Sweep, budget: float | None = None) -> CheckResult:
    """a choice of settings for result.window_tokens and `budget`, judged against the sweep."""
    name, hint = "settings", _hint()
    if choice is None:
        return not_attempted(name, 4, hint, "answer None")
    problem = _problem(choice)
    if problem:
        print(f"{name}: {problem}.")
        return CheckResult(name, 0, 4, True, [])
    try:
        row = _row(result, choice)
    except ValueError as error:     # a threshold the config refuses, named by it
        print(f"{name}: {error}")
        return CheckResult(name, 0, 4, True, [])
    window, best = result.window_tokens, best_row(result.rows, result.window_tokens, budget)
    rows = [
        (say("fits the window", "放得进窗口"), row.fits(window),
         say(f"peak {row.peak_tokens:,} tokens > window {window:,}",
             f"峰值 {row.peak_tokens:,} 个 token > 窗口 {window:,}")),
        (say("loses no tool output", "不丢失工具输出"), row.lost == 0,
         say(f"{row.lost} outputs lost: the seed profile's step 3 keeps no copy",
             f"丢失 {row.lost} 个输出：seed 配置的第三步不保存副本")),
        (say("within the budget", "不超预算"), budget is None or row.cost <= budget,
         say(f"cost {row.cost:,} > budget {budget:,}", f"成本 {row.cost:,} > 预算 {budget:,}")
         if budget is not None else ""),
        (say("misses no more than the best row", "缺失不比最佳行多"),
         best is not None and row.misses <= best.misses,
         say(f"{row.misses} misses; the best row within the budget has "
             f"{best.misses if best else '-'}",
             f"缺失 {row.misses} 次；预算内最佳行是 {best.misses if best else '-'} 次")),
    ]
    return report(name, rows, hint)
