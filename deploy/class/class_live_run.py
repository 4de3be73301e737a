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
With `--burst` (the class proxy of "Live runs for a class" running), after the notebook the
last student of the list is given a budget of their spend and $0.20 (class_keys.py make),
then sends 30 calls at once through the proxy, round after round, until a whole round is
refused: it prints the spend against the budget (the margin docs/CLASS.md states is zero) and
the ledger against the bill (each answer's `usage`, cache reads among them, priced by the
course's table: compact_course.bench.cost). The student keeps that budget.
deploy/class/fresh_debian_class.sh runs it in a fresh Debian 12; the figures are printed,
never asserted. Exits 1 when any login, start or cell failed, or a burst passed the budget.

Each request to the hub is retried once when its connection was reset before an answer,
as a browser does: configurable-http-proxy (Node) closes a keep-alive connection idle for
5 s, and a request sent on it at that moment is reset (2 of 30 kernel starts, in a run
where those two students' servers had been ready and idle 5.0 s while the rest started).

Left out: the students' spend (class_keys.py spend prints it), stopping the servers
(the admin page, or the idle culler after an hour), web searches (the proxy refuses them).
"""

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests
from classroom_kernels import memory_of, run_notebook
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from compact_course.bench import cost

COURSE = Path(__file__).resolve().parents[2]
HUB_KEYS = Path("/srv/jupyterhub/class-keys.json")     # class_keys.py's HUB_FILE
SPEND = Path("/var/lib/course-proxy/spend.json")       # the ledger (class_keys.py's SPEND_FILE)
MARGIN = 0.0     # what a burst may spend past a budget (docs/CLASS.md, "A budget is a bound")


def hub_session() -> requests.Session:
    """A session to the hub that resends a request once when its connection was reset
    (the module's docstring says why), loopback only: never through an HTTP(S)_PROXY."""
    session = requests.Session()
    session.trust_env = False
    retry = Retry(total=1, connect=1, read=1, status=0, other=0, allowed_methods=None,
                  raise_on_status=False)
    session.mount("http://", HTTPAdapter(max_retries=retry))
    return session


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
        self.session = hub_session()
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
    parser.add_argument("--cassette", type=Path, help="then the teacher records the notebook into "
                        "this file and a student replays it (needs --teacher)")
    parser.add_argument("--burst", action="store_true", help="then bursts of 30 calls at once at the "
                        "last student's budget's edge, through the class proxy")
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
    held = burst_at_the_edge(pairs[-1][0]) if args.burst else True
    replayed = record_and_replay(args, views[0]) if args.cassette and args.teacher else True
    return 1 if failed or raised or admin != 200 or not held or not replayed else 0


class WithFirstCell:
    """A student's view whose notebooks folder holds the notebook with `cell` put first:
    run_notebook reads the cells from `view.course / "notebooks"` (the kernel runs in the
    student's own copy's folder)."""

    def __init__(self, view, notebook: str, cell: str):
        import nbformat
        self.view, self.course = view, Path(tempfile.mkdtemp(prefix="class-live-run-"))
        (self.course / "notebooks").mkdir()
        book = nbformat.read(COURSE / "notebooks" / notebook, as_version=4)
        book.cells.insert(0, nbformat.v4.new_code_cell(cell))
        nbformat.write(book, self.course / "notebooks" / notebook)

    def __getattr__(self, name):
        return getattr(self.view, name)


def restart(view) -> None:
    """Stop the student's server and start it again (a new key or setting reaches it so)."""
    view.api("DELETE", f"/hub/api/users/{view.name}/server", timeout=120)
    for _ in range(120):
        if not view.api("GET", f"/hub/api/users/{view.name}")["servers"]:
            break
        time.sleep(0.5)
    view.start()


def record_and_replay(args, student) -> bool:
    """docs/CLASS.md's "Cassettes for a class", as the teacher and a student would do it."""
    name, password = args.teacher.read_text().strip().split(":", 1)
    subprocess.run([sys.executable, str(COURSE / "deploy" / "proxy" / "class_keys.py"), "make",
                    "--budget", "5", name], check=True, capture_output=True)
    teacher = StudentView(args.hub, int(args.hub.rsplit(":", 1)[1]), name, password)
    restart(teacher)
    before = {who: ledger(who) for who in (name, student.name)}
    recorded = Path(f"~{name}").expanduser() / "live.cassette.json"
    recording = WithFirstCell(teacher, args.notebook, f"%env COMPACT_RECORD={recorded}")
    record = run_notebook(recording, name, args.notebook)
    subprocess.run(["install", "-m", "644", str(recorded), str(args.cassette)], check=True)
    restart(student)
    replaying = WithFirstCell(student, args.notebook, f"%env COMPACT_CASSETTE={args.cassette}")
    replay = run_notebook(replaying, student.name, args.notebook)
    for view in (recording, replaying):
        shutil.rmtree(view.course)
    text = args.cassette.read_text()
    spent = {who: ledger(who) - before[who] for who in before}
    print(f"cassette: {name} recorded {args.notebook} in {record.seconds:.1f} s (spend ${spent[name]:.4f}, "
          f"errors {record.errors[:1]}), {len(json.loads(text)['exchanges'])} exchanges in {args.cassette} "
          f"(a class key in it: {'sk-class-' in text}); {student.name} replayed it in {replay.seconds:.1f} s "
          f"(spend ${spent[student.name]:.4f}, the runs no cassette holds; errors {replay.errors[:1]})")
    return not (record.errors or replay.errors or "sk-class-" in text)


def ledger(student: str) -> float:
    """The student's spend in the ledger, once the calls answered are in it (it holds still)."""
    seen = None
    while True:
        now = json.loads(SPEND.read_text()).get(student, 0.0) if SPEND.exists() else 0.0
        if now == seen:
            return now
        seen = now
        time.sleep(1)


def burst_at_the_edge(student: str, at_once: int = 30, rounds: int = 40) -> bool:
    """Bursts of `at_once` calls at once with `student`'s key, with a budget $0.20 over their
    spend, until a whole burst is refused: True when the spend stayed within the budget and
    the ledger within 2% of the bill."""
    key, base_url = json.loads(HUB_KEYS.read_text())["keys"][student], "http://127.0.0.1:4000"
    before = ledger(student)
    budget = int((before + 0.20) * 100) / 100
    subprocess.run([sys.executable, str(COURSE / "deploy" / "proxy" / "class_keys.py"), "make",
                    "--budget", f"{budget:.2f}", student], check=True, capture_output=True)
    system = [{"type": "text", "text": "You answer questions about context compaction. " * 100,
               "cache_control": {"type": "ephemeral"}}]
    usages, statuses = [], {}

    def one(text: str):
        session = requests.Session()
        session.trust_env = False
        answer = session.post(f"{base_url}/v1/messages", timeout=300, json={
            "model": "course-model", "max_tokens": 256, "system": system,
            "messages": [{"role": "user", "content": text}]},
            headers={"x-api-key": key, "anthropic-version": "2023-06-01"})
        statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
        if answer.status_code == 200:
            usages.append(answer.json()["usage"])
        return answer.status_code

    with ThreadPoolExecutor(at_once) as pool:
        for round_ in range(rounds):
            codes = list(pool.map(one, [f"Burst {round_}.{i}: what does compaction keep? " * 20
                                        for i in range(at_once)]))
            if 200 not in codes:
                break
    spend = ledger(student)
    bill = sum(cost.dollars(usage) for usage in usages)
    charged = spend - before
    reads = sum(usage.get("cache_read_input_tokens") or 0 for usage in usages)
    print(f"burst at the edge ({student}, {at_once} at once, {round_ + 1} rounds): answers "
          f"{dict(sorted(statuses.items()))}; spend ${spend:.4f} of ${budget:.2f} (past it: "
          f"${max(spend - budget, 0):.4f}, margin ${MARGIN:.2f}); ledger ${charged:.4f} against the "
          f"bill ${bill:.4f} of the answers' usage ({reads:,} tokens of cache reads): "
          f"{(charged - bill) / bill * 100 if bill else 0:+.2f}%")
    return spend <= budget + MARGIN and abs(charged - bill) <= 0.02 * bill


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
