"""Two wrong builds that step 3's check passed (a reviewer's, issue 52), each now failing.

1. A step 3 that reads a `Full output: ` line anywhere in an older result's text, not only from
   exactly step 1's block, and trusts the path whenever that file is in the folder: a README that
   quotes another result's saved path becomes a placeholder naming the wrong file (flaw 6). The
   check's drawn cases (micro.quoting) quote such a line, or the whole block, inside other text;
   the failure names flaw 6 and never prints the package's output.
2. A step that edits the list it is given, or its dicts, in place: every step's check compares
   the input with a deep copy taken before the call (run.edited_in_place), one place for all the
   steps that take a list (is_prompt_too_long takes an error: nothing to edit).

Left out: the families of test_build_track.py (the solutions pass, the article fails where a
flaw makes it wrong), which run on the same checkers.
"""

import pytest

from compact_course.lessons.build_track import STEPS, check, micro, run

from .test_build_track import (
    english,  # noqa: F401 (its autouse fixture: English, a fresh run)
    learner_file,
    reference_only,
    solutions,
    strings,
)

# The reviewer's: the first "Full output: " line of any text, trusted when its file is in the folder.
ANYWHERE = '''

def saved_path(root, text):
    folder = (Path(root) / ".task_outputs" / "tool-results").resolve()
    for line in text.splitlines():
        if line.startswith("Full output: "):
            path = line[len("Full output: "):]
            file = (Path(root) / path).resolve()
            return path if file.parent == folder and file.is_file() else None
    return None
'''
QUOTES = "an older result quotes a saved file's Full output: line"
COPY = "    messages = [copied(m) if tool_results(m) else m for m in messages]   # the agent's own list"


def test_the_solution_passes_the_quoting_cases_on_every_seed(tmp_path, capsys):
    path = learner_file(tmp_path, solutions())
    for seed in (None, 31, 32, 33):
        assert check("micro_compact", path, seed=seed).ok, capsys.readouterr().out


def test_the_drawn_cases_quote_a_saved_files_line_in_other_text_never_step_1s_block():
    for seed in range(40):
        quoting = [case for case in run.cases(micro, seed=seed)[1] if case.flaw == 6]
        assert len(quoting) == 2
        for case in quoting:
            texts = [micro.text_of(block["content"]) for _, block in micro.results(case.messages)]
            quoted = [t for t in texts if "Full output: " in t and not micro.PERSISTED.match(t)]
            assert len(quoted) == 1 and len(quoted[0]) > case.numbers["min_chars"]
            path = next(line for line in quoted[0].splitlines() if line.startswith("Full output: "))
            assert any(micro.PERSISTED.match(t) and path in t for t in texts)   # another result's saved path


def test_a_full_output_line_read_anywhere_fails_with_flaw_6_named_and_no_answer_shown(tmp_path, monkeypatch,
                                                                                     capsys):
    secrets, reference = set(), micro.reference

    def recorded(case, root):
        out = reference(case, root)
        secrets.update(reference_only(micro.plain(out), strings(micro.plain(case.messages))))
        return out
    monkeypatch.setattr(micro, "reference", recorded)
    path = learner_file(tmp_path, "from pathlib import Path\n" + solutions() + ANYWHERE)
    for seed in (None, 31, 32):
        result = check("micro_compact", path, seed=seed)
        out = capsys.readouterr().out
        assert not result.ok and result.flaws == [6], out
        # it fails the quoting cases, and only those: the fixed flaw-6 cases it passed before
        assert {label for label, _, _ in result.failing} == {
            f"drawn at random #{k}: {QUOTES}" for k in (6, 7)}, out
        assert "flaw 6: a 'Full output:' line in ordinary tool output was trusted" in out
        assert "became a 'saved at' placeholder" in out
        assert micro.OMITTED not in out
        assert not [secret for secret in secrets if secret in out]


def test_step_3_editing_its_input_in_place_fails_and_names_the_rule(tmp_path, capsys):
    source = solutions()
    assert source.count(COPY) == 1
    path = learner_file(tmp_path, source.replace(COPY, "    pass   # edits the agent's list"))
    result = check("micro_compact", path, seed=34)
    out = capsys.readouterr().out
    assert not result.ok, out
    assert "your function edited the list it was given (messages[" in out
    assert "that list is the agent's own" in out
    assert "five reads of 500 characters" in [label for label, _, _ in result.failing]


IN_PLACE = '''

def _in_place(step):
    def edited(given, *rest):
        out = step(given, *rest)
        given.append(dict(given[-1]) if given else {})   # the agent's list, one item longer
        return out
    return edited


for _name in ("tool_result_budget", "snip_compact", "micro_compact", "summary_input", "compact_history",
              "cheap_steps", "reactive_compact", "run_tool_batch", "prepare"):
    globals()[_name] = _in_place(globals()[_name])
'''
TAKES_A_LIST = [name for name in STEPS if name != "is_prompt_too_long"]


@pytest.mark.parametrize("step", [pytest.param(name, marks=() if name in ("micro_compact", "run_tool_batch")
                                               else pytest.mark.slow) for name in TAKES_A_LIST])
def test_every_step_that_takes_a_list_fails_an_edit_of_it(tmp_path, step, capsys):
    result = check(step, learner_file(tmp_path, solutions() + IN_PLACE), seed=35)
    out = capsys.readouterr().out
    name = "tool_uses" if step == "run_tool_batch" else "messages"
    assert result.attempted and result.passed == 0 and not result.flaws, out
    assert f"your function edited the list it was given ({name}[" in out
