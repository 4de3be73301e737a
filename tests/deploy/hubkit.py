"""The pieces of tests/deploy/test_hub.py: the deployed hub, a class of throwaway students, the class proxy.

Everything is built the README's way and removed at the end, whatever happens:
- the students' course: a copy of this checkout in /tmp/ccourse-*/ with a venv from
  Debian's /usr/bin/python3 (students must be able to run it), the teacher's files
  closed with the README's command;
- the students: deploy/hub/add-students.sh from a `name:password` list, in a group of the
  run's own, removed with their homes, control groups and what they left in the shared
  temporary folders (`left_behind` finds anything still theirs);
- the hub: deploy/hub/start-hub-proxy.sh (port 8000's proxy, apart; it makes the hub's
  internal TLS certificates first), then deploy/hub/start-hub.sh (the start without
  systemd) with the deployed jupyterhub_config.py, only its environment variables set
  (ports, state folder, group, admins);
  students log in with their password through the hub's form, as a browser would;
- the teachers: local users made as docs/CLASS.md makes the teacher, outside the group;
- the class proxy: deploy/proxy/start-proxy.sh, LiteLLM from /opt/course-proxy (test.sh
  installs it) as a throwaway proxy user, with the offline model as its upstream.

Left out: systemd (the units are for machines that boot it), TLS on the public port.
"""

import importlib.util
import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import classroom
import classroom_kernels

ROOT = classroom.ROOT
SYSTEM_PYTHON = classroom.SYSTEM_PYTHON
PROXY_VENV = Path(os.environ.get("COURSE_PROXY_VENV", "/opt/course-proxy"))


