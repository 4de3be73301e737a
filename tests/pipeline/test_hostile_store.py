"""The store under hostile input (issue 12): what the model can plant through bash.

The ids the store will use are visible in the model's context, so the model can
put a FIFO, a symlink or a file of its own at a name before the store writes
there. In every case `prepare` returns, the text stays in context or goes to a
regular file inside the root that the store created, and nothing outside the
root is read or written. Hard links and huge or sparse files are left to the agent's
sandbox (compact_course/agent/sandbox.py: these folders are read-only to bash).

A hang is caught with a thread joined with a timeout (and the FIFO is then
opened for writing, so the stuck thread ends); reading /dev/zero runs in a child
process with a memory limit, so a failure cannot take the machine's memory with it.
"""

import json
import multiprocessing
import os
import stat
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from pathlib import Path

import pytest

from context_compact import CompactionWarning, ContextCompactor, StoreError
from context_compact.store import TOOL_RESULTS, Store
from tests.helpers import (
    Archive,
    body,
    call,
    files_under,
    make_compactor,
    prepare_in_time,
    result_path,
    short_summary,
    user,
    whole_results,
)

BOUND = 30  # seconds: far above a normal prepare (well under one), far below "forever"
REPO = Path(__file__).resolve().parents[2]


def huge_batch():
    """Step 1 saves log_a (150000) first: its name is .task_outputs/tool-results/log_a.txt."""
    return [user("Read the logs."), *call({"log_a": body("log_a", 150000), "log_b": body("log_b", 90000)})]


def results_folder(root) -> Path:
    folder = root / TOOL_RESULTS
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def unblock_fifos(folder):
    """Open every FIFO for writing (non-blocking) and close it: a reader stuck in open() ends."""
    for path in Path(folder).rglob("*"):
        if path.is_fifo():
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass


def assert_points_at_own_regular_file(root, out, originals):
    """Every persisted block and placeholder names a regular, non-linked file inside the root
    (every folder on the way a real folder) that holds exactly that result's text."""
    texts = whole_results(originals)
    checked = 0
    for tool_id, text in whole_results(out).items():
        path = result_path(text)
        if path is None or text == texts[tool_id]:
            continue
        where = root
        for part in path.split("/")[:-1]:
            where = where / part
            assert stat.S_ISDIR(os.lstat(where).st_mode), f"{where} is not a real folder"
        target = root / path
        info = os.lstat(target)
        assert stat.S_ISREG(info.st_mode), f"{path} is not a regular file"
        assert target.read_bytes().decode("utf-8") == texts[tool_id], f"{path} holds other text"
        checked += 1
    return checked


def no_temp_files(folder):
    return [p for p in files_under(folder) if p.endswith(".tmp")] == []


def run_child(script: str, memory_mb: int = 1024, timeout: int = 120) -> dict:
    """Run `script` in a child Python with a memory limit; the JSON it prints last."""
    prelude = textwrap.dedent(f"""
        import json, resource, sys, warnings
        limit = {memory_mb} * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    """)
    try:
        done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(script)],
                              capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "COMPACT_OFFLINE": "1"})
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child did not finish within {timeout} s")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- what sits at the name ------------------------------------------------------------------

def test_a_fifo_at_the_name_does_not_hang_prepare(root):
    fifo = results_folder(root) / "log_a.txt"
    os.mkfifo(fifo)
    c = make_compactor(root)
    messages = huge_batch()
    out, _ = prepare_in_time(c, messages, "Read the logs.", BOUND, lambda: unblock_fifos(root))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # left as it was
    assert assert_points_at_own_regular_file(root, out, messages) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_symlink_to_a_device_is_never_read(tmp_path, device):
    root = tmp_path / "root"
    os.makedirs(root / TOOL_RESULTS)
    os.symlink(device, root / TOOL_RESULTS / "log_a.txt")
    result = run_child(f"""
        from tests.helpers import body, make_compactor, result_path, user, call
        c = make_compactor({str(root)!r})
        messages = [user("go"), *call({{"log_a": body("log_a", 150000), "log_b": body("log_b", 90000)}})]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = c.prepare(messages, "go")
        print(json.dumps([result_path(b["content"]) for b in out[-1]["content"]]))
    """)
    assert result == [".task_outputs/tool-results/log_a-2.txt", ".task_outputs/tool-results/log_b.txt"]
    assert os.readlink(root / TOOL_RESULTS / "log_a.txt") == device


