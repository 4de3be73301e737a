"""Charts: the data drawn is the data recorded (bar widths, points, cell colours), the
figures are labelled, and no two texts overlap once rendered.

Nothing here compares pixels: the tests read the artists back from the figure.
"""

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.text import Text

from compact_course.lessons import charts
from compact_course.lessons.replay import replay, timeline
from compact_course.sessions.histories import load_history
from context_compact.record import StepRecord
from tests.helpers import ARTICLE_STEPS, IN_PREPARE


def texts_overlap(figure) -> list:
    """Pairs of visible, non-empty texts whose rendered boxes intersect."""
    canvas = FigureCanvasAgg(figure)     # what savefig("x.png") renders with
    canvas.draw()
    renderer = canvas.get_renderer()
    boxes, seen = [], set()
    for text in figure.findobj(Text):
        if id(text) in seen or not text.get_visible() or not text.get_text().strip():
            continue
        seen.add(id(text))
        box = text.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            boxes.append((text.get_text(), box))
    clashes = []
    for i, (a_text, a_box) in enumerate(boxes):
        for b_text, b_box in boxes[i + 1:]:
            if a_box.shrunk(0.9, 0.9).overlaps(b_box.shrunk(0.9, 0.9)):
                clashes.append((a_text, b_text))
    return clashes


@pytest.fixture(scope="module")
def seed_run():
    return replay("long_session", profile="seed")


# -- before_after ---------------------------------------------------------------------------

def test_before_after_bars_are_the_recorded_characters(seed_run):
    figure = charts.before_after(seed_run.records, limit=50_000)
    ax = figure.axes[0]
    before, after = ax.containers[0], ax.containers[1]
    assert [bar.get_width() for bar in before] == [r.chars_before for r in seed_run.records]
    assert [bar.get_width() for bar in after] == [r.chars_after for r in seed_run.records]
    assert [t.get_text() for t in ax.get_yticklabels()] == [r.step for r in seed_run.records]
    assert {to_hex(b.get_facecolor()) for b in before} == {charts.BEFORE_COLOUR.lower()}
    assert {to_hex(b.get_facecolor()) for b in after} == {charts.AFTER_COLOUR.lower()}
    limit_lines = [line for line in ax.lines if list(line.get_xdata()) == [50_000, 50_000]]
    assert len(limit_lines) == 1


def test_before_after_is_labelled_with_the_recorded_numbers(seed_run):
    figure = charts.before_after(seed_run.records, limit=50_000, title="long_session")
    ax = figure.axes[0]
    assert isinstance(figure, Figure)
    assert "characters" in ax.get_xlabel() and ax.get_title() == "long_session"
    labels = [t.get_text() for legend in figure.legends for t in legend.get_texts()]
    assert labels == ["before the step", "after the step", "context limit (50,000)"]
    # Each bar's number is written beside it: before, then after, step by step.
    written = [t.get_text() for t in value_labels(ax)]
    assert written == [f"{n:,d}" for r in seed_run.records for n in (r.chars_before, r.chars_after)]
    assert texts_overlap(figure) == []


def test_before_after_names_the_call_when_records_span_several():
    calls = timeline("five_reads", profile="seed")
    records = [r for p in calls.points for r in p.records]
    labels = [t.get_text() for t in charts.before_after(records).axes[0].get_yticklabels()]
    assert labels[0] == "tool_result_budget (call 1)" and labels[-1].endswith(f"(call {len(calls.points)})")


def near_the_limit():
    """Bars that end just short of a 50,000 limit, and bars far from it."""
    return [StepRecord(1, "tool_result_budget", 21, 21, 47_074, 47_074),
            StepRecord(1, "snip_compact", 21, 21, 49_500, 48_000),
            StepRecord(1, "micro_compact", 21, 21, 3_000, 1_000),
            StepRecord(1, "reactive_compact", 21, 7, 47_074, 2_419)]


def value_labels(ax) -> list:
    return [t for t in ax.texts if t.get_text().replace(",", "").isdigit()]


def labels_across(figure, ax, x) -> list:
    """Value labels whose rendered box the vertical line at data x runs through."""
    FigureCanvasAgg(figure).draw()
    line_x = ax.transData.transform((x, 0))[0]
    return [t.get_text() for t in value_labels(ax)
            if t.get_window_extent().x0 <= line_x <= t.get_window_extent().x1]


