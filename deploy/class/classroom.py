"""A class on one machine: local students on the course's JupyterHub (deploy/hub/), measured.

Not a step of the article: what a teacher needs before serving the course from one server.
As root, it makes N local users, starts port 8000's proxy (deploy/hub/start-hub-proxy.sh) and
the hub of deploy/hub/jupyterhub_config.py on free loopback ports (ports and state folders
through the config's environment variables; a wrapper config changes only who may log in,
and adds an API token for this program), starts every student's server at once, runs
notebooks in every server through the kernel websocket, as a browser tab would, and reads
the RSS of each server and kernel. deploy/class/bench_classroom.py prints the figures;
tests/deploy/test_hub.py checks isolation with the same pieces.

Students must be able to run the course's interpreter, and the folders on the way to it
must be open to them: a venv made from a Python under /root is not. So the students'
course is a copy of the checkout in /var/tmp/compact-course-hub/<key>/ with a venv made
from Debian's /usr/bin/python3 (docs/CLASS.md, "One machine for a class"), made once per checkout
and set of requirements and kept (about 800 MB); its files are copied again on every run.

The students' side (a notebook through each kernel's websocket, memory) is
`deploy/class/classroom_kernels.py`; its names are also reachable from here, as
deploy/class/bench_classroom.py and tests/deploy/test_hub.py call them.

Left out: logging in through the browser (PAM passwords: the API token starts servers),
TLS on the public port, widgets (nothing renders them here), a real model (COMPACT_OFFLINE=1).
"""

import fcntl
import hashlib
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

# The students' side is a module of its own; deploy/class/bench_classroom.py and tests/deploy/test_hub.py
# reach it through this one.
from classroom_kernels import (  # noqa: F401
    MB,
    NotebookRun,
    close_sessions,
    connection_file,
    memory_of,
    run_everywhere,
    run_notebook,
)

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path("/var/tmp/compact-course-hub")
SYSTEM_PYTHON = Path("/usr/bin/python3")
HUB_CONFIG = Path("deploy") / "hub" / "jupyterhub_config.py"
NOT_COPIED = shutil.ignore_patterns(".venv", ".git", "__pycache__", ".pytest_cache", ".hypothesis",
                                    ".ipynb_checkpoints", "scratch", "*.egg-info", ".env")
# Loopback only: never through an HTTP(S)_PROXY the environment may name.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def why_not_here() -> str:
    """Why a hub of local students cannot run here, or "" when it can."""
    if os.geteuid() != 0:
        return "needs root: it makes local users and the hub switches to them"
    missing = [name for name in ("useradd", "userdel", "configurable-http-proxy") if not shutil.which(name)]
    if missing:
        return f"missing: {', '.join(missing)} (bash scripts/test.sh installs configurable-http-proxy)"
    if not SYSTEM_PYTHON.exists():
        return f"{SYSTEM_PYTHON} is missing (Debian's python3 and python3-venv)"
    return ""


# -- the students' copy of the course ----------------------------------------------------

def course_key(root: Path = ROOT) -> str:
    """One copy a checkout and set of requirements: the venv installs its copy with `-e .`."""
    text = b"".join((root / name).read_bytes()
                    for name in ("requirements.txt", "requirements-test.txt", "pyproject.toml"))
    return hashlib.sha256(str(root.resolve()).encode() + text).hexdigest()[:12]


def students_course(root: Path = ROOT, log=print) -> Path:
    """A copy of the checkout every local user can read, with its own .venv (see above)."""
    home = CACHE / course_key(root)
    course = home / "course"
    CACHE.mkdir(mode=0o755, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two runs at once share one venv, made once
        home.mkdir(mode=0o755, exist_ok=True)
        copy_checkout(root, course)
        venv = course / ".venv"
        if not (venv / ".complete").exists():
            log(f"making the students' venv from {SYSTEM_PYTHON} in {venv} (once)")
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", str(venv)], check=True)
            # From the course's folder: requirements.txt's `-e .` is read relative to it.
            subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check",
                            "-r", "requirements-test.txt"], cwd=course, check=True)
            (venv / ".complete").write_text("")
        for folder, _, _ in os.walk(course):
            os.chmod(folder, 0o755)
    return course


def copy_checkout(root: Path, course: Path) -> None:
    """Copy the checkout over what is there (a hub of another run may be serving it)."""
    _unlink_copied_links(root, course)
    shutil.copytree(root, course, ignore=NOT_COPIED, symlinks=True, dirs_exist_ok=True)


