"""The sweep's chart: every row as a point, cost against misses, the best one marked.

    figure = sweep_chart(result)          # result = compact_course.lessons.sweep.sweep(...)
    save_sweep_chart(result, "sweep.png")

x is the cache-adjusted cost, y the misses. Colour is the profile (the
benchmark's colours: seed vermillion, default blue); a filled dot loses
nothing, a hollow one loses outputs, a cross does not fit the window. The
best row (`compact_course.lessons.sweep.best_row`) gets a star and its settings; a
dashed line is the cost of no compaction. Points that share a place are drawn
once over each other: the table lists them all. Words are in the notebook's
language (compact_course/display/chart_text.py).

Left out: anything interactive, and timing.
"""

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from ..bench.benchmark import COLOURS
from ..bench.chart import save_chart
from ..display.chart_text import words
from ..display.fonts import use_cjk_fallback
from ..display.palette import BLACK, GREY
from .charts import close


def _style(row, window: int) -> dict:
    colour = COLOURS[row.profile]
    if not row.fits(window):
        return {"marker": "x", "color": colour}
    if row.lost:
        return {"marker": "o", "facecolors": "none", "edgecolors": colour}
    return {"marker": "o", "color": colour}


def _label(row, window: int) -> str:
    if not row.fits(window):
        return words("sweep over")
    return words("sweep lossy" if row.lost else "sweep lossless", profile=row.profile)


def sweep_chart(result) -> Figure:
    """One scatter of the sweep; each label drawn once in the legend."""
    use_cjk_fallback()
    window = result.window_tokens
    figure = Figure(figsize=(9, 5.5), layout="constrained")
    ax = figure.subplots()
    labelled = set()
    for row in result.rows:
        label = _label(row, window)
        ax.scatter([row.cost], [row.misses], s=40, label=None if label in labelled else label,
                   **_style(row, window))
        labelled.add(label)
    ax.axvline(result.baseline["cost"], color=GREY, linestyle="--",
               label=words("sweep baseline", cost=result.baseline["cost"]))
    best = result.best
    if best is not None:
        ax.scatter([best.cost], [best.misses], s=320, marker="*", color=BLACK, zorder=3,
                   label=words("sweep best", settings=f"{best.profile}, {best.settings_text()}"))
    ax.set_xlabel(words("sweep cost"))
    ax.set_ylabel(words("sweep misses"))
    ax.set_title(words("sweep title", name=result.history["name"], window=window))
    ax.set_xlim(left=0)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
    ax.set_ylim(bottom=-0.5)
    ax.legend(loc="upper right", fontsize=8)
    return figure


def save_sweep_chart(result, path: str) -> None:
    figure = sweep_chart(result)
    try:
        save_chart(figure, path, dpi=120)
    finally:
        close(figure)
