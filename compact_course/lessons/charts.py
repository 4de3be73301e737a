"""Charts of what the pipeline did: pure functions from a record to a matplotlib Figure.

    before_after(records, limit=None)     characters before and after each step (and a window)
    timeline_chart(timeline, limit=None)  context size at every model call, where steps fired
    message_map(before, after)            one cell per message: what it is, what became of it
    result_bars(labels, before, after, kinds)  each tool result's characters before and after a step
    growth_chart(grown, sent, limit, ...) a session with and without compaction, and the window

Each function builds a `matplotlib.figure.Figure` directly, never through
pyplot, so it does not depend on (or change) the backend a notebook chose, and
it leaves no global figure behind; `fig.savefig("x.png")` renders with Agg.
The data drawn can be read back from the figure (bar widths in
`ax.containers`, line data in `ax.lines`, cell colours in `ax.patches`), which
is what the tests check. Colours come from `compact_course.display.palette` (Okabe-Ito),
the one palette of every chart, which stays distinguishable for the common
kinds of colour blindness.

matplotlib is imported by the function that draws, not with the module: a notebook's
import cell stays light, and only a chart pays for matplotlib (about half a second).

Left out on purpose: anything interactive (see widgets.py) and any styling
that needs a font or a style sheet the notebook may not have.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from context_compact import formats
from context_compact.messages import text_of, to_plain, tool_results, tool_uses
from context_compact.steps import ON_REFUSAL, STEPS

from ..display import palette
from ..display.chart_text import CHART_TEXT, words
from ..display.chart_text import title as _title
from ..display.fonts import use_cjk_fallback
from ..display.palette import BLACK, BLUE, DARK_GREY, GREEN, GREY, ORANGE, PURPLE, SKY, VERMILLION, YELLOW

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# One colour a step (compact_course/display/palette.py), in the order of the pipeline's list of steps.
STEP_COLOURS = {step.name: palette.step_colour(step.name) for step in STEPS}
STEP_ORDER = list(STEP_COLOURS)

CATEGORY_COLOURS = {
    "user text": YELLOW,
    "assistant": SKY,
    "whole": BLUE,
    "persisted": ORANGE,
    "placeholder": GREEN,
    "omitted": VERMILLION,
    "archived": GREY,
    # The marker that replaced them, drawn apart: grey would call it archived too (issue 52).
    "archive marker": BLACK,
    "summary": PURPLE,
}
# What each category means, in English; the legend asks chart_text.words(category).
CATEGORY_MEANING = {name: CHART_TEXT["en"][name] for name in CATEGORY_COLOURS}
BEFORE_COLOUR, AFTER_COLOUR, LIMIT_COLOUR = GREY, BLUE, BLACK


def close(figure: Figure) -> None:
    """Free a figure's memory (there is no pyplot state to clean up)."""
    figure.clear()


def _thousands(value, _position=None) -> str:
    return f"{int(value):,d}"


# --------------------------------------------------------------------------
# Characters before and after each step
# --------------------------------------------------------------------------

def _step_labels(records) -> list:
    # Call 0 is a step run on its own before any prepare (07: the compact tool's summary,
    # after the batch): "call 0" would name a model call that never was (issue 52).
    several_calls = len({r.call for r in records}) > 1
    return [r.step if not several_calls else words("step at call", step=r.step, call=r.call)
            if r.call else words("step before call 1", step=r.step) for r in records]


