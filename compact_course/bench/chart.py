"""The benchmark's chart, in the notebook's language, and writing a chart file whole.

`bench_chart(rows)` draws cost, lost outputs, summary calls and misses per
design, the size (or time) of each request along one session, and each
design's cost over the seed profile's across the seeds; `timings=False` leaves
the machine's timings out, for a page that must read the same on every run
(lab 02). `chart_path_problem` and `save_chart` are shared by every
command that writes a PNG (`bench`, `replay`, `sweep`).

Left out: interactive charts (the course's widgets draw those) and any format
but PNG.
"""

import errno
import os
import stat
import statistics
import time
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from context_compact.config import CompactionConfig

from ..display.chart_text import words
from ..display.fonts import use_cjk_fallback
from .benchmark import COLOURS, DESIGN_TABLE
from .stats import across_seeds


def _grouped_bars(ax, rows, field, designs, sessions, label=str):
    width = 0.8 / len(designs)
    for k, design in enumerate(designs):
        values = [next((r[field] for r in rows if r["session"] == s and r["design"] == design), 0)
                  for s in sessions]
        xs = [i + (k - (len(designs) - 1) / 2) * width for i in range(len(sessions))]
        bars = ax.bar(xs, values, width, color=COLOURS[design], label=design)
        ax.bar_label(bars, labels=[label(v) for v in values], fontsize=7, padding=1)
    ax.set_xticks(range(len(sessions)), sessions)
    ax.set_xlabel(words("session"))
    ax.margins(y=0.15)


def _rolling_median(values, window=15):
    return [statistics.median(values[max(0, i - window + 1):i + 1]) for i in range(len(values))]


# The panels that count per design: a row's field, and the chart words' key.
COUNT_PANELS = (("lost", "lost"), ("summary_calls", "summaries"), ("misses", "misses"))


def bench_chart(rows: list[dict], timings: bool = True) -> Figure:
    """Cost, lost outputs, summary calls and misses per design at the longest runs of the
    first seed; along the longest run of the first session, the prepare time per call
    (timings=True) or, the same on every machine, the size of each request; and, over
    every seed in `rows`, each design's cost over the seed profile's, mean and worst.
    Its words are in the notebook's language (compact_course/display/chart_text.py)."""
    longest = max(r["turns"] for r in rows)
    first_seed = rows[0].get("seed", 0)
    every_seed = [r for r in rows if r["turns"] == longest]
    last = [r for r in every_seed if r.get("seed", 0) == first_seed]
    sessions = list(dict.fromkeys(r["session"] for r in last))
    designs = [d for d in DESIGN_TABLE if any(r["design"] == d for r in last)]
    # Before the Figure: an axes' title and labels take their font when the axes is made.
    use_cjk_fallback()
    fig = Figure(figsize=(13, 13), layout="constrained")
    (cost_ax, lost_ax), (summary_ax, along_ax), (misses_ax, ratio_ax) = fig.subplots(3, 2)
    fig.suptitle(words("bench title", turns=longest, count=len(designs)))

    _cost_panel(cost_ax, last, designs, sessions)
    for ax, (field, key) in zip((lost_ax, summary_ax, misses_ax), COUNT_PANELS):
        _grouped_bars(ax, last, field, designs, sessions)
        ax.set_title(words(f"{key} title"))
        ax.set_ylabel(words(f"{key} label"))

    _ratio_panel(ratio_ax, across_seeds(every_seed), designs, sessions)

    runs = [next((r for r in last if r["session"] == sessions[0] and r["design"] == d), None)
            for d in designs]
    if timings:
        _time_panel(along_ax, [r for r in runs if r], sessions[0])
    else:
        _size_panel(along_ax, [r for r in runs if r], sessions[0])
    fig.legend(*cost_ax.get_legend_handles_labels(), loc="outside lower center",
               ncols=len(designs), title=words("design"))
    return fig


def question_chart(rows: list[dict]) -> Figure:
    """Lab 02's question in two panels: the request size at each call of the first session
    (which design keeps the context smallest) beside each design's bill (which is the
    cheapest), at the longest runs of the first seed. `bench_chart` has the other panels."""
    longest = max(r["turns"] for r in rows)
    first_seed = rows[0].get("seed", 0)
    last = [r for r in rows if r["turns"] == longest and r.get("seed", 0) == first_seed]
    sessions = list(dict.fromkeys(r["session"] for r in last))
    designs = [d for d in DESIGN_TABLE if any(r["design"] == d for r in last)]
    use_cjk_fallback()
    fig = Figure(figsize=(13, 5.5), layout="constrained")
    along_ax, cost_ax = fig.subplots(1, 2)
    fig.suptitle(words("question title", turns=longest, seed=first_seed))
    runs = [next((r for r in last if r["session"] == sessions[0] and r["design"] == d), None)
            for d in designs]
    _size_panel(along_ax, [r for r in runs if r], sessions[0])
    _cost_panel(cost_ax, last, designs, sessions)
    fig.legend(*cost_ax.get_legend_handles_labels(), loc="outside lower center",
               ncols=len(designs), title=words("design"))
    return fig


