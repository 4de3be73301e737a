"""The rule that picks the default's numbers, and its search, on a small grid of short sessions.

The full search (`python -m compact_course bench --frontier`) takes hours; here the rule is
checked on points made by hand, and the search's logic (grid, refinement, the bench's own
replay, the processes) on tool-heavy sessions of 20 and 40 turns.
"""

import re
from dataclasses import replace
from pathlib import Path

import pytest

from compact_course.bench import cli, frontier_search
from compact_course.bench.benchmark import run_session
from compact_course.bench.frontier import (
    KNOBS,
    TOLERANCE,
    Point,
    above,
    choose,
    eligible,
    frontier,
    holds,
    point_of,
    setting_of,
)
from compact_course.bench.simulated import make_session
from context_compact.config import CompactionConfig

DOCS = Path(__file__).resolve().parents[2] / "docs" / "AFTER_THE_ARTICLE.md"
BASE = frontier_search.default_setting()


def at(**numbers) -> tuple:
    return setting_of({**dict(BASE), **numbers})


def point(cost, misses, over=0, **numbers) -> Point:
    return Point(at(**numbers), cost, misses, over)


# -- the rule, on points made by hand -----------------------------------------------------

DEFAULT = point(0.50, 100)
CHEAP_BUT_MISSES_MORE = point(0.40, 101, preview_chars=100)
CHEAP_BUT_OVER_THE_ARTICLE = point(0.41, 90, over=1, preview_chars=200)
CHOSEN = point(0.45, 100, preview_chars=300)
DEAR_FEW_MISSES = point(0.47, 80, preview_chars=500)
DOMINATED = point(0.48, 100, preview_chars=700)
POINTS = [DEFAULT, CHEAP_BUT_MISSES_MORE, CHEAP_BUT_OVER_THE_ARTICLE, CHOSEN, DEAR_FEW_MISSES, DOMINATED]


def test_eligible_means_no_more_misses_than_the_default_and_never_more_than_the_article():
    assert eligible(POINTS, DEFAULT) == [DEFAULT, CHOSEN, DEAR_FEW_MISSES, DOMINATED]


def test_the_chosen_point_is_the_cheapest_eligible_one_not_the_cheapest():
    assert choose(POINTS, DEFAULT) == CHOSEN
    assert min(POINTS, key=lambda p: p.cost) == CHEAP_BUT_MISSES_MORE


def test_a_tie_in_cost_goes_to_fewer_misses_then_to_the_default():
    same = point(0.50, 100, preview_chars=300)
    assert choose([same, DEFAULT], DEFAULT) == DEFAULT
    fewer = point(0.50, 99, preview_chars=300)
    assert choose([DEFAULT, fewer], DEFAULT) == fewer


def test_with_no_eligible_point_the_rule_says_why():
    bad = point(0.5, 100, over=2)
    with pytest.raises(ValueError, match="misses more than the article on 2 sessions"):
        choose([bad], bad)


def test_the_frontier_keeps_what_no_point_beats_on_both_counts():
    assert frontier(POINTS) == [DEAR_FEW_MISSES, CHEAP_BUT_OVER_THE_ARTICLE, CHEAP_BUT_MISSES_MORE]
    # Each point of it: fewer misses than the next, and dearer; none of the rest beats it.
    line = frontier(POINTS)
    for point_ in line:
        assert not any(p.cost < point_.cost and p.misses <= point_.misses for p in POINTS)
    for one, two in zip(line, line[1:]):
        assert one.misses < two.misses and one.cost > two.cost


def test_the_chosen_point_is_on_the_frontier_of_the_points_never_over_the_article():
    fair = frontier([p for p in POINTS if p.over_article == 0])
    assert fair == [DEAR_FEW_MISSES, CHOSEN, CHEAP_BUT_MISSES_MORE] and choose(POINTS, DEFAULT) in fair


def test_the_default_holds_within_two_percent_of_the_chosen():
    assert TOLERANCE == 0.02
    chosen = point(0.500, 100, preview_chars=300)
    assert holds(point(0.5099, 100), chosen) and not holds(point(0.5101, 100), chosen)
    assert above(point(0.51, 100), chosen) == pytest.approx(0.02)


def test_a_point_is_the_mean_over_sessions_of_the_bill_over_the_articles():
    article = {("tool-heavy", 20, 0): {"cost_repaid": 100.0, "misses": 3},
               ("tool-heavy", 20, 1): {"cost_repaid": 200.0, "misses": 1},
               ("chinese", 20, 0): {"cost_repaid": 400.0, "misses": 5}}
    runs = [{"session": ("tool-heavy", 20, 0), "cost_repaid": 50.0, "misses": 2},
            {"session": ("tool-heavy", 20, 1), "cost_repaid": 150.0, "misses": 2},
            {"session": ("chinese", 20, 0), "cost_repaid": 100.0, "misses": 5}]
    made = point_of(BASE, runs, article)
    # (0.5 + 0.75 + 0.25) / 3: each session weighs the same, whatever its bill.
    assert made.cost == pytest.approx(0.5)
    assert made.cost_by_kind == pytest.approx({"tool-heavy": 0.625, "chinese": 0.25})
    assert (made.misses, made.misses_by_kind, made.over_article) == (9, {"tool-heavy": 4, "chinese": 5}, 1)


