"""A wrong build that step 3's check passed (a reviewer's, issue 52), each now failing.

1. A step 3 that reads a `Full output: ` line anywhere in an older result's text, not only from
   exactly step 1's block, and trusts the path whenever that file is in the folder: a README that
   quotes another result's saved path becomes a placeholder naming the wrong file (flaw 6). The
   check's drawn cases (micro.quoting) quote such a line, or the whole block, inside other text;
   the failure names flaw 6 and never prints the package's output.

Left out: the families of test_build_track.py (the solutions pass, the article fails where a
flaw makes it wrong), which run on the same checkers.
"""


import pytest

from compact_course.lessons.build_track import check, micro, run

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


# A learner's (issue 52): step 1's exact block, trusted whenever its file exists, wherever it is.
NO_FOLDER = '''

def saved_path(root, text):
    match = PERSISTED.match(text)
    return match.group(1) if match and (Path(root) / match.group(1)).is_file() else None
'''
# A learner's: step 1's block matched at the start only, so a block with text after it is trusted.
PREFIX = '''

STARTS = re.compile(r"<persisted-output>\\nFull output: ([^\\n]+)\\nPreview:\\n", re.DOTALL)


def saved_path(root, text):
    match = STARTS.match(text)
    folder = (Path(root) / ".task_outputs" / "tool-results").resolve()
    file = (Path(root) / match.group(1)).resolve() if match else None
    return match.group(1) if file and file.parent == folder and file.is_file() else None
'''


@pytest.mark.parametrize("variant, fails", [
    (NO_FOLDER, {"step 1's block naming a file outside the folder"}),
    (PREFIX, {f"drawn at random #7: {QUOTES}"}),
], ids=["no folder check", "block matched as a prefix"])
def test_a_step_3_missing_one_of_the_two_guards_fails_with_flaw_6_named(tmp_path, capsys, variant, fails):
    path = learner_file(tmp_path, "import re\nfrom pathlib import Path\n" + solutions() + variant)
    for seed in (None, 31, 32):
        result = check("micro_compact", path, seed=seed)
        out = capsys.readouterr().out
        assert not result.ok and result.flaws == [6], out
        assert {label for label, _, _ in result.failing} == fails, out
