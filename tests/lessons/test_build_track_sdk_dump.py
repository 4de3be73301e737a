"""Flaw 12 has one rule in every step (issue 52, review finding 1): model_dump(exclude_none=True).

The starter's docstrings, the checkers of steps 2 and 4 and of the pipeline, and hint() all ask for
the SDK's objects as model_dump(exclude_none=True), as the package writes them
(context_compact/messages.py). A build that does what an older docstring said, model_dump(),
keeps the SDK's unset fields ("caller": null) and fails the flaw-12 case in every step alike, with
a line that names that difference, never "repr"; a build that writes the repr is told "repr".
Left out: the other flaws (test_build_track.py).
"""

import pytest

from compact_course.lessons.build_track import check, hint

from .test_build_track import (
    ROOT,
    english,  # noqa: F401 (its autouse fixture: English, a fresh run)
    learner_file,
    solutions,
)

# The solution of docs/TEACHING.md with plain() as an older docstring put it: model_dump(), Nones kept.
NONES_KEPT = '''

def plain(value):
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value
'''
REPR = NONES_KEPT.replace('return value.model_dump(mode="json")', "return repr(value)")
STEPS_WITH_FLAW_12 = ("snip_compact", "summary_input", "compact_history", "reactive_compact", "prepare")


@pytest.mark.parametrize("step", STEPS_WITH_FLAW_12)
def test_model_dump_with_its_nones_fails_flaw_12_in_every_step_and_says_null_not_repr(tmp_path, step, capsys):
    result = check(step, learner_file(tmp_path, solutions() + NONES_KEPT), seed=21)
    out = capsys.readouterr().out
    assert not result.ok and result.flaws == [12], out
    assert "flaw 12: " in out and '"caller": null' in out and "repr" not in out, out
    hint()
    assert "model_dump(exclude_none=True)" in capsys.readouterr().out


@pytest.mark.parametrize("step", ["snip_compact", "summary_input"])
def test_a_repr_is_still_called_a_repr(tmp_path, step, capsys):
    result = check(step, learner_file(tmp_path, solutions() + REPR), seed=21)
    out = capsys.readouterr().out
    assert not result.ok and 12 in result.flaws and "repr" in out, out


def test_the_starter_says_the_rule_the_checkers_hold():
    for path in (ROOT / "notebooks" / "my_compact.py", ROOT / "notebooks" / "zh" / "my_compact.py"):
        text = path.read_text(encoding="utf-8")
        assert "`model_dump()`" not in text
        assert text.count("model_dump(exclude_none=True)") == 2, path
