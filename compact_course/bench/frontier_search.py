"""The search behind the default's numbers: a grid, then a refinement around the best.

`python -m compact_course bench --frontier` measures settings of the default profile
(`frontier.KNOBS`) over the bench's sessions (3 kinds x 120 and 400 turns x 8 seeds,
`benchmark.run_bills`, the bench's own replay), billed at the bench's models on the
bench's clock, and applies `frontier.RULE`:
1. the default's own numbers (compact/config.py), and every setting of `GRID`;
2. the refinement: around the chosen point, each knob one step either way on its
   ladder (`LADDERS`), all others kept; when a neighbour is chosen, again around it,
   until the chosen point stays.
It prints the rule, the frontier (cost against misses), the chosen setting and the
default against it, by kind and at each model billed.

The runs go to `workers` processes (2 by default: the machine's cores are shared; run
the command under `nice -n 19`). The full search takes hours of CPU: the tests run its
logic on a small grid of short sessions (tests/bench/test_frontier.py).

Left out: other clocks and breakpoint rules (`bench --ttls --clocks` measures those for
the designs), thinking on, and saving the runs (each search starts afresh).
"""

import itertools
import sys
from dataclasses import replace
from functools import cache
from multiprocessing import get_context

from context_compact.config import CompactionConfig

from ..display.text import fixed_width, plural
from .benchmark import run_bills
from .frontier import KNOBS, RULE, TOLERANCE, above, choose, eligible, frontier, holds, point_of, setting_of
from .prices import BENCH_MODELS, DEFAULT_MODEL
from .simulated import make_session
from .tables import short_model

# The coarse grid: the knobs that move the bill most, every combination; the others stay
# at the default's until the refinement moves them.
GRID = {
    "preview_chars": (200, 500, 1000, 2000),
    "keep_recent_results": (1, 2, 3, 4),
    "oversized_fraction": (0.1, 0.2, 0.4, 0.6),
    "target_fraction": (0.5, 0.6, 0.7),
}
# The refinement's steps: one knob one place either way.
LADDERS = {
    "preview_chars": (100, 200, 300, 400, 500, 700, 1000, 1500, 2000, 3000),
    "keep_recent_results": (0, 1, 2, 3, 4, 5, 6),
    "oversized_fraction": (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0),
    "large_result_char_limit": (5_000, 10_000, 20_000, 30_000, 50_000),
    "target_fraction": (0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9),
    "archive_fraction": (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5),
    "snip_target_messages": (10, 15, 20, 25, 30, 35, 40, 45),
}
QUICK_GRID = {"preview_chars": (200, 2000), "keep_recent_results": (1, 3)}


def default_setting() -> tuple:
    """The default's numbers as a setting: compact/config.py's."""
    config = CompactionConfig()
    return setting_of({knob: getattr(config, knob) for knob in KNOBS})


def grid_settings(grid: dict, base: tuple) -> list[tuple]:
    """Every combination of `grid`'s values, the other knobs at `base`'s."""
    names = list(grid)
    return [setting_of({**dict(base), **dict(zip(names, values))})
            for values in itertools.product(*(grid[name] for name in names))]


def neighbours(setting: tuple, ladders: dict) -> list[tuple]:
    """Each knob of `ladders` one step down and up its ladder (its value placed in it when
    it is not a step), the others as they are."""
    numbers, found = dict(setting), []
    for knob, ladder in ladders.items():
        steps = sorted({*ladder, numbers[knob]})
        at = steps.index(numbers[knob])
        for near in (at - 1, at + 1):
            if 0 <= near < len(steps):
                found.append(setting_of({**numbers, knob: steps[near]}))
    return [s for s in dict.fromkeys(found) if _valid(s)]


def _valid(setting: tuple) -> bool:
    try:
        CompactionConfig(**dict(setting))
    except ValueError:
        return False
    return True


def _say(log, line: str) -> None:
    """A line of progress to `log` (None: none)."""
    if log is not None:
        print(line, file=log, flush=True)


# -- measuring: one task a (setting, session), in worker processes -----------------------

@cache
def _longest(kind: str, turns: int, seed: int):
    return make_session(kind, turns, seed)


def _run(task) -> tuple:
    """One design of one setting over one session: (setting, session key, misses, bills)."""
    setting, design, (kind, turns, seed), longest, models = task
    session = replace(_longest(kind, longest, seed), turns=_longest(kind, longest, seed).turns[:turns])
    rows = run_bills(session, design, [(model, "5m", "bench") for model in models],
                     limits=None if setting is None else dict(setting))
    return setting, design, (kind, turns, seed), rows[0]["misses"], \
        {row["priced_as"]: row["cost_repaid"] for row in rows}


class Search:
    """The runs measured so far, and the rule's points made from them."""

    def __init__(self, kinds, turns, seeds, models=BENCH_MODELS, workers: int = 2, log=sys.stderr):
        self.sessions = [(kind, count, seed) for kind in kinds for count in sorted(turns) for seed in seeds]
        self.longest, self.models, self.workers, self.log = max(turns), tuple(models), workers, log
        self.runs: dict = {}     # (setting or design name, session) -> (misses, {model: cost_repaid})

    def measure(self, settings, designs=()) -> None:
        """Run every setting (the default profile with its numbers) and design (its own
        profile: "seed", "oracle") not yet run, on every session."""
        tasks = [(s, "default", key, self.longest, self.models) for s in dict.fromkeys(settings)
                 for key in self.sessions if (s, key) not in self.runs]
        tasks += [(None, d, key, self.longest, self.models) for d in designs
                  for key in self.sessions if (d, key) not in self.runs]
        if not tasks:
            return
        tasks.sort(key=lambda t: -t[2][1])   # the longest sessions first: the workers end together
        _say(self.log, f"  running {len(tasks)} replays ...")
        if self.workers > 1:
            with get_context("fork").Pool(self.workers) as pool:
                done = list(pool.imap_unordered(_run, tasks, chunksize=1))
        else:
            done = [_run(task) for task in tasks]
        for setting, design, key, misses, bills in done:
            self.runs[(setting if setting is not None else design, key)] = (misses, bills)

    def rows(self, name, model: str) -> list[dict]:
        return [{"session": key, "misses": self.runs[(name, key)][0],
                 "cost_repaid": self.runs[(name, key)][1][model]} for key in self.sessions]

    def points(self, model: str = DEFAULT_MODEL) -> dict:
        """Every setting measured, as the rule's Point, billed at `model`."""
        article = {row["session"]: row for row in self.rows("seed", model)}
        names = dict.fromkeys(name for name, _ in self.runs if isinstance(name, tuple))
        return {name: point_of(name, self.rows(name, model), article) for name in names}


