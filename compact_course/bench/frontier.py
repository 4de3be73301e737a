"""The rule that picks the default's numbers (issue 51): the cheapest setting at no more misses.

A setting is the default profile with some of its numbers changed (`KNOBS`). Measured
over the bench's sessions (`frontier_search`), each run of it gives a bill with misses
priced (`cost_repaid`, each miss a re-read) and a count of misses; the article's own
run on the same session (the seed profile) gives the yardstick. One setting is then one
`Point`:
- cost: the mean over the sessions of its bill over the article's (the bench's
  "+misses x seed"), and the same mean for each session kind;
- misses: the total over the sessions, and by kind;
- over_article: the sessions where it missed more than the article did.

The rule (RULE, printed by `python -m compact_course bench --frontier`):
- a setting is eligible when its misses in total are no more than the default's
  (compact/config.py's numbers, measured in the same search) and it misses no more than
  the article on any session;
- the chosen setting is the cheapest eligible one;
- the default holds when its cost is within TOLERANCE (2%) of the chosen one's.

The rule pools the three kinds, each session weighing the same: the default is one
setting for any agent, and each kind is a third of the bench's sessions; by kind the
chosen point and the default are printed, never used to choose (a kind's cheapest setting
would be a profile per kind, which no issue asks for).

Left out: the measuring (`frontier_search`), and any weighting of the kinds but equal.
"""

from dataclasses import dataclass, field

# The numbers of CompactionConfig the search moves; the article's own thresholds
# (context_char_limit, snip_max_messages, tool_result_batch_char_limit, ...) stay.
KNOBS = ("preview_chars", "keep_recent_results", "oversized_fraction", "large_result_char_limit",
         "target_fraction", "archive_fraction", "snip_target_messages")
TOLERANCE = 0.02

RULE = f"""\
the rule (compact_course.bench.frontier): over every session searched, each setting's cost is the
mean of its bill with misses priced (each miss a re-read) over the article's (the seed profile's)
on the same session; a setting is eligible when it misses no more in total than the default
(compact/config.py) and no more than the article on any session; the chosen setting is the
cheapest eligible one; the default holds when its cost is within {TOLERANCE:.0%} of the chosen one's.
The kinds are pooled, each session weighing the same; by kind is shown, never used to choose."""


@dataclass(frozen=True)
class Point:
    """One setting's figures over the sessions searched."""

    setting: tuple                      # (knob, value) pairs, in KNOBS order
    cost: float                         # mean of cost_repaid over the article's
    misses: int                         # in total
    over_article: int                   # sessions with more misses than the article's
    cost_by_kind: dict = field(default_factory=dict, compare=False)
    misses_by_kind: dict = field(default_factory=dict, compare=False)

    @property
    def numbers(self) -> dict:
        return dict(self.setting)


def setting_of(numbers: dict) -> tuple:
    """A setting as a hashable key: every knob of KNOBS with its value, in order."""
    missing = [knob for knob in KNOBS if knob not in numbers]
    if missing:
        raise ValueError(f"a setting needs every knob: {', '.join(missing)} missing")
    return tuple((knob, numbers[knob]) for knob in KNOBS)


def point_of(setting: tuple, runs: list[dict], article: dict) -> Point:
    """A setting's Point from its runs, one a session (`session`, `misses`, `cost_repaid`),
    and `article`: the article's run on each session, by the session's key."""
    if not runs:
        raise ValueError(f"no runs for the setting {dict(setting)}")
    ratios, by_kind, misses_by_kind, over = [], {}, {}, 0
    for run in runs:
        base = article[run["session"]]
        ratio = run["cost_repaid"] / base["cost_repaid"]
        kind = run["session"][0]
        ratios.append(ratio)
        by_kind.setdefault(kind, []).append(ratio)
        misses_by_kind[kind] = misses_by_kind.get(kind, 0) + run["misses"]
        over += run["misses"] > base["misses"]
    return Point(setting, sum(ratios) / len(ratios), sum(r["misses"] for r in runs), over,
                 {kind: sum(v) / len(v) for kind, v in by_kind.items()}, misses_by_kind)


def eligible(points, default: Point) -> list[Point]:
    """The points the rule may choose: no more misses in total than the default's, and no
    session with more misses than the article's."""
    return [p for p in points if p.misses <= default.misses and p.over_article == 0]


def choose(points, default: Point) -> Point:
    """The cheapest eligible point; on a tie, fewer misses, then the default's own setting.
    The default is always eligible when it never misses more than the article."""
    found = eligible(points, default)
    if not found:
        raise ValueError("no eligible setting: the default itself misses more than the article "
                         f"on {default.over_article} sessions")
    return min(found, key=lambda p: (p.cost, p.misses, p.setting != default.setting))


def frontier(points) -> list[Point]:
    """The points no other beats on both counts (cost, misses): by misses, fewest first."""
    best, kept = float("inf"), []
    for point in sorted(points, key=lambda p: (p.misses, p.cost)):
        if point.cost < best:
            kept.append(point)
            best = point.cost
    return kept


def holds(default: Point, chosen: Point, tolerance: float = TOLERANCE) -> bool:
    """Whether the default is within `tolerance` of the chosen point's cost."""
    return default.cost <= chosen.cost * (1 + tolerance)


def above(default: Point, chosen: Point) -> float:
    """How far the default's cost is above the chosen one's, as a share of it."""
    return default.cost / chosen.cost - 1