@pytest.mark.parametrize("limit", [50_000, 2_500])
def test_before_after_value_labels_keep_clear_of_the_limit_and_of_each_other(limit):
    records = near_the_limit()
    figure = charts.before_after(records, limit=limit)
    ax = figure.axes[0]
    # Every value is still written once, wherever its label went.
    expected = sorted(f"{v:,d}" for r in records for v in (r.chars_before, r.chars_after))
    assert sorted(t.get_text() for t in value_labels(ax)) == expected
    assert labels_across(figure, ax, limit) == []
    assert texts_overlap(figure) == []


def test_a_label_the_limit_would_cross_moves_inside_its_bar():
    figure = charts.before_after(near_the_limit(), limit=50_000)
    ax = figure.axes[0]
    moved = [t for t in value_labels(ax) if t.get_text() == "49,500"]
    assert len(moved) == 1 and moved[0].get_horizontalalignment() == "right"
    assert moved[0].get_position()[0] < 49_500
    # Without a limit nothing is in the way: every label sits after its bar.
    plain = charts.before_after(near_the_limit())
    assert {t.get_horizontalalignment() for t in value_labels(plain.axes[0])} == {"left"}



def test_before_after_marks_the_window_in_characters_after_the_limit():
    # 06: the model's window (tokens) drawn at its width in characters, dotted, in the legend.
    figure = charts.before_after(near_the_limit(), limit=50_000, window_chars=30_944.5,
                                 window_tokens=8_000)
    ax = figure.axes[0]
    window = [line for line in ax.lines if list(line.get_xdata()) == [30_944.5, 30_944.5]]
    assert len(window) == 1 and window[0].get_linestyle() == ":"
    assert to_hex(window[0].get_color()) == charts.VERMILLION.lower()
    labels = [t.get_text() for legend in figure.legends for t in legend.get_texts()]
    assert labels == ["before the step", "after the step", "context limit (50,000)",
                      "window: 8,000 tokens"]
    assert labels_across(figure, ax, 30_944.5) == [] and texts_overlap(figure) == []
    # A window wider than every bar widens the axis to show it.
    wide = charts.before_after(near_the_limit(), window_chars=90_000, window_tokens=20_000)
    assert wide.axes[0].get_xlim()[1] >= 90_000
    assert len(charts.before_after(near_the_limit(), limit=50_000).axes[0].lines) == 1

def test_charts_never_touch_pyplot(seed_run):
    import matplotlib.pyplot as plt
    plt.close("all")
    charts.before_after(seed_run.records)
    charts.message_map(seed_run.before, seed_run.after)
    assert plt.get_fignums() == []


# -- timeline_chart --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def session():
    return timeline("timeline_150", profile="seed")


def test_timeline_lines_have_one_point_per_call(session):
    figure = charts.timeline_chart(session)
    top, strip = figure.axes
    arrived, sent = top.lines[0], top.lines[1]
    calls = [p.call for p in session.points]
    assert list(arrived.get_xdata()) == calls == list(sent.get_xdata())
    assert list(arrived.get_ydata()) == [p.chars_before for p in session.points]
    assert list(sent.get_ydata()) == [p.chars_after for p in session.points]
    limit = [line for line in top.lines if list(line.get_ydata()) == [50_000, 50_000]]
    assert len(limit) == 1


def test_timeline_strip_marks_every_call_where_a_step_fired(session):
    strip = charts.timeline_chart(session).axes[1]
    marks = {c.get_label(): [int(x) for x, _ in c.get_offsets()] for c in strip.collections}
    for step in ARTICLE_STEPS:
        assert marks[step] == session.calls_where(step), step
    # The seed switches persist_largest off: no row (issue 52: 01 and 03 never explain it).
    assert "persist_largest" not in marks
    rows = [t.get_text() for t in strip.get_yticklabels()]
    assert rows == [step for step in IN_PREPARE if step != "persist_largest"]