def search(kinds, turns, seeds, grid=GRID, ladders=LADDERS, models=BENCH_MODELS, workers: int = 2,
           log=sys.stderr) -> dict:
    """The grid, then the refinement around the chosen point until it stays; what `report`
    prints: the search, the default's setting, the chosen one's, and the path of the refinement."""
    run = Search(kinds, turns, seeds, models, workers, log)
    default = default_setting()
    _say(log, f"grid: {len(grid_settings(grid, default))} settings, and the default")
    run.measure([default, *grid_settings(grid, default)], designs=("seed", "oracle"))
    path = [choose(run.points().values(), run.points()[default]).setting]
    while True:
        near = [s for s in neighbours(path[-1], ladders) if (s, run.sessions[0]) not in run.runs]
        _say(log, f"refining around {_short(path[-1])}: {len(near)} new neighbours")
        run.measure(near)
        points = run.points()
        best = choose(points.values(), points[default]).setting
        if best == path[-1]:
            break
        path.append(best)
    return {"search": run, "default": default, "chosen": path[-1], "path": path}


# -- printing ---------------------------------------------------------------------------

SHORT = {"preview_chars": "preview", "keep_recent_results": "keep", "oversized_fraction": "oversized",
         "large_result_char_limit": "large", "target_fraction": "target",
         "archive_fraction": "archive", "snip_target_messages": "snip to"}


def _short(setting: tuple) -> str:
    return ", ".join(f"{SHORT[k]} {v:g}" for k, v in setting)


def _columns(kinds) -> list:
    return [("cost", lambda p: f"{p.cost:.4f}"),
            *((kind, lambda p, k=kind: f"{p.cost_by_kind[k]:.4f}") for kind in kinds),
            ("misses", lambda p: p.misses),
            *((f"m {kind}", lambda p, k=kind: p.misses_by_kind[k]) for kind in kinds),
            ("> article", lambda p: p.over_article),
            *((SHORT[k], lambda p, k=k: f"{p.numbers[k]:g}") for k in KNOBS)]


def point_table(points, kinds, marks: dict) -> str:
    """Points as a fixed-width table; `marks` names some settings (default, chosen)."""
    columns = _columns(kinds)
    header = ("", *(name for name, _ in columns))
    rows = [(marks.get(p.setting, ""), *(show(p) for _, show in columns)) for p in points]
    widths = [max(len(str(row[k])) for row in (header, *rows)) for k in range(len(header))]
    lines = fixed_width([header, *rows], widths, ">", "  ")
    return "\n".join([lines[0], "-" * len(lines[0]), *lines[1:]])


def report(found: dict, kinds) -> str:
    """The rule, the frontier, the chosen setting and the default against it at each model."""
    run, default, chosen = found["search"], found["default"], found["chosen"]
    points = run.points()
    marks = {default: "default", chosen: "chosen"} if chosen != default else {default: "default, chosen"}
    fair = [p for p in points.values() if p.over_article == 0]
    # The default's row is shown where it is not on the frontier.
    line = sorted({*frontier(fair), points[default]}, key=lambda p: (p.misses, p.cost))
    lines = [RULE, "",
             f"sessions: {len(run.sessions)} ({', '.join(kinds)} x {sorted({s[1] for s in run.sessions})} "
             f"turns x {plural(len({s[2] for s in run.sessions}), 'seed')}), clock bench, breakpoints 5m; "
             f"{len(points)} settings measured, {len(fair)} never over the article on a session, "
             f"{len(eligible(points.values(), points[default]))} eligible; "
             f"{len(found['path']) - 1} refinement moves",
             "cost: mean of (bill + misses repaid) over the article's, by kind too; misses: total, "
             "m KIND by kind; > article: sessions with more misses than the article's",
             "", f"the frontier at {short_model(DEFAULT_MODEL)} prices: the settings never over the "
             "article on a session that no other of them beats on both cost and misses "
             "(and the default's row):",
             point_table(line, kinds, marks),
             "", f"chosen: {_short(chosen)}", f"the default (compact/config.py): {_short(default)}"]
    for model in run.models:
        at = run.points(model)
        lines += ["", f"the default against the chosen at {short_model(model)} prices:",
                  point_table([at[default], at[chosen]], kinds, marks)]
    share = above(points[default], points[chosen])
    verdict = "holds" if holds(points[default], points[chosen]) else "does NOT hold"
    lines += ["", f"the default is {share:+.2%} from the chosen at {short_model(DEFAULT_MODEL)} prices: "
              f"the rule {verdict} (tolerance {TOLERANCE:.0%})"]
    return "\n".join(lines)


def main(kinds, turns, seeds, quick: bool = False, workers: int = 2) -> int:
    found = search(kinds, turns, seeds, grid=QUICK_GRID if quick else GRID, workers=workers)
    print(report(found, kinds))
    return 0