def _cost_panel(ax, rows: list[dict], designs, sessions) -> None:
    _grouped_bars(ax, rows, "cost", designs, sessions, label=lambda v: f"{v / 1e6:.1f}M")
    # `none` costs ten times the rest: a log scale keeps the others readable.
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1e6:g}M"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_title(words("cost title"))
    ax.set_ylabel(words("cost label"))


def _ratio_panel(ax, summary: list[dict], designs, sessions) -> None:
    """Each design's cost over the seed profile's: a bar for the mean over the seeds, a
    black tick for the worst."""
    shown = [d for d in designs if d != "none"]   # `none` is off the scale: the table has it
    _grouped_bars(ax, summary, "ratio_mean", shown, sessions, label=lambda v: f"{v:.2f}")
    width = 0.8 / len(shown)
    for k, design in enumerate(shown):
        for i, session in enumerate(sessions):
            row = next((r for r in summary if r["session"] == session and r["design"] == design), None)
            if row and row["ratio_worst"] is not None:
                x = i + (k - (len(shown) - 1) / 2) * width
                ax.plot([x - width / 3, x + width / 3], [row["ratio_worst"]] * 2, color="black",
                        linewidth=1.5)
    seeds = max((r["seeds"] for r in summary), default=1)
    ax.set_title(words("ratio title", seeds=seeds))
    ax.set_ylabel(words("ratio label"))


def _time_panel(ax, runs: list[dict], session: str) -> None:
    for row in runs:
        if not row["prepare_ms"]:
            continue
        growth = "" if row["growth"] is None else f" (growth {row['growth']:.2f})"
        ax.plot(range(1, len(row["prepare_ms"]) + 1), _rolling_median(row["prepare_ms"]),
                color=COLOURS[row["design"]], label=f"{row['design']}{growth}")
    ax.set_title(words("time title", session=session))
    ax.set_xlabel(words("model call (turn)"))
    ax.set_ylabel(words("milliseconds"))
    # Room above the lines for the legend.
    ax.set_ylim(0, ax.get_ylim()[1] * 1.3)
    ax.legend(title=words("design"), fontsize=8, loc="upper left", ncols=3)


def _size_panel(ax, runs: list[dict], session: str) -> None:
    # `none` grows past the window and would flatten the others: it has the table.
    shown = [row for row in runs if row["design"] != "none"]
    for row in shown:
        ax.plot(range(1, len(row["request_chars"]) + 1), row["request_chars"],
                color=COLOURS[row["design"]], linewidth=1.2, label=row["design"])
    limit = next((row["limit"] for row in shown), CompactionConfig().context_char_limit)
    ax.axhline(limit, color="black", linestyle="--", linewidth=1,
               label=f"CONTEXT_CHAR_LIMIT ({limit:,d})")
    tallest = max([limit, *(max(row["request_chars"]) for row in shown)])
    ax.set_ylim(0, tallest * 1.3)  # room above the limit for the legend
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_title(words("size title", session=session))
    ax.set_xlabel(words("model call (turn)"))
    ax.set_ylabel(words("characters sent"))
    ax.legend(fontsize=8, loc="upper left", ncols=4)



# -- the file ------------------------------------------------------------------

def chart_path_problem(path) -> str | None:
    """Why a chart could not be written to `path`, or None: asked before any work starts."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        return f"{path} is a folder"
    if os.path.lexists(target) and not stat.S_ISREG(os.lstat(target).st_mode):
        # The rename would replace it: a FIFO, a device (/dev/full), a link.
        return f"{path} exists and is not a regular file"
    if not folder.exists():
        return f"the folder {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} cannot be written"
    return None


def save_chart(figure, path, **savefig) -> None:
    """Write the figure as a PNG next to `path`, then rename it into place: a run that
    stops half-way (Ctrl-C, a full disk) leaves the old file or none, never half a PNG."""
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}-{time.monotonic_ns()}.part")
    # Made here with the usual permissions (the umask's), which the rename keeps.
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        figure.savefig(temporary, format="png", **savefig)
        if problem := chart_path_problem(target):   # asked again: it may have changed meanwhile
            raise OSError(errno.EEXIST, problem)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise

