"""The long-session benchmark: what each design costs and loses over hundreds of turns.

    python -m compact bench                 # 3 sessions x 120 and 400 turns x 7 designs x 8 seeds
    python -m compact bench --quick         # a smoke run of a few seconds (one seed)
    python -m compact bench --chart bench.png

The article shows the pipeline one call at a time. Here a whole session
(`compact.bench.sessions`) is replayed turn by turn, and each design prepares the
context before every model call; the request "sent" is the prepared context:
- none: the list as it grows; requests over the model window are counted as
  refused (the offline model's window, DEFAULT_WINDOW = 200000 tokens of its
  estimate, the unit the requests are counted in); the figures are what the
  requests would have cost had the API taken them all;
- summary: compact_history whenever the list is over CONTEXT_CHAR_LIMIT;
- seed: `prepare` with `CompactionConfig.seed()`, the article as written;
- default: `prepare` with `CompactionConfig()`, the flaws fixed;
- server-clear, server-compact, default+server-compact: the API's own context
  management as the offline server plays it, with the API's defaults
  (`compact.bench.server_designs`): the client keeps one list and the model reads
  another, and a compaction's summary is booked as a summary call.
`DESIGN_TABLE` has one row per design; `run_bench` runs the article's four
(`DESIGNS`) unless told otherwise, the command all seven.
Summaries come from `compact.offline.model.extractive.extractive_summary` (no model), each
counted as a summary call whose input and output are booked by `compact.bench.cost`,
which also defines what a request is billed (tokens in, cache writes and reads, tokens
out), the lost outputs and the misses (a call whose needed earlier output,
`Turn.refers_to`, is not whole in the request sent).

Several seeds: the command prints the first seed's table, then each design's mean and
worst over the seeds (cost, cost over the seed profile's on the same session, misses),
then issue 20's acceptance lines (`acceptance`), each ending in yes or NO.

Timing: `prepare` (or the design's equivalent) is timed per call with
time.perf_counter. growth = (median ms per call at the longer session / at the
shorter) / (median new characters per call, same ratio): about 1 when the work
per call follows the new content, about 400/120 = 3.3 when it follows the
session's length (a quadratic loop). It also moves when the mix of calls
changes: the seed profile, once past 50 messages, archives (and writes a
transcript) on every call, so a longer session with more such calls shows a
higher median though each kind of call takes the same time; the chart's
per-call line shows that. Timings are printed, never asserted;
`format_table(rows, STABLE_COLUMNS)` and `bench_chart(rows, timings=False)`
leave them out, for a page that must read the same on every run (notebook 09).

Left out on purpose: a real model (replies are canned, so a design cannot
change what the model does next, and tokens are the offline estimate),
reactive_compact and the compact tool.
"""

import argparse
import errno
import os
import shutil
import stat
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ..compactor import ContextCompactor
from ..config import CompactionConfig
from ..display.chart_text import words
from ..display.palette import BLUE, GREY, PURPLE, VERMILLION
from ..display.text import fixed_width
from ..messages import estimate_chars
from ..offline.model.extractive import extractive_summary
from ..offline.tokens import DEFAULT_WINDOW
from ..store import seeded_ids
from ..summary import summary_input
from . import cost, server_designs
from .sessions import KINDS, make_session

TURNS = (120, 400)
SEEDS = 8
QUICK_TURNS = (20, 60)


def _none(compactor: ContextCompactor):
    return lambda context, request: context


def _summary_only(compactor: ContextCompactor):
    limit = compactor.config.context_char_limit

    def summary_only(context, request):
        if estimate_chars(context) > limit:
            return compactor.compact_history(context, request)
        return context
    return summary_only


def _prepare(compactor: ContextCompactor):
    return compactor.prepare


