"""Nothing the agent writes configures it (issue 19, rule 1), and settings fail safe (issue 25).

The agent's bash can write anything in its workspace, and the workspace is often
the folder the command line starts in. So a `dotenv.py`, an `anthropic.py` and a
`.env` planted there must change nothing: the command line imports nothing from
the current folder and reads settings only from the environment and the course's
own `.env` (`compact_course.agent.model.settings`). That `.env` is read at most 64 KiB,
and one that cannot be read counts as missing, with one line that says so.
"""

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from compact_course.agent import model
from compact_course.agent.loop import main_run
from compact_course.agent.model import course_env_file, read_env_file, settings
from compact_course.offline.api.server import key_for, start_offline_server

ROOT = Path(__file__).resolve().parents[2]
FAKE_KEY = "sk-ant-api03-plantedtest0123456789abcdef"
BIN = Path(sys.executable).parent
CLEARED = ("ANTHROPIC_API_KEY", "MODEL_ID", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN",
           "PYTHONPATH", "PYTHONSAFEPATH", "COMPACT_ENV_FILE")


class Listener:
    """A socket on 127.0.0.1 that counts the connections made to it (the planted address)."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(8)
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.connections, self.stopped = 0, False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopped:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                continue
            self.connections += 1
            connection.close()

    def close(self):
        self.stopped = True
        self.thread.join(5)
        self.socket.close()


@pytest.fixture
def planted(tmp_path):
    """A workspace holding a dotenv.py, an anthropic.py and a .env aimed at a listener."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.md").write_text("# Notes\n\nA file to read.\n")
    markers = tmp_path / "markers"
    markers.mkdir()
    for name in ("dotenv", "anthropic"):
        (workspace / f"{name}.py").write_text(
            f"open({str(markers / name)!r}, 'w').write('planted code ran')\n"
            f"raise SystemExit('planted {name}.py ran')\n")
    listener = Listener()
    (workspace / ".env").write_text(f"ANTHROPIC_BASE_URL=http://127.0.0.1:{listener.port}\n"
                                    f"MODEL_ID=planted-model\nANTHROPIC_API_KEY={FAKE_KEY}x\n")
    yield workspace, markers, listener
    listener.close()


COMMAND_LINES = {
    "the compact-course script": [str(BIN / "compact-course")],
    "python -P -m compact_course": [sys.executable, "-P", "-m", "compact_course"],
    "python -m compact_course": [sys.executable, "-m", "compact_course"],
}


