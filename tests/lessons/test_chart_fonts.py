"""Every chart draws every glyph, in English and in Chinese (issue 15).

Each chart function of the course (charts.py, pipeline_picture.py, the threshold
explorer's figures, the benchmark's chart of lab 02) is drawn to a PNG with
COMPACT_LANG=en and =zh, and nothing may report a missing glyph: matplotlib
warns "Glyph ... missing from font(s) ..." (warnings) and logs "findfont: ..."
(logging) when a character has no font. The Chinese drawing must really hold
Chinese text, and the detector must catch a CJK title drawn with DejaVu Sans
alone, so the test can fail.

Needs Debian's fonts-noto-cjk (scripts/setup.sh installs it when run as root):
skipped, with the reason, only when it is absent and the user cannot install it.
"""

import io
import logging
import os
import re
import warnings

import matplotlib
import pytest
from matplotlib.figure import Figure

from compact_course.bench import benchmark, chart
from compact_course.display import fonts
from compact_course.display.lang import language
from compact_course.lessons import charts
from compact_course.lessons.pipeline_picture import pipeline_picture
from compact_course.lessons.replay import replay, timeline
from compact_course.lessons.widgets import explore

CJK = re.compile(r"[\u3400-\u9fff]")
MISSING = re.compile(r"missing from font|Glyph \d+|findfont", re.I)

if not fonts.has_cjk_font():
    if os.geteuid() == 0:
        pytest.fail("Noto Sans CJK SC is missing: run `bash scripts/setup.sh` (it installs "
                    "fonts-noto-cjk as root and rebuilds matplotlib's font cache)",
                    pytrace=False)
    pytest.skip("Debian's fonts-noto-cjk is not installed and this user is not root: "
                "sudo apt-get install fonts-noto-cjk, then bash scripts/setup.sh",
                allow_module_level=True)


def draw_all() -> list[Figure]:
    run = replay("long_session", profile="seed")
    calls = timeline("timeline_150", profile="seed")
    rows = benchmark.run_bench(turns=(20,), seed=0)
    draws = [
        lambda: [charts.before_after(run.records, limit=50_000)],
        lambda: [charts.before_after(replay("huge_result", profile="seed").records,
                                     limit=50_000, title="huge_result: step 1 alone (seed profile)")],
        lambda: [charts.timeline_chart(calls)],
        lambda: [charts.growth_chart([100, 30_000, 70_000], [100, 30_000, 20_000], 50_000,
                                     400_000.0, 100_000, refused_at=9)],
        lambda: [charts.message_map(run.before, run.after)],
        lambda: [pipeline_picture()],
        lambda: list(explore("five_reads", "seed", keep_recent_results=1)),
        lambda: [chart.bench_chart(rows, timings=False)],
        lambda: [chart.bench_chart(rows, timings=True)],
    ]
    figures = []
    for draw in draws:
        # matplotlib's own font list, as a notebook that set no fonts has it: each chart
        # function must set its fonts itself, whatever ran before it.
        matplotlib.rcParams["font.family"] = ["sans-serif"]
        figures += draw()
    return figures


def texts(figure: Figure) -> list[str]:
    return [t.get_text() for t in figure.findobj(matplotlib.text.Text) if t.get_text()]


def render_reporting_missing(figures, caplog) -> list[str]:
    """Draw each figure to a PNG; every missing-glyph warning or font log line raised."""
    reported = []
    with warnings.catch_warnings(record=True) as caught, \
            caplog.at_level(logging.WARNING, logger="matplotlib"):
        warnings.simplefilter("always")
        for figure in figures:
            figure.savefig(io.BytesIO(), format="png", dpi=50)
    reported += [str(w.message) for w in caught if MISSING.search(str(w.message))]
    reported += [r.getMessage() for r in caplog.records if MISSING.search(r.getMessage())]
    return reported


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_chart_misses_a_glyph(lang, monkeypatch, caplog):
    monkeypatch.setenv("COMPACT_LANG", lang)
    assert language() == lang
    figures = draw_all()
    words = "".join("".join(texts(f)) for f in figures)
    if lang == "zh":
        assert len(CJK.findall(words)) > 200, "the Chinese charts hold little Chinese"
    else:
        assert not CJK.search(words), "an English chart holds Chinese"
    assert render_reporting_missing(figures, caplog) == []


def test_the_detector_catches_a_missing_glyph(caplog):
    figure = Figure(figsize=(3, 2))
    ax = figure.add_subplot()
    ax.set_title("每一步前后的字符数", family=["DejaVu Sans"])  # no CJK font behind it
    assert any("missing from font" in m for m in render_reporting_missing([figure], caplog))


def test_the_font_list_keeps_dejavu_first_and_noto_cjk_behind_it():
    assert fonts.use_cjk_fallback() == ["DejaVu Sans", "Noto Sans CJK SC"]
    assert matplotlib.rcParams["font.family"] == ["DejaVu Sans", "Noto Sans CJK SC"]
    assert matplotlib.rcParams["font.sans-serif"][:2] == ["DejaVu Sans", "Noto Sans CJK SC"]


def test_the_chinese_charts_say_in_chinese_what_the_english_ones_say(monkeypatch):
    from compact_course.display.chart_text import CHART_TEXT, TITLES, title
    assert CHART_TEXT["zh"].keys() == CHART_TEXT["en"].keys()
    untranslated = [key for key, text in CHART_TEXT["zh"].items() if not CJK.search(text)]
    assert untranslated == []
    monkeypatch.setenv("COMPACT_LANG", "zh")
    figure = charts.before_after([], title="huge_result: step 1 alone (seed profile)")
    assert figure.axes[0].get_title() == TITLES["huge_result: step 1 alone (seed profile)"]
    assert title("a title nobody translated") == "a title nobody translated"
    monkeypatch.setenv("COMPACT_LANG", "en")
    assert charts.before_after([]).axes[0].get_title() == "Characters before and after each step"