# One row per design: what it runs before each model call, made from the run's compactor
# ((context, active_request) -> the request, or a server design's Call), and its colour,
# from the one palette (a summary is step 4, drawn in step 4's colour in the course's charts).
DESIGN_TABLE = {
    "none": (_none, GREY),
    "summary": (_summary_only, PURPLE),
    "seed": (_prepare, VERMILLION),
    "default": (_prepare, BLUE),
    "server-clear": (server_designs.bench_step("server-clear"), server_designs.COLOURS["server-clear"]),
    "server-compact": (server_designs.bench_step("server-compact"), server_designs.COLOURS["server-compact"]),
    "default+server-compact": (server_designs.bench_step("default+server-compact"),
                               server_designs.COLOURS["default+server-compact"]),
}
# The article's designs and no management: what run_bench runs unless told (notebook 09).
DESIGNS = ("none", "summary", "seed", "default")
COLOURS = {name: colour for name, (_, colour) in DESIGN_TABLE.items()}


def _config(design: str, limits: dict | None) -> CompactionConfig:
    if design not in DESIGN_TABLE:
        raise ValueError(f"unknown design {design!r}: use one of {', '.join(DESIGN_TABLE)}")
    return CompactionConfig.named("seed" if design == "seed" else "default", **(limits or {}))


def _step(design: str, compactor: ContextCompactor):
    """What the design runs before each model call."""
    return DESIGN_TABLE[design][0](compactor)


def _drive(session, step, ledger: cost.CostLedger, window: int) -> dict:
    """Replay the session; the final context and the per-call figures."""
    context, active = [session.opening], session.request
    texts = [cost.message_json(session.opening)]
    new = len(texts[0])
    timings, news, sizes, refused, misses, originals = [], [], [], 0, 0, session.outputs()
    for turn in session.turns:
        start = time.perf_counter()
        sent = kept = step(context, active)
        timings.append((time.perf_counter() - start) * 1000)
        if isinstance(sent, server_designs.Call):
            # A server design: the client keeps one list, the model reads another.
            call, kept, sent = sent, sent.kept, sent.seen
            if call.summary:
                ledger.add_summary(*call.summary)
        if turn.refers_to is not None:
            misses += not cost.in_context(sent, turn.refers_to, originals[turn.refers_to])
        if sent is not context:
            # JSON once per message per call keeps the bookkeeping O(request);
            # an unchanged list (design none) reuses what it had.
            texts = [cost.message_json(m) for m in sent]
        added = [cost.message_json(turn.assistant), cost.message_json(turn.user)]
        usage = ledger.add_request(texts, reply=added[0])
        sizes.append(cost.request_size(texts))
        # The window counts tokens: every input token of the request, cached or not.
        refused += usage["input_tokens"] + usage["cache_creation_input_tokens"] \
            + usage["cache_read_input_tokens"] > window
        news.append(new)
        new = len(added[0]) + len(added[1])
        context, texts = [*kept, turn.assistant, turn.user], [*texts, *added]
        active = turn.request or active
    return {"final": context, "timings": timings, "news": news, "sizes": sizes,
            "refused": refused, "misses": misses}


