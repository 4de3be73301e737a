"""JupyterHub for one class on one machine: the course's notebooks for every student.

Run as root from the hub's state folder (docs/CLASS.md, "One machine for a class"; jupyterhub.service
or start-hub.sh start it so):

    /opt/course/.venv/bin/jupyterhub -f /opt/course/deploy/hub/jupyterhub_config.py

What it sets up: the hub on 127.0.0.1 behind configurable-http-proxy, started apart
(start-hub-proxy.sh, jupyterhub-proxy.service) so a hub restart leaves port 8000 open (put a
TLS front such as nginx or caddy before it to serve a room); local users who log in with their password
(PAM) and belong to the group COURSE_GROUP (default `students`), and the teacher: the
admins of COURSE_ADMINS, let in by name (outside the group, so with no class key); one
server a student, the course venv's jupyterhub-singleuser, started as the student inside
their memory and process limits (limits.py), opened on notebook 00; JupyterHub's internal
TLS between the hub, its proxy and every server, each server on a loopback address of its
own with a certificate that names only that address (identity.py), so that no student's
server is ever taken for another's; before it starts, the student's own copy of
notebooks/ and docs/ (without the teacher's notes), made as the student (home.py,
student_copy.py); kernels over IPC in a 700 socket folder of each student's; their class
key for the proxy when the teacher made one (deploy/proxy/); the news prompt off; idle
kernels and servers stopped.
The hub's database, cookie secret and log (jupyterhub.service and start-hub.sh send it
there) live in the state folder (700, made so by the
docs/CLASS.md), and a restart of the hub leaves every student's server and kernel running.

Left out: TLS on port 8000 (a front's job), anything past one machine (Zero to JupyterHub,
on Kubernetes: docs/CLASS.md).

Environment, all optional: COURSE_DIR (the clone; default: the one holding this file),
COURSE_HUB_STATE (/srv/jupyterhub), COURSE_HUB_PORT (8000), COURSE_HUB_API_PORT (8081),
COURSE_PROXY_API_PORT (8001), COURSE_GROUP, COURSE_ADMINS (user names, separated by
spaces), COURSE_RUNTIME_ROOT (/run/course-kernels), COURSE_CLASS_KEYS (the state folder's
class-keys.json), COURSE_MEMORY_LIMIT and COURSE_TASKS_LIMIT (limits.py).
tests/deploy/test_hub.py runs this file as it is, with these variables.
"""

import os
import secrets
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))   # home.py and limits.py, beside this file

from home import make_hook  # noqa: E402
from identity import CourseSpawner, alt_names  # noqa: E402

c = get_config()  # noqa: F821  (JupyterHub defines get_config when it loads this file)

# Whatever starts the hub: its database, secret, log and pid file are root's alone (600),
# and so is anything a student's server makes, unless the student says otherwise.
os.umask(0o077)

COURSE = Path(os.environ.get("COURSE_DIR") or HERE.parents[1])
VENV = COURSE / ".venv"
STATE = Path(os.environ.get("COURSE_HUB_STATE", "/srv/jupyterhub"))
# A root-owned folder of 700 folders, one a student, for the kernels' Unix sockets: a
# socket path may be at most 107 bytes, too few for ~/.local/share/jupyter/runtime/kernel-<uuid>-ipc-1
# under a long user name.
RUNTIME_ROOT = Path(os.environ.get("COURSE_RUNTIME_ROOT", "/run/course-kernels"))
CLASS_KEYS = Path(os.environ.get("COURSE_CLASS_KEYS", str(STATE / "class-keys.json")))

