"""The bash tool's bounds: time, background jobs, bytes, environment, and, where
bubblewrap can start, the sandbox itself (no writes outside the workspace, no
network, no key), as root too: no capability, no kernel setting, no remount, no
socket under /run, the compactor's folders read-only (issue 19). Without a
sandbox, bash refuses while a key is configured, unless the user opts in.

Every command here goes through `run_tool`, as the model's calls do. A call is
run in a thread and given a bound, so a tool that blocks fails its test
instead of holding the run. The sandbox tests are skipped where `bwrap` cannot
start; `scripts/test.sh` installs it when it runs as root.
"""

import base64
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

import pytest

from compact_course.agent import tools
from compact_course.agent.tools import run_tool

pytestmark = pytest.mark.slow

# An interpreter the sandbox can see: its /tmp is its own, so this test's own Python is
# hidden inside it when the checkout (and its .venv) lives under /tmp, as a CI clone may.
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

KEY = "sk-ant-api03-sandboxprobe0123456789abcdef"


def bwrap_starts() -> bool:
    path = shutil.which("bwrap")
    if not path:
        return False
    probe = subprocess.run([path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                            "--unshare-net", "true"], capture_output=True, timeout=30)
    return probe.returncode == 0


BWRAP = bwrap_starts()
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="bwrap cannot start here")


