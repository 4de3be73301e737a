"""JupyterHub for one class on one machine: the course's notebooks for every student.

Run as root from the course's clone (README, "One machine for a class"):

    .venv/bin/jupyterhub -f deploy/hub/jupyterhub_config.py

What it sets up: the hub on 127.0.0.1 behind configurable-http-proxy (put a TLS front
such as nginx or caddy before it to serve a room), local users who log in with their
password (PAM) and belong to the group COURSE_GROUP (default `students`), one
LocalProcessSpawner server per student running the course venv's jupyterhub-singleuser,
JupyterLab opened on notebook 00, a copy of notebooks/ made in the student's home before
their first server starts, homes at 700, kernels over IPC, the news prompt off, and idle
kernels and servers stopped. Left out: TLS, a key for the live model (README, "A key for
the whole class"), anything past one machine (Zero to JupyterHub, on Kubernetes).

Environment, all optional: COURSE_DIR (the clone; default: the one holding this file),
COURSE_HUB_PORT (8000), COURSE_GROUP, COURSE_ADMINS (user names, separated by spaces),
COURSE_RUNTIME_ROOT (/run/course-kernels). tests/test_hub.py loads this file and changes
only ports, state folders and who may log in.
"""

import os
import pwd
import shutil
import tempfile
from pathlib import Path

c = get_config()  # noqa: F821  (JupyterHub defines get_config when it loads this file)

COURSE = Path(os.environ.get("COURSE_DIR") or Path(__file__).resolve().parents[2])
VENV = COURSE / ".venv"
# A root-owned folder of 700 folders, one a student, for the kernels' Unix sockets: a
# socket path may be at most 107 bytes, too few for ~/.local/share/jupyter/runtime/kernel-<uuid>-ipc-1
# under a long user name.
RUNTIME_ROOT = Path(os.environ.get("COURSE_RUNTIME_ROOT", "/run/course-kernels"))

c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = int(os.environ.get("COURSE_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.ConfigurableHTTPProxy.command = [shutil.which("configurable-http-proxy") or "configurable-http-proxy"]

c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.allowed_groups = {os.environ.get("COURSE_GROUP", "students")}
c.Authenticator.admin_users = set(os.environ.get("COURSE_ADMINS", "").split())

c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
c.Spawner.cmd = [str(VENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.notebook_dir = "~"
c.Spawner.default_url = "/lab/tree/notebooks/00_why_compaction.ipynb"
# A class starts its servers at once: on 2 cores 24 servers take about a minute (README).
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.Spawner.args = [
    # Kernels over IPC: Unix sockets in the student's 700 runtime folder. Over TCP every
    # server picks ports on its own (two kernels got the same one), any local user can
    # connect to them, and each kernel warns "running over TCP without encryption".
    "--KernelManager.transport=ipc",
    # scripts/jupyterlab/overrides.json: no Jupyter news prompt, no update check (as course.sh).
    f"--LabApp.app_settings_dir={COURSE / 'scripts' / 'jupyterlab'}",
    # The idle culler: a kernel idle for 30 min is stopped, and a server with no kernel
    # and no request for an hour stops itself (the student's next login starts it again).
    "--MappingKernelManager.cull_idle_timeout=1800",
    "--MappingKernelManager.cull_interval=300",
    "--ServerApp.shutdown_no_activity_timeout=3600",
]


def hand_over(path: Path, uid: int, gid: int) -> None:
    """chown a tree to a student, the top last, never following a link."""
    for folder, folders, files in os.walk(path, topdown=False):
        for name in folders + files:
            os.chown(Path(folder, name), uid, gid, follow_symlinks=False)
    os.chown(path, uid, gid, follow_symlinks=False)


def prepare_home(spawner) -> None:
    """Before a student's server starts: a private home, their own notebooks, a socket folder."""
    account = pwd.getpwnam(spawner.user.name)
    home = Path(account.pw_dir)
    # useradd -m makes homes 755: every student (and the agent's sandbox) would read the others'.
    home.chmod(0o700)
    target = home / "notebooks"
    if not os.path.lexists(target):
        # Copied into a root-only folder first, handed over, then renamed into place in one step.
        staging = Path(tempfile.mkdtemp(prefix=".notebooks-", dir=home))
        shutil.copytree(COURSE / "notebooks", staging / "notebooks", symlinks=True,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        hand_over(staging / "notebooks", account.pw_uid, account.pw_gid)
        os.rename(staging / "notebooks", target)
        staging.rmdir()
    RUNTIME_ROOT.mkdir(mode=0o755, parents=True, exist_ok=True)
    runtime = RUNTIME_ROOT / str(account.pw_uid)
    runtime.mkdir(mode=0o700, exist_ok=True)
    os.chown(runtime, account.pw_uid, account.pw_gid, follow_symlinks=False)
    runtime.chmod(0o700)
    # A new dict: this spawner's own, whatever its configured one is shared with.
    spawner.environment = {**spawner.environment, "JUPYTER_RUNTIME_DIR": str(runtime)}


c.Spawner.pre_spawn_hook = prepare_home
