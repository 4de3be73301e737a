"""Labs 03, 05 and 06's charts (issue 52): no line or label of one hides another.

- lab 03's replay chart: default+server-compact, on default's points in both panels (the
  default never sends the trigger), is dashed in default's gaps and says so in its legend;

- lab 05's rounds chart: a dashed line on the points of a line drawn before it (the
  summary's and the default's reach, both 100%; server compaction's reach on its own held
  line) is dashed in that line's gaps, and its legend entry names the line it lies on;
- lab 06's cost chart: its two panels' axis labels do not run into each other, and the
  thinking panel's says what its "of 60" counts.

Left out: the figures' numbers (the notebooks print them; nbval compares).
"""

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from compact_course.lessons import forgets_chart, server_replay, thinking_lab

# design -> [(round, held, reachable)], shaped like the 400-turn run's curves
CURVES = {"summary": [(1, .69, 1.0), (2, .56, 1.0)], "seed": [(1, .69, .85), (2, .56, .88)],
          "default": [(1, .27, 1.0), (2, .14, 1.0)], "server-compact": [(1, .32, .32), (2, .21, .21)]}


def test_a_line_on_another_says_so_and_shows_in_its_gaps(monkeypatch):
    monkeypatch.setattr(forgets_chart, "curves", lambda runs: CURVES)
    [ax] = forgets_chart.rounds_chart({}, "tool-heavy", 400).axes
    lines = {line.get_label(): line for line in ax.get_lines()}
    summary = lines["summary: reachable (on disk too)"]
    default = lines["default: reachable (on disk too), on summary's reachable line"]
    assert list(default.get_ydata()) == list(summary.get_ydata())
    assert default.get_linestyle() == summary.get_linestyle() == "--"
    assert default._dash_pattern[0] != summary._dash_pattern[0]   # its dashes fill the gaps
    assert "server-compact: reachable (on disk too), on server-compact's held line" in lines
    assert "seed: reachable (on disk too)" in lines   # a line on no other keeps its plain entry


def test_lab_03s_line_on_another_says_so_and_shows_in_its_gaps():
    def run(*tokens):
        return {"calls": [{"call": n, "tokens": t, "cached": t // 2} for n, t in enumerate(tokens, 1)]}
    runs = {"none": run(10, 20, 30), "default": run(10, 15, 12), "server-clear": run(10, 20, 9),
            "default+server-compact": run(10, 15, 12)}
    figure = server_replay.replay_chart(runs, "timeline_150", trigger=25)
    for ax in figure.axes:
        lines = {line.get_label(): line for line in ax.get_lines()}
        default, on_it = lines["default"], lines["default+server-compact, on default"]
        assert list(on_it.get_ydata()) == list(default.get_ydata())
        assert default.get_linestyle() == "-" and on_it.get_linestyle() == "--"   # default shows in its gaps
        assert lines["server-clear"].get_linestyle() == "-"    # a line on no other keeps its plain entry
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert "default+server-compact, on default" in legend


def test_lab_06s_two_axis_labels_do_not_overlap():
    rows = [{"design": name, "cost": cost, "thinking_invalid": bad, "turns": 60}
            for name, cost, bad in (("seed", 398_000, 40), ("default, edits in place", 152_000, 9),
                                    ("default", 244_000, 0))]
    figure = thinking_lab.cost_chart(rows)
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    left, right = (axis.xaxis.label.get_window_extent(renderer) for axis in figure.axes)
    assert left.x1 < right.x0, (left, right)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_lab_06s_thinking_axis_says_what_its_60_counts(monkeypatch, language):
    # Issue 52: "blocks (of 60)" beside a seed run of 67 calls never said what the 60 counts.
    monkeypatch.setenv("COMPACT_LANG", language)
    rows = [{"design": name, "cost": 1_000, "thinking_invalid": 0, "turns": 60}
            for name in ("seed", "default, edits in place", "default")]
    label = thinking_lab.cost_chart(rows).axes[1].get_xlabel()
    assert label == {"en": "blocks (one per turn, of 60)", "zh": "块（每轮一个，共 60 个）"}[language]
