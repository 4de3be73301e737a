"""The agent never works where the course lives (issue 29), and settings come only
from safe places (issues 29 and 30).

Started from the checkout's root, the agent's write_file and bash could rewrite
`context_compact/*.py` and `.venv/`, code that runs next time outside the sandbox, with
the key. So `Agent(...)`, `compact-course run` and `compact-course agent` refuse a workspace
that holds the package, the venv or the settings, sits above them, or lies in
the checkout outside data/ and scratch/; with no --workspace they work on a
fresh copy of data/workspace. A relative settings path is the checkout's, never
the current folder's, and a settings file with a key that others can read is
refused, as ssh refuses such a private key.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compact_course.agent import model, workspace
from compact_course.agent.loop import Agent, main_agent, main_run
from compact_course.agent.model import choose_model, read_env_file, settings
from compact_course.agent.workspace import UnsafeWorkspace, check_workspace

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-ant-api03-workspacetest0123456789abcdef"
CLEARED = ("ANTHROPIC_API_KEY", "MODEL_ID", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN",
           "COMPACT_ENV_FILE", "PYTHONPATH")


def files_under(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.stat().st_mtime_ns
            for p in folder.rglob("*") if p.is_file()}


# -- the workspace ---------------------------------------------------------------------------

@pytest.mark.parametrize("where, words", [
    (ROOT, "holds the course's package"),
    (ROOT.parent, "holds the course's package"),
    (Path("/"), "holds the course's package"),
    (ROOT / "context_compact", "holds the course's package"),
    (ROOT / "compact_course", "holds the course's package"),
    (ROOT / "compact_course" / "agent", "inside the course's package"),
    (Path(sys.prefix), "venv"),
    (ROOT / "notebooks", "inside the course's checkout"),
    (ROOT / "scripts", "inside the course's checkout"),
])
def test_a_workspace_where_the_course_lives_is_refused(where, words):
    if "venv" in words and sys.prefix == sys.base_prefix:
        pytest.skip("not run from a venv")
    with pytest.raises(UnsafeWorkspace) as refused:
        Agent(where, None, "none")
    assert words in str(refused.value)
    assert "--workspace data/workspace" in str(refused.value)


def test_a_workspace_that_holds_the_settings_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPACT_ENV_FILE", str(tmp_path / "course.env"))
    with pytest.raises(UnsafeWorkspace, match="the course's settings"):
        check_workspace(tmp_path)
    # One named on the command line, too.
    with pytest.raises(UnsafeWorkspace, match="the course's settings"):
        check_workspace(tmp_path.parent, [tmp_path / "live.env"])
    (tmp_path / "workspace").mkdir()
    assert check_workspace(tmp_path / "workspace") == (tmp_path / "workspace").resolve()


def test_the_sample_and_a_scratch_folder_are_fine(tmp_path):
    assert check_workspace(ROOT / "data" / "workspace") == (ROOT / "data" / "workspace")
    assert check_workspace(tmp_path) == tmp_path.resolve()


def test_a_link_to_the_checkout_is_refused_too(tmp_path):
    (tmp_path / "innocent").symlink_to(ROOT)
    with pytest.raises(UnsafeWorkspace):
        check_workspace(tmp_path / "innocent")


def _run(*argv, cwd=ROOT):
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    return subprocess.run([sys.executable, "-P", "-m", "compact_course", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("command", [["run", "titles"], ["agent"]])
def test_the_command_line_refuses_the_checkout_with_one_line(command):
    before = files_under(ROOT / "context_compact")
    done = _run(*command, "--workspace", ".", "--offline")
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "holds the course's package" in errors[0]
    assert "--workspace data/workspace" in errors[0]
    assert files_under(ROOT / "context_compact") == before


@pytest.mark.slow
def test_with_no_workspace_a_run_works_on_a_fresh_copy(tmp_path):
    sample = ROOT / "data" / "workspace"
    before = files_under(sample)
    done = _run("run", "titles", "--offline", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Workspace: a fresh copy of data/workspace at " in done.stdout
    assert "s05_todo_write" in done.stdout
    copy = Path(done.stdout.split("Workspace: a fresh copy of data/workspace at ")[1].split()[0])
    assert not copy.exists(), "the copy outlived the run"
    assert files_under(sample) == before and list(tmp_path.iterdir()) == []


def test_the_default_copy_leaves_the_compactors_folders_behind(tmp_path, monkeypatch):
    sample = tmp_path / "sample"
    (sample / ".transcripts").mkdir(parents=True)
    (sample / "notes.md").write_text("# Notes\n")
    monkeypatch.setattr(workspace, "SAMPLE", sample)
    with workspace.default_workspace(echo=None) as copy:
        assert sorted(p.name for p in copy.iterdir()) == ["notes.md"]
    assert not copy.exists()


def test_main_run_refuses_before_any_work(capsys):
    assert main_run(["titles", "--workspace", str(ROOT), "--offline"]) == 2
    assert main_agent(["--workspace", str(ROOT / "tests"), "--offline"]) == 2
    err = capsys.readouterr().err
    assert err.count("error: workspace ") == 2


# -- where settings files come from ------------------------------------------------------------

def private(path: Path, text: str, mode: int = 0o600) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


def test_a_relative_settings_path_is_the_checkouts_never_the_current_folders(tmp_path,
                                                                             monkeypatch):
    private(tmp_path / "planted.env", f"ANTHROPIC_API_KEY={KEY}\nMODEL_ID=planted\n")
    monkeypatch.chdir(tmp_path)
    assert model.course_env_file({"COMPACT_ENV_FILE": "planted.env"}) == ROOT / "planted.env"
    assert settings({"COMPACT_ENV_FILE": "planted.env"}) == {}
    assert settings({}, "planted.env") == {}
    choice = choose_model(environ={}, env_file="planted.env", echo=None)
    with choice:
        assert choice.offline
    # An absolute path is read as it is.
    assert settings({}, tmp_path / "planted.env")["MODEL_ID"] == "planted"


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_key_others_can_read_is_refused_with_the_chmod(tmp_path, mode, capsys):
    path = private(tmp_path / ".env", f"ANTHROPIC_API_KEY={KEY}\nMODEL_ID=claude-x\n", mode)
    lines = []
    assert read_env_file(path, echo=lines.append) == {}
    assert len(lines) == 1 and f"chmod 600 {path}" in lines[0]
    assert f"mode {mode:04o}" in lines[0] and KEY not in lines[0]
    # Through the settings and the model choice: no key is read, the offline model answers.
    choice = choose_model(environ={}, env_file=path, echo=None)
    with choice:
        assert choice.offline and choice.client.api_key != KEY
    assert KEY not in capsys.readouterr().err


def test_a_private_key_file_is_read(tmp_path):
    path = private(tmp_path / ".env", f"ANTHROPIC_API_KEY={KEY}\nMODEL_ID=claude-x\n")
    assert read_env_file(path) == {"ANTHROPIC_API_KEY": KEY, "MODEL_ID": "claude-x"}


def test_a_settings_file_others_may_write_is_refused_even_without_a_key(tmp_path):
    path = private(tmp_path / ".env", "ANTHROPIC_BASE_URL=http://127.0.0.1:9\n", 0o622)
    lines = []
    assert read_env_file(path, echo=lines.append) == {}
    assert "writable by others" in lines[0] and "chmod 600" in lines[0]


def test_a_settings_file_without_a_key_may_be_readable(tmp_path):
    path = private(tmp_path / ".env", "MODEL_ID=claude-x\n", 0o644)
    assert read_env_file(path) == {"MODEL_ID": "claude-x"}


def test_a_refused_file_is_still_read_for_redaction(tmp_path):
    path = private(tmp_path / ".env", f"ANTHROPIC_API_KEY={KEY}\n", 0o644)
    assert read_env_file(path, private=False) == {"ANTHROPIC_API_KEY": KEY}


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file away needs root")
def test_a_settings_file_another_user_owns_is_refused(tmp_path):
    path = private(tmp_path / ".env", f"ANTHROPIC_API_KEY={KEY}\n")
    os.chown(path, 65534, 65534)      # nobody: it could point ANTHROPIC_BASE_URL anywhere
    lines = []
    assert read_env_file(path, echo=lines.append) == {}
    assert "owned by another user (uid 65534)" in lines[0] and "chmod 600" in lines[0]


def test_the_readmes_copy_step_makes_the_key_file_600(tmp_path):
    readme = (ROOT / "docs" / "INSTALL.md").read_text(encoding="utf-8")
    section = readme.split("## Going live with a key")[1].split("\n## ")[0]
    step = next(line.strip() for line in section.splitlines()
                if line.startswith("    ") and ".env.example" in line)
    (tmp_path / ".env.example").write_text((ROOT / ".env.example").read_text())
    subprocess.run(["sh", "-c", f"umask 022; {step}"], cwd=tmp_path, check=True)
    assert oct((tmp_path / ".env").stat().st_mode & 0o777) == oct(0o600)
