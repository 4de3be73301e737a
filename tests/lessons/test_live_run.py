"""Notebook 09's "Your turn" works as its **Try this.** says (issue 40).

`your_run` (compact_course/lessons/live_run.py) runs experiment 3 in a fresh copy of the
workspace with the learner's `prepare`: its first line says whose ran, and with
`my_profile = "default"` it prints the two numbers the notebook's prediction asks
for (`check_default_run`). A `prepare` that raises reaches the learner as its own
error, not as a silent fall-back to the package's.

Left out: a real model's run (the notebook's cells are the same; its numbers differ).
"""

import re

import pytest

from compact_course.agent.tasks import COMPARE_CODE, texts
from compact_course.display.phrases import say
from compact_course.lessons.exercises import live
from compact_course.lessons.exercises import solutions as right
from compact_course.lessons.live_run import your_run
from compact_course.offline.model.experiments.compare_code import outline_command
from compact_course.offline.model.experiments.notes import code_facts, code_note
from context_compact.messages import text_of, tool_results, tool_uses


def test_the_learners_prepare_runs_and_the_default_run_shows_the_predicted_numbers(capsys):
    calls = []

    def my_prepare(compactor, messages, active_request):
        calls.append(len(messages))
        return right.my_prepare(compactor, messages, active_request)

    run = your_run(COMPARE_CODE, "default", 50_000, prepare=my_prepare, offline=True)
    out = capsys.readouterr().out
    assert out.splitlines()[0] == say("live run: prepare own", "en", name="my_prepare")
    assert len(calls) == run.model_calls          # before every model call, and only then
    expected = live.default_run()
    assert re.search(rf"model calls {expected['model_calls']}, summary calls 0", out), out
    written = re.search(r"^written: (.*)$", out, re.M)[1]
    assert written.count(".task_outputs") == expected["files_saved"], written


def test_left_as_none_the_packages_prepare_runs_and_says_so(capsys):
    your_run(COMPARE_CODE, "seed", 50_000, prepare=None, offline=True)
    out = capsys.readouterr().out
    assert out.splitlines()[0] == say("live run: prepare the package's", "en")
    assert "model calls 4, summary calls 1" in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_answers_first_line_is_the_note_on_the_outline_just_read(capsys, lang):
    run = your_run(texts(lang)["COMPARE_CODE"], "seed", 50_000, prepare=None, offline=True)
    answer = capsys.readouterr().out.split("the agent's answer:\n", 1)[1]
    asked = [use for use in tool_uses(run.messages[-3]) if use["name"] == "bash"]
    [path] = [p for p in ("s08_context_compact/code.py", "s09_memory/code.py")
              if [use["input"]["command"] for use in asked] == [outline_command(p)]]
    [result] = tool_results(run.messages[-2])   # the result the answer came right after
    note = code_note(path, code_facts(text_of(result["content"]), outline=True), lang)
    assert answer.splitlines()[0] == note


def test_a_prepare_that_raises_is_the_learners_error():
    def my_prepare(compactor, messages, active_request):
        raise NotImplementedError("your code here")

    with pytest.raises(NotImplementedError, match="your code here"):
        your_run(COMPARE_CODE, "seed", 50_000, prepare=my_prepare, offline=True)
