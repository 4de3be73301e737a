"""Widgets: move the thresholds, switch the profile, watch the charts change.

    from compact_course.lessons.widgets import threshold_explorer, explore
    threshold_explorer("timeline_150")                   # sliders + profile switch + charts
    timeline_figure, steps_figure = explore("five_reads", "seed", keep_recent_results=1)

`explore` is the pure part: a history and settings in, two figures out (the
timeline of the session, call by call, and characters before/after each step
of one `prepare` over the whole history). `threshold_explorer` only wires
sliders to it and shows the result in an Output widget, as PNG images, so it
looks the same whatever matplotlib backend the notebook uses.

ipywidgets is imported by the function that makes the widgets, not with the module:
a notebook's import cell stays light (the kernel has IPython.display already).

Left out on purpose: any setting that is not a number of the pipeline (the
summarizer is always the extractive one) and any state kept between redraws.
"""

import html
import io

from context_compact.config import CompactionConfig

from ..display.chart_text import words
from ..display.lang import language
from ..display.phrases import say
from ..display.text import plural
from ..sessions.histories import load_history
from . import charts
from .replay import replay, timeline

# name: (min, max, step); the defaults come from the profile itself.
SLIDERS = {
    "context_char_limit": (10_000, 150_000, 5_000),
    "tool_result_batch_char_limit": (20_000, 300_000, 10_000),
    "snip_max_messages": (10, 120, 5),
    "snip_target_messages": (5, 119, 1),
    "keep_recent_results": (0, 10, 1),
    "micro_min_chars": (0, 4_000, 20),   # past the 3,471 characters of five_reads' older READMEs
}
# The article's step 2 has no target: it keeps head + (max - head) newest.
DEFAULT_ONLY = ("snip_target_messages",)


def settings_for(profile: str, thresholds: dict) -> dict:
    """The overrides a profile accepts: the seed has no snip target."""
    if profile == "seed":
        return {k: v for k, v in thresholds.items() if k not in DEFAULT_ONLY}
    return dict(thresholds)


def _replays(history: dict, profile: str, thresholds: dict):
    overrides = settings_for(profile, thresholds)
    CompactionConfig.named(profile, **overrides)  # fail before any replay runs
    return (timeline(history, profile=profile, overrides=overrides),
            replay(history, profile=profile, overrides=overrides))


def _moved(profile: str, thresholds: dict) -> str:
    """The settings that differ from the profile's own, for a title: ", name=1,000"."""
    own, comma = CompactionConfig.named(profile).as_dict(), "，" if language() == "zh" else ", "
    return "".join(f"{comma}{k}={v:,}" for k, v in thresholds.items() if own.get(k) != v)


def _figures(history: dict, profile: str, calls, once, thresholds: dict):
    name, moved = history.get("name", "history"), _moved(profile, thresholds)
    timeline_figure = charts.timeline_chart(
        calls, title=words("explorer timeline", name=name, profile=profile, moved=moved))
    steps_figure = charts.before_after(
        once.records, limit=once.config.context_char_limit,
        title=words("explorer steps", name=name, profile=profile, moved=moved))
    return timeline_figure, steps_figure


def explore(history, profile: str = "default", **thresholds):
    """(timeline figure, before/after figure) for a history under one profile and thresholds.

    Raises ValueError, naming the field, when the thresholds do not make a
    valid configuration (for example a snip target not below the trigger).
    """
    history = load_history(history)
    overrides = settings_for(profile, thresholds)
    return _figures(history, profile, *_replays(history, profile, thresholds), overrides)


def describe(calls) -> str:
    """One line of what a timeline cost."""
    totals = calls.summary()
    return say("widget describe", calls=totals["calls"], files=totals["files"],
               summaries=totals["model_calls"], max_sent=totals["max_sent"],
               calls_n=plural(totals["calls"], "model call"), files_n=plural(totals["files"], "file"),
               summaries_n=plural(totals["model_calls"], "summary", "summaries"))


def png(figure, dpi: int = 80) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    charts.close(figure)
    return buffer.getvalue()


def _slider(name: str, value: int):
    import ipywidgets as widgets

    low, high, step = SLIDERS[name]
    return widgets.IntSlider(
        value=min(max(value, low), high), min=low, max=high, step=step, description=name,
        continuous_update=False, style={"description_width": "190px"},
        layout=widgets.Layout(width="520px"))


def threshold_explorer(history, profile: str = "default", **initial):
    """Sliders for the thresholds, a profile switch, and the two charts, redrawn on change.

    The returned box carries `.controls` (name -> widget), `.output` (the
    Output widget), `.status` (a one-line summary or the error) and
    `.redraw()`; `.last` holds the settings of the latest drawing, `.calls` and `.once`
    its timeline and its one `prepare` (None after a bad combination): an ipywidgets VBox.
    """
    import ipywidgets as widgets
    from IPython.display import Image

    history = load_history(history)
    base = CompactionConfig.named(profile).as_dict()
    base.update(initial)
    switch = widgets.ToggleButtons(options=["default", "seed"], value=profile,
                                   description=say("widget profile"))
    controls = {"profile": switch}
    for name in SLIDERS:
        value = base[name] if base.get(name) is not None else CompactionConfig().as_dict()[name]
        controls[name] = _slider(name, value)
    output = widgets.Output()
    status = widgets.HTML()
    box = widgets.VBox([switch, *(controls[n] for n in SLIDERS), status, output])
    box.controls, box.output, box.status, box.last = controls, output, status, None
    box.calls = box.once = None

    def current() -> tuple[str, dict]:
        chosen = switch.value
        values = {n: controls[n].value for n in SLIDERS}
        return chosen, settings_for(chosen, values)

    def redraw(*_ignored) -> None:
        chosen, values = current()
        controls["snip_target_messages"].disabled = chosen == "seed"
        output.outputs = ()
        try:
            calls, once = _replays(history, chosen, values)
        except ValueError as error:
            status.value = say("widget invalid", error=html.escape(str(error)))
            box.last = box.calls = box.once = None
            return
        status.value = html.escape(describe(calls))
        for figure in _figures(history, chosen, calls, once, values):
            output.append_display_data(Image(data=png(figure), format="png"))
        box.last, box.calls, box.once = {"profile": chosen, **values}, calls, once

    for widget in controls.values():
        widget.observe(redraw, names="value")
    box.redraw = redraw
    redraw()
    return box
