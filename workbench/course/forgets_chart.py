"""Lab 05's chart: each design's bill against the probes it forgot, to choose from.

One point a design (the benchmark's colours), the bill on a log scale, the forgotten
count along the bottom; the best corner is the lower left. Its words are in the
notebook's language (`workbench.display.chart_text`).

Left out: the figures themselves (`workbench.course.forgets.cost_and_forgotten`).
"""

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ..bench.benchmark import COLOURS
from ..display.chart_text import words
from ..display.fonts import use_cjk_fallback


def cost_forgotten_chart(rows: list[dict]) -> Figure:
    """Cost with misses priced (y, log) against forgotten probes (x), one labelled point a
    design: the lower left is the cheapest that forgets nothing, and a design that saves
    money by starving the model pays its re-reads there."""
    use_cjk_fallback()
    fig = Figure(figsize=(9, 5.5), layout="constrained")
    ax = fig.subplots()
    first = rows[0]
    names: dict[tuple, list] = {}   # designs on the same point share one label
    for row in rows:
        ax.scatter(row["forgotten"], row["cost_repaid"], s=90, color=COLOURS[row["design"]],
                   edgecolor="black", linewidth=0.6, zorder=3)
        names.setdefault((row["forgotten"], row["cost_repaid"]), []).append(row["design"])
    for point, designs in names.items():
        ax.annotate(" = ".join(designs), point, textcoords="offset points", xytext=(7, 5), fontsize=9)
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1e6:g}M"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(-0.05 * first["probes"], first["probes"] * 1.05)
    ax.set_xlabel(words("forgotten label", probes=first["probes"]))
    ax.set_ylabel(words("cost repaid label"))
    ax.set_title(words("forgets title", session=first["session"], turns=first["turns"]))
    ax.grid(True, alpha=0.3)
    return fig
