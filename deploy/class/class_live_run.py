"""A class's live run on a running hub: every student logs in, starts their server, runs a notebook.

    /opt/course/.venv/bin/python deploy/class/class_live_run.py /root/students.txt \
        [--notebook 09_live_agent.ipynb]

As root, on the machine of docs/CLASS.md's "One machine for a class", after its steps:
the hub (jupyterhub.service or start-hub.sh) and, for live runs, the class proxy with a
key for each student (class_keys.py make). The students of students.txt (`name:password`,
the list add-students.sh took) log in through the hub's form with their passwords, as a
browser would, all at once; then every server starts at once, and the notebook runs in
every server at once through the kernel websocket (deploy/class/classroom_kernels.py).
It prints: how long until every server was ready, how long the notebook took, failed
kernel starts and cells that raised, each student's first error, and the machine's memory
in use (MemTotal - MemAvailable) before, at the peak (read every 0.5 s) and after, and
the RSS of the students' servers and kernels with the notebook still open.
deploy/class/fresh_debian_class.sh runs it in a fresh Debian 12; the figures are printed,
never asserted. Exits 1 when any login, start or cell failed.

Left out: the students' spend (class_keys.py spend prints it), stopping the servers
(the admin page, or the idle culler after an hour).
"""

import argparse
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests
from classroom_kernels import memory_of, run_notebook

COURSE = Path(__file__).resolve().parents[2]


def memory_in_use_mb() -> float:
    fields = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
    kb = int(fields["MemTotal"].split()[0]) - int(fields["MemAvailable"].split()[0])
    return kb / 1024


class Peak(threading.Thread):
    """The highest memory in use, read every half second until stopped."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak, self.done = memory_in_use_mb(), threading.Event()

    def run(self):
        while not self.done.wait(0.5):
            self.peak = max(self.peak, memory_in_use_mb())


class StudentView:
    """One student logged in through the hub's form, with an API token of theirs
    (what run_notebook needs: api(), port, token, course)."""

    def __init__(self, hub_url: str, port: int, name: str, password: str):
        self.hub_url, self.port, self.name, self.course = hub_url, port, name, COURSE
        self.session = requests.Session()
        self.session.trust_env = False   # loopback only: never through an HTTP(S)_PROXY
        self.session.get(f"{hub_url}/hub/login", timeout=60).raise_for_status()
        answer = self.session.post(f"{hub_url}/hub/login?next=", timeout=120, allow_redirects=False,
                                   data={"username": name, "password": password,
                                         "_xsrf": self.session.cookies.get("_xsrf")})
        if answer.status_code != 302:
            raise RuntimeError(f"{name} could not log in: HTTP {answer.status_code}")
        self.session.get(f"{hub_url}/hub/home", timeout=60).raise_for_status()
        xsrf = [cookie.value for cookie in self.session.cookies if cookie.name == "_xsrf"][-1]
        answer = self.session.post(f"{hub_url}/hub/api/users/{name}/tokens", timeout=60,
                                   headers={"X-XSRFToken": xsrf},
                                   json={"note": "class_live_run", "expires_in": 7200})
        answer.raise_for_status()
        self.token = answer.json()["token"]

    def api(self, method: str, path: str, body=None, timeout: float = 60):
        answer = self.session.request(method, self.hub_url + path, json=body, timeout=timeout,
                                      headers={"Authorization": f"token {self.token}"})
        answer.raise_for_status()
        return answer.json() if answer.text.strip() else None

    def start(self, timeout: float = 300) -> float:
        started = time.monotonic()
        self.api("POST", f"/hub/api/users/{self.name}/server", timeout=timeout)
        while time.monotonic() < started + timeout:
            if self.api("GET", f"/hub/api/users/{self.name}")["servers"].get("", {}).get("ready"):
                return time.monotonic() - started
            time.sleep(0.5)
        raise TimeoutError(f"{self.name}'s server not ready after {timeout:.0f} s")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("students", type=Path, help="the `name:password` list of add-students.sh")
    parser.add_argument("--notebook", default="09_live_agent.ipynb")
    parser.add_argument("--hub", default="http://127.0.0.1:8000")
    parser.add_argument("--teacher", type=Path, help="a `name:password` file: the teacher logs in "
                        "after the run and opens /hub/admin")
    args = parser.parse_args(argv)
    pairs = [line.split(":", 1) for line in args.students.read_text().splitlines() if line.strip()]
    port = int(args.hub.rsplit(":", 1)[1])
    peak = Peak()
    before = peak.peak
    peak.start()
    started = time.monotonic()
    with ThreadPoolExecutor(len(pairs)) as pool:
        views = list(pool.map(lambda pair: StudentView(args.hub, port, *pair), pairs))
        print(f"{len(views)} students logged in with their passwords in {time.monotonic() - started:.1f} s")
        started = time.monotonic()
        ready = list(pool.map(lambda view: view.start(), views))
        print(f"servers ready: all {max(ready):.1f} s (first {min(ready):.1f} s, "
              f"median {statistics.median(ready):.1f} s); memory in use {memory_in_use_mb():,.0f} MB")
        started = time.monotonic()
        runs = list(pool.map(lambda view: run_notebook(view, view.name, args.notebook), views))
    seconds = time.monotonic() - started
    held = [memory_of(view.name) for view in views]   # the notebooks' kernels are still open
    peak.done.set()
    peak.join()
    failed = sum(not run.kernel_started for run in runs)
    raised = [run for run in runs if run.errors]
    times = [run.seconds for run in runs]
    print(f"{args.notebook} in all {len(runs)} at once: {seconds:.1f} s (each: median "
          f"{statistics.median(times):.1f} s, max {max(times):.1f} s); failed kernel starts {failed}, "
          f"runs with an error {len(raised)}")
    for run in raised:
        print(f"  {run.student}: {run.errors[0][:300]}")
    print(f"RSS of the students' servers and kernels, the notebook still open: "
          f"{sum(m['server'] + sum(m['kernels']) for m in held):,.0f} MB "
          f"(server median {statistics.median(m['server'] for m in held):,.0f} MB)")
    print(f"memory in use (MemTotal - MemAvailable): {before:,.0f} MB before, "
          f"{peak.peak:,.0f} MB at the peak, {memory_in_use_mb():,.0f} MB after")
    admin = teacher_on_admin_page(args) if args.teacher else 200
    return 1 if failed or raised or admin != 200 else 0


def teacher_on_admin_page(args) -> int:
    """The teacher logs in through the form and opens the admin page: its HTTP status."""
    name, password = args.teacher.read_text().strip().split(":", 1)
    port = int(args.hub.rsplit(":", 1)[1])
    try:
        teacher = StudentView(args.hub, port, name, password)
    except RuntimeError as error:
        print(f"the teacher {name}: {error}")
        return 0
    status = teacher.session.get(f"{args.hub}/hub/admin", timeout=60).status_code
    admin = teacher.api("GET", f"/hub/api/users/{name}").get("admin")
    print(f"the teacher {name} logged in: /hub/admin HTTP {status}, admin {admin}")
    return status


if __name__ == "__main__":
    sys.exit(main())
