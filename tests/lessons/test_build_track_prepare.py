"""Issue 52's acceptance for notebook 08: its checker rejects each of the four, on every run.

08's checker (compact_course/lessons/build_track/prepare.py) grades the learner's `prepare` in
my_compact.py. It rejects: the article's own `prepare` where a numbered flaw makes it wrong (and
names the flaw); a `prepare` that calls the package's `prepare`, or its steps (the trap; a file
that imports the package runs nothing); a hard-coded limit; step 3 before step 1. Each wrong
file is the solution of docs/TEACHING.md with one thing changed, so the change is what fails.
test_build_track.py runs the same families over every step; this file names 08's four.

Left out: what the other steps' checkers reject (test_build_track.py).
"""

import pytest

from compact_course.lessons.build_track import check

from .test_build_track import (
    ARTICLE_LITERALS,
    article_file,
    english,  # noqa: F401 (its autouse fixture: English, a fresh run)
    learner_file,
    solutions,
)

PACKAGE_PREPARE = '''
import importlib

package = importlib.import_module("context_" + "compact")   # a name put together at run time


def prepare(messages, root, active_request, summarize, limit=50_000):
    compactor = package.ContextCompactor(root, lambda m: summarize(str(m)),
                                         package.CompactionConfig.seed(context_char_limit=limit))
    return compactor.prepare(messages, active_request)
'''
PACKAGE_STEPS = '''
import importlib

package = importlib.import_module("context_" + "compact")


def prepare(messages, root, active_request, summarize, limit=50_000):
    compactor = package.ContextCompactor(root, lambda m: summarize(str(m)),
                                         package.CompactionConfig.seed(context_char_limit=limit))
    messages = compactor.micro_compact(compactor.snip_compact(compactor.tool_result_budget(messages)))
    if compactor.size(messages) > limit:
        messages = compactor.compact_history(messages, active_request)
    return messages
'''
HARD_CODED_LIMIT = '''
def prepare(messages, root, active_request, summarize, limit=50_000):
    messages = cheap_steps(messages, root)
    if len(json.dumps(plain(messages), ensure_ascii=False)) > 50_000:
        messages = compact_history(messages, root, active_request, summarize)
    return messages
'''
STEP_3_FIRST = '''
def prepare(messages, root, active_request, summarize, limit=50_000):
    messages = snip_compact(tool_result_budget(micro_compact(messages, root), root), root)
    if len(json.dumps(plain(messages), ensure_ascii=False)) > limit:
        messages = compact_history(messages, root, active_request, summarize)
    return messages
'''


def test_the_solution_passes(tmp_path, capsys):
    assert check("prepare", learner_file(tmp_path, solutions()), seed=21).ok, capsys.readouterr().out


def test_the_articles_prepare_fails_where_a_flaw_makes_it_wrong_and_names_the_flaw(tmp_path, capsys):
    result = check("prepare", article_file(tmp_path), seed=21, pin=ARTICLE_LITERALS)
    out = capsys.readouterr().out
    assert not result.ok and result.flaws == [6, 7, 11, 12], out
    assert all(flaw for _, flaw, _ in result.failing)   # it fails nowhere else
    assert "flaw 6: " in out and "docs/DESIGN.md" in out


@pytest.mark.parametrize("source", [PACKAGE_PREPARE, PACKAGE_STEPS], ids=["its prepare", "its steps"])
def test_a_call_to_the_package_fails_every_case(tmp_path, source, capsys):
    result = check("prepare", learner_file(tmp_path, source), seed=21)
    out = capsys.readouterr().out
    assert result.attempted and result.total >= 8 and result.passed == 0, out
    assert "called the package's own code, which refuses" in out


def test_a_file_that_imports_the_package_runs_nothing(tmp_path, capsys):
    source = "from context_compact import ContextCompactor\n" + PACKAGE_PREPARE
    result = check("prepare", learner_file(tmp_path, source), seed=21)
    assert not result.ok and result.total == 0
    assert "my_compact.py imports context_compact (line 1)" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, said", [
    (HARD_CODED_LIMIT, "after steps 1-3 the list is still over the limit (30,000)"),
    (STEP_3_FIRST, "no file holds it: step 1 saves a large result before step 3 shrinks it"),
], ids=["a hard-coded limit", "step 3 before step 1"])
def test_a_hard_coded_limit_and_step_3_before_step_1_fail_and_say_why(tmp_path, wrong, said, capsys):
    result = check("prepare", learner_file(tmp_path, solutions() + wrong), seed=21)
    out = capsys.readouterr().out
    assert result.attempted and not result.ok and not result.flaws, out
    assert said in out


PER_MESSAGE = '''
def prepare(messages, root, active_request, summarize, limit=50_000):
    messages = cheap_steps(messages, root)
    if sum(len(json.dumps(plain(m), ensure_ascii=False)) for m in messages) > limit:   # message by message
        messages = compact_history(messages, root, active_request, summarize)
    return messages
'''


def test_a_measure_message_by_message_fails_on_every_run_and_says_the_whole_list(tmp_path, capsys):
    """It leaves out the list's brackets and the ", " between messages (2 characters a message): a
    fresh learner's passed every run. The drawn case just over the limit fails it on each."""
    path = learner_file(tmp_path, solutions() + PER_MESSAGE)
    for seed in (21, 22, 23):
        result = check("prepare", path, seed=seed)
        out = capsys.readouterr().out
        assert result.attempted and not result.ok and not result.flaws, out
        assert "drawn at random, just over the limit" in [label for label, _, _ in result.failing], out
        assert "the article measures the whole list, json.dumps(messages, ensure_ascii=False)" in out