def test_timeline_marks_points_above_the_top_with_their_value(session):
    figure = charts.timeline_chart(session)
    top = figure.axes[0]
    ceiling = top.get_ylim()[1]
    over = [p for p in session.points if p.chars_before > ceiling]
    assert over, "the docs.json batch should rise far above the limit"
    notes = [t.get_text() for t in top.texts]
    assert f"{over[0].chars_before:,d}" in notes


def test_timeline_is_labelled_with_units_and_legend_without_overlap(session):
    figure = charts.timeline_chart(session)
    top, strip = figure.axes
    assert top.get_ylabel() == "characters" and strip.get_xlabel() == "model call"
    assert "seed profile" in figure.get_suptitle()
    labels = [t.get_text() for legend in figure.legends for t in legend.get_texts()]
    assert labels == ["context as it arrives (before prepare)",
                      "sent to the model (after prepare)", "context limit (50,000 characters)"]
    assert texts_overlap(figure) == []


def test_timeline_ticks_are_whole_calls_when_there_are_few():
    calls = timeline("huge_result", profile="seed")
    assert len(calls.points) == 3
    figure = charts.timeline_chart(calls)
    FigureCanvasAgg(figure).draw()
    strip = figure.axes[1]
    low, high = strip.get_xlim()
    shown = [t for t in strip.get_xticks() if low <= t <= high]
    assert shown == [1, 2, 3]
    labels = [t.get_text() for t in strip.get_xticklabels() if t.get_text()]
    assert labels and all(label.isdigit() for label in labels), labels


def test_timeline_accepts_a_limit_of_its_own():
    calls = timeline("five_reads", profile="default")
    top = charts.timeline_chart(calls, limit=12_000).axes[0]
    assert any(list(line.get_ydata()) == [12_000, 12_000] for line in top.lines)


# -- growth_chart ---------------------------------------------------------------------------

def test_growth_chart_draws_both_sessions_the_projection_and_two_limits():
    grown, sent = [100, 30_000, 70_000, 120_000], [100, 30_000, 20_000, 25_000]
    figure = charts.growth_chart(grown, sent, 50_000, 400_000.0, 100_000, refused_at=9,
                                 title="growth")
    ax = figure.axes[0]
    assert list(ax.lines[0].get_xdata()) == [1, 2, 3, 4] and list(ax.lines[0].get_ydata()) == grown
    assert list(ax.lines[1].get_xdata()) == [4, 9]
    assert list(ax.lines[1].get_ydata()) == [120_000, 400_000.0]
    assert list(ax.lines[2].get_ydata()) == sent
    flat = [list(line.get_ydata()) for line in ax.lines[3:]]
    assert flat == [[50_000, 50_000], [400_000.0, 400_000.0]]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["no compaction", "no compaction, projected", "sent after prepare",
                      "CONTEXT_CHAR_LIMIT (50,000)", "window: 100,000 tokens"]
    assert ax.get_title() == "growth" and "characters" in ax.get_ylabel()
    assert texts_overlap(figure) == []
    without = charts.growth_chart(grown, sent, 50_000, 400_000.0, 100_000).axes[0]
    assert len(without.lines) == 4


# -- message_map ------------------------------------------------------------------------------

def colours(ax) -> list:
    return [to_hex(p.get_facecolor()) for p in ax.patches]


def expected(categories) -> list:
    return [charts.CATEGORY_COLOURS[c].lower() for c in categories]


def test_message_map_cells_follow_the_snip(seed_run):
    fates, now = charts.classify(seed_run.before, seed_run.after)
    assert len(fates) == 64 and len(now) == 53
    # Head (3 + the pulled-in result) and tail kept; the middle archived.
    assert fates[4:16] == ["archived"] * 12 and "archived" not in fates[:4] + fates[16:]
    assert now[4] == "archive marker" and "archived" not in now
    assert now[:2] == ["user text", "user text"] and now[2] == "assistant"
    figure = charts.message_map(seed_run.before, seed_run.after)
    top, bottom = figure.axes
    assert colours(top) == expected(fates) and colours(bottom) == expected(now)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_legend_names_the_archive_marker_in_the_colour_its_cell_is_drawn(seed_run, monkeypatch,
                                                                              language):
    # Issue 52: the marker was drawn grey, "archived to a transcript", with no entry of its own.
    monkeypatch.setenv("COMPACT_LANG", language)
    figure = charts.message_map(seed_run.before, seed_run.after)
    legend = {text.get_text(): to_hex(handle.get_facecolor()) for legend in figure.legends
              for text, handle in zip(legend.get_texts(), legend.legend_handles)}
    marker = next((label for label in legend if "[N messages archived at <path>]" in label), None)
    assert marker is not None, list(legend)
    assert {"en": "archive marker", "zh": "归档标记"}[language] in marker
    top, bottom = figure.axes
    head_end = 4   # after the head (3 + the pulled-in result) comes the marker
    assert colours(bottom)[head_end] == legend[marker]
    assert legend[marker] not in colours(top)   # no message before the snip is a marker
    assert legend[marker] != colours(top)[head_end]   # what it replaced: archived, drawn apart


