"""Property test (issue 12): random hostile file systems around random histories.

Before `prepare` runs, the names the store will use are taken by what a model
could plant through bash: FIFOs, symlinks to files inside and outside the root
(some holding the very text the store is about to save), dangling links,
folders, files holding other text (a hard link is the agent's sandbox's: these
folders are read-only to bash); and the store's folders themselves may be
links (in or out of the root), files, or read-only. Checked every time:
- `prepare` returns within a bound (a thread joined with a timeout);
- every persisted block, placeholder and transcript marker names a regular
  file inside the root, reached through real folders, holding exactly its
  text (a transcript: the messages it archived, each readable);
- nothing outside the root is read or written: an outside sentinel folder and
  every planted link target keep their bytes, mtimes and atimes (atimes are
  set before the mtime, so with relatime any read would move them);
- what was planted inside the root is left as it was, and no temp file stays.
"""

import itertools
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from context_compact import CompactionConfig, ContextCompactor
from context_compact.store import TOOL_RESULTS, TRANSCRIPTS, seeded_ids
from tests.helpers import (
    PROFILES,
    Archive,
    body,
    call,
    marker_path,
    prepare_in_time,
    result_path,
    short_summary,
    user,
    whole_results,
)

BOUND = 30
# Quick by default; the CI run (CI=true) takes the profile's full count.
EXAMPLES = None if os.environ.get("CI") == "true" else 40
OLD = 1_000_000_000  # an atime long before any mtime: with relatime a read moves it
THINGS = ("fifo", "link-out-same", "link-out-other", "link-in-same", "link-dangling",
          "link-devnull", "link-out-fifo", "folder", "file-other", "file-same")
FOLDERS = ("real", "real", "real", "link-in", "link-out", "file", "read-only")


@st.composite
def histories(draw):
    """A request and 1-12 tool turns with small ids, so planted names meet them."""
    numbers = itertools.count(1)
    messages = [user("[task] Make the build pass.")]
    for _ in range(draw(st.integers(1, 12))):
        results = {}
        for _ in range(draw(st.integers(1, 3))):
            tool_id = f"toolu_{next(numbers):02d}"
            results[tool_id] = body(tool_id, draw(st.sampled_from([90, 400, 1500, 5000, 12000])),
                                    draw(st.sampled_from(["lorem ipsum ", "中文输出 ", "a\nb\n"])))
        messages += call(results)
    return messages


@st.composite
def plantings(draw, ids):
    """{name in the results folder: what to put there}, on the names the store will try."""
    names = [f"{i}.txt" for i in ids] + [f"{i}-2.txt" for i in ids[:3]]
    chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=8))
    return {name: draw(st.sampled_from(THINGS)) for name in chosen}


def configs(draw, profile):
    return CompactionConfig.named(
        profile, context_char_limit=draw(st.sampled_from([3000, 8000])),
        tool_result_batch_char_limit=4000, large_result_char_limit=1000, preview_chars=200,
        snip_max_messages=10, micro_min_chars=120,
        **({"snip_target_messages": 6} if profile == "default" else {}))


# -- the world around the root -------------------------------------------------------------------

class World:
    """A fresh folder: root/, outside/ (the sentinel), targets/ (outside link targets)."""

    def __init__(self, base, texts):
        self.work = Path(tempfile.mkdtemp(prefix="hostile-", dir=base))
        self.root, self.outside, self.targets = (self.work / n for n in ("root", "outside", "targets"))
        for folder in (self.root, self.outside, self.targets):
            folder.mkdir()
        (self.outside / "notes.txt").write_text("keep me\n", encoding="utf-8")
        (self.outside / "deeper").mkdir()
        (self.outside / "deeper" / "data.bin").write_bytes(bytes(range(256)))
        self.texts = texts
        self.planted: dict[Path, object] = {}

    def text_of_name(self, name: str) -> str:
        tool_id = name[:-len(".txt")].removesuffix("-2")
        return self.texts[tool_id]

    def plant(self, folder: Path, name: str, thing: str):
        path, n = folder / name, len(self.planted)
        if thing == "fifo":
            os.mkfifo(path)
        elif thing.startswith("link-out"):
            target = self.targets / f"{n}-{name}"
            if thing == "link-out-fifo":
                os.mkfifo(target)
            else:
                text = self.text_of_name(name) if thing.endswith("same") else "other text"
                target.write_text(text, encoding="utf-8")
            os.symlink(target, path)
        elif thing == "link-in-same":
            target = self.root / f"copy-{n}.txt"
            target.write_text(self.text_of_name(name), encoding="utf-8")
            os.symlink(target, path)
        elif thing == "link-dangling":
            os.symlink(self.root / "nowhere", path)
        elif thing == "link-devnull":
            os.symlink("/dev/null", path)
        elif thing == "folder":
            path.mkdir()
        else:
            text = self.text_of_name(name) if thing == "file-same" else "other text"
            path.write_text(text, encoding="utf-8")
        self.planted[path] = thing

    def make_folder(self, relative: str, kind: str) -> Path | None:
        """The store's folder as `kind`; the real folder to plant in, or None."""
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "file":
            path.write_text("not a folder", encoding="utf-8")
            return None
        if kind in ("link-in", "link-out"):
            real = (self.root if kind == "link-in" else self.outside) / f"linked-{path.name}"
            real.mkdir()
            os.symlink(real, path)
            return real if kind == "link-in" else None  # never plant outside: it is the sentinel
        path.mkdir(exist_ok=True)
        return path

    def snapshot(self, folder: Path) -> dict:
        """Every entry under `folder`: kind, bytes of regular files, link targets, times."""
        seen = {}
        for path in sorted([folder, *folder.rglob("*")]):
            info = os.lstat(path)
            kind = stat.S_IFMT(info.st_mode)
            data, atime = None, None  # a folder's atime moves when this very walk lists it
            if stat.S_ISREG(info.st_mode):
                atime = info.st_atime_ns
                data = path.read_bytes()
                os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))  # our own read leaves no trace
            elif stat.S_ISLNK(info.st_mode):
                data = os.readlink(path)
            seen[str(path)] = (kind, data, info.st_mtime_ns, atime, info.st_mode)
        return seen

    def age_atimes(self, folder: Path):
        for path in folder.rglob("*"):
            if not path.is_symlink() and path.is_file():
                os.utime(path, ns=(OLD, os.stat(path).st_mtime_ns))

    def unblock(self):
        for folder in (self.root, self.targets):
            for path in folder.rglob("*"):
                if path.is_fifo():
                    try:
                        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                    except OSError:
                        pass

    def remove(self):
        for path in self.work.rglob("*"):
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(self.work, ignore_errors=True)