def test_a_symlink_to_an_outside_file_with_the_same_text_is_not_reused(root, tmp_path):
    text = body("log_a", 150000)
    outside = tmp_path / "outside.txt"
    outside.write_text(text, encoding="utf-8")
    before = (outside.read_bytes(), os.stat(outside).st_mtime_ns)
    os.symlink(outside, results_folder(root) / "log_a.txt")
    c = make_compactor(root)
    messages = huge_batch()
    out, _ = prepare_in_time(c, messages, "Read the logs.", BOUND, lambda: unblock_fifos(root))
    path = result_path(whole_results(out)["log_a"])
    assert path == ".task_outputs/tool-results/log_a-2.txt"
    assert assert_points_at_own_regular_file(root, out, messages) == 2
    assert (outside.read_bytes(), os.stat(outside).st_mtime_ns) == before


def test_a_symlink_to_an_inside_file_with_the_same_text_is_not_reused(root):
    text = "the same text " * 20
    folder = results_folder(root)
    (root / "copy.txt").write_text(text, encoding="utf-8")
    os.symlink(root / "copy.txt", folder / "toolu_1.txt")
    store = Store(root)
    assert store.persist_result("toolu_1", text) == ".task_outputs/tool-results/toolu_1-2.txt"
    assert store.saved_text(".task_outputs/tool-results/toolu_1.txt") is None  # a link is never read


def test_a_regular_file_with_the_same_text_is_still_reused(root):
    text = "the same text " * 20
    (results_folder(root) / "toolu_1.txt").write_text(text, encoding="utf-8")
    (results_folder(root) / "toolu_2.txt").write_text(text + "and more", encoding="utf-8")
    store = Store(root)
    assert store.persist_result("toolu_1", text) == ".task_outputs/tool-results/toolu_1.txt"
    assert store.persist_result("toolu_2", text) == ".task_outputs/tool-results/toolu_2-2.txt"
    assert store.written == [".task_outputs/tool-results/toolu_2-2.txt"]


@pytest.mark.parametrize("folder", [".task_outputs", ".task_outputs/tool-results"])
def test_a_symlinked_folder_inside_the_root_is_not_followed(root, folder):
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    (root / folder).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(elsewhere, root / folder)
    c = make_compactor(root)
    messages = huge_batch()
    with pytest.warns(CompactionWarning, match="symbolic link"):
        out = c.tool_result_budget(messages)
    assert out == messages and files_under(elsewhere) == []


