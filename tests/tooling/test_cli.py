"""The command line under stress: Ctrl-C, bad output paths, numbers out of range,
charts that must never be half-written, and scratch folders that must not pile
up in the temporary folder."""

import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from compact_course.__main__ import main as compact_main
from compact_course.bench import chart as bench_chart
from compact_course.bench import cli as bench_cli
from compact_course.lessons import replay as replay_module
from compact_course.offline.api.server import main_serve

ROOT = Path(__file__).resolve().parents[2]
ENV = ("ANTHROPIC_API_KEY", "MODEL_ID", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN")


def command_env(tmpdir: Path) -> dict:
    """The environment of a `python -m compact_course` child: no key, its own temporary folder."""
    env = {k: v for k, v in os.environ.items() if k not in ENV}
    env.update(PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir), COMPACT_OFFLINE="1")
    return env


def wait_for(condition, limit: float = 60) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


# -- Ctrl-C ------------------------------------------------------------------------------------

@pytest.mark.slow
def test_ctrl_c_during_bench_ends_with_one_line_and_leaves_nothing(tmp_path):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    chart = tmp_path / "bench.png"
    process = subprocess.Popen(
        [sys.executable, "-m", "compact_course", "bench", "--quick", "--chart", str(chart)],
        cwd=tmp_path, env=command_env(tmpdir), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        # Interrupt in the middle of the work: while a session's scratch folder exists.
        started = wait_for(lambda: any(tmpdir.glob("compact-bench-*/compact-bench-*")))
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert started, "the benchmark never made its scratch folder"
    assert err.splitlines() == ["interrupted"], err
    assert process.returncode == 130
    assert list(tmpdir.iterdir()) == [] and not chart.exists()


def test_ctrl_c_in_any_command_is_one_line_and_status_130(monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(replay_module, "replay", interrupted)
    assert compact_main(["replay", "five_reads"]) == 130
    assert capsys.readouterr().err == "interrupted\n"


# -- output paths, checked before the work ----------------------------------------------------

def forbid_work(monkeypatch):
    def work(*args, **kwargs):
        raise AssertionError("the benchmark ran before its output path was checked")
    monkeypatch.setattr(bench_cli, "run_bench", work)


@pytest.mark.parametrize("chart, problem", [
    ("/nonexistent/x.png", "the folder /nonexistent does not exist"),
    ("{tmp}", "is a folder"),
    ("{tmp}/file.txt/x.png", "is not a folder"),
])
def test_bench_checks_the_chart_path_before_any_work(tmp_path, monkeypatch, capsys, chart, problem):
    (tmp_path / "file.txt").write_text("x")
    forbid_work(monkeypatch)
    with pytest.raises(SystemExit) as ended:
        bench_cli.main(["--quick", "--chart", chart.format(tmp=tmp_path)])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert "--chart" in err and problem in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_bench_refuses_a_chart_in_a_folder_it_cannot_write(tmp_path, monkeypatch, capsys):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    forbid_work(monkeypatch)
    with pytest.raises(SystemExit):
        bench_cli.main(["--quick", "--chart", str(locked / "x.png")])
    assert "cannot be written" in capsys.readouterr().err


def test_replay_checks_the_chart_path_before_any_work(tmp_path, monkeypatch, capsys):
    def work(*args, **kwargs):
        raise AssertionError("the replay ran before its output path was checked")
    monkeypatch.setattr(replay_module, "replay", work)
    assert replay_module.main(["five_reads", "--chart", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


# -- charts are written whole or not at all --------------------------------------------------

def test_a_chart_interrupted_while_saving_leaves_no_file(tmp_path, monkeypatch):
    target = tmp_path / "chart.png"
    target.write_bytes(b"the chart of the last run")

    def half_then_interrupt(self, fname, **kwargs):
        Path(fname).write_bytes(b"\x89PNG\r\n\x1a\n half")
        raise KeyboardInterrupt
    monkeypatch.setattr(Figure, "savefig", half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        bench_chart.save_chart(Figure(figsize=(2, 2)), target)
    assert [p.name for p in tmp_path.iterdir()] == ["chart.png"]
    assert target.read_bytes() == b"the chart of the last run"


def test_a_saved_chart_is_a_whole_png(tmp_path):
    target = tmp_path / "chart.png"
    bench_chart.save_chart(Figure(figsize=(2, 2)), target, dpi=50)
    assert target.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert target.read_bytes().endswith(b"IEND\xaeB`\x82")
    assert [p.name for p in tmp_path.iterdir()] == ["chart.png"]


def test_replay_saves_its_chart_through_the_atomic_save(tmp_path, monkeypatch, capsys):
    saved = []
    monkeypatch.setattr(bench_chart, "save_chart", lambda figure, path, **kw: saved.append(path))
    assert replay_module.main(["five_reads", "--chart", str(tmp_path / "r.png")]) == 0
    assert saved == [str(tmp_path / "r.png")]


# -- numbers out of range: an argparse error, not a traceback -------------------------------------

@pytest.mark.parametrize("argv, named", [
    (["--port", "99999"], "--port"), (["--port", "-1"], "--port"), (["--port", "http"], "--port"),
    (["--window", "0"], "--window"),
])
def test_serve_checks_its_numbers(argv, named, capsys):
    with pytest.raises(SystemExit) as ended:
        main_serve(argv)
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {named}" in err and "Traceback" not in err


@pytest.mark.parametrize("argv, named", [
    (["--turns", "0"], "--turns"), (["--turns", "10", "-5"], "--turns"),
    (["--turns", "ten"], "--turns"),
])
def test_bench_checks_its_numbers(argv, named, capsys, monkeypatch):
    forbid_work(monkeypatch)
    with pytest.raises(SystemExit) as ended:
        bench_cli.main(argv)
    assert ended.value.code == 2
    assert f"argument {named}" in capsys.readouterr().err


@pytest.mark.slow
def test_serve_port_out_of_range_from_the_command_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "compact_course", "serve", "--port", "99999"],
                          cwd=tmp_path, env=command_env(tmp_path), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == (
        "python -m compact_course serve: error: argument --port: 99999 is not a port number (0 to 65535)")


# -- scratch folders ------------------------------------------------------------------------

@pytest.mark.slow
def test_replays_of_a_killed_process_are_removed_by_the_next_one(tmp_path):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = command_env(tmpdir)
    # A notebook kernel is stopped with SIGKILL: no clean-up of its own runs.
    killed = subprocess.run(
        [sys.executable, "-c", "import os, signal\nfrom compact_course.lessons.replay import replay\n"
         "kept = [replay('five_reads'), replay('huge_result')]\n"
         "os.kill(os.getpid(), signal.SIGKILL)"], cwd=tmp_path, env=env, timeout=120)
    assert killed.returncode == -signal.SIGKILL
    assert len(list(tmpdir.iterdir())) == 1, "one scratch folder per process"
    done = subprocess.run([sys.executable, "-c", "from compact_course.lessons.replay import replay\n"
                           "kept = replay('five_reads')\nprint(kept.root.exists())"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "True"
    assert list(tmpdir.iterdir()) == []


def test_a_replay_that_is_dropped_removes_its_folder():
    result = replay_module.replay("huge_result", step="tool_result_budget")
    root = result.root
    assert root.is_dir() and result.files
    del result
    gc.collect()
    assert not root.exists()


# -- a missing extra ---------------------------------------------------------------------------

@pytest.mark.parametrize("command, library, extra", [("serve", "aiohttp", "offline"),
                                                     ("run", "anthropic", "offline"),
                                                     ("bench", "matplotlib", "course")])
def test_a_command_whose_extra_is_missing_says_which_to_install(tmp_path, command, library, extra):
    # A None in sys.modules makes the import fail as an uninstalled library does.
    code = (f"import sys; sys.modules[{library!r}] = None\n"
            "from compact_course.__main__ import main\n"
            f"sys.exit(main([{command!r}, '--help']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env=command_env(tmp_path), timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"compact-course {command}: needs {library}, which the base install leaves out: "
        f"pip install 'compact-course[{extra}]'"]