def run_session(session, design: str, *, limits: dict | None = None,
                summarize=extractive_summary, root=None, window: int = DEFAULT_WINDOW) -> dict:
    """One design over one session: a row of figures (see format_table).

    `limits` overrides CompactionConfig fields (tests use tiny ones);
    `summarize(messages) -> str` stands in for the summary model; `window` is the
    model's, in tokens: a request over it counts as refused.
    """
    config = _config(design, limits)
    ledger = cost.CostLedger()

    def summarizer(messages):
        text = summarize(messages)
        ledger.add_summary(summary_input(messages, config.summary_input_char_limit), text)
        return text

    with tempfile.TemporaryDirectory(prefix="compact-bench-", dir=root) as folder:
        compactor = ContextCompactor(folder, summarizer, config, new_id=seeded_ids())
        run = _drive(session, _step(design, compactor), ledger, window)
        originals = session.outputs()
        lost = cost.lost_outputs(originals, run["final"], compactor.store)
        files = len(compactor.store.written)
    timed = design != "none"
    return {
        "session": session.kind, "turns": len(session.turns), "design": design,
        "model_calls": len(session.turns) + ledger.summary_calls,
        "summary_calls": ledger.summary_calls, "refused": run["refused"],
        "tokens_in": ledger.input_tokens_sent, "tokens_out": ledger.total["output_tokens"],
        "cache_read": ledger.total["cache_read_input_tokens"], "cost": round(ledger.cost, 1),
        "largest": ledger.largest, "largest_tokens": ledger.largest_tokens,
        "outputs": len(originals), "lost": len(lost), "lost_ids": lost, "files": files,
        "misses": run["misses"], "references": sum(t.refers_to is not None for t in session.turns),
        "median_ms": statistics.median(run["timings"]) if timed else None,
        "worst_ms": max(run["timings"]) if timed else None,
        "median_new_chars": statistics.median(run["news"]), "growth": None,
        "prepare_ms": run["timings"] if timed else [], "request_chars": run["sizes"],
        "limit": config.context_char_limit,
    }


def add_growth(rows: list[dict]) -> list[dict]:
    """Set `growth` on each row against the shortest run of its session, seed and design."""
    groups: dict[tuple, list] = {}
    for row in rows:
        groups.setdefault((row["session"], row.get("seed", 0), row["design"]), []).append(row)
    for group in groups.values():
        base = min(group, key=lambda r: r["turns"])
        for row in group:
            if row["turns"] == base["turns"] or not row["median_ms"] or not base["median_ms"]:
                continue
            time_ratio = row["median_ms"] / base["median_ms"]
            content_ratio = row["median_new_chars"] / base["median_new_chars"]
            row["growth"] = round(time_ratio / content_ratio, 2)
    return rows


def run_bench(turns=TURNS, sessions=KINDS, designs=DESIGNS, seed: int = 0,
              limits: dict | None = None, root=None, seeds=None) -> list[dict]:
    """Every design over every session at every length, for `seed` (or each of `seeds`):
    one row each; the runs' scratch folders go in `root` (default: the temporary folder)."""
    rows = []
    for number in (seed,) if seeds is None else seeds:
        for kind in sessions:
            longest = make_session(kind, max(turns), number)
            for count in sorted(turns):
                # The first `count` turns: the same text as make_session(kind, count, number).
                session = replace(longest, turns=longest.turns[:count])
                for design in designs:
                    row = run_session(session, design, limits=limits, root=root)
                    rows.append({**row, "seed": number})
    return add_growth(rows)


# -- across seeds ----------------------------------------------------------------

def across_seeds(rows: list[dict]) -> list[dict]:
    """One row per (session, turns, design): mean and worst over the seeds of cost, of
    cost / the seed profile's on the same session, and of misses; the most lost and
    summaries of any seed; and whether it missed no more than the seed profile on
    every seed."""
    by_run = {(r["session"], r["turns"], r["seed"], r["design"]): r for r in rows}
    out = []
    for key in dict.fromkeys((r["session"], r["turns"], r["design"]) for r in rows):
        session, turns, design = key
        mine = [r for r in rows if (r["session"], r["turns"], r["design"]) == key]
        seeds = [by_run.get((session, turns, r["seed"], "seed")) for r in mine]
        ratios = [r["cost"] / s["cost"] for r, s in zip(mine, seeds) if s and s["cost"]]
        out.append({
            "session": session, "turns": turns, "design": design, "seeds": len(mine),
            "cost_mean": statistics.mean(r["cost"] for r in mine),
            "cost_worst": max(r["cost"] for r in mine),
            "ratio_mean": statistics.mean(ratios) if ratios else None,
            "ratio_worst": max(ratios) if ratios else None,
            "misses_mean": statistics.mean(r["misses"] for r in mine),
            "misses_worst": max(r["misses"] for r in mine),
            "misses_le_seed": all(s is not None and r["misses"] <= s["misses"] for r, s in zip(mine, seeds)),
            "lost_worst": max(r["lost"] for r in mine),
            "summaries_worst": max(r["summary_calls"] for r in mine),
        })
    return out


