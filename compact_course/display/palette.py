"""The colours of every chart, the course's and the benchmark's: the Okabe-Ito palette.

Its eight colours stay distinguishable for the common kinds of colour
blindness; two greys are added, one for things in the background (a "before"
line, the design with no compaction) and a darker one for small text.

It lives here, the lowest part that draws a chart: `compact_course.lessons` imports
from `compact_course.bench`, never the other way round.
"""

ORANGE, SKY, GREEN, YELLOW = "#E69F00", "#56B4E9", "#009E73", "#F0E442"
BLUE, VERMILLION, PURPLE, BLACK = "#0072B2", "#D55E00", "#CC79A7", "#000000"
GREY, DARK_GREY = "#999999", "#555555"


def step_colour(name: str) -> str:
    """The colour of a step of the pipeline (context_compact/steps.py) in every chart, by its name;
    ValueError for a step without one. The pipeline itself carries no presentation."""
    colours = {"tool_result_budget": ORANGE, "snip_compact": SKY, "micro_compact": GREEN,
               "persist_largest": VERMILLION, "compact_history": PURPLE, "reactive_compact": BLACK}
    if name not in colours:
        raise ValueError(f"step {name!r} has no colour: add it to step_colour in palette.py")
    return colours[name]