def test_message_map_shows_persisted_and_placeholders():
    run = replay("huge_result", profile="seed")
    fates, now = charts.classify(run.before, run.after)
    assert now == ["user text", "assistant", "whole", "assistant", "placeholder"]
    assert fates == now
    five = replay("five_reads", profile="seed")
    fates, now = charts.classify(five.before, five.after)
    assert [c for c in now if c not in ("user text", "assistant")] == [
        "whole", "omitted", "omitted", "whole"]
    budget_only = replay("huge_result", profile="seed", step="tool_result_budget")
    assert charts.classify(budget_only.before, budget_only.after)[1][-1] == "persisted"


def test_message_map_of_a_summary_and_of_a_reactive_compact():
    run = replay("two_code_files", profile="seed")
    fates, now = charts.classify(run.before, run.after)
    assert fates == ["summary"] * 5 and now == ["summary"]
    reactive = replay("overflow", profile="default", step="reactive_compact")
    fates, now = charts.classify(reactive.before, reactive.after)
    kept = len(reactive.after) - 1
    assert fates[:-kept] == ["summary"] * (len(fates) - kept)
    assert now[0] == "summary" and "summary" not in now[1:] + fates[-kept:]


def test_message_map_has_a_legend_of_every_category_and_no_overlap(seed_run):
    figure = charts.message_map(seed_run.before, seed_run.after, title="long_session")
    labels = [t.get_text() for legend in figure.legends for t in legend.get_texts()]
    assert labels == [charts.CATEGORY_MEANING[c] for c in charts.CATEGORY_COLOURS]
    handles = [to_hex(h.get_facecolor()) for legend in figure.legends for h in legend.legend_handles]
    assert handles == [c.lower() for c in charts.CATEGORY_COLOURS.values()]
    assert len(set(charts.CATEGORY_COLOURS.values())) == len(charts.CATEGORY_COLOURS)
    assert figure.get_suptitle() == "long_session"
    assert texts_overlap(figure) == []


def test_message_map_wraps_long_lists_in_rows():
    history = load_history("timeline_150")
    figure = charts.message_map(history["messages"][:100], history["messages"][:100], columns=40)
    top = figure.axes[0]
    ys = sorted({p.get_y() for p in top.patches})
    assert ys == [0, 1, 2] and len(top.patches) == 100
    assert [t.get_text() for t in top.get_yticklabels()] == ["0", "40", "80"]


def test_every_chart_colour_comes_from_the_one_palette():
    from compact_course.bench import benchmark
    from compact_course.display import palette
    allowed = {value for name, value in vars(palette).items() if name.isupper()}
    used = [*charts.STEP_COLOURS.values(), *charts.CATEGORY_COLOURS.values(),
            charts.BEFORE_COLOUR, charts.AFTER_COLOUR, charts.LIMIT_COLOUR,
            *benchmark.COLOURS.values()]
    assert set(used) <= allowed
    # Designs side by side need as many different colours: one per row of the table.
    assert len(set(benchmark.COLOURS.values())) == len(benchmark.DESIGN_TABLE)


def test_the_overlap_check_itself_sees_two_texts_on_top_of_each_other():
    figure = Figure(figsize=(4, 3))
    ax = figure.add_subplot()
    ax.text(0.5, 0.5, "one label")
    ax.text(0.52, 0.5, "another label")
    assert texts_overlap(figure) == [("one label", "another label")]
