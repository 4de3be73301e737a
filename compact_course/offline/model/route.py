"""Which plan answers a request: a row of ROUTES (one of the article's scripted
experiments; docs/DESIGN.md says why they keep scripts), else the general policy.

Left out: requests that mix two experiments (the first row that fits wins).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from .experiments.compact_tool import plan_compact_tool
from .experiments.compare_code import plan_code
from .experiments.json_shape import plan_json
from .experiments.titles import plan_titles
from .kinds import plan_question
from .view import Plan, View


@dataclass(frozen=True)
class Route:
    name: str
    ext: str | None              # the extension of the paths the request must name
    min_paths: int
    cues: tuple                  # groups of cue words; one word of each group must appear
    plan: Callable               # (view, the paths named) -> Plan

    def fits(self, request: str) -> list | None:
        """The paths it names when the request fits this row, else None."""
        named = re.findall(rf"(?<![\w./-])[\w./-]+\.{self.ext}\b", request) if self.ext else []
        found, lower = list(dict.fromkeys(named)), request.lower()
        cued = all(any(cue in lower for cue in group) for group in self.cues)
        return found if cued and len(found) >= self.min_paths else None


ROUTES = (
    Route("compact-tool", "md", 1, (("compact", "压缩"), ("write", "写")), plan_compact_tool),
    Route("titles", None, 0, (("readme",), ("title", "标题"), ("lessons", "five", "课", "五", " to ", "到")),
          plan_titles),
    Route("docs-json", "json", 1, (("structure", "shape", "结构"),), plan_json),
    Route("compare-code", "py", 2, (("compare", "differ", "比较", "对比", "区别"),), plan_code),
)


def choose_plan(view: View) -> Plan:
    """The plan of the experiment the request fits, else the general policy's."""
    fitting = ((route, route.fits(view.request)) for route in ROUTES)
    route, paths = next(((r, p) for r, p in fitting if p is not None), (None, None))
    return route.plan(view, paths) if route else plan_question(view)
