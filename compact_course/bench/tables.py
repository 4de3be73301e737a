"""The benchmark's tables: fixed-width text from the driver's rows, and their legends.

    COLUMNS        one row per run (`benchmark.run_bench`): `format_table`
    SEED_COLUMNS   one row per design over the seeds (`stats.across_seeds`): `format_seeds`

Each column is (header, width, how to show a row); a new figure is one more row
of a table here (and one more field in the driver's row). `STABLE_COLUMNS` are
the ones that read the same on every machine: what a notebook can store.

Left out: any other format (CSV, markdown); the rows are plain dicts for that.
"""

from ..display.text import fixed_width
from ..offline.tokens import DEFAULT_WINDOW
from .prices import DEFAULT_MODEL, price, rates

# The columns that name a run, first in both tables: header, width, how to show a row.
KEY_COLUMNS = (
    ("model", 5, lambda r: short_model(r.get("priced_as") or DEFAULT_MODEL)),
    ("session", 10, lambda r: r["session"]),
    ("turns", 5, lambda r: r["turns"]),
    ("design", 7, lambda r: r["design"]),
    ("ttl", 5, lambda r: r.get("ttl", "5m")),
    ("clock", 5, lambda r: r.get("clock", "bench")),
)

SEED_COLUMNS = (  # header, width, how to show an across-seeds row
    *KEY_COLUMNS,
    ("seeds", 5, lambda r: r["seeds"]),
    ("cost k mean", 11, lambda r: f"{r['cost_mean'] / 1000:,.0f}"),
    ("worst", 7, lambda r: f"{r['cost_worst'] / 1000:,.0f}"),
    ("x seed mean", 11, lambda r: "-" if r["ratio_mean"] is None else f"{r['ratio_mean']:.2f}"),
    ("worst", 5, lambda r: "-" if r["ratio_worst"] is None else f"{r['ratio_worst']:.2f}"),
    ("no pauses mean", 14, lambda r: f"{r['calm_mean'] / 1000:,.0f}"),
    ("worst", 5, lambda r: f"{r['calm_worst'] / 1000:,.0f}"),
    ("x default mean", 14, lambda r: "-" if r["default_mean"] is None else f"{r['default_mean']:.3f}"),
    ("worst", 5, lambda r: "-" if r["default_worst"] is None else f"{r['default_worst']:.3f}"),
    ("+misses k mean", 14, lambda r: f"{r['repaid_mean'] / 1000:,.0f}"),
    ("x seed", 6, lambda r: _ratio(r["priced_ratio_mean"])),
    ("worst", 5, lambda r: _ratio(r["priced_ratio_worst"])),
    ("x oracle", 8, lambda r: _ratio(r["oracle_mean"])),
    ("worst", 5, lambda r: _ratio(r["oracle_worst"])),
    ("misses mean", 11, lambda r: f"{r['misses_mean']:.1f}"),
    ("worst", 5, lambda r: r["misses_worst"]),
    ("total", 5, lambda r: r["misses_total"]),
    ("lost max", 8, lambda r: r["lost_worst"]),
    ("summ max", 8, lambda r: r["summaries_worst"]),
)


