"""Fail safe (docs/DESIGN.md): when a write fails, nothing is lost and the error says so.

The tests run as root, so permissions cannot block a write: an unwritable store
is a regular file where a folder should be, and a full disk is the store's
os.link (a file taking its name) or os.write raising ENOSPC.
In every case the text stays in context, no
marker points at a missing file, no half-written file is left behind, a
CompactionWarning is raised and the StepRecord carries the error.
"""

import errno
import os

import pytest

from context_compact import CompactionWarning, StoreError, formats
from context_compact import store as store_module
from context_compact.store import seeded_ids
from tests.helpers import (
    Archive,
    RecordingSummarizer,
    body,
    call,
    files_under,
    make_compactor,
    pairs_history,
    prepare_steps,
    user,
    whole_results,
)


def huge_batch():
    return [user("Read the logs."), *call({"log_a": body("log_a", 150000), "log_b": body("log_b", 90000)})]


def block_folder(root, name):
    """A regular file where the store's folder should be."""
    (root / name).write_text("not a folder", encoding="utf-8")


def assert_nothing_lost(c, originals, out):
    archive = Archive(c.store)
    assert archive.dangling(out) == []
    assert archive.lost(originals, out) == []


def no_temp_files(folder):
    return [p for p in files_under(folder) if p.endswith(".tmp")] == []


# -- an unwritable store ----------------------------------------------------------------

def test_budget_keeps_the_text_when_the_results_folder_is_blocked(root, profile):
    block_folder(root, ".task_outputs")
    c = make_compactor(root, profile)
    messages = huge_batch()
    with pytest.warns(CompactionWarning) as caught:
        out = c.tool_result_budget(messages)
    assert out == messages
    assert [str(w.message) for w in caught] == [
        f"tool_result '{name}' kept in context: could not write "
        f".task_outputs/tool-results/{name}.txt: Not a directory" for name in ("log_a", "log_b")]
    record = c.records[-1]
    assert record.step == "tool_result_budget" and "log_a" in record.error and "log_b" in record.error
    assert record.files == [] and not record.fired
    assert_nothing_lost(c, messages, out)


def test_default_micro_keeps_the_text_when_it_cannot_save_it(root):
    block_folder(root, ".task_outputs")
    c = make_compactor(root, "default")
    messages = pairs_history(6, size=15000)
    with pytest.warns(CompactionWarning):
        out = c.micro_compact(messages)
    assert whole_results(out) == whole_results(messages)
    assert "kept in context" in c.records[-1].error
    assert_nothing_lost(c, messages, out)


def test_snip_leaves_the_list_when_the_transcript_folder_is_blocked(root, profile):
    block_folder(root, ".transcripts")
    c = make_compactor(root, profile)
    messages = pairs_history(30)
    with pytest.warns(CompactionWarning, match="snip_compact skipped, nothing archived"):
        out = c.snip_compact(messages, "Fix the failing test.")
    assert out == messages
    assert "could not write .transcripts/transcript_" in c.records[-1].error


@pytest.mark.parametrize("step", ["compact_history", "reactive_compact"])
def test_no_summary_without_a_transcript(root, step):
    block_folder(root, ".transcripts")
    summarizer = RecordingSummarizer()
    c = make_compactor(root, "default", summarizer)
    messages = pairs_history(10)
    with pytest.warns(CompactionWarning, match="context left as it was"):
        out = getattr(c, step)(messages, "Fix the failing test.")
    assert out == messages and summarizer.calls == []
    assert c.records[-1].model_calls == 0 and c.records[-1].error


def test_prepare_with_a_blocked_store_loses_nothing_and_reports(root, profile):
    block_folder(root, ".task_outputs")
    block_folder(root, ".transcripts")
    c = make_compactor(root, profile)
    messages = huge_batch()
    with pytest.warns(CompactionWarning):
        out = c.prepare(messages, "Read the logs.")
    assert out == messages  # over every limit, and still whole: nothing could be saved
    errors = [r.step for r in c.records if r.error]
    assert "tool_result_budget" in errors and "compact_history" in errors
    assert_nothing_lost(c, messages, out)


def test_a_symlinked_folder_leading_outside_is_refused(root):
    outside = root.parent / "elsewhere"
    outside.mkdir()
    (root / ".task_outputs").symlink_to(outside, target_is_directory=True)
    c = make_compactor(root)
    messages = huge_batch()
    with pytest.warns(CompactionWarning, match="symbolic link"):
        out = c.tool_result_budget(messages)
    assert out == messages and files_under(outside) == []


# -- a full disk -------------------------------------------------------------------------

def enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


REAL_WRITE = os.write


