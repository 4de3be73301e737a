"""Bounds and clear errors from issue 19, outside the sandbox and the server:

- the pipeline: an active request that is not a text, NaN and Infinity, an
  integer the JSON encoder refuses and duplicate tool_use ids are each a named
  MessageFormatError;
- the tools: edit_file is capped as read_file is, and never opens a FIFO; an
  oversized workspace `.env` is not parsed for redaction;
- the command line: a chart never replaces a FIFO, a device or a link; a
  history nested too deep exits 2 with one line; `--max-turns` is at least 1.
"""

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from compact_course.agent import model, tools
from compact_course.agent.loop import Agent, main_run
from context_compact import MessageFormatError, validate_messages
from tests.helpers import assistant, make_compactor, tool_result, tool_use, user

ROOT = Path(__file__).resolve().parents[2]


def bounded(function, *args, limit: float = 20):
    box = {}
    worker = threading.Thread(target=lambda: box.setdefault("value", function(*args)), daemon=True)
    worker.start()
    worker.join(limit)
    assert not worker.is_alive(), f"{function.__name__} still running after {limit} s"
    return box["value"]


# -- the pipeline's values ---------------------------------------------------------------------

def history(tool_input=None, second_id="t2"):
    return [user("Fix the test."),
            assistant(tool_use("t1", path="a.py", **(tool_input or {}))),
            {"role": "user", "content": [tool_result("t1", "text of a.py")]},
            assistant(tool_use(second_id, path="b.py")),
            {"role": "user", "content": [tool_result(second_id, "text of b.py")]}]


@pytest.mark.parametrize("request_value", [123, b"bytes", ["Fix the test."], 1.5])
def test_an_active_request_that_is_not_text_is_named(root, request_value):
    with pytest.raises(MessageFormatError, match=f"active_request must be a text, got "
                                                 f"{type(request_value).__name__}"):
        make_compactor(root).prepare(history(), request_value)


@pytest.mark.parametrize("value, said", [
    (float("nan"), "nan"), (float("inf"), "inf"), (float("-inf"), "-inf")])
def test_nan_and_infinity_are_named(value, said):
    with pytest.raises(MessageFormatError, match=rf"messages\[1\]\.content\[0\] \(id 't1'\) "
                                                 rf"holds {said}; JSON has no NaN or Infinity"):
        validate_messages(history({"limit": value}))


def test_an_integer_the_json_encoder_refuses_is_named():
    huge = 10 ** 5000
    with pytest.raises(MessageFormatError, match=r"messages\[1\]\.content\[0\] \(id 't1'\) holds "
                                                 r"an integer too long to write as JSON"):
        validate_messages(history({"limit": huge}))
    validate_messages(history({"limit": 10 ** 4000}))     # long, but JSON writes it


def test_duplicate_tool_use_ids_are_named():
    with pytest.raises(MessageFormatError, match=r"messages\[3\]\.content\[0\]: tool_use id 't1' "
                                                 r"is already used by messages\[1\]\.content\[0\]"):
        validate_messages(history(second_id="t1"))


# -- the tools ---------------------------------------------------------------------------------

def test_edit_file_is_capped_like_read_file(root):
    huge = root / "huge.log"
    with open(huge, "wb") as file:
        file.truncate(tools.MAX_FILE_BYTES + 1)       # sparse: no disk used
    said = tools.run_tool(root, "edit_file", {"path": "huge.log", "old_text": "a", "new_text": "b"})
    assert said == f"Error: huge.log is over {tools.MAX_FILE_BYTES} bytes; edit_file edits smaller files"
    assert huge.stat().st_size == tools.MAX_FILE_BYTES + 1


def test_edit_file_never_opens_a_fifo(root):
    os.mkfifo(root / "pipe")
    said = bounded(tools.run_tool, root, "edit_file", {"path": "pipe", "old_text": "a", "new_text": "b"})
    assert said == "Error: pipe is not a regular file (a FIFO); read_file reads files only"
    assert stat.S_ISFIFO(os.stat(root / "pipe").st_mode)


