"""Lab 04's `open_session`: a missing path says so in one line, shown as the notebook
prints paths (never whole, nothing a terminal would obey), and opens the sample; a file
that is there but does not import is never swapped for the sample."""

from pathlib import Path

import pytest

from compact_course.sessions.histories import open_session, sample_path


def test_a_missing_path_names_it_shortly_and_opens_the_sample(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    missing = tmp_path / "projects" / "me" / "gone\x1b[2J.jsonl"
    history = open_session(missing)
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1
    assert "No file at ~/projects/me/gone\\x1b[2J.jsonl: opening the sample instead." in printed
    assert str(tmp_path) not in printed and "\x1b" not in printed
    assert history["shown_path"] == "data/sessions/" + sample_path().name


def test_no_path_opens_the_sample_silently(capsys):
    history = open_session(None)
    assert capsys.readouterr().out == ""
    assert history["messages"]


def test_a_file_that_does_not_import_is_an_error_not_the_sample(tmp_path):
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"type": "user"\n', encoding="utf-8")
    with pytest.raises(Exception) as raised:
        open_session(bad)
    assert "broken.jsonl" in str(raised.value)
    assert Path(bad).is_file()