def half_writing(fd, data):
    """os.write that stops halfway with ENOSPC, as on a full disk."""
    REAL_WRITE(fd, bytes(data[: len(data) // 2]))
    enospc()


def full_disk(monkeypatch, how):
    """ENOSPC from the link that names a file, or from the write."""
    if how == "write":
        monkeypatch.setattr(store_module.os, "write", half_writing)
    else:
        monkeypatch.setattr(store_module.os, "link", enospc)


@pytest.mark.parametrize("how", ["link", "write"])
def test_full_disk_during_prepare(root, monkeypatch, profile, how):
    full_disk(monkeypatch, how)
    c = make_compactor(root, profile)
    messages = pairs_history(30) + call({"log_a": body("log_a", 150000), "log_b": body("log_b", 90000)})
    with pytest.warns(CompactionWarning, match="No space left on device"):
        out = c.prepare(messages, "Fix the failing test.")
    assert files_under(root) == [] and c.store.written == []
    failed = [r.step for r in c.records if r.error]
    if profile == "seed":  # seed's step 3 writes nothing: it just drops text
        assert failed == [step for step in prepare_steps(c.config) if step != "micro_compact"]
    else:
        assert failed == prepare_steps(c.config)
        assert_nothing_lost(c, messages, out)
    assert Archive(c.store).dangling(out) == []
    assert "No space left on device" in c.records[0].error


def test_full_disk_in_the_budget_step_names_the_file(root, monkeypatch):
    full_disk(monkeypatch, "link")
    c = make_compactor(root)
    with pytest.warns(CompactionWarning) as caught:
        c.tool_result_budget(huge_batch())
    text = str(caught[0].message)
    assert "tool_result 'log_a' kept in context" in text
    assert "could not write .task_outputs/tool-results/log_a.txt: No space left on device" in text
    assert no_temp_files(root)


def test_the_next_call_succeeds_once_there_is_space(root, monkeypatch):
    c = make_compactor(root)
    messages = huge_batch()
    with monkeypatch.context() as patch:
        full_disk(patch, "link")
        with pytest.warns(CompactionWarning):
            out = c.prepare(messages, "Read the logs.")
    out = c.prepare(out, "Read the logs.")
    assert c.records[-1].error is None
    assert set(c.store.written) == set(files_under(root))
    assert any(formats.kind_of_result(t) == "persisted" for t in whole_results(out).values())
    assert_nothing_lost(c, messages, out)


def test_a_failed_write_leaves_no_half_file(root, monkeypatch):
    monkeypatch.setattr(store_module.os, "write", half_writing)
    store = store_module.Store(root, new_id=seeded_ids())
    with pytest.raises(StoreError, match="No space left on device"):
        store.persist_result("toolu_1", "x" * 1000)
    with pytest.raises(StoreError):
        store.write_transcript([user("hi")])
    assert files_under(root) == [] and store.written == []


# -- the store's own guards ---------------------------------------------------------------

def test_a_restarted_new_id_never_overwrites_a_transcript(root):
    first = make_compactor(root, summarizer=RecordingSummarizer())
    out_1 = first.compact_history([user("first session")], "first session")
    second = make_compactor(root, summarizer=RecordingSummarizer())  # the counter starts again
    out_2 = second.compact_history([user("second session")], "second session")
    path_1 = formats.SUMMARY_RE.match(out_1[0]["content"])["path"]
    path_2 = formats.SUMMARY_RE.match(out_2[0]["content"])["path"]
    assert path_1 != path_2
    assert first.store.read_transcript(path_1) == [user("first session")]
    assert second.store.read_transcript(path_2) == [user("second session")]


@pytest.mark.parametrize("bad", ["../../escape", "", "a/b", 7])
def test_new_id_must_be_a_plain_name(root, bad):
    store = store_module.Store(root, new_id=lambda: bad)
    with pytest.raises(ValueError, match="new_id"):
        store.write_transcript([user("hi")])
    assert files_under(root.parent) == []


def test_an_unreadable_file_at_the_name_is_not_reused(root):
    folder = root / ".task_outputs" / "tool-results"
    folder.mkdir(parents=True)
    (folder / "toolu_1.txt").write_bytes(b"\xff\xfe not utf-8")
    (folder / "toolu_2.txt").mkdir()
    store = store_module.Store(root)
    path_1 = store.persist_result("toolu_1", "text one")
    path_2 = store.persist_result("toolu_2", "text two")
    assert path_1 == ".task_outputs/tool-results/toolu_1-2.txt" and store.saved_text(path_1) == "text one"
    assert path_2 == ".task_outputs/tool-results/toolu_2-2.txt" and store.saved_text(path_2) == "text two"
    assert (folder / "toolu_1.txt").read_bytes() == b"\xff\xfe not utf-8"
