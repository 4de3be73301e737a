"""Widgets: the sliders start at the profile's numbers, a change redraws from the pure
functions with the new numbers, and a bad combination is explained, not raised."""

import pytest
from matplotlib.figure import Figure

from compact_course.lessons.replay import replay, timeline
from compact_course.lessons.widgets import SLIDERS, explore, settings_for, threshold_explorer
from context_compact import CompactionConfig

PNG = b"\x89PNG\r\n\x1a\n"


def limit_of(figure) -> float:
    """The y of the dashed limit line in a timeline figure."""
    top = figure.axes[0]
    flat = [line for line in top.lines if len(set(line.get_ydata())) == 1 and len(line.get_ydata()) == 2]
    return flat[0].get_ydata()[0]


def test_explore_draws_the_timeline_and_the_steps_of_one_prepare():
    line_figure, bars_figure = explore("five_reads", "seed", keep_recent_results=1)
    assert isinstance(line_figure, Figure) and isinstance(bars_figure, Figure)
    calls = timeline("five_reads", "seed", overrides={"keep_recent_results": 1})
    sent = line_figure.axes[0].lines[1]
    assert list(sent.get_ydata()) == [p.chars_after for p in calls.points]
    once = replay("five_reads", "seed", overrides={"keep_recent_results": 1})
    widths = [bar.get_width() for bar in bars_figure.axes[0].containers[1]]
    assert widths == [r.chars_after for r in once.records]
    # Keeping 1 instead of 3 shrinks more than the article's setting does.
    article = replay("five_reads", "seed")
    assert once.records[-1].chars_after < article.records[-1].chars_after


def test_explore_uses_the_limit_it_is_given():
    line_figure, bars_figure = explore("five_reads", "default", context_char_limit=12_000)
    assert limit_of(line_figure) == 12_000
    assert "context limit (12,000)" in [t.get_text() for lg in bars_figure.legends
                                        for t in lg.get_texts()]


def test_explore_names_a_bad_combination():
    with pytest.raises(ValueError, match="snip_target_messages"):
        explore("five_reads", "default", snip_max_messages=20, snip_target_messages=30)


def test_the_seed_profile_ignores_the_snip_target():
    assert settings_for("seed", {"snip_target_messages": 30, "keep_recent_results": 2}) == {
        "keep_recent_results": 2}
    assert settings_for("default", {"snip_target_messages": 30}) == {"snip_target_messages": 30}


@pytest.fixture
def box():
    """A fresh explorer for each test: the tests move its sliders."""
    return threshold_explorer("five_reads", profile="seed")


def test_the_explorer_starts_at_the_profile_numbers_and_draws_two_charts(box):
    seed = CompactionConfig.seed().as_dict()
    assert box.controls["profile"].value == "seed"
    assert list(box.controls["profile"].options) == ["default", "seed"]
    for name, (low, high, step) in SLIDERS.items():
        slider = box.controls[name]
        assert (slider.min, slider.max, slider.step) == (low, high, step)
        if seed[name] is not None:
            assert slider.value == seed[name], name
    assert box.controls["snip_target_messages"].disabled
    images = [o["data"] for o in box.output.outputs]
    assert len(images) == 2 and all("image/png" in data for data in images)
    assert "model calls" in box.status.value and "5 model calls" in box.status.value


@pytest.mark.slow
def test_moving_a_slider_redraws_with_the_new_number(box):
    box.controls["context_char_limit"].value = 20_000
    assert box.last["context_char_limit"] == 20_000 and box.last["profile"] == "seed"
    assert len(box.output.outputs) == 2
    box.controls["keep_recent_results"].value = 0
    assert box.last["keep_recent_results"] == 0
    assert "snip_target_messages" not in box.last


def test_switching_profile_enables_the_target_and_redraws(box):
    box.controls["profile"].value = "default"
    assert not box.controls["snip_target_messages"].disabled
    assert box.last["profile"] == "default" and box.last["snip_target_messages"] == 30


@pytest.mark.slow
def test_a_bad_combination_shows_the_reason_and_no_chart(box):
    box.controls["profile"].value = "default"
    box.controls["snip_max_messages"].value = 20
    assert box.last is None and box.output.outputs == ()
    assert "Not a valid setting" in box.status.value and "snip_target_messages" in box.status.value
    box.controls["snip_target_messages"].value = 10
    assert box.last["snip_max_messages"] == 20 and len(box.output.outputs) == 2


def test_the_pictures_are_png_images():
    fresh = threshold_explorer("huge_result")
    image = fresh.output.outputs[0]["data"]["image/png"]
    import base64
    raw = image if isinstance(image, bytes) else base64.b64decode(image)
    assert raw[:8] == PNG


# -- every "Try this." works as written (issue 40) ---------------------------------------------

def test_01s_try_this_at_290000_step_1_rests_and_step_3_takes_the_unread_read():
    # "Drag tool_result_batch_char_limit to 290,000: step 1 no longer fires, yet the context
    # still falls to about 2,500 characters, with no file written ... [Earlier tool result
    # omitted.]"; back under the batch (288,840), the file is saved again.
    from context_compact import estimate_chars
    explorer = threshold_explorer("huge_result", profile="seed")
    slider = explorer.controls["tool_result_batch_char_limit"]
    assert slider.min <= 288_000 and 290_000 <= slider.max and 290_000 % slider.step == 0
    fired = lambda: [r.step for r in explorer.once.records if r.fired]  # noqa: E731
    assert "tool_result_budget" in fired() and explorer.once.files
    slider.value = 290_000
    assert explorer.last["tool_result_batch_char_limit"] == 290_000
    assert fired() == ["micro_compact"] and not explorer.once.files
    assert 2_000 <= estimate_chars(explorer.once.after) <= 3_000
    assert "[Earlier tool result omitted.]" in str(explorer.once.after)
    slider.value = 288_000
    assert "tool_result_budget" in fired() and explorer.once.files


def test_03s_try_this_raises_micro_min_chars_above_the_older_readmes(box):
    # "raise micro_min_chars above the size of the two older READMEs: they stay whole".
    from context_compact.messages import text_of, tool_results
    results = [b for m in box.once.before for b in tool_results(m)]
    older = [len(text_of(b["content"])) for b in results[:-3]
             if len(text_of(b["content"])) > CompactionConfig.seed().micro_min_chars]
    slider = box.controls["micro_min_chars"]
    above = next(v for v in range(slider.min, slider.max + 1, slider.step) if v >= max(older))
    assert len(older) == 2 and above <= slider.max
    assert "omitted" in str(box.once.after)                # at the article's 120: shrunk
    slider.value = above
    assert box.last["micro_min_chars"] == above
    assert [b["content"] for m in box.once.after for b in tool_results(m)] == \
        [b["content"] for b in results]                    # all five whole, no file written
    assert not box.once.files


def test_lab_01s_try_this_lowering_the_limit_archives_more_and_never_shrinks():
    # Lab 01: in the default profile, a lower context_char_limit makes step 2 archive on
    # more calls, and step 3 never fires: over the limit, step 2 archives the oldest
    # messages in that same call (flaw 17's switch), so nothing old is left to shrink.
    explorer = threshold_explorer("timeline_150", profile="default")
    at_50k = len(explorer.calls.calls_where("snip_compact"))
    explorer.controls["context_char_limit"].value = 10_000
    assert len(explorer.calls.calls_where("snip_compact")) > at_50k
    assert explorer.calls.calls_where("micro_compact") == []
    explorer.controls["profile"].value = "seed"
    assert len(explorer.calls.calls_where("micro_compact")) > 0    # the seed shrinks, call after call
