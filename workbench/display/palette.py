"""The colours of every chart, the course's and the benchmark's: the Okabe-Ito palette.

Its eight colours stay distinguishable for the common kinds of colour
blindness; two greys are added, one for things in the background (a "before"
line, the design with no compaction) and a darker one for small text.

It lives here, the lowest part that draws a chart: `workbench.course` imports
from `workbench.bench`, never the other way round.
"""

ORANGE, SKY, GREEN, YELLOW = "#E69F00", "#56B4E9", "#009E73", "#F0E442"
BLUE, VERMILLION, PURPLE, BLACK = "#0072B2", "#D55E00", "#CC79A7", "#000000"
GREY, DARK_GREY = "#999999", "#555555"


def named(name: str) -> str:
    """A colour by its name in lower case ("orange", "dark_grey"), as the pipeline's list
    of steps (compact/steps.py) gives it: the pipeline imports no display code."""
    colour = globals().get(name.upper())
    if not isinstance(colour, str) or not colour.startswith("#"):
        raise ValueError(f"{name!r} is not a colour of the palette")
    return colour
