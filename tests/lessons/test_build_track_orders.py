"""05's checker rejects every other order of steps 1-3, on every run, and says which step ran out of place.

A fresh learner's cheap_steps with steps 1 and 2 swapped passed 4 runs of 7: only some drawn
cases told the orders apart. Each wrong file here is docs/TEACHING.md's solution with its
cheap_steps in another order, so the order is what fails; the seeds stand for runs. The failure
names steps that ran out of place (pipeline.out_of_order), never the list the right order leaves.

Left out: prepare's orders (test_build_track_prepare.py holds step 3 before step 1 there).
"""

import itertools
import re

import pytest

from compact_course.lessons.build_track import check

from .test_build_track import english, learner_file, solutions  # noqa: F401 (english: its autouse fixture)

NAMES = {1: "tool_result_budget", 2: "snip_compact", 3: "micro_compact"}
WRONG = [order for order in itertools.permutations((1, 2, 3)) if order != (1, 2, 3)]
SAID = re.compile(r"step (\d) \((\w+)\) ran before step (\d) \((\w+)\)")


def in_order(order) -> str:
    steps = "".join(f"    messages = {NAMES[n]}(messages, root)\n" for n in order)
    return f"{solutions()}\n\ndef cheap_steps(messages, root):\n{steps}    return messages\n"


@pytest.mark.parametrize("order", [pytest.param(o, marks=() if o == (2, 1, 3) else pytest.mark.slow)
                                   for o in WRONG], ids=lambda o: "".join(map(str, o)))
def test_every_wrong_order_fails_on_every_run_and_says_which_steps_ran_out_of_place(tmp_path, order, capsys):
    path = learner_file(tmp_path, in_order(order))
    inverted = {(a, b) for i, a in enumerate(order) for b in order[i + 1:] if a > b}
    for seed in (0, 1, 2, 3):
        result = check("cheap_steps", path, seed=seed)
        out = capsys.readouterr().out
        assert result.attempted and not result.ok, (order, seed, out)
        said = {(int(a), int(b)) for _, _, found in result.failing for line in found
                for a, name_a, b, name_b in SAID.findall(line)
                if (name_a, name_b) == (NAMES[int(a)], NAMES[int(b)])}
        # Every pair named is one this order inverts, and some pair is named. Not always every
        # pair: once step 3 has run first, steps 1 and 2 leave the same list in either order.
        assert said and said <= inverted, (order, seed, said, out)


def test_the_articles_order_passes_those_runs(tmp_path, capsys):
    path = learner_file(tmp_path, in_order((1, 2, 3)))
    for seed in (0, 1, 2, 3):
        assert check("cheap_steps", path, seed=seed).ok, capsys.readouterr().out
