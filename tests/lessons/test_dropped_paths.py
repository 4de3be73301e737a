"""Lab 06's prediction (issue 52): the plausible wrong answers fail, and no run, however
often repeated, prints the paths the server drops.

The plausible slips: only the first failing block dropped; a changed `system` taken for
no change (it is not a message); removing the oldest blocks taken to drop the later ones;
blocks before the edit dropped too.

Left out: the paths themselves (from the offline server's own check, `binding.check`).
"""

import pytest

from compact_course.lessons.exercises import check_dropped_paths, hint
from compact_course.lessons.exercises.dropped import LABELS, expected

SHRINK, SYSTEM, REMOVE = LABELS
LATER = [f"messages.{n}.content.0" for n in (5, 7, 9)]
EVERY = [f"messages.{n}.content.0" for n in (1, 3, 5, 7, 9)]


def test_the_rule_on_the_page_gives_the_servers_answer():
    # the lab states the rule; these are what it gives, and the server agrees
    assert expected() == {SHRINK: LATER, SYSTEM: EVERY, REMOVE: []}
    assert check_dropped_paths({SHRINK: LATER, SYSTEM: EVERY, REMOVE: []}).ok


@pytest.mark.parametrize("slip, wrong", [
    ("the first failing block only", {SHRINK: LATER[:1], SYSTEM: EVERY[:1], REMOVE: []}),
    ("system is no message", {SHRINK: LATER, SYSTEM: [], REMOVE: []}),
    ("removal drops the later ones", {SHRINK: LATER, SYSTEM: EVERY, REMOVE: LATER}),
    ("the edited message's own neighbours", {SHRINK: EVERY[1:], SYSTEM: EVERY, REMOVE: []}),
])
def test_a_plausible_wrong_prediction_fails(slip, wrong, capsys):
    result = check_dropped_paths(wrong)
    assert result.attempted and not result.ok, slip
    check_dropped_paths(wrong)          # the same answer again: still no paths shown
    hint()
    out = capsys.readouterr().out
    for label, paths in expected().items():
        if wrong[label] != paths:
            assert not [p for p in paths if p not in wrong[label] and p in out], (label, out)
            assert repr(paths) not in out