def test_edit_file_still_edits(root):
    (root / "a.py").write_text("x = 1\n")
    assert tools.run_tool(root, "edit_file", {"path": "a.py", "old_text": "1", "new_text": "2"}) \
        == "Edited a.py"
    assert (root / "a.py").read_text() == "x = 2\n"


def test_an_oversized_workspace_env_is_not_parsed_for_redaction(root, monkeypatch, tmp_path):
    monkeypatch.setattr(model, "_said", set())
    monkeypatch.setenv("COMPACT_ENV_FILE", str(tmp_path / "none.env"))
    big = root / ".env"
    with open(big, "w") as file:
        file.write("ANTHROPIC_API_KEY=value-from-the-big-file\n")
        file.write("# padding\n" * 2_000_000)          # 20 MB, as bash could write
    parsed = []
    real = model.dotenv_values
    monkeypatch.setattr(model, "dotenv_values", lambda **kw: parsed.append(1) or real(**kw))
    assert "value-from-the-big-file" not in tools.secret_values(root)
    assert parsed == []     # the file was never handed to the parser
    # It is still masked for bash: it is one of the secret files.
    assert big.resolve() in tools.secret_files(root)


# -- the command line --------------------------------------------------------------------------

def run_cli(*args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    return subprocess.run([sys.executable, "-P", "-m", "compact_course", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("command", [["replay", "five_reads"], ["bench", "--quick"]])
@pytest.mark.parametrize("target", ["fifo", "device", "link"])
def test_a_chart_never_replaces_a_fifo_a_device_or_a_link(tmp_path, command, target):
    path = tmp_path / "chart.png"
    if target == "fifo":
        os.mkfifo(path)
    elif target == "link":
        (tmp_path / "kept.png").write_bytes(b"kept")
        path.symlink_to(tmp_path / "kept.png")
    else:
        # A node of our own, like /dev/full (1, 7): code that replaced it must not hit the real one.
        if os.geteuid() != 0:
            pytest.skip("only root makes a device node")
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    done = run_cli(*command, "--chart", str(path), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith(f"{path} exists and is not a regular file")
    assert "Traceback" not in done.stderr
    if target == "fifo":
        assert stat.S_ISFIFO(os.lstat(path).st_mode)
    if target == "link":
        assert path.is_symlink() and (tmp_path / "kept.png").read_bytes() == b"kept"
    if target == "device":
        assert stat.S_ISCHR(os.lstat(path).st_mode)


def test_a_history_nested_too_deep_exits_2_with_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"title": "t", "active_request": "x", "messages": '
                    + "[" * 100_000 + "]" * 100_000 + "}")
    done = run_cli("replay", str(deep), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"replay: error: {deep}: not a history (nested too deeply "
                                        f"to read)"]


@pytest.mark.parametrize("value", ["0", "-1", "x", "1.5"])
def test_max_turns_is_at_least_one(value, capsys):
    with pytest.raises(SystemExit) as stop:
        main_run(["--max-turns", value, "titles"])
    assert stop.value.code == 2
    assert f"argument --max-turns: {value} is not a whole number of at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("value", [0, -1, True, 2.0])
def test_an_agent_needs_at_least_one_turn(root, value):
    with pytest.raises(ValueError, match="max_turns must be a whole number of at least 1"):
        Agent(root, client=None, model="m", max_turns=value)


def test_the_readmes_safety_numbers_are_the_codes():
    from compact_course.offline.api import server
    section = (ROOT / "docs" / "SAFETY.md").read_text(encoding="utf-8")
    for said in (f"over {model.MAX_ENV_BYTES // 1024} KiB", f"at most {model.MAX_ENV_BYTES // 1024} KiB",
                 f"up to {tools.MAX_FILE_BYTES:,} bytes", f"({tools.TIMEOUT} s)",
                 f"nothing for {server.IDLE_TIMEOUT:g} s",
                 f"serves {server.MAX_CONNECTIONS} connections",
                 f"at most {server.MAX_BODY // 2 ** 20} MiB",
                 f"at most {server.MAX_BODIES_AT_ONCE // 2 ** 20} MiB of bodies", f"`{tools.OPT_IN}=1`"):
        assert said in " ".join(section.split()), said
