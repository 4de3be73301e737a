"""Which plan answers a request: one of the article's scripted experiments, or the general policy.

The general policy (ask.py) answers any question about the workspace. The
article's experiments keep their scripted plans only because the general
policy would not take the article's steps: experiment 1 globs the lessons and
reads five READMEs one a turn, experiment 2 peeks at a persisted JSON file's
saved copy, experiment 3 compares two code files and falls back to an outline,
and the compact tool writes a note and calls `compact` in one batch.

Each experiment is recognised by what its request names and asks, in
English or in Chinese, as a row of ROUTES: the paths it must name and the cue
words it must hold (one of each group). A request that fits no row goes to the
general policy.

Left out: requests that mix two experiments (the first row that fits wins).
"""

import re
from dataclasses import dataclass

from .compact_tool import plan_compact_tool
from .compare_code import plan_code
from .docs_json import plan_json
from .plan import Plan
from .titles import plan_titles
from .view import View

MD_RE = re.compile(r"(?<![\w./-])[\w./-]+\.md\b")
JSON_RE = re.compile(r"(?<![\w./-])[\w./-]+\.json\b")
PY_RE = re.compile(r"(?<![\w./-])[\w./-]+\.py\b")


@dataclass
class Route:
    name: str
    paths: re.Pattern | None     # the paths the request must name
    min_paths: int
    cues: tuple                  # groups of cue words; one word of each group must appear

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
    Route("compact-tool", MD_RE, 1, (("compact", "压缩"), ("write", "写"))),
    Route("titles", None, 0, (("readme",), ("title", "标题"),
                              ("lessons", "five", "课", "五", " to ", "到"))),
    Route("docs-json", JSON_RE, 1, (("structure", "field", "shape", "结构", "字段"),)),
    Route("compare-code", PY_RE, 2, (("compare", "differ", "比较", "对比", "区别"),)),
)


def choose_plan(view: View) -> Plan:
    """The experiment's plan the request fits, or the general policy's."""
    from .ask import plan_question
    for route in ROUTES:
        paths = route.fits(view.request)
        if paths is None:
            continue
        if route.name == "compact-tool":
            return plan_compact_tool(view, paths[0])
        if route.name == "titles":
            return plan_titles(view)
        if route.name == "docs-json":
            return plan_json(view, paths[0])
        return plan_code(view, paths)
    return plan_question(view)