# The columns that name a run, first in both tables: header, width, how to show a row.
KEY_COLUMNS = (
    ("session", 10, lambda r: r["session"]),
    ("turns", 5, lambda r: r["turns"]),
    ("design", 7, lambda r: r["design"]),
)

SEED_COLUMNS = (  # header, width, how to show an across-seeds row
    *KEY_COLUMNS,
    ("seeds", 5, lambda r: r["seeds"]),
    ("cost k mean", 11, lambda r: f"{r['cost_mean'] / 1000:,.0f}"),
    ("worst", 7, lambda r: f"{r['cost_worst'] / 1000:,.0f}"),
    ("x seed mean", 11, lambda r: "-" if r["ratio_mean"] is None else f"{r['ratio_mean']:.2f}"),
    ("worst", 5, lambda r: "-" if r["ratio_worst"] is None else f"{r['ratio_worst']:.2f}"),
    ("misses mean", 11, lambda r: f"{r['misses_mean']:.1f}"),
    ("worst", 5, lambda r: r["misses_worst"]),
    ("lost max", 8, lambda r: r["lost_worst"]),
    ("summ max", 8, lambda r: r["summaries_worst"]),
)


def format_seeds(summary: list[dict]) -> str:
    """The across-seeds rows as a fixed-width table, a blank line between (session, turns)."""
    return _table(summary, list(SEED_COLUMNS))


