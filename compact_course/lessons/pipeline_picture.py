"""A picture of the article's pipeline: the four steps, their triggers, what each leaves.

    pipeline_picture()            a matplotlib Figure, the article's numbers (seed profile)
    pipeline_steps(config)        the same facts as plain dicts, for a table or a test

One box per step, in the order `prepare` runs them, each with its trigger,
what it leaves in the context and what it writes on disk. The numbers come
from the configuration, so the picture follows the package. The figure is
built directly (no pyplot), with an explicit size and the colour-blind-safe
step colours of charts.py; every word on it is a text artist a test can read.

Left out: reactive_compact and the compact tool (notebooks 06 and 07), named
in one line under the boxes, and the default profile's changes.
"""

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from context_compact.config import CompactionConfig
from context_compact.steps import STEPS

from ..display.chart_text import title as _title
from ..display.chart_text import words
from ..display.fonts import use_cjk_fallback
from .charts import BLACK, GREY, STEP_COLOURS

SIZE = (12.0, 5.2)  # inches


# What the picture says of each of the article's steps: keys of chart_text.py's table.
WORDS = {
    "tool_result_budget": ("budget trigger", "budget context", "budget disk"),
    "snip_compact": ("snip trigger", "snip context", "transcript disk"),
    "micro_compact": ("micro trigger", "micro context", "micro disk"),
    "compact_history": ("summary trigger", "summary context", "transcript disk"),
}


def pipeline_steps(config: CompactionConfig | None = None) -> list[dict]:
    """The article's steps (the numbered rows of context_compact/steps.py, in their order) as
    {name, number, trigger, context, disk}, with the configuration's numbers, in the
    notebook's language (chart_text.py)."""
    c = config or CompactionConfig.seed()
    numbers = dict(batch=c.tool_result_batch_char_limit, large=c.large_result_char_limit,
                   preview=c.preview_chars, most=c.snip_max_messages, head=c.snip_keep_head,
                   keep=c.keep_recent_results, least=c.micro_min_chars, limit=c.context_char_limit)
    rows = []
    for step in STEPS:
        if step.number is None:
            continue
        trigger, context, disk = (words(key, **numbers) for key in WORDS[step.name])
        rows.append({"name": step.name, "number": step.number, "trigger": trigger,
                     "context": context, "disk": disk})
    return rows


def _box(ax, x, y, width, height, colour, fill=True):
    ax.add_patch(FancyBboxPatch((x, y), width, height, boxstyle="round,pad=0.01,rounding_size=0.015",
                                facecolor=colour if fill else "white", edgecolor=colour,
                                alpha=0.22 if fill else 1.0, linewidth=1.5))
    ax.add_patch(FancyBboxPatch((x, y), width, height, boxstyle="round,pad=0.01,rounding_size=0.015",
                                facecolor="none", edgecolor=colour, linewidth=1.5))


def pipeline_picture(config: CompactionConfig | None = None,
                     title: str | None = None) -> Figure:
    """The four steps left to right, cheapest first; rows: trigger, in context, on disk."""
    steps = pipeline_steps(config)
    use_cjk_fallback()
    figure = Figure(figsize=SIZE, layout="none")
    ax = figure.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    title = _title(title) if title else words("pipeline title")
    ax.text(0.5, 0.965, title, ha="center", va="top", fontsize=13, weight="bold", color=BLACK)
    left, gap = 0.115, 0.03
    width = (1 - left - 0.01 - gap * (len(steps) - 1)) / len(steps)
    rows = (("trigger", 0.69, 0.12), ("in context", 0.44, 0.21), ("on disk", 0.2, 0.2))
    for label, y, height in rows:
        ax.text(0.01, y + height / 2, words(label), ha="left", va="center", fontsize=10,
                weight="bold", color=BLACK)
    for n, step in enumerate(steps):
        x = left + n * (width + gap)
        colour = STEP_COLOURS[step["name"]]
        _box(ax, x, 0.84, width, 0.07, colour)
        ax.text(x + width / 2, 0.875, f"{step['number']}. {step['name']}", ha="center",
                va="center", fontsize=10.5, weight="bold", color=BLACK)
        for (_label, y, height), key in zip(rows, ("trigger", "context", "disk")):
            _box(ax, x, y, width, height, colour, fill=False)
            ax.text(x + width / 2, y + height / 2, step[key], ha="center", va="center",
                    fontsize=8.5, color=BLACK, linespacing=1.25)
        if n < len(steps) - 1:
            ax.add_patch(FancyArrowPatch((x + width + 0.006, 0.875), (x + width + gap - 0.006, 0.875),
                                         arrowstyle="-|>", mutation_scale=12, color=BLACK))
    ax.text(0.5, 0.1, words("pipeline note"),
            ha="center", va="center", fontsize=9, style="italic", color=GREY)
    ax.text(0.5, 0.04, words("pipeline also"), ha="center", va="center",
            fontsize=9, color=BLACK)
    return figure


def drawn_texts(figure: Figure) -> list[str]:
    """Every text on the figure, for a test or a reader without the image."""
    return [text.get_text() for ax in figure.axes for text in ax.texts]
