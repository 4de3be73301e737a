"""Lab 05's charts: each design's bill against the probes it forgot, to choose from; and
what each design keeps over rounds of compaction.

`cost_forgotten_chart`: one point a design (the benchmark's colours), the bill on a log
scale, the forgotten count along the bottom; the best corner is the lower left.
`rounds_chart`: a line a design over its first compactions, the share of the probes
made so far that it still holds (solid) and can still reach (dashed); a dashed line on the
points of one drawn before it is dashed in that one's gaps, and its legend entry names the
line it lies on (the summary's and the default's reach coincide at 100%). Their words are
in the notebook's language (`compact_course.display.chart_text`).

Left out: the figures themselves (`compact_course.lessons.forgets.cost_and_forgotten`,
`compact_course.bench.rounds.session_rounds`).
"""

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ..bench.benchmark import COLOURS
from ..bench.rounds import ROUNDS, curves
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


def rounds_chart(runs: dict, session: str, turns: int) -> Figure:
    """Held (solid) and reachable (dashed) share of the probes at each design's rounds."""
    use_cjk_fallback()
    fig = Figure(figsize=(11, 5.5), layout="constrained")
    ax = fig.subplots()
    drawn: dict[tuple, list] = {}   # a line's points -> the short names of the lines on them
    for design, points in curves(runs).items():
        if not points:
            continue
        rounds = [r for r, _, _ in points]
        held = tuple(zip(rounds, (h for _, h, _ in points)))
        reach = tuple(zip(rounds, (r for _, _, r in points)))
        ax.plot(rounds, [h for _, h in held], marker="o", color=COLOURS[design],
                label=words("rounds held", design=design))
        drawn.setdefault(held, []).append(words("rounds held short", design=design))
        under = drawn.setdefault(reach, [])
        label = words("rounds reach", design=design)
        if under:   # it would hide a line drawn before it: say so, and dash it in that one's gaps
            label = words("rounds same", line=label, other=under[0])
        ax.plot(rounds, [r for _, r in reach], linestyle=(4 * (len(under) % 2), (4, 4)),
                color=COLOURS[design], alpha=1 if under else 0.7, label=label)
        under.append(words("rounds reach short", design=design))
    ax.set_xticks(range(1, ROUNDS + 1))
    ax.set_ylim(-0.03, 1.05)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0%}"))
    ax.set_xlabel(words("rounds x"))
    ax.set_ylabel(words("rounds y"))
    ax.set_title(words("rounds title", session=session, turns=turns))
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))   # beside: the lines fill the axes
    ax.grid(True, alpha=0.3)
    return fig
