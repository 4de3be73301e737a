"""The course's JupyterHub (deploy/hub/jupyterhub_config.py) with three real local students.

As root, the test makes three local users (`useradd -m`, removed at the end whatever
happens), starts the hub of deploy/hub/ on free loopback ports (compact/bench/classroom.py:
the same config, a wrapper changes only ports, state folders and who may log in), starts
the three servers at once and runs the live notebook in each through the kernel websocket.
Then: every cell ran with no error, every kernel listens on Unix sockets (IPC), each home
is 700 with the student's own copy of the notebooks, and one student, running as
themselves, can neither read another's notebooks nor connect to another's kernel.

Not root, or no configurable-http-proxy: those are skipped, with the reason; the checks of
the config's own settings, at the end, run anywhere. The first run makes
the students' venv from Debian's python3 (about a minute; kept in /var/tmp).
"""

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from compact.bench import classroom

NOTEBOOK = "13_live_agent.ipynb"
REASON = classroom.why_not_here()
NEEDS_A_HUB = pytest.mark.skipif(bool(REASON), reason=f"the hub test {REASON}")

# Run as a student: try to open a path, or to connect to a kernel's shell socket.
PROBE = r"""
import json, socket, sys
what, target = sys.argv[1], json.loads(sys.argv[2])
try:
    if what == "read":
        open(target).read(1)
    elif target["transport"] == "ipc":
        socket.socket(socket.AF_UNIX).connect(f"{target['ip']}-{target['shell_port']}")
    else:
        socket.create_connection((target["ip"], target["shell_port"]), timeout=5)
    print("allowed")
except OSError as error:
    print(type(error).__name__)
"""


@pytest.fixture(scope="module")
def classroom_run():
    course = classroom.students_course()
    with classroom.state_folder() as state, classroom.local_students(3) as students:
        made = {s: stat.S_IMODE(home(s).stat().st_mode) for s in students}  # before the hub's hook
        with classroom.running_hub(course, students, state) as hub:
            hub.spawn_all()
            runs = classroom.run_everywhere(hub, NOTEBOOK)
            try:
                yield hub, runs, made
            finally:
                classroom.close_sessions(hub, runs)


def as_student(student: str, what: str, target) -> str:
    done = subprocess.run([str(classroom.SYSTEM_PYTHON), "-c", PROBE, what, json.dumps(target)],
                          user=student, group=student, extra_groups=[], cwd="/",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def home(student: str) -> Path:
    return Path(os.path.expanduser(f"~{student}"))


@NEEDS_A_HUB
def test_the_live_notebook_runs_in_every_students_server(classroom_run):
    hub, runs, _ = classroom_run
    assert [r.student for r in runs] == hub.students
    for run in runs:
        assert run.kernel_started, f"{run.student}: {run.errors}\n{hub.log_tail()}"
        assert run.errors == [], f"{run.student}: {run.errors}"


@NEEDS_A_HUB
def test_kernels_use_unix_sockets_in_a_private_folder(classroom_run):
    hub, runs, _ = classroom_run
    for run in runs:
        connection = classroom.connection_file(hub, run.student, run.kernel_id)
        assert connection["transport"] == "ipc", f"{run.student}'s kernel: {connection['transport']}"
        folder = Path(connection["ip"]).parent
        # Jupyter adds the sticky bit (01700): what counts is that only the owner gets in.
        assert folder.stat().st_mode & 0o777 == 0o700
        assert folder.stat().st_uid == pwd_uid(run.student)
    assert "over TCP" not in (hub.state / "jupyterhub.log").read_text(errors="replace")


@NEEDS_A_HUB
def test_every_student_has_a_private_home_with_the_notebooks(classroom_run):
    hub, _, made = classroom_run
    # useradd -m made them open to all (Debian 12's default); the hub's hook closed them.
    assert set(made.values()) == {0o755}
    for student in hub.students:
        assert stat.S_IMODE(home(student).stat().st_mode) == 0o700
        copy = home(student) / "notebooks" / NOTEBOOK
        assert copy.stat().st_uid == pwd_uid(student)
        assert as_student(student, "read", str(copy)) == "allowed"


@NEEDS_A_HUB
def test_a_student_can_neither_read_another_home_nor_reach_another_kernel(classroom_run):
    hub, runs, _ = classroom_run
    first, second = runs[0], runs[1]
    other_notebook = home(second.student) / "notebooks" / NOTEBOOK
    assert as_student(first.student, "read", str(other_notebook)) == "PermissionError"
    other_kernel = classroom.connection_file(hub, second.student, second.kernel_id)
    assert as_student(first.student, "connect", other_kernel) == "PermissionError"
    # The probe can connect: the kernel's owner reaches their own kernel.
    assert as_student(second.student, "connect", other_kernel) == "allowed"


def pwd_uid(student: str) -> int:
    import pwd
    return pwd.getpwnam(student).pw_uid


# -- the config itself, read without starting anything (any user) ------------------------

def hub_config():
    from traitlets.config.loader import PyFileConfigLoader
    path = classroom.ROOT / classroom.HUB_CONFIG
    return PyFileConfigLoader(path.name, str(path.parent)).load_config()


def test_the_config_serves_loopback_with_the_venvs_server_on_notebook_00():
    config = hub_config()
    assert config.JupyterHub.ip == config.JupyterHub.hub_ip == "127.0.0.1"
    assert config.Spawner.cmd == [str(classroom.ROOT / ".venv" / "bin" / "jupyterhub-singleuser")]
    assert config.Spawner.default_url == "/lab/tree/notebooks/00_why_compaction.ipynb"
    assert (classroom.ROOT / "notebooks" / "00_why_compaction.ipynb").is_file()
    assert callable(config.Spawner.pre_spawn_hook)


def test_the_config_starts_kernels_over_ipc_with_no_news_and_an_idle_culler():
    args = hub_config().Spawner.args
    assert "--KernelManager.transport=ipc" in args
    # The folder of course.sh's overrides.json (the browser test sees it hide the prompt).
    assert f"--LabApp.app_settings_dir={classroom.ROOT / 'scripts' / 'jupyterlab'}" in args
    assert "--MappingKernelManager.cull_idle_timeout=1800" in args  # 30 minutes
    assert "--ServerApp.shutdown_no_activity_timeout=3600" in args  # an hour


def test_the_checkout_is_copied_again_over_its_last_copy_links_included(tmp_path):
    # Each run copies the checkout over the students' copy; a link such as notebooks/docs
    # was made by the last copy, and copytree cannot make it again over itself.
    root, course = tmp_path / "checkout", tmp_path / "course"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "DESIGN.md").write_text("design")
    (root / "notebooks").mkdir()
    (root / "notebooks" / "docs").symlink_to("../docs")
    (root / ".venv").mkdir()   # never copied
    classroom.copy_checkout(root, course)
    (root / "docs" / "DESIGN.md").write_text("design, again")
    classroom.copy_checkout(root, course)
    assert os.readlink(course / "notebooks" / "docs") == "../docs"
    assert (course / "notebooks" / "docs" / "DESIGN.md").read_text() == "design, again"
    assert not (course / ".venv").exists()