def acceptance(rows: list[dict]) -> list[str]:
    """Issue 20's acceptance, line by line, from rows over several seeds: on tool-heavy and
    Chinese sessions the default's mean cost <= 0.5 x the seed profile's and its worst
    <= 0.6 x, 0 lost, at most one summary per 120 turns, no more misses than the seed
    profile on any seed; on chat-heavy, no dearer than summary-only on any seed."""
    by_run = {(r["session"], r["turns"], r["seed"], r["design"]): r for r in rows}
    lines = []
    for row in across_seeds(rows):
        if row["design"] != "default":
            continue
        session, turns = row["session"], row["turns"]
        if session == "chat-heavy":
            pairs = [(r, by_run.get((session, turns, r["seed"], "summary")))
                     for r in rows if (r["session"], r["turns"], r["design"]) == (session, turns, "default")]
            cheaper = all(s is not None and r["cost"] <= s["cost"] for r, s in pairs)
            lines.append(f"{session} {turns} turns, {row['seeds']} seeds: default costs no more "
                         f"than summary-only on every seed ({_yes(cheaper)})")
            continue
        if row["ratio_mean"] is None:
            continue
        allowed = max(1, turns // 120)
        lines.append(
            f"{session} {turns} turns, {row['seeds']} seeds: default cost x seed mean "
            f"{row['ratio_mean']:.2f} <= 0.5 ({_yes(row['ratio_mean'] <= 0.5)}), worst "
            f"{row['ratio_worst']:.2f} <= 0.6 ({_yes(row['ratio_worst'] <= 0.6)}), lost "
            f"{row['lost_worst']} ({_yes(row['lost_worst'] == 0)}), summaries {row['summaries_worst']} "
            f"<= {allowed} ({_yes(row['summaries_worst'] <= allowed)}), misses <= seed on every "
            f"seed ({_yes(row['misses_le_seed'])})")
    return lines


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"


# -- the table -----------------------------------------------------------------

COLUMNS = (  # header, width, how to show a row
    *KEY_COLUMNS,
    ("calls", 5, lambda r: r["model_calls"]),
    ("summ", 4, lambda r: r["summary_calls"]),
    ("refused", 7, lambda r: r["refused"]),
    ("in ktok", 7, lambda r: f"{r['tokens_in'] / 1000:,.0f}"),
    ("read", 4, lambda r: f"{r['cache_read'] / max(r['tokens_in'], 1):.0%}"),
    ("out ktok", 8, lambda r: f"{r['tokens_out'] / 1000:,.0f}"),
    ("cost k", 7, lambda r: f"{r['cost'] / 1000:,.0f}"),
    ("max kch", 7, lambda r: f"{r['largest'] / 1000:.1f}"),
    ("max ktok", 8, lambda r: f"{r['largest_tokens'] / 1000:.1f}"),
    ("lost", 7, lambda r: f"{r['lost']}/{r['outputs']}"),
    ("missed", 6, lambda r: f"{r['misses']}/{r['references']}"),
    ("files", 5, lambda r: r["files"]),
    ("med ms", 6, lambda r: "-" if r["median_ms"] is None else f"{r['median_ms']:.2f}"),
    ("max ms", 6, lambda r: "-" if r["worst_ms"] is None else f"{r['worst_ms']:.1f}"),
    ("growth", 6, lambda r: "-" if r["growth"] is None else f"{r['growth']:.2f}"),
)

LEGEND = """\
calls: model calls (turns + summaries); summ: summary calls; refused: requests over the
window ({window:,d} tokens); in ktok: thousands of input tokens sent (requests + summary
input); read: the share of them read from the prompt cache; out ktok: thousands of output
tokens (replies + summaries); cost k: thousands of base input tokens' price (input {input:g},
cache write {write:g}, cache read {read:g}, output {output:g} each); max kch / max ktok: largest
request, thousands of characters / tokens; lost: tool outputs not readable verbatim from
context or disk / all outputs; missed: calls whose needed earlier output was not whole in
the request sent / calls that needed one; files: files written;
med/max ms: prepare time per call; growth: per-call time ratio / new-content ratio between
the shortest and this length (about 1: no quadratic loop)."""


SEED_LEGEND = """\
cost k mean / worst: the bill over the seeds (as cost k above), in thousands; x seed: that
cost over the seed profile's on the same session (mean, worst); misses: calls whose needed
earlier output was not whole in the request sent; lost max / summ max: the most of any seed."""


def legend() -> str:
    """LEGEND with the window and the rates filled in."""
    return LEGEND.format(window=DEFAULT_WINDOW, input=cost.INPUT_RATE, write=cost.CACHE_WRITE_RATE,
                         read=cost.CACHE_READ_RATE, output=cost.OUTPUT_RATE)


TIMING_COLUMNS = ("med ms", "max ms", "growth")
# The columns that are the same on every machine: what a notebook can store.
STABLE_COLUMNS = tuple(name for name, _, _ in COLUMNS if name not in TIMING_COLUMNS)


def _columns(names) -> list:
    if names is None:
        return list(COLUMNS)
    known = {column[0]: column for column in COLUMNS}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"unknown column {unknown[0]!r}: use any of {', '.join(known)}")
    return [known[name] for name in names]


def format_table(rows: list[dict], columns=None) -> str:
    """A fixed-width table, one line per row, a blank line between (session, turns) groups.

    `columns` names the columns to show, in order (headers of COLUMNS, e.g.
    STABLE_COLUMNS); None shows them all.
    """
    return _table(rows, _columns(columns))


def _table(rows: list[dict], chosen: list) -> str:
    rows_shown, previous = [], None
    for row in rows:
        key = (row["session"], row["turns"])
        if previous is not None and key != previous:
            rows_shown.append("")
        previous = key
        rows_shown.append(tuple(show(row) for _, _, show in chosen))
    # A column is as wide as its longest cell (the server designs' names are long).
    widths = [max([width, *(len(str(r[k])) for r in rows_shown if not isinstance(r, str))])
              for k, (_, width, _) in enumerate(chosen)]
    header = fixed_width([tuple(name for name, _, _ in chosen)], widths, ">", "  ")[0]
    return "\n".join([header, "-" * len(header), *fixed_width(rows_shown, widths, ">", "  ")])