def test_a_symlinked_transcript_name_is_never_replaced(root, tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text("mine\n", encoding="utf-8")
    (root / ".transcripts").mkdir()
    os.symlink(outside, root / ".transcripts" / f"transcript_{1:032x}.jsonl")
    os.mkfifo(root / ".transcripts" / f"transcript_{1:032x}-2.jsonl")
    store = Store(root, new_id=lambda: f"{1:032x}")
    path = store.write_transcript([user("hi")])
    assert path == f".transcripts/transcript_{1:032x}-3.jsonl"
    assert store.read_transcript(path) == [user("hi")]
    assert outside.read_text(encoding="utf-8") == "mine\n"
    assert store.read_transcript(f".transcripts/transcript_{1:032x}.jsonl") is None


def test_reading_back_never_opens_a_fifo_or_follows_a_link(root):
    folder = results_folder(root)
    os.mkfifo(folder / "fifo.txt")
    os.symlink("/dev/zero", folder / "zero.txt")
    (root / ".transcripts").mkdir()
    os.mkfifo(root / ".transcripts" / "transcript_x.jsonl")
    store = Store(root)
    box = {}
    thread = threading.Thread(daemon=True, target=lambda: box.update(
        fifo=store.saved_text(".task_outputs/tool-results/fifo.txt"),
        zero=store.is_saved_copy(".task_outputs/tool-results/zero.txt", "\x00"),
        transcript=store.read_transcript(".transcripts/transcript_x.jsonl")))
    thread.start()
    thread.join(BOUND)
    if thread.is_alive():
        unblock_fifos(root)
        pytest.fail("reading back did not return")
    assert box == {"fifo": None, "zero": False, "transcript": None}


# -- text that cannot be written -------------------------------------------------------------

def test_a_lone_surrogate_is_a_failed_write(root, profile):
    bad = body("log_a", 150000)[:-1] + "\ud800"
    messages = [user("Read the logs."), *call({"log_a": bad, "log_b": body("log_b", 90000)})]
    c = make_compactor(root, profile)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = c.tool_result_budget(messages)
        assert whole_results(out)["log_a"] == bad  # the text stays in context
        out = c.prepare(messages, "Read the logs.")  # and prepare goes on, without a crash
    warned = [str(w.message) for w in caught if issubclass(w.category, CompactionWarning)]
    assert warned and all(w.startswith("tool_result 'log_a' kept in context: could not write "
                                       ".task_outputs/tool-results/log_a.txt: the text could not "
                                       "be encoded as UTF-8") for w in warned)
    assert no_temp_files(root)
    assert all(not p.startswith(".task_outputs/tool-results/log_a") for p in files_under(root))
    archive = Archive(c.store)
    assert archive.dangling(out) == []
    if profile == "default":  # kept in context, or (after a summary) in the transcript, exactly
        assert archive.lost(messages, out) == []


def test_a_transcript_keeps_a_lone_surrogate_exactly(root):
    messages = [user("a \udfff b"), {"role": "assistant", "content": [{"type": "text", "text": "\ud800"}]}]
    store = Store(root)
    path = store.write_transcript(messages)
    assert store.read_transcript(path) == messages
    (root / path).read_bytes().decode("utf-8")  # the file itself is valid UTF-8


def test_a_lone_surrogate_in_an_id_is_named_not_crashed(root):
    store = Store(root)
    path = store.persist_result("id\udc80", "some text")
    assert store.saved_text(path) == "some text"


def test_a_text_that_cannot_be_encoded_leaves_no_file(root):
    store = Store(root)
    with pytest.raises(StoreError, match="could not be encoded"):
        store.persist_result("toolu_1", "a \udfff b")
    assert files_under(root) == [] and store.written == []


# -- concurrent writers -------------------------------------------------------------------------

WRITERS, RESULTS = 8, 15


def write_results(root: str, writer: int, go: str) -> list:
    """One writer: 15 results whose ids every writer shares, each with this writer's text."""
    while not os.path.exists(go):
        time.sleep(0.001)
    store = Store(root)
    saved = []
    for k in range(RESULTS):
        text = f"writer {writer} result {k} " * (40 + writer)
        saved.append((text, store.persist_result(f"toolu_{k:02d}", text)))
    return saved


def in_threads(run, release) -> None:
    """run(0) ... run(WRITERS - 1), each in a thread, all let go at once by release()."""
    threads = [threading.Thread(target=run, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    release()
    for thread in threads:
        thread.join(BOUND)


def check_writers(root, saved):
    assert len(saved) == WRITERS * RESULTS
    wrong = [(path, text[:20]) for text, path in saved
             if (Path(root) / path).read_text(encoding="utf-8") != text]
    assert wrong == [], f"{len(wrong)} of {len(saved)} point at another writer's text"
    assert len({path for _, path in saved}) == len(saved)
    assert no_temp_files(root)


def test_eight_threads_on_one_root_keep_their_own_texts(root):
    go = root.parent / "go"
    results = [None] * WRITERS

    def run(n):
        results[n] = write_results(str(root), n, str(go))

    in_threads(run, go.touch)
    check_writers(root, [pair for result in results for pair in result])


@pytest.mark.slow
def test_eight_processes_on_one_root_keep_their_own_texts(root):
    go = root.parent / "go"
    context = multiprocessing.get_context("spawn")
    with context.Pool(WRITERS) as pool:
        pending = [pool.apply_async(write_results, (str(root), n, str(go))) for n in range(WRITERS)]
        time.sleep(0.5)  # let every child start and wait at the line
        go.touch()
        saved = [pair for job in pending for pair in job.get(BOUND * 4)]
    check_writers(root, saved)


def test_eight_compactors_on_one_root_point_at_their_own_texts(root):
    """The issue's case: eight agents' prepare on one root, ids shared, texts their own."""
    outs, originals = [None] * WRITERS, [None] * WRITERS
    go = threading.Event()

    def run(n):
        messages = [user("go"), *call({f"toolu_{k:02d}": f"agent {n} result {k} " * 2500
                                       for k in range(RESULTS)})]
        originals[n] = messages
        # Each result is over flaw 18's share: off, so step 1 stops at its batch limit.
        c = ContextCompactor(root, short_summary, make_compactor(root, persist_oversized=False).config)
        go.wait()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs[n] = c.tool_result_budget(messages)

    in_threads(run, go.set)
    # Step 1 saves the largest results until the batch is under 200000: 11 of 15 each.
    saved = [assert_points_at_own_regular_file(root, outs[n], originals[n]) for n in range(WRITERS)]
    assert saved == [11] * WRITERS