def _unlink_copied_links(root: Path, course: Path) -> None:
    """Remove the links a copy made last time (notebooks/docs, ...): copytree with
    dirs_exist_ok makes a link anew and fails on one that is already there."""
    for folder, dirs, files in os.walk(root):
        ignored = NOT_COPIED(folder, dirs + files)
        dirs[:] = [d for d in dirs if d not in ignored]
        for name in dirs + files:
            target = course / Path(folder, name).relative_to(root)
            if Path(folder, name).is_symlink() and target.is_symlink():
                target.unlink()


# -- local students ----------------------------------------------------------------------

def terminate(process: subprocess.Popen, timeout: float = 30) -> bool:
    """SIGTERM, as systemctl stop would, and wait: whether the process ended in time."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
    return True


def student_names(count: int) -> list:
    # Short and unique: other runs on this machine use their own pid.
    return [f"ccs-{os.getpid()}-{n}" for n in range(1, count + 1)]


def stop_processes_of(uid: int) -> None:
    """Kill what a student we made still runs (their server, kernels), so userdel can go on."""
    import psutil
    for process in psutil.process_iter(["uids"]):
        if process.info["uids"] and process.info["uids"].real == uid:
            try:
                process.kill()
            except psutil.Error:
                pass


# The folders every local user may write to. userdel --remove takes a user's home and mail
# only: what they left here (a notebook's TemporaryDirectory whose kernel was stopped) would
# belong to the next user given their uid.
SHARED_TEMP = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))


def remove_student(name: str) -> None:
    try:
        uid = pwd.getpwnam(name).pw_uid
    except KeyError:
        return
    stop_processes_of(uid)
    remove_temp_files_of(uid)
    subprocess.run(["userdel", "--remove", "--force", name], capture_output=True)


def remove_temp_files_of(uid: int) -> None:
    """Remove what `uid` owns at the top of SHARED_TEMP (rm never follows a link)."""
    for place in SHARED_TEMP:
        try:
            entries = list(os.scandir(place))
        except OSError:
            continue
        for entry in entries:
            try:
                owner = entry.stat(follow_symlinks=False).st_uid
            except OSError:
                continue
            if owner == uid:
                subprocess.run(["rm", "-rf", "--one-file-system", entry.path], capture_output=True)


def add_student(name: str, tries: int = 10) -> None:
    """useradd -m; again a moment later while another program holds /etc/passwd's lock."""
    for _ in range(tries):
        done = subprocess.run(["useradd", "--create-home", "--shell", "/usr/sbin/nologin", name],
                              capture_output=True, text=True)
        if done.returncode == 0:
            return
        if done.returncode != 1:  # 1: "cannot lock /etc/passwd; try again later"
            break
        time.sleep(0.5)
    raise RuntimeError(f"useradd {name} failed ({done.returncode}): {done.stderr.strip()}")


@contextmanager
def local_students(count: int):
    """N local users with `useradd -m` homes (755 on Debian 12), removed whatever happens."""
    names = student_names(count)
    try:
        for name in names:
            add_student(name)
        yield names
    finally:
        for name in names:
            remove_student(name)