# -- the chart -------------------------------------------------------------------

def _words(key: str, **values) -> str:
    """A chart word in the notebook's language (compact.display.chart_text)."""
    return words(key, **values)


def _fonts() -> None:
    # Before the Figure: an axes' title and labels take their font when the axes is made.
    # Imported here: the benchmark's numbers never load matplotlib.
    from ..display.fonts import use_cjk_fallback
    use_cjk_fallback()


def _grouped_bars(ax, rows, field, designs, sessions, label=str):
    width = 0.8 / len(designs)
    for k, design in enumerate(designs):
        values = [next((r[field] for r in rows if r["session"] == s and r["design"] == design), 0)
                  for s in sessions]
        xs = [i + (k - (len(designs) - 1) / 2) * width for i in range(len(sessions))]
        bars = ax.bar(xs, values, width, color=COLOURS[design], label=design)
        ax.bar_label(bars, labels=[label(v) for v in values], fontsize=7, padding=1)
    ax.set_xticks(range(len(sessions)), sessions)
    ax.set_xlabel(_words("session"))
    ax.margins(y=0.15)


def _rolling_median(values, window=15):
    return [statistics.median(values[max(0, i - window + 1):i + 1]) for i in range(len(values))]


def bench_chart(rows: list[dict], timings: bool = True) -> Figure:
    """Cost, lost outputs, summary calls and misses per design at the longest runs of the
    first seed; along the longest run of the first session, the prepare time per call
    (timings=True) or, the same on every machine, the size of each request; and, over
    every seed in `rows`, each design's cost over the seed profile's, mean and worst.
    Its words are in the notebook's language (compact/course/chart_text.py)."""
    longest = max(r["turns"] for r in rows)
    first_seed = rows[0].get("seed", 0)
    every_seed = [r for r in rows if r["turns"] == longest]
    last = [r for r in every_seed if r.get("seed", 0) == first_seed]
    sessions = list(dict.fromkeys(r["session"] for r in last))
    designs = [d for d in DESIGN_TABLE if any(r["design"] == d for r in last)]
    _fonts()
    fig = Figure(figsize=(13, 13), layout="constrained")
    (cost_ax, lost_ax), (summary_ax, along_ax), (misses_ax, ratio_ax) = fig.subplots(3, 2)
    fig.suptitle(_words("bench title", turns=longest, count=len(designs)))

    _grouped_bars(cost_ax, last, "cost", designs, sessions, label=lambda v: f"{v / 1e6:.1f}M")
    # `none` costs ten times the rest: a log scale keeps the others readable.
    cost_ax.set_yscale("log")
    cost_ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
    cost_ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1e6:g}M"))
    cost_ax.yaxis.set_minor_formatter(NullFormatter())
    cost_ax.set_title(_words("cost title"))
    cost_ax.set_ylabel(_words("cost label"))

    _grouped_bars(lost_ax, last, "lost", designs, sessions)
    lost_ax.set_title(_words("lost title"))
    lost_ax.set_ylabel(_words("lost label"))

    _grouped_bars(summary_ax, last, "summary_calls", designs, sessions)
    summary_ax.set_title(_words("summaries title"))
    summary_ax.set_ylabel(_words("summaries label"))

    _grouped_bars(misses_ax, last, "misses", designs, sessions)
    misses_ax.set_title(_words("misses title"))
    misses_ax.set_ylabel(_words("misses label"))

    _ratio_panel(ratio_ax, across_seeds(every_seed), designs, sessions)

    runs = [next((r for r in last if r["session"] == sessions[0] and r["design"] == d), None)
            for d in designs]
    if timings:
        _time_panel(along_ax, [r for r in runs if r], sessions[0])
    else:
        _size_panel(along_ax, [r for r in runs if r], sessions[0])
    fig.legend(*cost_ax.get_legend_handles_labels(), loc="outside lower center",
               ncols=len(designs), title=_words("design"))
    return fig


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
    ax.set_title(_words("ratio title", seeds=seeds))
    ax.set_ylabel(_words("ratio label"))


