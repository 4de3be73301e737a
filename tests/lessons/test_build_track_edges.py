"""Wrong builds the checkers let pass before review finding 6 of issue 52, each now failing.

Each wrong file is the solution of docs/TEACHING.md with one thing changed: prepare measuring
with `>=`, with ensure_ascii=True, or with json.dumps(default=str); step 1 saving a result
exactly large_limit long (`<` for `<=`), or writing an absolute path in its block; step 3
slicing results[:-keep_recent] (keep_recent=0 keeps all, flaw 16); (its second reviewer)
step 1 taking a moved result's whole size off the total, the preview forgotten; and (a fresh
learner's) is_prompt_too_long matching "prompt" alone, which a 400 about a system prompt or
prompt caching fails.
Each fails a fixed case with a line that names what is wrong and never the package's output.
Left out: the families of test_build_track.py (the solutions pass, the article fails where a
flaw makes it wrong).
"""

import pytest

from compact_course.lessons.build_track import check

from .test_build_track import (
    english,  # noqa: F401 (its autouse fixture: English, a fresh run)
    learner_file,
    solutions,
)

SPELLINGS = '("prompt is too long", "prompt_too_long", "too many tokens")'
MEASURE = "if len(json.dumps(plain(messages), ensure_ascii=False)) > limit:"
WRONG = {
    ">= for >": ("prepare", MEASURE, MEASURE.replace("> limit", ">= limit"),
                 "exactly at the limit after steps 1-3", "only a list longer than the limit is summarized"),
    "ensure_ascii=True": ("prepare", MEASURE, MEASURE.replace("ensure_ascii=False", "ensure_ascii=True"),
                          "Chinese text under the limit", "a Chinese character one character"),
    "default=str": ("prepare", MEASURE,
                    "if len(json.dumps(messages, default=str, ensure_ascii=False)) > limit:",
                    "the SDK's objects, not archived", "not as json.dumps(default=str) writes them"),
    "< for <=": ("tool_result_budget", "if len(text) <= large_limit:", "if len(text) < large_limit:",
                 "a result exactly large_limit long stays", "it is not longer than large_limit"),
    "an absolute path": ("tool_result_budget", "Full output: {path}",
                         "Full output: {Path(root).resolve() / path}",
                         "the batch over its limit: one huge result",
                         "is absolute: it is the file's path relative"),
    "the preview left out of the total": ("tool_result_budget", "total -= len(text) - len(new)",
                                          "total -= len(text)",
                                          "the preview still counts: a second result must move",
                                          "the batch was over batch_limit when its turn came"),
    "results[:-keep_recent]": ("micro_compact", "blocks[:max(len(blocks) - keep_recent, 0)]",
                               "blocks[:-keep_recent]", "keep_recent given: 0, none kept whole",
                               "flaw 16: keep_recent=0 kept every result whole"),
    # A fresh learner's: matching "prompt" alone passed while no error that is not it said "prompt".
    "'prompt' alone": ("is_prompt_too_long", SPELLINGS, '("prompt", "too many tokens")',
                       "a 400 for an empty system prompt", "its words say 'prompt', not that the prompt"),
    "'prompt' alone, caching": ("is_prompt_too_long", SPELLINGS, '("prompt", "too many tokens")',
                                "a 400 for prompt caching", "compacting would not help"),
}


@pytest.mark.parametrize("name", WRONG)
def test_each_wrong_build_fails_its_case_and_says_what_is_wrong(tmp_path, name, capsys):
    step, right, wrong, label, said = WRONG[name]
    source = solutions()
    assert source.count(right) == 1
    source = "from pathlib import Path\n" + source.replace(right, wrong)
    result = check(step, learner_file(tmp_path, source), seed=21)
    out = capsys.readouterr().out
    assert not result.ok, out
    assert label in [failed for failed, _, _ in result.failing], out
    assert said in out, out


def test_the_solutions_pass_the_new_cases(tmp_path, capsys):
    path = learner_file(tmp_path, solutions())
    for step in ("prepare", "tool_result_budget", "micro_compact"):
        assert check(step, path, seed=21).ok, capsys.readouterr().out


@pytest.mark.parametrize("step", ["snip_compact", "compact_history", "reactive_compact"])
def test_an_absolute_transcript_path_fails_every_step_that_archives(tmp_path, step, capsys):
    # Its second reviewer: an absolute path in step 2's marker or step 4's summary passed,
    # though the starter says a path written into the context is relative to root.
    right = "    return path.relative_to(root).as_posix()\n"
    source = solutions()
    at = source.index(right, source.index("def write_transcript"))   # the transcript's, not step 1's
    wrong = source[:at] + "    return str(path.resolve())\n" + source[at + len(right):]
    result = check(step, learner_file(tmp_path, wrong), seed=21)
    out = capsys.readouterr().out
    assert not result.ok and "the transcript's path is absolute" in out, out