def _ratio(value, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def short_model(model: str) -> str:
    """A model id as the tables show it: claude-sonnet-5-5 is sonnet-5-5."""
    return model.removeprefix("claude-")


def format_seeds(summary: list[dict]) -> str:
    """The across-seeds rows as a fixed-width table, a blank line between (model, session, turns)."""
    return _table(summary, list(SEED_COLUMNS))


OVER_COLUMNS = (  # header, width, how to show an over-sessions row (stats.over_sessions)
    ("model", 5, lambda r: short_model(r.get("priced_as") or DEFAULT_MODEL)),
    ("clock", 5, lambda r: r["clock"]),
    ("design", 7, lambda r: r["design"]),
    ("ttl", 5, lambda r: r["ttl"]),
    ("runs", 4, lambda r: r["runs"]),
    ("+misses x seed mean", 19, lambda r: _ratio(r["priced_ratio_mean"], 3)),
    ("worst", 5, lambda r: _ratio(r["priced_ratio_worst"], 3)),
    ("x oracle mean, by kind", 22, lambda r: " / ".join(
        f"{kind} {_ratio(value)}" for kind, value in r["oracle_by_kind"].items())),
    ("misses total", 12, lambda r: r["misses_total"]),
    ("<= seed each run", 16, lambda r: "yes" if r["misses_le_seed"] else "no"),
)

OVER_LEGEND = """\
over every session, length and seed above, one row per model, clock, design and breakpoint
rule: +misses x seed, the bill with misses priced over the seed profile's (its 5-minute
breakpoint) on the same session and clock (mean, worst); x oracle, the same bill over the
oracle's (under the same rule), the mean for each session kind; misses total; <= seed each
run: whether it missed no more than the seed profile on every run."""


def format_over(summary: list[dict]) -> str:
    """The over-sessions rows (`stats.over_sessions`), a blank line between models and clocks."""
    rows_shown, previous = [], None
    for row in summary:
        if previous is not None and (row["priced_as"], row["clock"]) != previous:
            rows_shown.append("")
        previous = (row["priced_as"], row["clock"])
        rows_shown.append(tuple(show(row) for _, _, show in OVER_COLUMNS))
    widths = [max([width, *(len(str(r[k])) for r in rows_shown if not isinstance(r, str))])
              for k, (_, width, _) in enumerate(OVER_COLUMNS)]
    header = fixed_width([tuple(name for name, _, _ in OVER_COLUMNS)], widths, ">", "  ")[0]
    return "\n".join([header, "-" * len(header), *fixed_width(rows_shown, widths, ">", "  ")])


COLUMNS = (  # header, width, how to show a row
    *KEY_COLUMNS,
    ("calls", 5, lambda r: r["model_calls"]),
    ("summ", 4, lambda r: r["summary_calls"]),
    ("refused", 7, lambda r: r["refused"]),
    ("in ktok", 7, lambda r: f"{r['tokens_in'] / 1000:,.0f}"),
    ("read", 4, lambda r: f"{r['cache_read'] / max(r['tokens_in'], 1):.0%}"),
    ("out ktok", 8, lambda r: f"{r['tokens_out'] / 1000:,.0f}"),
    ("cost k", 7, lambda r: f"{r['cost'] / 1000:,.0f}"),
    ("+misses k", 9, lambda r: f"{r['cost_repaid'] / 1000:,.0f}"),
    ("x oracle", 8, lambda r: _ratio(r.get("x_oracle"))),
    ("no pauses", 9, lambda r: f"{r['cost_no_pauses'] / 1000:,.0f}"),
    ("cold", 4, lambda r: r["cold_calls"]),
    ("forgot", 7, lambda r: f"{r['forgotten']}/{r['probes']}" if "forgotten" in r else "-"),
    ("max kch", 7, lambda r: f"{r['largest'] / 1000:.1f}"),
    ("max ktok", 8, lambda r: f"{r['largest_tokens'] / 1000:.1f}"),
    ("lost", 7, lambda r: f"{r['lost']}/{r['outputs']}"),
    ("missed", 6, lambda r: f"{r['misses']}/{r['references']}"),
    ("thinking", 8, lambda r: "-" if r.get("thinking_invalid") is None
     else f"{r['thinking_invalid']}/{r['turns']}"),
    ("files", 5, lambda r: r["files"]),
    ("med ms", 6, lambda r: "-" if r["median_ms"] is None else f"{r['median_ms']:.2f}"),
    ("max ms", 6, lambda r: "-" if r["worst_ms"] is None else f"{r['worst_ms']:.1f}"),
    ("growth", 6, lambda r: "-" if r["growth"] is None else f"{r['growth']:.2f}"),
)

LEGEND = """\
model: the model billed (compact_course.bench.prices); ttl: where the requests' cache breakpoints
go and how long each lives (compact_course.agent.breakpoints: 5m, one 5-minute breakpoint on the
last block; 1h, one 1-hour; 1h-prefix, 1 hour on the latest message the user typed and 5
minutes on the last block; 1h-after-pause, 5m until a gap over 5 minutes, then 1h; adaptive,
1h-prefix until a tool result came back over 5 minutes after its call, then 1h); clock:
when the calls are sent (compact_course.bench.simulated.CLOCKS: bench, the user's pauses mostly
short; pauses, every user pause 6-10 minutes; cold, every call 6-10 minutes after the one
before); calls: model calls (turns + summaries);
summ: summary calls; refused: requests over the window ({window:,d} tokens): the API
refuses them, every figure here counts them as if it took them; in ktok:
thousands of input tokens sent (requests + summary input); read: the share of them read
from the prompt cache; out ktok: thousands of output tokens (replies + summaries); cost k:
thousands of base input tokens' price of the model billed, requests sent at their time on
the session's clock (the user's pauses in: a cache entry left over 5 minutes is gone);
+misses k: that bill with each miss priced as its re-read (a call reading the request from
the cache, the model's read_file call as output, the output's tokens written); x oracle:
+misses over the oracle's on the same session (the oracle knows which outputs will be
needed: it saves every output on arrival and has each written on the call that needs it);
no pauses: the same requests without the user's pauses; cold: calls on an expired cache that
the cache-aware switch compacted; max kch / max ktok: largest request, thousands of
characters / tokens; forgot: probes (compact_course.probes: a line of an output, a file touched,
the request, a stated step or decision, a user's instruction) that nothing sent for the
next turn, no file it names and no summary keeps / all probes (- when not probed); lost:
tool outputs not readable verbatim from context or disk / all outputs; missed: calls whose
needed earlier output was not whole in the request sent / calls that needed one; thinking
(runs with thinking on, else -): thinking blocks sent back behind a changed prefix (the
API's 400, or dropped) / replies; files: files written; med/max ms: prepare time per call;
growth: per-call time ratio / new-content ratio between the shortest and this length
(about 1: no quadratic loop).
{rates}"""


SEED_LEGEND = """\
cost k mean / worst: the bill over the seeds (as cost k above), in thousands; x seed: that
cost over the seed profile's on the same session (mean, worst); no pauses: the bill of the
same requests without the user's pauses; x default: cost over the default's on the same
session (for default+cold, the cache-aware switch's effect); +misses k mean: the bill with
misses priced; its x seed (mean, worst) and x oracle (mean, worst) on the same session;
misses: calls whose needed earlier output was not whole in the request sent (mean, worst,
total over the seeds); lost max / summ max: the most of any seed."""


def rates_line(model: str) -> str:
    """A model's rates in its own base input tokens, as the legend states them."""
    row, rate = price(model), rates(model)
    return (f"{short_model(model)} ({row.name}): input {rate['input_tokens']:g}, cache write "
            f"{rate['cache_write_5m']:g}, 1-hour write {rate['cache_write_1h']:g}, cache read "
            f"{rate['cache_read_input_tokens']:g}, output {rate['output_tokens']:g}, in its base input "
            f"tokens ({row.input:g} US dollars per million)")


def legend(models=(DEFAULT_MODEL,)) -> str:
    """LEGEND with the window and each billed model's rates filled in."""
    return LEGEND.format(window=DEFAULT_WINDOW, rates="\n".join(map(rates_line, models)))


TIMING_COLUMNS = ("med ms", "max ms", "growth")
# Filled when the rows were probed (run_bench's probe_seeds): the loss beside the cost.
PROBE_COLUMNS = ("forgot",)
# Filled when the rows ran with thinking on (run_bench's thinking): lab 06 adds it.
THINKING_COLUMNS = ("thinking",)
# The columns that are the same on every machine: what a notebook can store. A page
# that probes its runs adds PROBE_COLUMNS (lab 02 does, for seed 0).
STABLE_COLUMNS = tuple(name for name, _, _ in COLUMNS
                       if name not in (*TIMING_COLUMNS, *PROBE_COLUMNS, *THINKING_COLUMNS))


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
    STABLE_COLUMNS); None shows them all ("-" in a probe column for a row not probed).
    """
    return _table(rows, _columns(columns))


# Columns shown only when some row differs from their value here: the breakpoint rule and
# the clock of a bench run with one of each are said once, above its tables (`cli`).
UNLESS_ALL = {"ttl": "5m", "clock": "bench"}


def _table(rows: list[dict], chosen: list) -> str:
    chosen = [column for column in chosen if column[0] not in UNLESS_ALL
              or any(column[2](row) != UNLESS_ALL[column[0]] for row in rows)]
    rows_shown, previous = [], None
    for row in rows:
        key = (row.get("priced_as"), row["session"], row["turns"], row.get("clock"))
        if previous is not None and key != previous:
            rows_shown.append("")
        previous = key
        rows_shown.append(tuple(show(row) for _, _, show in chosen))
    # A column is as wide as its longest cell (the server designs' names are long).
    widths = [max([width, *(len(str(r[k])) for r in rows_shown if not isinstance(r, str))])
              for k, (_, width, _) in enumerate(chosen)]
    header = fixed_width([tuple(name for name, _, _ in chosen)], widths, ">", "  ")[0]
    return "\n".join([header, "-" * len(header), *fixed_width(rows_shown, widths, ">", "  ")])