c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = int(os.environ.get("COURSE_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ.get("COURSE_HUB_API_PORT", "8081"))
# configurable-http-proxy runs on its own (start-hub-proxy.sh, jupyterhub-proxy.service):
# the hub only sets its routes, so a hub restart leaves port 8000 open and students' pages
# answering (JupyterHub's own deployments run it so). They share the token in the state folder.
c.ConfigurableHTTPProxy.should_start = False
c.ConfigurableHTTPProxy.api_url = f"https://127.0.0.1:{os.environ.get('COURSE_PROXY_API_PORT', '8001')}"

# JupyterHub's internal TLS: the hub's own CA signs a certificate for the hub, its proxy's API
# and client sides, and every student's server; each side refuses a peer whose certificate the
# CA did not sign for the address it connects to. A student who listens first on a
# classmate's address and port is refused there (identity.py says why each server needs an
# address of its own for this to hold). The CA and the proxy's certificates are made once,
# before the proxy starts (hub-certs.sh: `jupyterhub --generate-certs`), and kept across restarts.
c.JupyterHub.internal_ssl = True
c.JupyterHub.internal_certs_location = str(STATE / "internal-ssl")
c.Spawner.ssl_alt_names = alt_names
c.Spawner.ssl_alt_names_include_local = False


def proxy_token(path: Path) -> str:
    """The token in `path`, made first if it is not there (whole, then linked, as start-hub-proxy.sh does)."""
    if not path.exists():
        made = path.with_name(f"{path.name}.{os.getpid()}")
        made.write_text(secrets.token_hex(32))   # 600: the umask above
        try:
            os.link(made, path)
        except FileExistsError:   # the proxy made it first: its token is the one
            pass
        finally:
            made.unlink()
    return path.read_text().strip()


# not where the config is only read (tests/deploy/test_hub.py)
if STATE.is_dir() and os.access(STATE, os.W_OK):
    c.ConfigurableHTTPProxy.auth_token = proxy_token(STATE / "proxy-token")

# The state folder: the database lists every user, their activity and token hashes.
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
# A hub restart (an upgrade, a crash) keeps every student's server and kernel running:
# the hub finds them again from its database.
c.JupyterHub.cleanup_servers = False

c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_groups = {os.environ.get("COURSE_GROUP", "students")}
ADMINS = set(os.environ.get("COURSE_ADMINS", "").split())
c.Authenticator.admin_users = ADMINS
# The teacher is let in by name: they are not in the students' group (class_keys.py gives
# that group's members keys), and JupyterHub lets in no admin the allowed rules leave out.
c.Authenticator.allowed_users = ADMINS

c.JupyterHub.spawner_class = CourseSpawner
c.CourseSpawner.tls_root = str(RUNTIME_ROOT)   # RUNTIME_ROOT/<uid>.tls: the server's key, the student's only
c.Spawner.cmd = [str(VENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.notebook_dir = "~"
c.Spawner.default_url = "/lab/tree/notebooks/00_why_compaction.ipynb"
# A class starts its servers at once: on 2 cores 24 servers take about a minute (docs/CLASS.md).
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.Spawner.args = [
    # Kernels over IPC: Unix sockets in the student's 700 runtime folder. Over TCP every
    # server picks ports on its own (two kernels got the same one), any local user can
    # connect to them, and each kernel warns "running over TCP without encryption".
    "--KernelManager.transport=ipc",
    # scripts/jupyterlab/overrides.json: no Jupyter news prompt, no update check (as course.sh).
    f"--LabApp.app_settings_dir={COURSE / 'scripts' / 'jupyterlab'}",
    # A notebook served with its kernel's language_info: no "unsaved" dot on open (as course.sh;
    # compact_course/lessons/lab_contents.py says why).
    "--ServerApp.contents_manager_class=compact_course.lessons.lab_contents.CourseContentsManager",
    # The idle culler: a kernel idle for 30 min is stopped, and a server with no kernel
    # and no request for an hour stops itself (the student's next login starts it again).
    "--MappingKernelManager.cull_idle_timeout=1800",
    "--MappingKernelManager.cull_interval=300",
    "--ServerApp.shutdown_no_activity_timeout=3600",
    # No websocket pings. jupyter_server 2.21 reads ws_ping_interval and ws_ping_timeout
    # from tornado_settings in milliseconds (defaults 30000 and 90000) and hands the same
    # numbers to tornado 6.6, which reads them as seconds and wants the timeout no longer than
    # the interval: "The websocket_ping_timeout (90000) cannot be longer than the
    # websocket_ping_interval (30000)" at every server's first kernel. Equal figures would
    # close healthy sockets (jupyter_server closes one whose last pong is older than the
    # timeout, checked one interval after its last ping), and ServerApp.websocket_ping_*
    # do not reach the kernel sockets in 2.21. Without pings a dead browser's socket stays
    # open until TCP drops it, and a TLS front must not close idle websockets (docs/CLASS.md).
    '--ServerApp.tornado_settings={"ws_ping_interval": 0}',
]
# One warning is left at each server's start, and no setting removes it: JupyterHub's
# single-user extension adds NotebookApp.extra_template_paths (the classic notebook's
# page), and JupyterLab's notebook_shim warns "'extra_template_paths' was found in both
# NotebookApp and ServerApp" at any NotebookApp setting. JupyterHub's other single-user
# app (JUPYTERHUB_SINGLEUSER_EXTENSION=0) adds no such setting, but it refuses an API POST
# made with a token and no _xsrf ("403 POST /user/NAME/api/sessions: '_xsrf' argument
# missing"), so no kernel started in tests/deploy/test_hub.py; the extension lets those through.
c.Spawner.pre_spawn_hook = make_hook(COURSE, RUNTIME_ROOT, CLASS_KEYS)