def test_a_setting_names_every_knob():
    with pytest.raises(ValueError, match="archive_fraction"):
        setting_of({k: v for k, v in BASE if k != "archive_fraction"})
    assert [k for k, _ in BASE] == list(KNOBS)
    assert dict(BASE) == {k: getattr(CompactionConfig(), k) for k in KNOBS}


# -- the grid and the refinement's steps ---------------------------------------------------

def test_the_grid_is_every_combination_with_the_other_knobs_the_defaults():
    settings = frontier_search.grid_settings({"preview_chars": (200, 500), "keep_recent_results": (1, 2, 3)},
                                             BASE)
    assert len(settings) == 6 == len(set(settings))
    assert {(dict(s)["preview_chars"], dict(s)["keep_recent_results"]) for s in settings} == \
        {(p, k) for p in (200, 500) for k in (1, 2, 3)}
    assert all(dict(s)["target_fraction"] == dict(BASE)["target_fraction"] for s in settings)


def test_a_neighbour_is_one_knob_one_step_and_never_an_invalid_setting():
    start = at(preview_chars=250, snip_target_messages=45)
    found = frontier_search.neighbours(start, {"preview_chars": (100, 200, 300),
                                               "snip_target_messages": (40, 45, 50)})
    # 250 is placed between 200 and 300; 50 messages would not sit below the snip trigger (50).
    assert found == [at(preview_chars=200, snip_target_messages=45),
                     at(preview_chars=300, snip_target_messages=45),
                     at(preview_chars=250, snip_target_messages=40)]


# -- the search on short sessions ---------------------------------------------------------

SMALL = dict(kinds=("tool-heavy",), turns=(20, 40), seeds=range(2), models=("claude-sonnet-5",))
SMALL_GRID = {"preview_chars": (200, 2000), "keep_recent_results": (1, 3)}
SMALL_LADDERS = {"preview_chars": (200, 500, 2000), "keep_recent_results": (1, 2, 3),
                 "oversized_fraction": (0.2, 0.4)}


@pytest.fixture(scope="module")
def found():
    return frontier_search.search(**SMALL, grid=SMALL_GRID, ladders=SMALL_LADDERS, workers=1, log=None)


def test_the_search_chooses_by_the_rule_over_everything_it_measured(found):
    points = found["search"].points()
    default = points[found["default"]]
    chosen = points[found["chosen"]]
    assert found["default"] == BASE and len(points) >= 5   # the default and the grid at least
    assert chosen in eligible(points.values(), default)
    assert all(p.cost >= chosen.cost for p in eligible(points.values(), default))


def test_the_refinement_stops_where_no_neighbour_is_chosen(found):
    run = found["search"]
    near = frontier_search.neighbours(found["chosen"], SMALL_LADDERS)
    assert near and all((s, run.sessions[0]) in run.runs for s in near)   # every one was measured
    assert found["path"][0] in frontier_search.grid_settings(SMALL_GRID, BASE) + [BASE]
    assert found["path"][-1] == found["chosen"]


def test_a_run_of_the_search_is_the_benchs_own_replay(found):
    run = found["search"]
    longest = make_session("tool-heavy", 40, 1)
    session = replace(longest, turns=longest.turns[:20])
    setting = found["chosen"]
    row = run_session(session, "default", limits=dict(setting))
    article = run_session(session, "seed")
    assert run.runs[(setting, ("tool-heavy", 20, 1))] == (row["misses"],
                                                          {"claude-sonnet-5": row["cost_repaid"]})
    assert run.runs[("seed", ("tool-heavy", 20, 1))] == (article["misses"],
                                                         {"claude-sonnet-5": article["cost_repaid"]})


def test_two_processes_measure_what_one_does(found):
    run = frontier_search.Search(**SMALL, workers=2, log=None)
    settings = [BASE, found["chosen"]]
    run.measure(settings, designs=("seed",))
    assert {name: run.runs[name] for name in run.runs} == \
        {name: found["search"].runs[name] for name in run.runs}


@pytest.mark.slow
def test_the_command_prints_the_rule_the_frontier_and_the_verdict(capsys):
    assert cli.main(["--frontier", "--quick", "--sessions", "tool-heavy", "--turns", "10", "20"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("the rule (compact_course.bench.frontier)")
    chosen = re.search(r"^chosen: (.+)$", out, re.M)[1]
    default = re.search(r"^the default \(compact/config.py\): (.+)$", out, re.M)[1]
    assert default == frontier_search._short(BASE)
    assert re.search(r"^the default is [+-]\d+\.\d\d% from the chosen at sonnet-5 prices: the rule "
                     r"(holds|does NOT hold) \(tolerance 2%\)$", out, re.M)
    # The chosen setting is marked in the frontier table, whose misses never rise as cost falls.
    assert chosen and "the frontier at sonnet-5 prices" in out