@contextmanager
def state_folder():
    """The hub's folder for one run, short (the kernels' socket paths start there), then gone."""
    folder = Path(tempfile.mkdtemp(prefix="hub-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- the hub -----------------------------------------------------------------------------

WRAPPER = """\
# Written by deploy/class/classroom.py: the course's hub config (ports and state folder
# from its environment variables), with this run's students and an API token for the bench.
import os
c = get_config()  # noqa: F821
load_subconfig({config!r})  # noqa: F821
c.Authenticator.allowed_users = set({students!r})
c.JupyterHub.services = [{{"name": "classroom", "api_token": os.environ["CLASSROOM_TOKEN"]}}]
c.JupyterHub.load_roles = [{{"name": "classroom", "services": ["classroom"],
                            "scopes": ["admin:users", "admin:servers", "access:servers"]}}]
c.Spawner.environment = {{"COMPACT_OFFLINE": "1"}}
"""


class ClassroomHub:
    """deploy/hub/'s JupyterHub for `students`, started as root on free loopback ports: port
    8000's proxy by start-hub-proxy.sh (which makes the hub's internal TLS certificates
    first), then the hub, as docs/CLASS.md has them started."""

    def __init__(self, course: Path, students: list, state: Path):
        self.course, self.students, self.state = course, students, Path(state)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.token = secrets.token_hex(32)
        self.runtime_root = None
        self.process = self.proxy = None

    def start(self, timeout: float = 90) -> "ClassroomHub":
        self.state.mkdir(mode=0o700, parents=True, exist_ok=True)  # its database: root's only
        # The students' socket folders, apart: they must cross this one, short, to reach theirs.
        self.runtime_root = Path(tempfile.mkdtemp(prefix="hubk-"))
        self.runtime_root.chmod(0o755)
        config = self.state / "classroom_config.py"
        config.write_text(WRAPPER.format(config=str(self.course / HUB_CONFIG), students=self.students))
        env = {**os.environ, "CLASSROOM_TOKEN": self.token, "COURSE_DIR": str(self.course),
               "COURSE_RUNTIME_ROOT": str(self.runtime_root), "COURSE_HUB_STATE": str(self.state),
               "COURSE_HUB_PORT": str(self.port), "COURSE_HUB_API_PORT": str(free_port()),
               "COURSE_PROXY_API_PORT": str(free_port())}
        env.pop("ANTHROPIC_API_KEY", None)
        self.proxy = subprocess.Popen(["bash", str(self.course / "deploy" / "hub" / "start-hub-proxy.sh")],
                                      env=env, start_new_session=True,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while not self._port_open():
            if self.proxy.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"configurable-http-proxy did not open port {self.port}:\n"
                                   f"{self.log_tail(name='jupyterhub-proxy.log')}")
            time.sleep(0.2)
        with open(self.state / "jupyterhub.log", "ab") as log:
            self.process = subprocess.Popen(
                [str(self.course / ".venv" / "bin" / "jupyterhub"), "-f", str(config)],
                cwd=self.state, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the hub exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                self.api("GET", "/hub/api/")
                return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.3)
        raise TimeoutError(f"the hub did not answer in {timeout:.0f} s:\n{self.log_tail()}")

    def _port_open(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def api(self, method: str, path: str, body=None, timeout: float = 30):
        request = urllib.request.Request(
            self.base_url + path, method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"})
        with DIRECT.open(request, timeout=timeout) as answer:
            text = answer.read()
        return json.loads(text) if text.strip() else None

    def spawn_all(self, timeout: float = 240) -> dict:
        """Start every student's server at once; seconds until each was ready."""
        started = time.monotonic()
        deadline = started + timeout

        def spawn(name: str) -> float:
            # The hub answers once the server is up, or after 10 s while it is still starting.
            self.api("POST", f"/hub/api/users/{name}/server", timeout=timeout)
            while time.monotonic() < deadline:
                if self.api("GET", f"/hub/api/users/{name}")["servers"].get("", {}).get("ready"):
                    return time.monotonic() - started
                time.sleep(0.25)
            raise TimeoutError(f"{name}'s server not ready after {timeout:.0f} s\n{self.log_tail()}")

        with ThreadPoolExecutor(max_workers=len(self.students)) as pool:
            return dict(zip(self.students, pool.map(spawn, self.students)))

    def log_tail(self, lines: int = 40, name: str = "jupyterhub.log") -> str:
        try:
            text = (self.state / name).read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:]).replace(self.token, "<token>")

    def stop(self) -> None:
        """SIGTERM to the hub, then its proxy; then whatever the students still run."""
        for process in (self.process, self.proxy):
            if process is None:
                continue
            terminate(process)
            try:
                os.killpg(process.pid, signal.SIGKILL)  # start_new_session: it leads its group
            except ProcessLookupError:
                pass
            process.wait()
        if self.runtime_root is not None:
            shutil.rmtree(self.runtime_root, ignore_errors=True)
        for name in self.students:
            try:
                stop_processes_of(pwd.getpwnam(name).pw_uid)
            except KeyError:
                pass

    def proxy_pid(self):
        """configurable-http-proxy's pid: start-hub-proxy.sh becomes it (exec)."""
        return None if self.proxy is None else self.proxy.pid


@contextmanager
def running_hub(course: Path, students: list, state: Path):
    """A started ClassroomHub, stopped whatever happens (a failed start included)."""
    hub = ClassroomHub(course, students, state)
    try:
        yield hub.start()
    finally:
        hub.stop()