def readme_line(starting: str) -> str:
    """docs/CLASS.md's command (four spaces in, its comment cut) that starts with `starting`."""
    for line in (ROOT / "docs" / "CLASS.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("    " + starting):
            return line[4:].split("   #")[0].strip()
    raise LookupError(f"docs/CLASS.md has no command starting {starting!r}")


# docs/CLASS.md, "One machine for a class": the teacher's notes, any .env and the clone's history
# are the teacher's alone.
TEACHER_ONLY = readme_line("chmod 700 .git")


def why_not_here() -> str:
    why = classroom.why_not_here()
    if why:
        return why
    if not (PROXY_VENV / "bin" / "litellm").exists():
        return f"missing: LiteLLM's proxy in {PROXY_VENV} (bash scripts/test.sh installs it)"
    return ""


def say(text: str) -> None:
    print(f"[hub test {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


# -- the students' course ----------------------------------------------------------------

@contextmanager
def students_course():
    """A copy of the checkout with its own venv, readable by every local user; then gone.

    HUB_TEST_COURSE=DIR keeps it in DIR (made once, the checkout copied again over it) for
    working on the hub test itself; nothing else does.
    """
    kept = os.environ.get("HUB_TEST_COURSE")
    folder = Path(kept) if kept else Path(tempfile.mkdtemp(prefix="ccourse-", dir="/tmp"))
    folder.mkdir(exist_ok=True)
    try:
        folder.chmod(0o755)
        course = folder / "course"
        classroom.copy_checkout(ROOT, course)
        (course / ".env").write_text("ANTHROPIC_API_KEY=sk-ant-course-env-for-the-test\n")
        git_history(course)
        started = time.monotonic()
        if not (course / ".venv" / ".complete").exists():
            subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", str(course / ".venv")], check=True)
            # From the course's folder: requirements.txt's `-e .` is read relative to it.
            subprocess.run([str(course / ".venv" / "bin" / "pip"), "install", "--quiet",
                            "--disable-pip-version-check", "-r", "requirements-test.txt"],
                           cwd=course, check=True, stdout=subprocess.DEVNULL)
            (course / ".venv" / ".complete").write_text("")
        say(f"the students' venv: {time.monotonic() - started:.0f} s")
        for path, _, _ in os.walk(course):
            os.chmod(path, 0o755)
        subprocess.run(["bash", "-c", TEACHER_ONLY], cwd=course, check=True)
        yield course
    finally:
        if not kept:
            shutil.rmtree(folder, ignore_errors=True)


def git_history(course: Path) -> None:
    """A .git in the copy, as the README's clone has (TEACHER_ONLY closes it)."""
    if not (course / ".git").exists():
        git = ["git", "-c", "user.name=hub test", "-c", "user.email=hub-test@localhost"]
        subprocess.run([*git, "init", "--quiet"], cwd=course, check=True)
        subprocess.run([*git, "add", "--all"], cwd=course, check=True)   # .gitignore leaves out .venv, .env
        subprocess.run([*git, "commit", "--quiet", "--message", "the course"], cwd=course, check=True)


@contextmanager
def removed(folder: Path):
    """Remove `folder` at the end, whatever happens."""
    try:
        yield folder
    finally:
        subprocess.run(["rm", "-rf", "--one-file-system", str(folder)], capture_output=True)


# -- students ----------------------------------------------------------------------------

@contextmanager
def class_of(course: Path, count: int, prefix: str = "ccs"):
    """`count` students made by add-students.sh in a group of their own: (group, {name: password})."""
    group = f"{prefix}g-{os.getpid()}"
    names = [f"{prefix}-{os.getpid()}-{n}" for n in range(1, count + 1)]
    passwords = {name: secrets.token_urlsafe(12) for name in names}
    listing = Path(tempfile.mkdtemp(prefix="ccl-")) / "students.txt"
    try:
        listing.write_text("".join(f"{name}:{word}\n" for name, word in passwords.items()))
        subprocess.run(["bash", str(course / "deploy" / "hub" / "add-students.sh"), str(listing), group],
                       check=True, capture_output=True, text=True)
        yield group, passwords
    finally:
        shutil.rmtree(listing.parent, ignore_errors=True)
        limits = deployed_module(course, "limits")
        for name in passwords:
            classroom.remove_student(name)
            limits.remove_student(name)
        subprocess.run(["groupdel", group], capture_output=True)


@contextmanager
def teachers(course: Path, count: int, prefix: str = "cct"):
    """`count` teachers' accounts, made as docs/CLASS.md makes the teacher's (outside the
    students' group): {name: password}; removed at the end, with whatever they left."""
    passwords = {f"{prefix}-{os.getpid()}-{n}": secrets.token_urlsafe(12) for n in range(1, count + 1)}
    try:
        for name in passwords:
            subprocess.run(["useradd", "--create-home", "-K", "HOME_MODE=0700", "--shell", "/bin/bash", name],
                           check=True, capture_output=True)
        subprocess.run(["chpasswd"], input="".join(f"{n}:{w}\n" for n, w in passwords.items()),
                       text=True, check=True, capture_output=True)
        yield passwords
    finally:
        limits = deployed_module(course, "limits")
        for name in passwords:
            classroom.remove_student(name)
            limits.remove_student(name)


LOOKED_AT = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"), Path("/run"), Path("/home"))


def left_behind(uids: set) -> list:
    """Every path under LOOKED_AT owned by one of `uids` (links not followed)."""
    found = []
    for place in LOOKED_AT:
        for folder, folders, files in os.walk(place):
            for name in folders + files:
                path = os.path.join(folder, name)
                try:
                    if os.lstat(path).st_uid in uids:
                        found.append(path)
                except OSError:   # gone meanwhile
                    continue
    return found


def deployed_module(course: Path, name: str):
    """A module of the deployed deploy/hub/, loaded from its file (the hub runs it, not the package)."""
    path = course / "deploy" / "hub" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"deployed_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_student(student: str, code: str, *args: str, timeout: float = 60) -> str:
    """Run Python `code` as the student (their uid and gids only); its stdout."""
    done = subprocess.run([str(SYSTEM_PYTHON), "-c", code, *args], user=student, group=student,
                          extra_groups=[], cwd="/", capture_output=True, text=True, timeout=timeout,
                          env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


READ = r"""
import sys
try:
    open(sys.argv[1], "rb").read(1)
    print("allowed")
except OSError as error:
    print(type(error).__name__)
"""


def can_read(student: str, path) -> str:
    return as_student(student, READ, str(path))


# -- the hub -----------------------------------------------------------------------------

class DeployedHub:
    """deploy/hub/start-hub.sh with the deployed config, on free loopback ports."""

    def __init__(self, course: Path, state: Path, group: str, admins: str = "", extra_env=None):
        self.course, self.state = course, state
        self.port = classroom.free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.runtime_root = Path(tempfile.mkdtemp(prefix="hubk-"))
        self.env = {**os.environ, "COURSE_DIR": str(course), "COURSE_HUB_STATE": str(state),
                    "COURSE_HUB_PORT": str(self.port), "COURSE_HUB_API_PORT": str(classroom.free_port()),
                    "COURSE_PROXY_API_PORT": str(classroom.free_port()), "COURSE_GROUP": group,
                    "COURSE_ADMINS": admins, "COURSE_RUNTIME_ROOT": str(self.runtime_root),
                    **(extra_env or {})}
        for name in ("ANTHROPIC_API_KEY", "MODEL_ID", "ANTHROPIC_BASE_URL", "CI", "COMPACT_OFFLINE"):
            self.env.pop(name, None)
        self.process = self.proxy = None

    def start_proxy(self) -> None:
        """deploy/hub/start-hub-proxy.sh: port 8000's proxy, apart from the hub (once, before it)."""
        self.proxy = subprocess.Popen(["bash", str(self.course / "deploy" / "hub" / "start-hub-proxy.sh")],
                                      env=self.env, start_new_session=True,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        import socket
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proxy.poll() is not None:
                raise RuntimeError(f"start-hub-proxy.sh exited with {self.proxy.returncode}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise TimeoutError("configurable-http-proxy did not open its port in 30 s")

    def start(self, timeout: float = 90) -> "DeployedHub":
        if self.proxy is None:
            self.start_proxy()
        self.process = subprocess.Popen(["bash", str(self.course / "deploy" / "hub" / "start-hub.sh")],
                                        env=self.env, start_new_session=True,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the hub exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                self.session().get(self.base_url + "/hub/api/", timeout=5).raise_for_status()
                return self
            except OSError:
                time.sleep(0.3)
        raise TimeoutError(f"the hub did not answer in {timeout:.0f} s:\n{self.log_tail()}")

    def stop(self) -> None:
        """SIGTERM, as systemctl stop or a kill of its pid would: the hub alone ends."""
        if self.process is None:
            return
        if not classroom.terminate(self.process):
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process = None

    def close(self, students) -> None:
        """Stop the hub and everything the students run; remove the socket folders."""
        self.stop()
        for name in students:
            try:
                classroom.stop_processes_of(pwd.getpwnam(name).pw_uid)
            except KeyError:
                pass
        if self.proxy is not None:
            if not classroom.terminate(self.proxy):
                os.killpg(self.proxy.pid, signal.SIGKILL)
                self.proxy.wait()
            self.proxy = None
        shutil.rmtree(self.runtime_root, ignore_errors=True)

    @staticmethod
    def session():
        import requests
        session = requests.Session()
        session.trust_env = False   # loopback only: never through an HTTP(S)_PROXY
        return session

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = (self.state / "jupyterhub.log").read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def login(self, name: str, password: str) -> "Student":
        """The hub's login form with the student's password, then an API token of theirs."""
        session = self.session()
        session.get(f"{self.base_url}/hub/login", timeout=30).raise_for_status()
        xsrf = session.cookies.get("_xsrf")
        answer = session.post(f"{self.base_url}/hub/login?next=", timeout=60, allow_redirects=False,
                              data={"username": name, "password": password, "_xsrf": xsrf})
        if answer.status_code != 302:
            raise RuntimeError(f"{name} could not log in: {answer.status_code}\n{self.log_tail()}")
        # The hub gives a logged-in browser a new _xsrf cookie, tied to its login.
        session.get(f"{self.base_url}/hub/home", timeout=30).raise_for_status()
        xsrf = [cookie.value for cookie in session.cookies if cookie.name == "_xsrf"][-1]
        answer = session.post(f"{self.base_url}/hub/api/users/{name}/tokens", timeout=30,
                              headers={"X-XSRFToken": xsrf}, json={"note": "hub test", "expires_in": 7200})
        answer.raise_for_status()
        return Student(self, name, answer.json()["token"])


def server_environ(name: str) -> dict:
    """The environment of the user's jupyterhub-singleuser (read as root from /proc), or {}."""
    import psutil
    uid = pwd.getpwnam(name).pw_uid
    for process in psutil.process_iter(["uids", "cmdline"]):
        if process.info["uids"] and process.info["uids"].real == uid \
                and "jupyterhub-singleuser" in " ".join(process.info["cmdline"] or ()):
            try:
                return process.environ()
            except psutil.Error:
                continue
    return {}


class Student:
    """One student's view of the hub, with their own token (what classroom.run_notebook needs)."""

    def __init__(self, hub: DeployedHub, name: str, token: str):
        self.hub, self.name, self.token = hub, name, token
        self.port, self.course, self.students = hub.port, hub.course, [name]

    def api(self, method: str, path: str, body=None, timeout: float = 30):
        answer = self.hub.session().request(method, self.hub.base_url + path, json=body, timeout=timeout,
                                            headers={"Authorization": f"token {self.token}"})
        answer.raise_for_status()
        return answer.json() if answer.text.strip() else None

    def spawn(self, timeout: float = 240) -> float:
        started = time.monotonic()
        try:
            self.api("POST", f"/hub/api/users/{self.name}/server", timeout=timeout)
        except OSError as error:   # requests' errors are OSErrors: the hub's log says why
            raise RuntimeError(f"{self.name}'s server did not start: {error}\n"
                               f"{self.hub.log_tail()}") from None
        while time.monotonic() < started + timeout:
            if self.ready():
                return time.monotonic() - started
            time.sleep(0.25)
        raise TimeoutError(f"{self.name}'s server not ready after {timeout:.0f} s\n{self.hub.log_tail()}")

    def stop(self, timeout: float = 60) -> None:
        """Stop the student's server and wait until the hub says it is gone."""
        self.api("DELETE", f"/hub/api/users/{self.name}/server", timeout=timeout)
        deadline = time.monotonic() + timeout
        while self.api("GET", f"/hub/api/users/{self.name}")["servers"]:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name}'s server still there after {timeout:.0f} s")
            time.sleep(0.25)

    def ready(self) -> bool:
        return bool(self.api("GET", f"/hub/api/users/{self.name}")["servers"].get("", {}).get("ready"))

    def log_tail(self, lines: int = 40) -> str:
        return self.hub.log_tail(lines)

    def new_kernel(self) -> str:
        return self.api("POST", f"/user/{self.name}/api/kernels", {"name": "python3"}, timeout=120)["id"]

    def kernels(self) -> list:
        return [k["id"] for k in self.api("GET", f"/user/{self.name}/api/kernels")]

    def execute(self, kernel_id: str, code: str, timeout: float = 120) -> tuple:
        """Run `code` in the kernel: (its stdout, its errors); a dead kernel raises."""
        import websocket
        client = uuid.uuid4().hex   # the session id JupyterLab sends; the server warns without one
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{self.port}/user/{self.name}/api/kernels/{kernel_id}/channels?session_id={client}",
            header=[f"Authorization: token {self.token}"], timeout=timeout, suppress_origin=True)
        try:
            request = classroom_kernels.message("execute_request", {
                "code": code, "silent": False, "store_history": False, "user_expressions": {},
                "allow_stdin": False, "stop_on_error": True}, client)
            ws.send(json.dumps(request))
            errors, out = [], []
            ws.settimeout(timeout)
            idle = False
            while not idle:
                answer = json.loads(ws.recv())
                if answer.get("parent_header", {}).get("msg_id") != request["header"]["msg_id"]:
                    if answer["header"]["msg_type"] == "status" and \
                            answer["content"]["execution_state"] in ("restarting", "dead"):
                        raise ConnectionError(f"kernel {answer['content']['execution_state']}")
                    continue
                kind = answer["header"]["msg_type"]
                if kind == "stream":
                    out.append(answer["content"]["text"])
                elif kind == "error":
                    errors.append(f"{answer['content']['ename']}: {answer['content']['evalue']}")
                elif kind == "status" and answer["content"]["execution_state"] == "idle":
                    idle = True
            return "".join(out).strip(), errors
        finally:
            ws.close()


# -- the class proxy ---------------------------------------------------------------------

class ClassProxy:
    """LiteLLM through deploy/proxy/start-proxy.sh as a throwaway user; the offline model upstream."""

    def __init__(self, course: Path, folder: Path, extra_env: str = ""):
        self.course, self.folder, self.extra_env = course, folder, extra_env
        self.user = f"ccp-{os.getpid()}"
        self.port = classroom.free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.state = folder / "proxy-state"
        self.env_file = folder / "proxy.env"
        self.upstream_key = "sk-ant-teacher-" + secrets.token_hex(16)
        self.process = self.upstream = None

    def start(self) -> "ClassProxy":
        from compact_course.offline.api.server import start_offline_server
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        "--user-group", self.user], check=True, capture_output=True)
        account = pwd.getpwnam(self.user)
        self.state.mkdir(mode=0o700)
        os.chown(self.state, account.pw_uid, account.pw_gid)
        # The offline upstream requires a key, as the API does: the teacher's, held by the proxy.
        self.upstream = start_offline_server(key=self.upstream_key)
        fd = os.open(self.env_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as file:
            file.write(f"ANTHROPIC_API_KEY={self.upstream_key}\nCOURSE_UPSTREAM={self.upstream.base_url}\n"
                       f"COURSE_UPSTREAM_MODEL=anthropic/offline-s08\n"
                       f"LITELLM_MASTER_KEY=sk-master-{secrets.token_hex(16)}\n{self.extra_env}")
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
               "COURSE_PROXY_ENV": str(self.env_file),
               "COURSE_PROXY_STATE": str(self.state), "COURSE_PROXY_VENV": str(PROXY_VENV),
               "COURSE_PROXY_PORT": str(self.port), "COURSE_PROXY_USER": self.user}
        self.process = subprocess.Popen(["bash", str(self.course / "deploy" / "proxy" / "start-proxy.sh")],
                                        env=env, start_new_session=True)
        return self

    def wait(self, timeout: float = 180) -> None:
        import requests
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the proxy exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if DeployedHub.session().get(self.base_url + "/health/liveliness", timeout=5).ok:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.5)
        raise TimeoutError(f"the proxy did not answer in {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = (self.state / "litellm.log").read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def keys(self, hub_file: Path, students: list, budget: float) -> str:
        """deploy/proxy/class_keys.py make, as the README has the teacher run it."""
        return self.class_keys("--hub-file", str(hub_file), "make", *students, "--budget", str(budget),
                               "--base-url", self.base_url, "--proxy-user", self.user)

    def class_keys(self, *args: str) -> str:
        done = subprocess.run([str(SYSTEM_PYTHON), str(self.course / "deploy" / "proxy" / "class_keys.py"),
                               "--proxy-file", str(self.state / "keys.json"),
                               "--spend-file", str(self.state / "spend.json"), *args],
                              capture_output=True, text=True, check=True)
        return done.stdout

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if self.upstream is not None:
            self.upstream.stop()
        try:
            classroom.stop_processes_of(pwd.getpwnam(self.user).pw_uid)
        except KeyError:
            pass
        subprocess.run(["userdel", self.user], capture_output=True)
        subprocess.run(["groupdel", self.user], capture_output=True)
