"""Lab 03's replays: one canned history through the client's and the server's designs.

`compact_course.bench.server_designs` does the work (what the client keeps, what the
model reads, call by call); this module puts the runs side by side for the
notebook: a table of totals, the effect of `clear_at_least`, and a chart of
the tokens the model reads and the share a prompt cache reads again, per call; a
design whose line lies on one drawn before it is dashed in that one's gaps and its
legend entry says so (the way of lab 05's `forgets_chart.rounds_chart`).

Left out: the HTTP round trip (the notebook's own cells send requests to the
offline server through the SDK), and any figure that depends on the machine.
"""

from matplotlib.figure import Figure

from ..bench.server_designs import COLOURS, DESIGNS, ServerSettings, replay, totals
from ..display.chart_text import words
from ..display.fonts import use_cjk_fallback
from ..display.text import fixed_width

COLUMNS = (  # header, width, figure
    ("design", 22, lambda t: t["design"]),
    ("read ktok", 9, lambda t: f"{t['tokens'] / 1000:,.0f}"),
    ("written", 8, lambda t: f"{t['written'] / 1000:,.0f}"),
    ("cost k", 6, lambda t: f"{t['cost'] / 1000:,.0f}"),
    ("breaks", 6, lambda t: t["breaks"]),
    ("summ", 4, lambda t: t["summary_calls"]),
    ("max ktok", 8, lambda t: f"{t['largest'] / 1000:.1f}"),
    ("lost", 7, lambda t: f"{t['lost']}/{t['outputs']}"),
)


def replay_designs(messages, settings: ServerSettings, designs=tuple(DESIGNS)) -> dict:
    """{design: its replay} over the same history."""
    return {design: replay(messages, design, settings) for design in designs}


def totals_table(rows: list[dict]) -> str:
    """A fixed-width table of `totals` rows, each with its "design" (or any label) set."""
    widths = [width for _, width, _ in COLUMNS]
    header = fixed_width([tuple(name for name, _, _ in COLUMNS)], widths, ">", "  ")[0]
    lines = fixed_width([tuple(show(row) for _, _, show in COLUMNS) for row in rows], widths, ">", "  ")
    return "\n".join([header, "-" * len(header), *lines])


def design_totals(runs: dict) -> list[dict]:
    return [{"design": design, **totals(run)} for design, run in runs.items()]


def clear_at_least_rows(messages, trigger: int, values) -> list[dict]:
    """server-clear at one trigger with each clear_at_least: a totals row each."""
    rows = []
    for value in values:
        edit = {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": trigger},
                "clear_at_least": {"type": "input_tokens", "value": value}}
        run = replay(messages, "server-clear", ServerSettings(clear=edit))
        rows.append({"design": f"clear_at_least {value:,d}", **totals(run)})
    return rows


def replay_chart(runs: dict, name: str, trigger: int | None = None) -> Figure:
    """Top: tokens the model reads at each call; bottom: the share of it a prompt cache
    reads again (the leading messages identical to the previous request)."""
    use_cjk_fallback()
    fig = Figure(figsize=(11, 7.5), layout="constrained")
    size_ax, cache_ax = fig.subplots(2, 1, sharex=True)
    drawn: dict[tuple, str] = {}   # a design's points (both panels) -> the design drawn on them
    for design, run in runs.items():
        calls = run["calls"]
        xs = [c["call"] for c in calls]
        sizes = [c["tokens"] for c in calls]
        shares = [c["cached"] / c["tokens"] if c["tokens"] else 0 for c in calls]
        under = drawn.setdefault((tuple(xs), tuple(sizes), tuple(shares)), design)
        # A line on the points of one drawn before it would hide it: dash it in that
        # one's gaps, and say in its legend entry which line it lies on.
        style = {"linestyle": (4, (4, 4))} if under != design else {}
        label = design if under == design else words("server same", design=design, other=under)
        size_ax.plot(xs, sizes, color=COLOURS[design], label=label, linewidth=1.4, **style)
        cache_ax.plot(xs, shares, color=COLOURS[design], label=label, linewidth=1.2, **style)
    if trigger:
        size_ax.axhline(trigger, color="black", linestyle="--", linewidth=1,
                        label=words("server trigger", value=trigger))
    size_ax.set_title(words("server replay title", name=name))
    size_ax.set_ylabel(words("tokens read"))
    size_ax.yaxis.set_major_formatter(lambda v, _: f"{v:,.0f}")
    size_ax.legend(fontsize=8, loc="upper left", ncols=3)
    cache_ax.set_ylabel(words("cache share"))
    cache_ax.set_ylim(-0.05, 1.05)
    cache_ax.set_xlabel(words("model call"))
    return fig