# -- checks ---------------------------------------------------------------------------------------

def own_regular_file(root: Path, relative: str) -> bytes:
    """The bytes of root/relative, after checking each folder is real and the file regular."""
    where = root
    parts = relative.split("/")
    assert ".." not in parts and "" not in parts, relative
    for part in parts[:-1]:
        where = where / part
        assert stat.S_ISDIR(os.lstat(where).st_mode), f"{relative}: {part} is not a real folder"
    info = os.lstat(where / parts[-1])
    assert stat.S_ISREG(info.st_mode), f"{relative} is not a regular file"
    return (where / parts[-1]).read_bytes()


def check_markers(world, c, out, originals):
    texts = whole_results(originals)
    for tool_id, text in whole_results(out).items():
        path = result_path(text)
        if path and text != texts[tool_id]:
            assert own_regular_file(world.root, path).decode("utf-8") == texts[tool_id], path
            event("a result saved")
    for message in out:
        path = marker_path(message)
        if path:
            lines = own_regular_file(world.root, path).decode("utf-8").splitlines()
            assert lines and all(json.loads(line)["role"] in ("user", "assistant") for line in lines)
            event("a transcript written")
    archive = Archive(c.store)
    assert archive.dangling(out) == []
    if c.config.profile == "default":  # Lossless: all of it can be read back
        assert archive.lost(originals, out) == []


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile")


# -- the property -----------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=EXAMPLES) if EXAMPLES else (lambda test: test)
@given(data=st.data())
def test_prepare_holds_on_a_hostile_file_system(profile, base, data):
    messages = data.draw(histories())
    texts = whole_results(messages)
    world = World(base, texts)
    try:
        results_kind = data.draw(st.sampled_from(FOLDERS))
        transcripts_kind = data.draw(st.sampled_from(FOLDERS))
        event(f"results folder {results_kind}, transcripts folder {transcripts_kind}")
        folder = world.make_folder(TOOL_RESULTS, results_kind)
        if folder is not None:
            for name, thing in data.draw(plantings(list(texts))).items():
                world.plant(folder, name, thing)
                event(f"planted {thing}")
        transcripts = world.make_folder(TRANSCRIPTS, transcripts_kind)
        if transcripts is not None and data.draw(st.booleans()):
            world.plant(transcripts, f"transcript_{1:032x}.jsonl",
                        data.draw(st.sampled_from(["fifo", "link-devnull", "folder", "link-dangling"])))
        for kind, path in (("read-only", folder), ("read-only", transcripts)):
            if path is not None and kind in (results_kind, transcripts_kind):
                path.chmod(0o555)
        world.age_atimes(world.outside)
        world.age_atimes(world.targets)
        outside_before = world.snapshot(world.outside)
        targets_before = world.snapshot(world.targets)
        planted_before = {str(p): world.snapshot(p) if p.is_dir() and not p.is_symlink()
                          else os.lstat(p).st_mtime_ns for p in world.planted}

        c = ContextCompactor(world.root, short_summary, configs(data.draw, profile), new_id=seeded_ids())
        out, warned = prepare_in_time(c, messages, "[task] Make the build pass.", BOUND, world.unblock)

        check_markers(world, c, out, messages)
        assert world.snapshot(world.outside) == outside_before, "something outside the root changed"
        assert world.snapshot(world.targets) == targets_before, "a link target was read or written"
        assert {str(p): world.snapshot(p) if p.is_dir() and not p.is_symlink()
                else os.lstat(p).st_mtime_ns for p in world.planted} == planted_before
        assert not [p for p in world.work.rglob("*") if p.name.endswith(".tmp")]
        assert all(str(w.message) for w in warned)
    finally:
        world.unblock()
        world.remove()
