"""The file tools under hostile workspaces: read_file on a FIFO or a device, glob
under symlink loops and over many files. Each call is given a time bound in a
thread, so a tool that blocks fails its test instead of holding the run."""

import glob as globlib
import os
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from compact_course.agent import tools
from compact_course.agent.tools import run_tool

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "workspace"


def bounded(workspace, name, tool_input, limit: float = 20) -> str:
    box = {}
    worker = threading.Thread(target=lambda: box.setdefault(
        "value", run_tool(workspace, name, tool_input)), daemon=True)
    worker.start()
    worker.join(limit)
    assert not worker.is_alive(), f"{name} {tool_input} still running after {limit} s"
    return box["value"]


def test_read_file_refuses_a_fifo_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    output = bounded(tmp_path, "read_file", {"path": "pipe"})
    assert output == "Error: pipe is not a regular file (a FIFO); read_file reads files only"


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_read_file_refuses_a_device_inside_the_workspace(tmp_path):
    os.mknod(tmp_path / "zero", stat.S_IFCHR | 0o666, os.makedev(1, 5))   # as /dev/zero
    output = bounded(tmp_path, "read_file", {"path": "zero"})
    assert output.startswith("Error: zero is not a regular file (a character device)")


def test_read_file_refuses_a_folder_and_a_socket(tmp_path):
    import socket
    (tmp_path / "folder").mkdir()
    assert bounded(tmp_path, "read_file", {"path": "folder"}).startswith(
        "Error: folder is not a regular file (a folder)")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "sock"))
        assert bounded(tmp_path, "read_file", {"path": "sock"}).startswith(
            "Error: sock is not a regular file (a socket)")
    finally:
        server.close()


def test_read_file_still_reads_a_link_to_a_file_inside_the_workspace(tmp_path):
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    (tmp_path / "link.txt").symlink_to("a.txt")
    assert bounded(tmp_path, "read_file", {"path": "link.txt", "limit": 1}) == \
        "alpha\n... (1 more lines)"


def test_glob_does_not_follow_symlink_loops(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f.txt").write_text("f")
    # Two loops make the walk exponential for a glob that follows links.
    (tmp_path / "a" / "up").symlink_to("..")
    (tmp_path / "a" / "b" / "top").symlink_to(tmp_path)
    output = bounded(tmp_path, "glob", {"pattern": "**/*"})
    assert output.splitlines() == ["a", "a/b", "a/b/f.txt", "a/b/top", "a/up"]
    # A link named in the pattern is followed once: the pattern itself bounds the depth.
    assert bounded(tmp_path, "glob", {"pattern": "a/up/a/b/*.txt"}) == "a/up/a/b/f.txt"


def test_glob_caps_its_hits_and_says_how_many_were_cut(tmp_path, monkeypatch):
    for n in range(tools.MAX_GLOB_HITS + 25):
        (tmp_path / f"f{n:05d}.txt").touch()
    output = bounded(tmp_path, "glob", {"pattern": "*.txt"})
    lines = output.splitlines()
    assert lines[:-1] == [f"f{n:05d}.txt" for n in range(tools.MAX_GLOB_HITS)]
    assert lines[-1] == "... (25 more matches not shown; narrow the pattern)"


def test_glob_stops_a_walk_that_is_too_large(tmp_path, monkeypatch):
    monkeypatch.setattr(tools, "MAX_GLOB_SCAN", 50)
    for n in range(10):
        folder = tmp_path / f"d{n}"
        folder.mkdir()
        for m in range(10):
            (folder / f"{m}.md").touch()
    lines = bounded(tmp_path, "glob", {"pattern": "**/*.md"}).splitlines()
    assert lines[-1] == "... (stopped after looking at 50 entries; narrow the pattern)"
    assert 0 < len(lines) - 1 < 50


@pytest.mark.parametrize("pattern", [
    "*", "**/*", "**", "s0*", "s0*/README.md", "**/*.md", "s0[1-3]*/*.py", "logs/*",
    ".*", "**/.*", "*/", "s0?_*", "web/**/*.json", "nothing-*", "README.md", "s01_agent_loop",
])
def test_glob_lists_what_pythons_glob_lists_on_the_sample_workspace(pattern):
    # The workspace has no links: here the tool and glob.glob must agree, so the
    # offline model's plans (and the notebooks' outputs) see the same listings.
    expected = sorted({Path(os.path.normpath(p)).as_posix() for p in
                       globlib.glob(pattern, root_dir=SAMPLE, recursive=True)} - {"."})
    output = run_tool(SAMPLE, "glob", {"pattern": pattern})
    assert output.splitlines() == (expected or ["(no match)"])


def test_a_link_that_loops_on_itself_is_an_error_text_not_a_crash(tmp_path):
    (tmp_path / "self").symlink_to("self")
    assert bounded(tmp_path, "read_file", {"path": "self"}) == \
        "Error: self is a symbolic link that loops"
    assert bounded(tmp_path, "glob", {"pattern": "*"}) == "self"
    assert bounded(tmp_path, "glob", {"pattern": "self/*"}) == "(no match)"


@pytest.fixture
def deep(tmp_path):
    """1500 nested folders `d/d/...`, removed by `rm -rf`: shutil.rmtree, which pytest
    uses to clean up old runs, recurses and would fail on them."""
    folder = tmp_path / "deep"
    folder.mkdir()
    try:
        inner = folder
        for _ in range(1500):      # os.makedirs recurses too: one level at a time
            inner = inner / "d"
            inner.mkdir()
        yield folder
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=True)


@pytest.mark.slow
def test_glob_walks_a_folder_nested_deeper_than_pythons_recursion_limit(deep):
    lines = bounded(deep, "glob", {"pattern": "**/d"}).splitlines()
    assert len(lines) == tools.MAX_GLOB_HITS + 1
    assert lines[-1] == f"... ({1500 - tools.MAX_GLOB_HITS} more matches not shown; narrow the pattern)"


def test_glob_refuses_a_pattern_too_deep_to_walk(tmp_path):
    output = run_tool(tmp_path, "glob", {"pattern": "/".join(["*"] * 5000)})
    assert output == f"Error: pattern has 5000 parts; at most {tools.MAX_GLOB_PARTS}"


def test_read_file_reads_at_most_max_file_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(tools, "MAX_FILE_BYTES", 10)
    (tmp_path / "big.txt").write_text("0123456789é\nmore\n")
    assert run_tool(tmp_path, "read_file", {"path": "big.txt"}) == \
        "0123456789\n... (file cut at 10 bytes)"