@pytest.mark.slow
@pytest.mark.parametrize("how", COMMAND_LINES)
def test_planted_modules_and_env_in_the_workspace_change_nothing(planted, tmp_path, how):
    workspace, markers, listener = planted
    course_env = tmp_path / "course.env"
    course_env.write_text("")
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    # A key in the environment, as a live user has it: only MODEL_ID would be missing.
    env.update(ANTHROPIC_API_KEY=FAKE_KEY, COMPACT_ENV_FILE=str(course_env))
    done = subprocess.run([*COMMAND_LINES[how], "run", "titles", "--workspace", "."],
                          cwd=workspace, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert list(markers.iterdir()) == [], "planted code ran"
    assert "planted" not in done.stdout + done.stderr
    assert "Model: the offline model" in done.stdout
    assert listener.connections == 0
    assert FAKE_KEY not in done.stdout + done.stderr


# -- where settings come from -----------------------------------------------------------------

def test_the_course_env_is_the_checkouts_unless_one_is_named(tmp_path):
    assert course_env_file({}) == ROOT / ".env"
    assert course_env_file({"COMPACT_ENV_FILE": str(tmp_path / "x.env")}) == tmp_path / "x.env"


def test_a_env_in_the_current_folder_is_never_read(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text(f"ANTHROPIC_API_KEY={FAKE_KEY}\nMODEL_ID=from-cwd\n")
    (tmp_path / "sub").mkdir()
    empty = tmp_path / "course.env"
    empty.write_text("")
    for folder in (tmp_path, tmp_path / "sub"):
        monkeypatch.chdir(folder)
        assert settings({"COMPACT_ENV_FILE": str(empty)}) == {}


def test_env_file_on_the_command_line_is_the_settings_file(tmp_path, capsys):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.md").write_text("# Notes\n")
    with start_offline_server() as stand_in:     # plays the real API here, with its own key
        key = key_for(stand_in.base_url)
        env_file = tmp_path / "live.env"
        env_file.write_text(f"ANTHROPIC_API_KEY={key}\nMODEL_ID=offline-s08\n"
                            f"ANTHROPIC_BASE_URL={stand_in.base_url}\n")
        env_file.chmod(0o600)    # a key only its owner reads (issue 30)
        status = main_run(["--env-file", str(env_file), "--workspace", str(workspace), "titles"])
        out = capsys.readouterr().out
        assert status == 0 and stand_in.requests, out
    assert out.splitlines()[0] == (f"Model: offline-s08 through the Anthropic API at "
                                   f"{stand_in.base_url} (key from ANTHROPIC_API_KEY).")
    assert key not in out


@pytest.mark.parametrize("url, shown", [
    ("http://alice:s3cret-pass@127.0.0.1:9/v1", "http://***@127.0.0.1:9/v1"),
    ("https://token-only@proxy.example:8443", "https://***@proxy.example:8443"),
    ("https://api.anthropic.com", "https://api.anthropic.com"),
])
def test_credentials_in_the_base_url_are_shown_as_stars(url, shown):
    said = []
    choice = model.choose_model(environ={"ANTHROPIC_API_KEY": FAKE_KEY, "MODEL_ID": "claude-x",
                                         "ANTHROPIC_BASE_URL": url}, env_file=False, echo=said.append)
    choice.close()
    assert said == [f"Model: claude-x through the Anthropic API at {shown} (key from ANTHROPIC_API_KEY)."]
    assert "s3cret" not in said[0] and "token-only" not in said[0]


# -- a .env that cannot be read counts as missing, with one line ----------------------------------

@pytest.fixture
def said(monkeypatch):
    monkeypatch.setattr(model, "_said", set())
    lines = []
    return lines


def kinds(tmp_path):
    big = tmp_path / "big.env"
    big.write_text(f"ANTHROPIC_API_KEY={FAKE_KEY}\n" + "#" * model.MAX_ENV_BYTES)
    fifo = tmp_path / "fifo.env"
    os.mkfifo(fifo)     # nothing writes to it: a read that waited would hang the test
    folder = tmp_path / "folder.env"
    folder.mkdir()
    binary = tmp_path / "binary.env"
    binary.write_bytes(b"ANTHROPIC_API_KEY=\xff\xfe\n")
    return {"over 64 KiB": big, "not a regular file": fifo, "folder": folder,
            "not UTF-8 text": binary}


@pytest.mark.parametrize("kind", ["over 64 KiB", "not a regular file", "folder", "not UTF-8 text"])
def test_a_env_that_cannot_be_used_counts_as_missing_with_one_line(tmp_path, said, kind):
    path = kinds(tmp_path)[kind]
    assert read_env_file(path, echo=said.append) == {}
    assert read_env_file(path, echo=said.append) == {}        # said once, not on every read
    assert len(said) == 1 and said[0].startswith(f"settings: {path} is ignored (")
    assert said[0].endswith("it counts as missing") and FAKE_KEY not in said[0]
    if kind != "folder":
        assert kind in said[0]


def test_a_settings_file_up_to_the_cap_is_read(tmp_path, said):
    path = tmp_path / "full.env"
    line = "MODEL_ID=claude-x\n"
    path.write_text(line + "#" * (model.MAX_ENV_BYTES - len(line)))
    assert os.path.getsize(path) == model.MAX_ENV_BYTES
    assert read_env_file(path, echo=said.append) == {"MODEL_ID": "claude-x"} and said == []


def test_a_env_only_root_can_read_counts_as_missing(tmp_path):
    """The hub's case: a root-only .env in the course folder. settings() once raised
    PermissionError there; now it counts as missing and one line says why."""
    env_file = tmp_path / "root-only.env"
    env_file.write_text(f"ANTHROPIC_API_KEY={FAKE_KEY}\nMODEL_ID=claude-x\n")
    env_file.chmod(0o600)
    found, lines = as_another_user(env_file)
    assert found == {}
    assert lines == [f"settings: {env_file} is ignored (Permission denied); it counts as missing"]


def as_another_user(env_file: Path):
    """settings() with `env_file` as the course's .env, as a user who cannot read it:
    nobody, in a forked child, when the test runs as root (root reads any file)."""
    def probe():
        lines = []
        model._said.discard(str(env_file))
        read_env_file(env_file, echo=lines.append)   # says it; settings() then stays quiet
        return settings({"COMPACT_ENV_FILE": str(env_file)}), lines
    if os.geteuid() != 0:
        env_file.chmod(0)
        return probe()
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:     # the child: drop to nobody, report, and leave without pytest's clean-up
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            os.write(writer, json.dumps(probe()).encode())
        finally:
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader) as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    found, lines = json.loads(data)
    return found, lines