def before_after(records, limit: int | None = None, title: str | None = None,
                 window_chars: float | None = None, window_tokens: int | None = None) -> Figure:
    """Grouped horizontal bars: characters before and after each step, in order, top down.

    `ax.containers[0]` holds the 'before' bars and `ax.containers[1]` the
    'after' bars, one per record, their widths the character counts. Each bar's
    value is written after it, or inside its end when the limit line would
    run through the label. With `window_chars`, a dotted line marks the model's
    window of `window_tokens` tokens in characters (06: the API counts tokens).
    """
    from matplotlib.figure import Figure

    use_cjk_fallback()  # each chart sets its fonts before it makes a Figure (fonts.py)
    records = list(records)
    rows = max(1, len(records))
    figure = Figure(figsize=(9.0, max(3.2, 1.5 + 0.62 * rows)), layout="constrained")
    ax = figure.add_subplot()
    positions = list(range(len(records)))
    height = 0.38
    before = [r.chars_before for r in records]
    after = [r.chars_after for r in records]
    ax.barh([p - height / 2 for p in positions], before, height=height, color=BEFORE_COLOUR,
            label=words("before the step"))
    ax.barh([p + height / 2 for p in positions], after, height=height, color=AFTER_COLOUR,
            label=words("after the step"))
    largest = max(before + after + [limit or 0, window_chars or 0, 1])
    value_labels = []
    for p, b, a in zip(positions, before, after):
        value_labels.append((ax.text(b + largest * 0.01, p - height / 2, f"{b:,d}", va="center",
                               fontsize=8), b, BEFORE_COLOUR))
        value_labels.append((ax.text(a + largest * 0.01, p + height / 2, f"{a:,d}", va="center",
                               fontsize=8), a, AFTER_COLOUR))
    if limit:
        ax.axvline(limit, color=LIMIT_COLOUR, linestyle="--", linewidth=1.5,
                   label=words("context limit", limit=limit))
    if window_chars:
        ax.axvline(window_chars, color=VERMILLION, linestyle=":", linewidth=2,
                   label=words("window tokens", tokens=window_tokens))
    ax.set_yticks(positions, _step_labels(records))
    ax.invert_yaxis()  # the first step on top, as the pipeline reads
    ax.set_xlim(0, largest * 1.2)
    ax.xaxis.set_major_formatter(_thousands)
    ax.set_xlabel(words("characters of the messages"))
    ax.set_title(_title(title) if title else words("before_after title"))
    # Bars first, then the lines, whatever order matplotlib keeps them in.
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: handles[i] in ax.lines)
    figure.legend([handles[i] for i in order], [labels[i] for i in order],
                  loc="outside lower center", ncols=max(3, len(labels)), fontsize=8, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    if not records:
        ax.text(0.5, 0.5, words("no steps ran"), transform=ax.transAxes, ha="center")
    for line in (limit, window_chars):
        if line:
            _clear_of_the_limit(figure, ax, value_labels, line, largest * 0.01)
    return figure


def _clear_of_the_limit(figure, ax, labels, limit: int, pad: float) -> None:
    """Move each value label that the limit line would cross: inside the end of its
    bar when the bar is long enough to hold it, else just right of the line.

    Sizes are only known once the layout is done, so the figure is laid out
    first (without rendering any pixels); moving a label inside the axes does
    not change the layout.
    """
    figure.draw_without_rendering()
    line_x = ax.transData.transform((limit, 0))[0]
    left_x = ax.transData.transform((0, 0))[0]
    pad_px = ax.transData.transform((pad, 0))[0] - left_x
    for text, value, colour in labels:
        box = text.get_window_extent()
        if not box.x0 - pad_px <= line_x <= box.x1 + pad_px:
            continue
        bar_end = ax.transData.transform((value, 0))[0]
        if bar_end - left_x >= box.width + 2 * pad_px:
            text.set_x(value - pad)
            text.set_horizontalalignment("right")
            text.set_color("white" if colour == AFTER_COLOUR else BLACK)
        else:
            text.set_x(limit + pad)


# --------------------------------------------------------------------------
# The timeline of a long session
# --------------------------------------------------------------------------

def result_bars(labels, before, after, kinds, title: str | None = None) -> Figure:
    """Each tool result's characters before a step (grey) and after it, coloured by its kind.

    `ax.containers[0]` holds the 'before' bars, `ax.containers[1]` the 'after' ones, top
    down in the order given; every 'after' bar has its value written beside it, so a
    one-line placeholder (30 characters) is seen, and the legend names each kind drawn.
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    use_cjk_fallback()
    figure = Figure(figsize=(8, 1.2 + 0.36 * len(labels)), layout="constrained")
    ax = figure.subplots()
    rows = range(len(labels), 0, -1)
    ax.barh(rows, before, color=GREY, height=0.8)
    # An edge in the kind's own colour: a 30-character bar beside 3,000 is still a mark.
    ax.barh(rows, after, height=0.4, color=[CATEGORY_COLOURS[k] for k in kinds],
            edgecolor=[CATEGORY_COLOURS[k] for k in kinds], linewidth=2)
    for row, size in zip(rows, after):
        ax.text(size + max(before + after, default=1) * 0.01, row, f"{size:,d}", va="center",
                fontsize=8)
    ax.set_yticks(list(rows), labels)
    ax.set_xlabel(words("characters"))
    handles = [Patch(color=GREY, label=words("before the step"))]
    handles += [Patch(color=CATEGORY_COLOURS[k], label=words(k)) for k in CATEGORY_COLOURS
                if k in kinds]
    figure.legend(handles=handles, loc="outside lower center", ncols=2, fontsize=8, frameon=False)
    if title:
        ax.set_title(_title(title))
    return figure


def _points(timeline) -> list:
    return list(getattr(timeline, "points", timeline))


def timeline_chart(timeline, limit: int | None = None, title: str | None = None) -> Figure:
    """Context size at every model call, the limit, and a strip of where each step fired.

    Top axes: `lines[0]` is the context as it arrived (before prepare),
    `lines[1]` what was sent (after prepare), one point per call; the limit is
    a dashed line. Bottom axes: one row per step, a mark at each call where
    it fired (`collections`, labelled with the step name).
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    use_cjk_fallback()
    points = _points(timeline)
    if limit is None:
        limit = getattr(timeline, "limit", None)
    profile = getattr(timeline, "profile", None)
    figure = Figure(figsize=(11.0, 6.4), layout="constrained")
    top, strip = figure.subplots(2, 1, sharex=True, height_ratios=[3.2, 1.6])
    calls = [p.call for p in points]
    arrived = [p.chars_before for p in points]
    sent = [p.chars_after for p in points]
    top.plot(calls, arrived, color=BEFORE_COLOUR, linewidth=1, marker=".", markersize=4,
             label=words("as it arrives"))
    top.plot(calls, sent, color=AFTER_COLOUR, linewidth=1.6, marker="o", markersize=3,
             label=words("sent to the model"))
    ceiling = max([(limit or 0) * 1.5, max(sent, default=0) * 1.15, 1000])
    if limit:
        top.axhline(limit, color=LIMIT_COLOUR, linestyle="--", linewidth=1.5,
                    label=words("context limit, characters", limit=limit))
    _mark_off_chart(top, calls, arrived, ceiling)
    top.set_ylim(0, ceiling)
    top.yaxis.set_major_formatter(_thousands)
    top.set_ylabel(words("characters"))
    figure.suptitle(_title(title) if title else words("timeline title")
                    + (words("profile suffix", profile=profile) if profile else ""))
    # Outside the axes: inside, it would hide the spikes it is meant to explain.
    figure.legend(loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    top.grid(alpha=0.3)
    _fired_strip(strip, points, getattr(timeline, "config", None))
    strip.set_xlabel(words("model call"))
    # Calls are whole numbers: no 1.5 on the axis when a session has three.
    strip.xaxis.set_major_locator(MaxNLocator(integer=True))
    if calls:
        strip.set_xlim(0.5, calls[-1] + 0.5)
    return figure


def growth_chart(grown, sent, limit: int, window_chars: float, window_tokens: int,
                 refused_at: int | None = None, title: str | None = None) -> Figure:
    """The context at each model call with no compaction, and as `prepare` sent it.

    `lines[0]` is the context with no compaction (`grown`, one point per call,
    calls numbered from 1); when `refused_at` is given, `lines[1]` is its
    projection (dotted) from the last call to that call, where it reaches the
    window; the next line is what was sent (`sent`). Two dashed lines mark
    the article's limit and the model's window, converted to characters.
    """
    from matplotlib.figure import Figure

    use_cjk_fallback()
    figure = Figure(figsize=(9.0, 4.5), layout="constrained")
    ax = figure.add_subplot()
    calls = list(range(1, len(grown) + 1))
    ax.plot(calls, grown, color=GREY, linewidth=2, label=words("no compaction"))
    if refused_at is not None and grown:
        ax.plot([calls[-1], refused_at], [grown[-1], window_chars], color=GREY,
                linestyle=":", linewidth=2, label=words("no compaction, projected"))
    ax.plot(calls[:len(sent)], sent, color=BLUE, linewidth=1.5, label=words("sent after prepare"))
    ax.axhline(limit, color=LIMIT_COLOUR, linestyle="--", linewidth=1,
               label=f"CONTEXT_CHAR_LIMIT ({limit:,d})")
    ax.axhline(window_chars, color=VERMILLION, linestyle="--", linewidth=1,
               label=words("window tokens", tokens=window_tokens))
    ax.set_xlabel(words("model call"))
    ax.set_ylabel(words("characters of json"))
    ax.set_ylim(bottom=0)
    ax.yaxis.set_major_formatter(_thousands)
    ax.set_title(_title(title) if title else words("growth title"))
    # Middle right: the lines run low on the left and high on the right.
    ax.legend(fontsize=8, loc="center right")
    ax.grid(alpha=0.3)
    return figure


def growth_figure(growth, limit: int, window_tokens: int, title: str | None = None) -> Figure:
    """`growth_chart` of a session's `lessons.replay.growth` (notebook 00)."""
    return growth_chart(growth.grown, growth.sent, limit, growth.window_chars(window_tokens),
                        window_tokens, refused_at=growth.refused_at, title=title)


def _mark_off_chart(ax, calls, values, ceiling) -> None:
    """Points above the ceiling: a triangle at the top edge and their value, spaced apart."""
    last_label = None
    span = max(calls, default=1)
    for call, value in zip(calls, values):
        if value <= ceiling:
            continue
        ax.plot([call], [ceiling * 0.985], marker="^", color=BEFORE_COLOUR, markersize=7,
                linestyle="none")
        if last_label is None or call - last_label > span * 0.08:
            ax.annotate(f"{value:,d}", (call, ceiling * 0.985), xytext=(6, -12),
                        textcoords="offset points", fontsize=8, color=DARK_GREY)
            last_label = call


def _fired_strip(ax, points, config=None) -> None:
    # The same rows for every profile, so two strips can be compared; the safety net only
    # gets a row when it fired, and a step the profile switches off (persist_largest in the
    # seed) none when it is known: a row no notebook before 05 explains (issue 52).
    fired = {s for p in points for s in p.fired}
    names = [s.name for s in STEPS if s.name in fired or (
        s.when != ON_REFUSAL and (config is None or s.switch is None or getattr(config, s.switch)))]
    names += sorted(fired - set(STEP_ORDER))
    for row, name in enumerate(names):
        where = [p.call for p in points if name in p.fired]
        ax.scatter(where, [row] * len(where), marker="|", s=120, linewidths=2,
                   color=STEP_COLOURS.get(name, BLACK), label=name)
    ax.set_yticks(range(len(names)), names)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_ylabel(words("step fired"))
    ax.grid(axis="x", alpha=0.3)


# --------------------------------------------------------------------------
# The message map
# --------------------------------------------------------------------------

SEVERITY = ("whole", "persisted", "placeholder", "omitted")


def _result_category(message) -> str:
    kinds = [formats.kind_of_result(text_of(b.get("content", ""))) for b in tool_results(message)]
    return max(kinds, key=SEVERITY.index)


def category(message) -> str:
    """What a message is now: user text, assistant, a tool result's state, or one of our markers."""
    if message.get("role") == "assistant":
        return "assistant"
    if tool_results(message):
        return _result_category(message)
    marker = formats.kind_of_user_text(text_of(message.get("content")))
    if marker == "archive":
        return "archive marker"
    if marker == "summary":
        return "summary"
    return "user text"


def _key(message):
    """What stays the same about a message through every step (results' text may not)."""
    if message.get("role") == "assistant":
        return ("assistant", repr(message.get("content")), tuple(b.get("id") for b in tool_uses(message)))
    ids = tuple(b.get("tool_use_id") for b in tool_results(message))
    if ids:
        return ("results", ids)
    return ("user", text_of(message.get("content")))


def classify(before, after) -> tuple[list, list]:
    """Categories of the messages before a step (what became of each) and after it (what each is).

    A message still there takes the category it has after the step (a result
    turned into a placeholder shows as a placeholder in both rows). A message
    gone is 'summary' when a summary replaced it, else 'archived'.
    """
    before, after = to_plain(before), to_plain(after)
    after_categories = [category(m) for m in after]
    gone = "summary" if "summary" in after_categories else "archived"
    keys = [_key(m) for m in after]
    fates, cursor = [], 0
    for message in before:
        key = _key(message)
        found = next((j for j in range(cursor, len(after)) if keys[j] == key), None)
        if found is None:
            fates.append(gone)
        else:
            fates.append(after_categories[found])
            cursor = found + 1
    return fates, after_categories


def message_map(before, after, title: str | None = None, columns: int = 40) -> Figure:
    """Two grids of cells, one per message: the list before (top) and after (bottom).

    Cells are `Rectangle` patches in message order, before's first: the top
    axes' `patches` are the messages before, the bottom axes' the messages
    after, each filled with its category's colour (CATEGORY_COLOURS).
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    use_cjk_fallback()
    fates, now = classify(before, after)
    rows_before = max(1, -(-len(fates) // columns))
    rows_after = max(1, -(-len(now) // columns))
    height = 2.2 + 0.42 * (rows_before + rows_after)
    figure = Figure(figsize=(11.0, height), layout="constrained")
    top, bottom = figure.subplots(2, 1, height_ratios=[rows_before + 0.6, rows_after + 0.6])
    # Every map has the same cell size, so two maps side by side compare.
    width = columns
    _cells(top, fates, columns, width, words("before: n", count=_count(len(fates))))
    _cells(bottom, now, columns, width, words("after: n", count=_count(len(now))))
    handles = [Patch(facecolor=CATEGORY_COLOURS[c], edgecolor="white", label=words(c))
               for c in CATEGORY_COLOURS]
    # Three columns of three: the last holds what became of messages no longer sent, beside the marker.
    figure.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=8,
                  frameon=False)
    figure.suptitle(_title(title) if title else words("map title"))
    return figure


def _count(n: int) -> str:
    return words("one message" if n == 1 else "messages", n=n)


def _cells(ax, categories, columns, width, label) -> None:
    from matplotlib.patches import Rectangle

    for index, name in enumerate(categories):
        row, column = divmod(index, columns)
        ax.add_patch(Rectangle((column, row), 0.92, 0.86, facecolor=CATEGORY_COLOURS[name],
                               edgecolor="white", linewidth=0.5))
    rows = max(1, -(-len(categories) // columns))
    ax.set_xlim(-0.2, width + 0.2)
    ax.set_ylim(rows + 0.1, -0.2)
    ax.set_aspect("equal")
    step = 5 if width <= 40 else 10
    ax.set_xticks([t + 0.46 for t in range(0, width, step)], [str(t) for t in range(0, width, step)])
    # Row labels give the index of the row's first message; one row needs none.
    if rows > 1:
        ax.set_yticks([r + 0.43 for r in range(rows)], [str(r * columns) for r in range(rows)])
    else:
        ax.set_yticks([])
    ax.tick_params(length=0, labelsize=7)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    ax.set_title(label, loc="left", fontsize=10)
    if not categories:
        ax.text(0.5, 0.5, words("no messages"), transform=ax.transAxes, ha="center")