def _time_panel(ax, runs: list[dict], session: str) -> None:
    for row in runs:
        if not row["prepare_ms"]:
            continue
        growth = "" if row["growth"] is None else f" (growth {row['growth']:.2f})"
        ax.plot(range(1, len(row["prepare_ms"]) + 1), _rolling_median(row["prepare_ms"]),
                color=COLOURS[row["design"]], label=f"{row['design']}{growth}")
    ax.set_title(_words("time title", session=session))
    ax.set_xlabel(_words("model call (turn)"))
    ax.set_ylabel(_words("milliseconds"))
    # Room above the lines for the legend.
    ax.set_ylim(0, ax.get_ylim()[1] * 1.3)
    ax.legend(title=_words("design"), fontsize=8, loc="upper left", ncols=3)


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
    ax.set_title(_words("size title", session=session))
    ax.set_xlabel(_words("model call (turn)"))
    ax.set_ylabel(_words("characters sent"))
    ax.legend(fontsize=8, loc="upper left", ncols=4)


# -- the command -----------------------------------------------------------------

def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not positive")
    return value


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


def _remove_all(folder: Path) -> None:
    """rmtree that a Ctrl-C cannot cut short: the interrupt is raised once it is done."""
    interrupted = None
    for _ in range(3):
        try:
            shutil.rmtree(folder, ignore_errors=True)
            break
        except KeyboardInterrupt as error:
            interrupted = error
    if interrupted is not None:
        raise interrupted


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compact bench",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"short sessions ({QUICK_TURNS[0]} and {QUICK_TURNS[1]} turns)")
    parser.add_argument("--turns", type=positive_int, nargs="+",
                        help=f"session lengths (default {TURNS})")
    parser.add_argument("--sessions", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--designs", nargs="+", choices=DESIGN_TABLE, default=list(DESIGN_TABLE))
    parser.add_argument("--seed", type=int, default=0, help="the first session seed (default 0)")
    parser.add_argument("--seeds", type=positive_int,
                        help=f"how many seeds from --seed on (default {SEEDS}; --quick: 1)")
    parser.add_argument("--chart", metavar="FILE", help="also write the chart to this PNG")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    turns = tuple(args.turns or (QUICK_TURNS if args.quick else TURNS))
    if args.chart and (problem := chart_path_problem(args.chart)):
        parser.error(f"argument --chart: {problem}")
    # One folder holds every run's scratch folder and goes whatever happens, even when
    # Ctrl-C lands between a folder's creation and its `with`, or inside its removal.
    scratch = Path(tempfile.gettempdir()) / f"compact-bench-{os.getpid()}-{time.time_ns()}"
    try:
        scratch.mkdir()
        count = args.seeds or (1 if args.quick else SEEDS)
        rows = run_bench(turns, args.sessions, args.designs, root=scratch,
                         seeds=range(args.seed, args.seed + count))
    finally:
        _remove_all(scratch)
    first = [r for r in rows if r["seed"] == args.seed]
    print(f"seed {args.seed}:")
    print(format_table(first))
    print()
    print(legend())
    print(f"\nover {count} seeds ({args.seed}..{args.seed + count - 1}): mean and worst of each design")
    print(format_seeds(across_seeds(rows)))
    print("\n" + SEED_LEGEND)
    checked = acceptance(rows)
    if checked:
        print()
        print("\n".join(checked))
    if args.chart:
        figure = bench_chart(rows)
        save_chart(figure, args.chart, dpi=110)
        print(f"\nchart written to {args.chart}")
    return 0
