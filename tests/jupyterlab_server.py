"""A throwaway JupyterLab on loopback, for the browser test.

It serves one folder (a temporary copy, so no tracked notebook is touched),
on 127.0.0.1 and a free port, with a random token, its own config, runtime and
settings folders (nothing of the user's JupyterLab is read or changed), the
update check and the news feed off (nothing reaches the network). `stop()`
ends the server and the kernels it started: they share one process group,
which is ours.

Given a `launcher` (the course command, `bash scripts/course.sh`), it runs
that instead, adding only the port, the token and --no-browser: the address
(127.0.0.1), the folder, the first page and the news settings are the
launcher's own, which is what a test of the launcher looks at. Saving is off in its settings folder, since
the launcher serves the tracked notebooks.

Kernels talk over IPC, as the course command's do: Unix sockets in the runtime folder,
which is a short folder of its own in /tmp (a socket path may be at most 107 bytes).

Left out: anything a person would need to use this lab; it lives for one test.
"""

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

NO_NEWS = {"fetchNews": "false", "checkForUpdates": False}
NO_AUTOSAVE = {"autosave": False}
# Loopback only: never through an HTTP(S)_PROXY the environment may name.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LabServer:
    def __init__(self, root_dir: Path, state_dir: Path, launcher: list | None = None):
        self.root_dir = Path(root_dir)
        self.state_dir = Path(state_dir)
        self.launcher = launcher
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = self.state_dir / "jupyterlab.log"
        self.runtime_dir = None
        self.process = None

    def _environment(self) -> dict:
        env = dict(os.environ)
        for name, folder in (("JUPYTER_CONFIG_DIR", "config"), ("IPYTHONDIR", "ipython")):
            env[name] = str(self.state_dir / folder)
        env["JUPYTER_RUNTIME_DIR"] = str(self.runtime_dir)
        env["JUPYTER_PLATFORM_DIRS"] = "1"
        env["JUPYTERLAB_SETTINGS_DIR"] = str(self._settings())
        env["JUPYTERLAB_WORKSPACES_DIR"] = str(self.state_dir / "workspaces")
        # A key in the environment must not reach a notebook run by a test,
        # and a notebook that could go live stays with the offline model.
        env.pop("ANTHROPIC_API_KEY", None)
        env["COMPACT_OFFLINE"] = "1"
        return env

    def _settings(self) -> Path:
        folder = self.state_dir / "settings"
        settings = {"docmanager-extension/plugin": NO_AUTOSAVE}
        if self.launcher is None:
            settings["apputils-extension/notification"] = NO_NEWS
        for name, values in settings.items():
            path = folder / "@jupyterlab" / f"{name}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        return folder

    def _command(self) -> list:
        reach = ["--no-browser", "--ServerApp.open_browser=False", f"--ServerApp.port={self.port}",
                 "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}"]
        if self.launcher is not None:
            return [*self.launcher, *reach]
        return [
            sys.executable, "-m", "jupyterlab", *reach, "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.root_dir={self.root_dir}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.news_url=",
            "--LabApp.extension_manager=readonly",
            "--ServerApp.terminals_enabled=False",
            "--KernelManager.transport=ipc",  # no TCP ports, as in course.sh (which says why)
            *(["--allow-root"] if os.geteuid() == 0 else []),  # CI containers run as root
        ]

    def start(self, timeout: float = 60) -> "LabServer":
        command = self._command()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.runtime_dir = Path(tempfile.mkdtemp(prefix="lab-"))
        log = open(self.log_path, "wb")
        self.process = subprocess.Popen(command, cwd=self.root_dir, env=self._environment(),
                                        stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        log.close()
        self._wait_ready(timeout)
        return self

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        url = f"{self.base_url}/api/status?token={self.token}"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {self.process.returncode}:\n"
                                   f"{self.log_tail()}")
            try:
                with DIRECT.open(url, timeout=2) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.3)
        raise TimeoutError(f"JupyterLab not ready after {timeout:.0f} s:\n{self.log_tail()}")

    def log_text(self) -> str:
        """Everything the server and its kernels printed so far."""
        try:
            return self.log_path.read_text(errors="replace").replace(self.token, "<token>")
        except OSError:
            return ""

    def kernels(self) -> list:
        """The server's kernels: id, execution_state, connections (browser tabs attached)."""
        url = f"{self.base_url}/api/kernels?token={self.token}"
        with DIRECT.open(url, timeout=5) as answer:
            return json.load(answer)

    def wait_for_connected_kernel(self, timeout: float = 60) -> None:
        """A kernel is started, idle, and a page holds a connection to it.

        The page's own status says "idle" before any kernel exists, so it
        cannot tell when the notebook is really ready to run.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                kernels = self.kernels()
            except urllib.error.HTTPError as error:
                # The kernel list can answer 500 while a kernel is still starting: ask again.
                if error.code < 500:
                    raise
                kernels = []
            if any(k.get("execution_state") == "idle" and k.get("connections", 0) > 0
                   for k in kernels):
                return
            time.sleep(0.3)
        raise TimeoutError(f"no connected, idle kernel after {timeout:.0f} s:\n{self.log_tail()}")

    def notebook_url(self, name: str) -> str:
        return f"{self.base_url}/lab/tree/{name}?token={self.token}"

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:]) or "(no log)"

    def stop(self) -> None:
        if self.process is None:
            return
        group = self.process.pid  # start_new_session: the server leads its own group
        if self.process.poll() is None:
            self._ask_to_shut_down()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(group, signal.SIGKILL)
                self.process.wait(timeout=10)
        # Kernels live in the same group; make sure none outlives the server.
        try:
            os.killpg(group, signal.SIGKILL)
        except ProcessLookupError:
            pass
        shutil.rmtree(self.runtime_dir, ignore_errors=True)

    def _ask_to_shut_down(self) -> None:
        """The polite way: the server stops its kernels, then itself."""
        request = urllib.request.Request(f"{self.base_url}/api/shutdown?token={self.token}",
                                         method="POST", data=b"")
        try:
            DIRECT.open(request, timeout=5).close()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            os.killpg(self.process.pid, signal.SIGTERM)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc):
        self.stop()
