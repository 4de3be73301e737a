"""Which plan answers a request: one of the article's scripted experiments, or the general policy.

Each experiment is a row of ROUTES: the paths its request must name, its cue
words (one word of each group, English or Chinese), its plan. A request that
fits no row goes to the general policy (kinds.py); docs/DESIGN.md says why the
experiments keep scripts.

Left out: requests that mix two experiments (the first row that fits wins).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from .experiments.compact_tool import plan_compact_tool
from .experiments.compare_code import plan_code
from .experiments.docs_json import plan_json
from .experiments.titles import plan_titles
from .kinds import plan_question
from .plan import Plan
from .view import View

MD_RE = re.compile(r"(?<![\w./-])[\w./-]+\.md\b")
JSON_RE = re.compile(r"(?<![\w./-])[\w./-]+\.json\b")
PY_RE = re.compile(r"(?<![\w./-])[\w./-]+\.py\b")


@dataclass(frozen=True)
class Route:
    name: str
    paths: re.Pattern | None     # the paths the request must name
    min_paths: int
    cues: tuple                  # groups of cue words; one word of each group must appear
    plan: Callable               # (view, the paths named) -> Plan

    def fits(self, request: str) -> list | None:
        """The paths it names when the request fits this row, else None."""
        lower = request.lower()
        found = list(dict.fromkeys(self.paths.findall(request))) if self.paths else []
        if len(found) < self.min_paths:
            return None
        if not all(any(cue in lower for cue in group) for group in self.cues):
            return None
        return found


ROUTES = (
    Route("compact-tool", MD_RE, 1, (("compact", "压缩"), ("write", "写")),
          lambda view, paths: plan_compact_tool(view, paths[0])),
    Route("titles", None, 0, (("readme",), ("title", "标题"), ("lessons", "five", "课", "五", " to ", "到")),
          lambda view, paths: plan_titles(view)),
    Route("docs-json", JSON_RE, 1, (("structure", "shape", "结构"),),
          lambda view, paths: plan_json(view, paths[0])),
    Route("compare-code", PY_RE, 2, (("compare", "differ", "比较", "对比", "区别"),), plan_code),
)


def choose_plan(view: View) -> Plan:
    """The plan of the experiment the request fits, else the general policy's."""
    fitting = ((route, route.fits(view.request)) for route in ROUTES)
    route, paths = next(((r, p) for r, p in fitting if p is not None), (None, None))
    return route.plan(view, paths) if route else plan_question(view)