def bounded(function, *args, limit: float = 20, **kwargs):
    """function(*args) in a thread; fails the test if it has not returned within `limit` s."""
    box = {}
    worker = threading.Thread(target=lambda: box.setdefault("value", function(*args, **kwargs)),
                              daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(limit)
    assert not worker.is_alive(), f"{function.__name__}{args} still running after {limit} s"
    return box["value"], time.monotonic() - started


def unique_seconds() -> int:
    """A sleep's length no other process on the machine has, so pgrep finds only ours."""
    return 200_000 + secrets.randbelow(700_000)


@pytest.fixture
def workspace(root):
    """The bash tool's workspace: conftest's empty folder under tmp_path."""
    return root


@pytest.fixture
def outside():
    """A folder outside the workspace and outside /tmp (the sandbox's /tmp is its own)."""
    folder = tempfile.mkdtemp(prefix="compact-outside-", dir="/var/tmp")
    yield Path(folder)
    shutil.rmtree(folder)


@pytest.fixture(params=["bubblewrap", "unsandboxed"])
def either_mode(request, monkeypatch):
    """Runs a test once in each mode (the sandboxed one only where bwrap starts)."""
    from compact_course.agent import sandbox
    if request.param == "bubblewrap" and not BWRAP:
        pytest.skip("bwrap cannot start here")
    monkeypatch.setattr(sandbox, "_mode", request.param)
    # These tests set a key on purpose; unsandboxed, bash refuses to run then, unless opted in.
    monkeypatch.setenv(tools.OPT_IN, "1")
    return request.param


def bash(workspace, command, **kwargs):
    return run_tool(workspace, "bash", {"command": command}, **kwargs)


# -- bounds that hold in both modes (each test runs in each) ---------------------------------

def test_a_background_job_does_not_hold_the_call(workspace, either_mode):
    output, took = bounded(bash, workspace, "sleep 300 & echo started")
    assert output == "started" and took < 15


def test_a_background_job_is_ended_with_the_call(workspace, either_mode):
    # Looked for by its unusual argument: in the sandbox it has a pid of its own namespace.
    job = f"sleep {unique_seconds()}"
    assert bounded(bash, workspace, f"{job} & echo started")[0] == "started"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        found = subprocess.run(["pgrep", "-f", job], capture_output=True, text=True)
        if not found.stdout.strip():
            break
        time.sleep(0.1)
    assert not found.stdout.strip(), "the background job outlived the call"


def test_the_time_limit_kills_the_whole_process_group(workspace, either_mode, monkeypatch):
    monkeypatch.setattr(tools, "TIMEOUT", 2)
    job = f"sleep {unique_seconds()}"
    command = f"sh -c '{job}' & {job}"
    output, took = bounded(bash, workspace, command)
    assert output == "Error: timed out after 2 s" and took < 10
    time.sleep(0.5)
    found = subprocess.run(["pgrep", "-f", job], capture_output=True, text=True)
    assert not found.stdout.strip(), "a process of the timed-out command is still running"


def test_bytes_that_are_not_utf8_are_replaced_not_the_whole_output(workspace, either_mode):
    output, _ = bounded(bash, workspace, r"printf 'before \377\376 after\n'")
    assert output == "before \ufffd\ufffd after"


def test_output_is_capped_and_says_how_much_was_cut(workspace, either_mode):
    output, took = bounded(bash, workspace, "yes abcdefghi | head -c 2000000")
    assert took < 15
    assert output.startswith("abcdefghi\nabcdefghi\n")
    assert len(output) < tools.MAX_OUTPUT + 200
    assert output.endswith(f"[output cut: {2_000_000 - tools.MAX_OUTPUT} more bytes]")


def test_the_environment_holds_no_secret(workspace, either_mode, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", KEY[::-1])
    monkeypatch.setenv("SOME_SERVICE_PASSWORD", "hunter2-planted")
    output, _ = bounded(bash, workspace, "env")
    lines = dict(line.split("=", 1) for line in output.splitlines() if "=" in line)
    assert lines["HOME"] == str(workspace.resolve())
    assert "PATH" in lines
    assert not [name for name in lines if name.startswith("ANTHROPIC_")]
    assert "hunter2-planted" not in output and KEY not in output and KEY[::-1] not in output


def test_without_bubblewrap_commands_run_with_a_warning_given_once(workspace, monkeypatch):
    from compact_course.agent import sandbox
    monkeypatch.setattr(sandbox, "BWRAP_NAME", "no-such-bwrap-program")
    monkeypatch.setattr(sandbox, "_mode", None)
    monkeypatch.setattr(sandbox, "_warned", False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv(tools.OPT_IN, "1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, _ = bounded(bash, workspace, "echo $HOME; env | grep -c ANTHROPIC_ || true")
        second, _ = bounded(bash, workspace, "echo again")
    assert sandbox.mode() == "unsandboxed"
    assert first.splitlines() == [str(workspace.resolve()), "0"] and second == "again"
    said = [str(w.message) for w in caught if issubclass(w.category, sandbox.UnsandboxedWarning)]
    assert len(said) == 1 and "without a sandbox" in said[0] and "bubblewrap" in said[0]


def test_a_sandbox_that_fails_to_start_falls_back_with_the_warning(workspace, monkeypatch):
    from compact_course.agent import sandbox
    # A bwrap that exits at once with an error, as it does without user namespaces.
    fake = workspace.parent / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\n"
                                "exit 1\n")
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setattr(sandbox, "BWRAP_NAME", str(fake / "bwrap"))
    monkeypatch.setattr(sandbox, "_mode", None)
    monkeypatch.setattr(sandbox, "_warned", False)
    with pytest.warns(sandbox.UnsandboxedWarning, match="could not start"):
        output, _ = bounded(bash, workspace, "echo ran")
    assert output == "ran" and sandbox.mode() == "unsandboxed"


def test_the_deny_list_and_the_destructive_filter_still_refuse(workspace, either_mode):
    (workspace / "a.txt").write_text("a")
    assert "deny list" in bash(workspace, "sudo ls")
    assert "not confirmed" in bash(workspace, "rm a.txt")
    assert (workspace / "a.txt").read_text() == "a"


# -- the sandbox (bubblewrap) ------------------------------------------------------------------

@needs_bwrap
def test_the_sandbox_runs_where_bubblewrap_starts():
    from compact_course.agent import sandbox
    assert sandbox.mode() == "bubblewrap"


@needs_bwrap
def test_the_sandbox_cannot_write_outside_the_workspace(workspace, outside):
    yes = {"confirm": lambda command: True}
    # Past the destructive filter on purpose: the sandbox, not the filter, must stop these.
    bash(workspace, f"touch {outside}/touched", **yes)
    bash(workspace, f"{PYTHON} -c \"open('{outside}/python.txt', 'w').write('x')\"")
    bash(workspace, f"echo x | tee {outside}/tee.txt")
    bash(workspace, f"ln -s {outside} out && echo x > out/through-link.txt", **yes)
    assert list(outside.iterdir()) == []
    written = bash(workspace, "echo inside > kept.txt && cat kept.txt", **yes)
    assert written == "inside" and (workspace / "kept.txt").read_text() == "inside\n"
    # /tmp is the sandbox's own: a file made there is gone with the call.
    marker = f"/tmp/compact-sandbox-{os.getpid()}"
    assert bash(workspace, f"echo x > {marker} && cat {marker}", **yes) == "x"
    assert not os.path.exists(marker)


@needs_bwrap
def test_the_sandbox_cannot_reach_the_network(workspace):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    port = listener.getsockname()[1]
    try:
        # The listener is there: this process reaches it.
        socket.create_connection(("127.0.0.1", port), timeout=3).close()
        probe = (f"{PYTHON} -c \"import socket; socket.create_connection(('127.0.0.1', "
                 f"{port}), timeout=3); print('connected')\"")
        output, _ = bounded(bash, workspace, probe)
    finally:
        listener.close()
    assert "connected" not in output.splitlines()
    assert "Connection refused" in output or "unreachable" in output


@needs_bwrap
def test_the_sandbox_cannot_see_the_key_or_the_parents_environment(workspace, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    command = "env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; ls /proc | grep -c '^[0-9]'"
    output, _ = bounded(bash, workspace, command)
    assert KEY not in output and "ANTHROPIC_" not in output
    # Only the sandbox's own few processes are visible, not this test's.
    assert int(output.splitlines()[-1]) < 10


# -- the sandbox as root and against a command that tries to get out (issue 19) ---------------

@needs_bwrap
def test_the_sandbox_holds_no_capability(workspace):
    output, _ = bounded(bash, workspace, "grep -E '^(Cap(Inh|Prm|Eff|Amb)|NoNewPrivs):' /proc/self/status")
    status = dict(line.split(":\t") for line in output.splitlines())
    # Nothing held, and nothing to gain: no_new_privs stops a setuid program from adding any.
    assert status == {"CapInh": "0" * 16, "CapPrm": "0" * 16, "CapEff": "0" * 16,
                      "CapAmb": "0" * 16, "NoNewPrivs": "1"}, output


# Each line: a user namespace of the command's own, then one mapped to root (-r) with its caps.
USERNS_PROBE = ("unshare -U true; echo \"userns=$?\"; "
                "unshare -Ur grep CapEff /proc/self/status; echo \"root-map=$?\"")


def made_no_user_namespace(output: str) -> bool:
    """Both unshares refused, and no capability printed (issue 49)."""
    lines = output.splitlines()
    return "userns=0" not in lines and "root-map=0" not in lines and "CapEff" not in output


@needs_bwrap
def test_a_command_makes_no_user_namespace_of_its_own(workspace):
    output, _ = bounded(bash, workspace, USERNS_PROBE)
    assert made_no_user_namespace(output), output
    assert "No space left on device" in output, output      # --disable-userns: a limit of 0


UNPRIVILEGED = """
import json, sys
from compact_course.agent import sandbox, tools
print(json.dumps({"mode": sandbox.mode(), "output": tools.run_tool(sys.argv[1], "bash",
                                                                   {"command": sys.argv[2]})}))
"""


@needs_bwrap
def test_as_an_unprivileged_user_a_command_gets_no_capability_in_a_namespace_of_its_own():
    """`unshare -Ur` gave an unprivileged user's command every capability (CapEff
    000001ffffffffff) in a user namespace of its own (issue 49). Run as nobody (setpriv)."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("running as another user needs root and setpriv")
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if subprocess.run([*as_nobody, sys.executable, "-c", ""], capture_output=True).returncode:
        pytest.skip(f"{sys.executable} is out of nobody's reach")
    folder = Path(tempfile.mkdtemp(prefix="compact-unprivileged-", dir="/var/tmp"))
    try:
        os.chown(folder, 65534, 65534)
        env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8", "HOME": str(folder),
               "PYTHONPATH": str(Path(tools.__file__).parents[2])}
        done = subprocess.run([*as_nobody, sys.executable, "-c", UNPRIVILEGED, str(folder),
                               USERNS_PROBE],
                              cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(folder)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["mode"] == "bubblewrap", done.stderr
    assert made_no_user_namespace(found["output"]), found["output"]


def test_an_older_bwrap_without_disable_userns_still_sandboxes_and_says_what_is_missing(
        workspace, monkeypatch):
    """bubblewrap before 0.8 has no --disable-userns: the sandbox still starts, without
    it, and one warning names it."""
    from compact_course.agent import sandbox
    real = shutil.which("bwrap")
    if not BWRAP:
        pytest.skip("bwrap cannot start here")
    fake = workspace.parent / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = --disable-userns ]; then\n"
                                "echo 'bwrap: Unknown option --disable-userns' >&2; exit 1; fi; done\n"
                                f"exec {real} \"$@\"\n")
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setattr(sandbox, "BWRAP_NAME", str(fake / "bwrap"))
    monkeypatch.setattr(sandbox, "_mode", None)
    monkeypatch.setattr(sandbox, "_isolation", None)
    with pytest.warns(sandbox.UnsandboxedWarning, match="--disable-userns needs bubblewrap 0.8"):
        output, _ = bounded(bash, workspace, "echo ran")
    assert output == "ran" and sandbox.mode() == "bubblewrap"
    assert "--disable-userns" not in sandbox.isolation()


@needs_bwrap
def test_no_kernel_setting_can_be_written(workspace):
    # The value it already has, so that where the write goes through nothing changes.
    value = Path("/proc/sys/kernel/printk_ratelimit").read_text().strip()
    output, _ = bounded(bash, workspace, f"echo {value} > /proc/sys/kernel/printk_ratelimit && echo written",
                        confirm=lambda command: True)
    assert "written" not in output and "Read-only file system" in output, output


@needs_bwrap
def test_a_remount_or_umount_changes_nothing(workspace, outside, monkeypatch):
    yes = {"confirm": lambda command: True}
    (workspace / ".env").write_text(f"ANTHROPIC_API_KEY={KEY}\n")
    commands = [f"mount -o remount,rw,bind / ; touch {outside}/after-remount",
                f"mount -o remount,rw / ; touch {outside}/after-remount-2",
                f"mount -t tmpfs none {outside} ; touch {outside}/on-tmpfs",
                "umount .env ; base64 .env"]
    outputs = [bounded(bash, workspace, command, **yes)[0] for command in commands]
    assert list(outside.iterdir()) == []
    # The mask over .env stays: base64 of the key (which redaction could not see) never shows.
    encoded = base64.b64encode(f"ANTHROPIC_API_KEY={KEY}\n".encode()).decode()
    assert all(encoded[:20] not in output for output in outputs), outputs


@needs_bwrap
def test_no_unix_socket_under_run_is_reachable(workspace, tmp_path):
    folder = Path("/run") if os.access("/run", os.W_OK) else Path(f"/run/user/{os.getuid()}")
    if not os.access(folder, os.W_OK):
        pytest.skip(f"{folder} cannot be written here: no socket to plant")
    path = folder / f"compact-probe-{os.getpid()}.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen(1)
    try:
        probe = (f"ls -A {folder} | wc -l; {PYTHON} -c \"import socket; s = socket.socket(socket.AF_UNIX); "
                 f"s.connect('{path}'); print('connected')\"")
        output, _ = bounded(bash, workspace, probe)
    finally:
        listener.close()
        path.unlink()
    assert "connected" not in output.splitlines()
    assert output.splitlines()[0] == "0", output       # /run is an empty folder of its own
    assert "No such file" in output or "FileNotFoundError" in output, output


@needs_bwrap
def test_the_compactors_folders_are_read_only_to_commands(workspace):
    yes = {"confirm": lambda command: True}
    saved = workspace / ".task_outputs" / "tool-results" / "t1.txt"
    saved.parent.mkdir(parents=True)
    saved.write_text("the whole text\n")
    transcript = workspace / ".transcripts" / "transcript_x.jsonl"
    transcript.parent.mkdir()
    transcript.write_text("{}\n")
    for command in ["echo forged >> .task_outputs/tool-results/t1.txt",
                    "printf forged > .task_outputs/tool-results/t1.txt",
                    "rm -rf .transcripts .task_outputs", "mv .task_outputs moved",
                    "echo new > .task_outputs/tool-results/t2.txt"]:
        bounded(bash, workspace, command, **yes)
    assert saved.read_text() == "the whole text\n" and transcript.read_text() == "{}\n"
    assert sorted(p.name for p in saved.parent.iterdir()) == ["t1.txt"]
    assert not (workspace / "moved").exists()
    # The rest of the workspace stays writable.
    assert bash(workspace, "echo ok > free.txt && cat free.txt", **yes) == "ok"


@needs_bwrap
def test_an_env_file_linked_to_proc_does_not_break_bash(workspace):
    (workspace / ".env.local").symlink_to("/proc/self/status")
    assert bounded(bash, workspace, "echo still-runs")[0] == "still-runs"
    assert bounded(bash, workspace, "echo again")[0] == "again"


@needs_bwrap
def test_an_env_file_linked_elsewhere_is_covered_where_it_leads(workspace, outside):
    (outside / "real.env").write_text(f"ANTHROPIC_API_KEY={KEY}\n")
    (workspace / ".env").symlink_to(outside / "real.env")
    output, _ = bounded(bash, workspace, f"base64 .env; base64 {outside}/real.env")
    assert base64.b64encode(f"ANTHROPIC_API_KEY={KEY}\n".encode()).decode()[:24] not in output
    assert output.count("Permission denied") == 2, output


# -- without a sandbox: no plain command while a key is configured -------------------------------

@pytest.fixture
def no_sandbox(monkeypatch, tmp_path):
    """bwrap missing; the course's .env is an empty file, so only the test's variables count."""
    from compact_course.agent import sandbox
    monkeypatch.setattr(sandbox, "_mode", "unsandboxed")
    monkeypatch.delenv(tools.OPT_IN, raising=False)
    for name in tools.SECRET_NAMES:
        monkeypatch.delenv(name, raising=False)
    course_env = tmp_path / "course.env"
    course_env.write_text("")
    monkeypatch.setenv("COMPACT_ENV_FILE", str(course_env))
    return course_env


@pytest.mark.parametrize("where", ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "course .env",
                                   "--env-file"])
def test_without_a_sandbox_bash_refuses_while_a_key_is_configured(workspace, no_sandbox,
                                                                 monkeypatch, where):
    if where == "course .env":
        no_sandbox.write_text(f"ANTHROPIC_API_KEY={KEY}\n")
    elif where == "--env-file":     # issue 49: a file named by the flag counts too
        from compact_course.agent import model
        named = no_sandbox.parent / "named.env"
        named.write_text(f"ANTHROPIC_API_KEY={KEY}\n")
        named.chmod(0o600)
        assert model.settings(env_file=str(named))["ANTHROPIC_API_KEY"] == KEY
    else:
        monkeypatch.setenv(where, KEY)
    command = f"echo ran > ran.txt; tr '\\0' '\\n' < /proc/{os.getpid()}/environ | base64"
    output = bash(workspace, command, confirm=lambda command: True)
    assert output.startswith("Error: bash refused: there is no sandbox here and a key is configured")
    assert tools.OPT_IN in output and not (workspace / "ran.txt").exists()


def test_without_a_sandbox_bash_runs_with_no_key_or_when_opted_in(workspace, no_sandbox,
                                                                  monkeypatch):
    assert bash(workspace, "echo no-key") == "no-key"       # the offline model's case
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv(tools.OPT_IN, "1")
    assert bash(workspace, "echo opted-in") == "opted-in"
    monkeypatch.setenv(tools.OPT_IN, "yes")                  # only 1 opts in
    assert bash(workspace, "echo x").startswith("Error: bash refused")


@needs_bwrap
def test_the_course_env_and_the_workspaces_are_covered_for_commands(workspace, outside, monkeypatch):
    course_env = outside / "course.env"
    course_env.write_text(f"ANTHROPIC_API_KEY={KEY}\n")
    monkeypatch.setenv("COMPACT_ENV_FILE", str(course_env))
    (workspace / ".env").write_text(f"ANTHROPIC_API_KEY={KEY[::-1]}\n")
    (outside / "other.txt").write_text("readable\n")
    output, _ = bounded(bash, workspace, f"base64 {course_env}; base64 .env; cat {outside}/other.txt")
    for text in (f"ANTHROPIC_API_KEY={KEY}\n", f"ANTHROPIC_API_KEY={KEY[::-1]}\n"):
        assert base64.b64encode(text.encode()).decode()[:24] not in output
    assert output.count("Permission denied") == 2, output
    # Other files outside the workspace stay readable (the README says so).
    assert output.splitlines()[-1] == "readable"


def test_opted_in_without_a_sandbox_a_command_reads_the_key(workspace, no_sandbox, monkeypatch):
    """What COMPACT_UNSANDBOXED_BASH=1 costs (the README says it): the agent's own
    environment is one `tr` away, and base64 takes it past the redaction."""
    probe = ("import sys\n"
             "from compact_course.agent import sandbox, tools\n"
             "sandbox._mode = 'unsandboxed'\n"
             "print(tools.run_tool(sys.argv[1], 'bash', {'command': "
             "\"tr '\\\\0' '\\\\n' < /proc/$PPID/environ | base64 -w0\"}))\n")
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, tools.OPT_IN: "1"}
    done = subprocess.run([sys.executable, "-P", "-c", probe, str(workspace)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert KEY not in done.stdout                      # redaction sees no key...
    assert f"ANTHROPIC_API_KEY={KEY}" in base64.b64decode(done.stdout.strip()).decode()  # ...yet here it is
    # And the course's .env, which the sandbox would have covered.
    monkeypatch.setenv(tools.OPT_IN, "1")
    no_sandbox.write_text(f"ANTHROPIC_API_KEY={KEY[::-1]}\n")
    output = bash(workspace, f"base64 -w0 {no_sandbox}")
    assert base64.b64decode(output).decode() == f"ANTHROPIC_API_KEY={KEY[::-1]}\n"
