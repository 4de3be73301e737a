"""The course's JupyterHub as deployed (deploy/hub/) with real local students, and attacked by one.

As root (tests/deploy/hubkit.py builds each piece the README's way and removes it at the end):
the students come from add-students.sh in a group of their own, the hub is start-hub.sh
with the deployed jupyterhub_config.py (only its environment variables set: ports, state
folder, group), each student logs in with their password through the hub's form, and
LiteLLM's proxy (deploy/proxy/) runs as its own user with the offline model as upstream.
Students 1 and 2 get a budget of $5, student 3 one of $0.0001. Then, in order:

1. every server starts at once and notebook 09 (the live run) runs live in each, through the proxy;
2. the hub is stopped and started again: student 1's server and kernel live on;
3. student 3's kernel takes more memory than the limit: it is stopped (under rlimits, where
   limits.py finds no control group, its allocation fails), student 1's is not.

The tests assert on what that left (modes, the docs links, the spend, who can read what,
each server's address and certificate, the warnings in the hub's log); when the class is
removed, nothing may be left that one of its uids owns.
The squatter tests (issue 49) run a hub of their own for two students, two teachers and
student B, whose program (tests/deploy/hub_squatter.py) takes the victim's server address and
port while the victim logs in and starts their server in Chromium: the victim never
reaches B's page, B makes no token of theirs, and the hub and the proxy refuse B's
certificate for the victim's address.
The race test runs the deployed hook 40 times against a student's process that swaps the
hook's copy folder for a link to a folder of theirs, watches the copy, and swaps its top
for a link to root's files as the hook hands it over (thousands of swaps in all): no
file of root's may change owner. The hook before this one (copy as root, then chown)
gave 13 to 18 of 3019 away on each of two tries. At the end the file prints how many of
its tests ran and how long they took (the students' venv, made and removed each run, is a
good part of it).
Not root, no configurable-http-proxy or no LiteLLM in /opt/course-proxy: skipped, with the
reason; the checks of the config's own settings, at the end, run anywhere.
"""

import asyncio
import json
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import classroom
import psutil
import pytest

from tests.deploy import hub_squatter, hubkit

pytestmark = pytest.mark.slow

NOTEBOOK = "09_live_agent.ipynb"
REASON = hubkit.why_not_here()
NEEDS_A_HUB = pytest.mark.skipif(bool(REASON), reason=f"the hub test {REASON}")
MEMORY_LIMIT = "1500M"
HOG = "x = bytearray(3 * 1024 ** 3)"   # 3 GB, touched: over the limit whatever else runs


@pytest.fixture(scope="module")
def course(request):
    if REASON:
        pytest.skip(REASON)
    started = time.monotonic()
    with hubkit.students_course() as built:
        yield built
    # nbval's notebook cells are items with no module: getattr, not .module
    ran = [item for item in request.session.items
           if getattr(item, "module", None) is sys.modules[__name__]]
    hubkit.say(f"the hub test: {len(ran)} tests of {Path(__file__).name} ran, "
               f"{time.monotonic() - started:.0f} s in all")


@pytest.fixture(scope="module")
def lesson(course):
    """Everything the class did (see the module's docstring), as facts to assert on."""
    facts = SimpleNamespace()
    folder = Path(tempfile.mkdtemp(prefix="cchub-"))
    folder.chmod(0o711)   # the proxy's user crosses it to its own state folder
    state = folder / "state"
    # README: the state folder is made 700 by its own command.
    subprocess.run(["install", "-d", "-m", "700", str(state)], check=True)
    proxy = hubkit.ClassProxy(course, folder)
    with hubkit.class_of(course, 3) as (group, passwords):
        students = list(passwords)
        uids = {pwd.getpwnam(name).pw_uid for name in students}
        hub = hubkit.DeployedHub(course, state, group,
                                 extra_env={"COURSE_MEMORY_LIMIT": MEMORY_LIMIT})
        try:
            proxy.start()
            facts.homes_before = {s: stat.S_IMODE(home(s).stat().st_mode) for s in students}
            proxy.wait()
            proxy.keys(state / "class-keys.json", students[:2], 5)
            proxy.keys(state / "class-keys.json", students[2:], 0.0001)
            hub.start()
            views = [hub.login(name, passwords[name]) for name in students]
            with ThreadPoolExecutor(len(views)) as pool:
                facts.ready = list(pool.map(lambda v: v.spawn(), views))
                started = time.monotonic()
                facts.runs = list(pool.map(lambda v: classroom.run_notebook(v, v.name, NOTEBOOK), views))
            facts.run_seconds = time.monotonic() - started
            hubkit.say(f"servers ready in {max(facts.ready):.0f} s; notebook 09 in all three: "
                       f"{facts.run_seconds:.0f} s")
            facts.hub, facts.proxy, facts.views, facts.students = hub, proxy, views, students
            facts.spend = proxy.class_keys("spend")
            facts.kernel_env = {v.name: kernel_environ(v) for v in views}
            facts.restart = restart_the_hub(hub, views[0], facts.runs[0].kernel_id)
            facts.limits = hubkit.deployed_module(course, "limits").mode()
            facts.memory = over_the_limit(views[2], views[0], facts.runs[0].kernel_id)
            hubkit.say(f"limits by {facts.limits}: {facts.memory['outcome']}")
            facts.log = (state / "jupyterhub.log").read_text(errors="replace")
            facts.state = state
            facts.servers = {name: hubkit.server_environ(name) for name in students}
            yield facts
        finally:
            hub.close(students)
            proxy.stop()
            subprocess.run(["rm", "-rf", str(folder)])
    # The class is gone: nothing of theirs may be left for the next user given their uid.
    left = hubkit.left_behind(uids)
    assert left == [], f"the hub test left these behind, owned by its students' uids: {left}"


def home(student: str) -> Path:
    return Path(pwd.getpwnam(student).pw_dir)


def kernel_environ(view) -> str:
    """The environment of the student's kernels, read as root from /proc."""
    uid = pwd.getpwnam(view.name).pw_uid
    return "\n".join(Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
                     for pid in pids_of(uid, "ipykernel_launcher"))


def pids_of(uid: int, command: str) -> list:
    return [p.pid for p in psutil.process_iter(["uids", "cmdline"])
            if p.info["uids"] and p.info["uids"].real == uid and command in " ".join(p.info["cmdline"] or ())]


def server_pid(student: str):
    pids = pids_of(pwd.getpwnam(student).pw_uid, "jupyterhub-singleuser")
    return pids[0] if pids else None


def restart_the_hub(hub, view, kernel_id: str) -> dict:
    """Stop the hub, look, start it again, look: the student's server and kernel, before and after.

    All the while a poller asks port 8000 (the hub's public port) for the student's
    /user/NAME/api/status, as their open page would, every 0.1 s: how many asks found the
    port closed, the longest time it stayed closed, and the answers' status codes.
    """
    pid = server_pid(view.name)
    polls = {"asks": 0, "refused": 0, "closed_seconds": 0.0, "codes": {}}
    done = threading.Event()

    def poll():
        session, closed_since = hub.session(), None
        while not done.is_set():
            polls["asks"] += 1
            try:
                answer = session.get(f"{hub.base_url}/user/{view.name}/api/status", timeout=5,
                                     headers={"Authorization": f"token {view.token}"}, allow_redirects=False)
                polls["codes"][answer.status_code] = polls["codes"].get(answer.status_code, 0) + 1
                closed_since = None
            except OSError:   # connection refused or reset: the port is closed
                polls["refused"] += 1
                now = time.monotonic()
                closed_since = closed_since or now
                polls["closed_seconds"] = max(polls["closed_seconds"], now - closed_since)
            time.sleep(0.1)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    time.sleep(1)
    hub.stop()
    alive_while_down = pid is not None and psutil.pid_exists(pid)
    hub.start()
    deadline = time.monotonic() + 60
    while not view.ready() and time.monotonic() < deadline:
        time.sleep(0.5)
    time.sleep(1)
    done.set()
    poller.join()
    hubkit.say(f"the restart: port {hub.port} refused {polls['refused']} of {polls['asks']} asks, "
               f"closed for {polls['closed_seconds']:.1f} s at most; answers {polls['codes']}")
    output, errors = view.execute(kernel_id, "print(6 * 7)")
    return {"pid": pid, "alive_while_down": alive_while_down, "same_pid": server_pid(view.name) == pid,
            "ready": view.ready(), "kernel_listed": kernel_id in view.kernels(), "output": output,
            "errors": errors, "polls": polls}


def over_the_limit(hog_view, other_view, other_kernel: str) -> dict:
    """A kernel of the hog's takes 3 GB; then the other student's kernel is asked 6 * 7."""
    kernel = hog_view.new_kernel()
    pid_text, _ = hog_view.execute(kernel, "import os; print(os.getpid())")
    try:
        _, errors = hog_view.execute(kernel, HOG, timeout=120)
        outcome = f"ran: {errors}"
    except (ConnectionError, OSError) as error:
        outcome = f"stopped ({error})"
    time.sleep(1)
    output, _ = other_view.execute(other_kernel, "print(6 * 7)")
    return {"outcome": outcome, "hog_alive": psutil.pid_exists(int(pid_text)),
            "server_alive": server_pid(hog_view.name) is not None, "other": output}


# -- the acceptance list -----------------------------------------------------------------

@NEEDS_A_HUB
def test_live_runs_go_through_the_proxy_and_an_over_budget_student_gets_a_clear_error(lesson):
    first, second, third = lesson.runs
    for run in (first, second):
        assert run.kernel_started and run.errors == [], \
            f"{run.student}: {run.errors}\n{lesson.proxy.log_tail()}"
    # The proxy's refusal reaches the notebook, as an error of the SDK.
    assert third.kernel_started
    assert len(third.errors) == 1 and "Budget has been exceeded" in third.errors[0], third.errors
    # The spend shows, per student, in the teacher's table.
    rows = {line.split()[0]: line.split()[1:] for line in lesson.spend.splitlines()[1:]}
    for student in lesson.students[:2]:
        assert float(rows[student][0]) > 0 and rows[student][1] == "5.00", lesson.spend
    # A budget is a bound (docs/CLASS.md): $0.0001 is $0.00 in whole cents, and the first call is
    # refused before anything is spent.
    assert rows[lesson.students[2]][:2] == ["0.00", "0.00"], lesson.spend


@NEEDS_A_HUB
def test_a_students_kernel_has_their_class_key_and_never_the_teachers(lesson):
    for view in lesson.views:
        env = lesson.kernel_env[view.name]
        assert f"ANTHROPIC_BASE_URL={lesson.proxy.base_url}" in env
        assert re.search(r"ANTHROPIC_API_KEY=sk-class-\S+", env)
        assert lesson.proxy.upstream_key not in env
    proxy_pid = lesson.proxy.process.pid
    assert psutil.Process(proxy_pid).username() == lesson.proxy.user
    assert lesson.proxy.upstream_key.encode() in Path(f"/proc/{proxy_pid}/environ").read_bytes()
    for student in lesson.students:
        assert hubkit.can_read(student, f"/proc/{proxy_pid}/environ") == "PermissionError"
        assert hubkit.can_read(student, lesson.proxy.env_file) == "PermissionError"
        assert hubkit.can_read(student, lesson.state / "class-keys.json") == "PermissionError"
        assert hubkit.can_read(student, lesson.proxy.state / "keys.json") == "PermissionError"


@NEEDS_A_HUB
def test_homes_state_folder_and_database_are_private(lesson):
    # add-students.sh: 700 from useradd, before any login.
    assert set(lesson.homes_before.values()) == {0o700}
    for student in lesson.students:
        assert stat.S_IMODE(home(student).stat().st_mode) == 0o700
    assert stat.S_IMODE(lesson.state.stat().st_mode) == 0o700
    for name in ("jupyterhub.sqlite", "jupyterhub_cookie_secret", "jupyterhub.log", "class-keys.json"):
        assert stat.S_IMODE((lesson.state / name).stat().st_mode) == 0o600, name
    first, second = lesson.students[:2]
    assert hubkit.can_read(first, home(second) / "notebooks" / NOTEBOOK) == "PermissionError"
    assert hubkit.can_read(first, home(first) / "notebooks" / NOTEBOOK) == "allowed"


@NEEDS_A_HUB
def test_the_teachers_notes_and_env_are_out_of_students_reach(lesson, course):
    student = lesson.students[0]
    assert hubkit.can_read(student, course / "docs" / "TEACHING.md") == "PermissionError"
    assert hubkit.can_read(student, course / ".env") == "PermissionError"
    assert hubkit.can_read(student, course / "docs" / "DESIGN.md") == "allowed"
    for each in lesson.students:
        assert not (home(each) / "docs" / "TEACHING.md").exists()
        assert (home(each) / "docs" / "DESIGN.md").is_file()


@NEEDS_A_HUB
def test_every_docs_link_in_a_students_copy_opens(lesson):
    copy = home(lesson.students[0]) / "notebooks"
    links = 0
    for notebook in [*sorted(copy.glob("*.ipynb")), *sorted(copy.glob("labs/*.ipynb")),
                     *sorted(copy.glob("zh/*.ipynb")), *sorted(copy.glob("zh/labs/*.ipynb"))]:
        for target in re.findall(r"\]\((\.\.[^)#\s]*\.md)", notebook.read_text()):
            links += 1
            assert (notebook.parent / target).resolve().is_file(), f"{notebook.name}: {target}"
            assert (notebook.parent / target).resolve().is_relative_to(home(lesson.students[0]))
    assert (copy / "docs" / "DESIGN.md").is_file()   # notebooks/docs -> ../docs
    assert links >= 20


@NEEDS_A_HUB
def test_a_hub_restart_leaves_a_students_server_and_kernel_running(lesson):
    restart = lesson.restart
    assert restart["pid"] and restart["alive_while_down"] and restart["same_pid"], restart
    assert restart["ready"] and restart["kernel_listed"], restart
    assert restart["output"] == "42" and restart["errors"] == [], restart


@NEEDS_A_HUB
def test_a_hub_restart_never_closes_port_8000_and_a_students_page_keeps_answering(lesson):
    polls = lesson.restart["polls"]
    assert polls["asks"] > 20, polls
    assert polls["refused"] == 0, polls
    assert polls["codes"].get(200, 0) == polls["asks"], polls


@NEEDS_A_HUB
def test_each_server_has_an_address_of_its_own_and_a_key_only_its_student_reads(lesson):
    from urllib.parse import urlsplit

    from cryptography import x509
    identity = deployed_hub_module("identity")
    others = lesson.students[1:] + lesson.students[:1]
    for student, other in zip(lesson.students, others):
        uid, env = pwd.getpwnam(student).pw_uid, lesson.servers[student]
        url = urlsplit(env["JUPYTERHUB_SERVICE_URL"])
        assert url.scheme == "https" and url.hostname == identity.student_address(uid), env
        folder = lesson.hub.runtime_root / f"{uid}.tls"
        assert (folder.stat().st_uid, stat.S_IMODE(folder.stat().st_mode)) == (0, 0o711)
        files = {"JUPYTERHUB_SSL_KEYFILE": "server.key", "JUPYTERHUB_SSL_CERTFILE": "server.crt",
                 "JUPYTERHUB_SSL_CLIENT_CA": "ca.crt"}
        for variable, name in files.items():
            path = folder / name
            assert env[variable] == str(path)
            assert (path.stat().st_uid, stat.S_IMODE(path.stat().st_mode)) == (uid, 0o400)
            assert hubkit.can_read(student, path) == "allowed"
            assert hubkit.can_read(other, path) == "PermissionError"
        names = x509.load_pem_x509_certificate((folder / "server.crt").read_bytes()).extensions \
            .get_extension_for_class(x509.SubjectAlternativeName).value
        assert [str(ip) for ip in names.get_values_for_type(x509.IPAddress)] == [url.hostname]
        assert names.get_values_for_type(x509.DNSName) == []   # no localhost
        # LocalProcessSpawner.move_certs would have put them there, as root
        assert not (home(student) / ".jupyterhub").exists()


@NEEDS_A_HUB
def test_a_student_over_the_memory_limit_is_stopped_and_nobody_else(lesson):
    memory = lesson.memory
    if lesson.limits == "rlimit":   # no control group to be had: the allocation is refused
        assert "MemoryError" in memory["outcome"] and memory["hog_alive"], memory
    else:                           # the control group's OOM killer stops the kernel
        assert memory["outcome"].startswith("stopped") and not memory["hog_alive"], memory
    assert memory["other"] == "42", memory


@NEEDS_A_HUB
def test_kernels_use_unix_sockets_in_a_private_folder_and_no_config_option_is_unknown(lesson):
    hub = lesson.hub
    for run in lesson.runs:
        connection = classroom.connection_file(hub, run.student, run.kernel_id)
        assert connection["transport"] == "ipc"
        folder = Path(connection["ip"]).parent
        assert folder.stat().st_mode & 0o777 == 0o700
        assert folder.stat().st_uid == pwd.getpwnam(run.student).pw_uid
    assert "over TCP" not in lesson.log
    assert not re.search(r"\[W .*(Config option|deprecated)", lesson.log), \
        [line for line in lesson.log.splitlines() if line.startswith("[W")]


# Warnings each student's server used to write to the hub's log (the servers' output goes
# there too) at its first kernel; jupyterhub_config.py says where the first came from. Left:
# "'extra_template_paths' was found in both NotebookApp and ServerApp", once a server start
# (jupyterhub_config.py says why no setting removes it).
NOISE = (
    "cannot be longer than the websocket_ping_interval",   # tornado, of jupyter_server's pings
    "No session ID specified",                             # a kernel websocket without ?session_id=
)


@NEEDS_A_HUB
def test_the_log_carries_no_warning_of_a_servers_first_kernel(lesson):
    # The servers' own lines are there (so their warnings would be too): each linked JupyterLab.
    assert lesson.log.count("jupyterlab | extension was successfully linked") >= len(lesson.students)
    noisy = [line for line in lesson.log.splitlines() if any(text in line for text in NOISE)]
    assert noisy == []


# -- issue 49: a classmate's server address, squatted -------------------------------------
#
# Student B (tests/deploy/hub_squatter.py: an unprivileged program of B's own, with B's own
# certificate when the hub gave B one) takes the address and port of a classmate's server
# or the teacher's, and the victim logs in and starts their server in a real browser. Before
# issue 49 the port came from the uid: B bound it without listening, listened the moment
# the victim's server started, the hub took B's answer for the victim's server, and B's
# page on the hub's origin made a token of the victim's (an admin's, against the teacher).

NEEDS_A_BROWSER = pytest.mark.skipif(not hub_squatter.CHROMIUM.exists(),
                                     reason="Debian's chromium is not installed")
ATTACK_SECONDS = 45   # how long the victim's browser is watched


@pytest.fixture(scope="module")
def squatted_class(course):
    """A hub with three students and two teachers to be attacked, and B with their server running."""
    folder = Path(tempfile.mkdtemp(prefix="ccsq-"))
    state = folder / "state"
    subprocess.run(["install", "-d", "-m", "700", str(state)], check=True)
    with hubkit.removed(folder), hubkit.class_of(course, 4, prefix="ccq") as (group, passwords), \
            hubkit.teachers(course, 2) as teachers:
        *students, squatter = passwords
        hub = hubkit.DeployedHub(course, state, group, admins=" ".join(teachers))
        try:
            hub.start()
            hub.login(squatter, passwords[squatter]).spawn()
            own = hubkit.server_environ(squatter)   # B's own server: B may read its environment
            yield SimpleNamespace(hub=hub, passwords={**passwords, **teachers}, squatter=squatter,
                                  victims={"student": students, "teacher": list(teachers)},
                                  cert=(own.get("JUPYTERHUB_SSL_CERTFILE", ""),
                                        own.get("JUPYTERHUB_SSL_KEYFILE", "")))
        finally:
            hub.close([*passwords, *teachers])


def service_address(name: str) -> tuple:
    """The address and port of the user's running server, from its JUPYTERHUB_SERVICE_URL."""
    from urllib.parse import urlsplit
    url = urlsplit(hubkit.server_environ(name)["JUPYTERHUB_SERVICE_URL"])
    return url.hostname, url.port


def attack(squatted, victim: str, prepare, shot: Path, opens: str = "/hub/spawn",
           seconds: float = ATTACK_SECONDS) -> dict:
    """B's squatter against `victim`, set up by prepare(squatter); the victim's browser opens
    `opens` after logging in; then what B got, and what the hub logged meanwhile."""
    hub = squatted.hub
    logs = {name: (hub.state / name).stat().st_size for name in ("jupyterhub.log", "jupyterhub-proxy.log")}
    squatter = hub_squatter.Squatter(hubkit.SYSTEM_PYTHON, squatted.squatter,
                                     pwd.getpwnam(victim).pw_uid, squatted.cert)
    try:
        prepare(squatter)
        seen = hub_squatter.victim_in_a_browser(hub.base_url, victim, squatted.passwords[victim],
                                                opens, seconds, shot)
        time.sleep(1)
    finally:
        squatter.stop()
    tokens = []
    for event in squatter.seen("stolen"):
        report = json.loads(event["body"])
        token = json.loads(report["answer"]).get("token") if 200 <= report["status"] < 300 else None
        if token:   # what B can do with it
            whom = hub.session().get(f"{hub.base_url}/hub/api/user", timeout=30,
                                     headers={"Authorization": f"token {token}"}).json()
            tokens.append({"name": whom.get("name"), "admin": whom.get("admin")})
    hubkit.say(f"squatter against {victim}: the browser saw {seen['outcome']} ({seen['url']}); "
               f"B's server: {len(squatter.seen('request'))} requests, "
               f"{len(squatter.seen('tls refused'))} TLS handshakes refused, tokens made: {tokens}")
    for name, start in logs.items():
        with open(hub.state / name, "rb") as log:
            log.seek(start)
            logs[name] = log.read().decode(errors="replace")
    return {"browser": seen, "tokens": tokens, "requests": squatter.seen("request"),
            "refused": squatter.seen("tls refused"), "events": squatter.events,
            "hub_log": logs["jupyterhub.log"], "proxy_log": logs["jupyterhub-proxy.log"],
            "listening": [tuple(e["address"]) for e in squatter.seen("listening")]}


@NEEDS_A_HUB
@NEEDS_A_BROWSER
@pytest.mark.parametrize("kind", ["student", "teacher"])
def test_a_squatter_on_the_victims_last_address_and_port_never_gets_their_browser(squatted_class, kind,
                                                                                   tmp_path):
    victim = squatted_class.victims[kind][0]
    # The victim's last start: its address and port, which any local user reads in /proc/net/tcp.
    view = squatted_class.hub.login(victim, squatted_class.passwords[victim])
    view.spawn()
    ip, port = service_address(victim)
    view.stop()

    def prepare(squatter):
        squatter.take("squat", ip, port)        # bound, not listening: listens when the server starts
        squatter.take("listen", ip, port + 1)   # and, already listening, the ports next to it
        squatter.take("listen", ip, port + 2)
        squatter.wait_for("squatting")

    outcome = attack(squatted_class, victim, prepare, tmp_path / "victim.png")
    assert outcome["tokens"] == [], outcome
    assert outcome["browser"]["outcome"] == "own server", outcome
    assert outcome["requests"] == [], outcome


@NEEDS_A_HUB
@NEEDS_A_BROWSER
@pytest.mark.parametrize("kind", ["student", "teacher"])
def test_a_squatter_on_the_very_address_and_port_the_hub_hands_out_never_gets_their_browser(
        squatted_class, kind, tmp_path):
    """B gets more than a student can know: the address and port the hub handed the victim's
    server, read as root from that server's environment the moment it starts (a lucky guess)."""
    victim = squatted_class.victims[kind][1]

    def prepare(squatter):
        def hand_over():
            deadline = time.monotonic() + ATTACK_SECONDS
            while time.monotonic() < deadline:
                try:
                    ip, port = service_address(victim)
                except (KeyError, TypeError):
                    time.sleep(0.002)
                    continue
                squatter.take("listen", ip, port)
                return
        threading.Thread(target=hand_over, daemon=True).start()

    outcome = attack(squatted_class, victim, prepare, tmp_path / "victim.png")
    assert outcome["tokens"] == [], outcome
    assert outcome["browser"]["outcome"] != "squatter", outcome
    assert outcome["requests"] == [], outcome
    # B did listen there before the victim's server (else this proves nothing), and the hub
    # connected to B and refused its certificate, which names B's address and not the victim's.
    assert len(outcome["listening"]) == 1 and outcome["refused"], outcome
    ip, _ = outcome["listening"][0]
    assert f"IP address mismatch, certificate is not valid for '{ip}'" in outcome["hub_log"]
    view = squatted_class.hub.login(victim, squatted_class.passwords[victim])
    assert not view.ready()   # the hub never took B's answer for the victim's server


@NEEDS_A_HUB
@NEEDS_A_BROWSER
def test_a_squatter_on_the_address_of_a_server_that_just_died_never_gets_the_proxys_requests(
        squatted_class, tmp_path):
    """The victim's server dies (a crash, a kill) and B takes its address and port at once,
    before the hub sees it gone: port 8000's proxy still routes the victim's pages there."""
    victim = squatted_class.victims["student"][2]
    view = squatted_class.hub.login(victim, squatted_class.passwords[victim])
    view.spawn()
    ip, port = service_address(victim)

    def prepare(squatter):
        os.kill(server_pid(victim), signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not squatter.seen("listening"):
            squatter.take("listen", ip, port)   # as soon as the dying server lets the port go
            time.sleep(0.05)

    outcome = attack(squatted_class, victim, prepare, tmp_path / "victim.png",
                     opens=f"/user/{victim}/lab", seconds=15)
    assert outcome["tokens"] == [], outcome
    assert outcome["browser"]["outcome"] != "squatter", outcome
    assert outcome["requests"] == [], outcome
    # Port 8000's proxy connected to B, and refused B's certificate: it names B's address.
    assert outcome["listening"] == [(ip, port)] and outcome["refused"], outcome
    assert f"IP: {ip} is not in the cert's list" in outcome["proxy_log"]


# -- the race: a student's links against the hook ---------------------------------------

RACER = r"""
import ctypes, os, select, signal, struct, sys
home, victim = sys.argv[1:3]
stopping, swaps, baits, me, children = [], 0, 0, os.getuid(), []
signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
libc = ctypes.CDLL(None, use_errno=True)
events = libc.inotify_init1(os.O_NONBLOCK)
libc.inotify_add_watch(events, home.encode(), 0x100)   # IN_CREATE: woken as a folder appears
counts_in, counts_out = os.pipe()


def follow(path, top):
    # 2. (a child of the racer's, one a copy) The hook hands the copy over from the bottom
    #    up: when a folder just below the top becomes the student's, the top's other
    #    entries are next, each looked up by its path again. Then the top becomes a link to
    #    root's files, and that link is replaced by a new one, in one step, again and again.
    swaps, spins, folders = 0, 0, []
    while os.path.lexists(path + "~") and not stopping:
        spins += 1
        try:
            if not swaps:
                if spins % 64 == 1:   # the copy may still be growing: look again
                    folders = [os.path.join(top, n) for n in os.listdir(top)]
                    folders = [f for f in folders if os.path.isdir(f) and not os.path.islink(f)]
                if any(os.lstat(f).st_uid == me for f in folders):
                    os.rename(top, top + "~")
                    os.symlink(victim, top)
                    swaps += 1
                continue
            os.symlink(victim, top + ".new")
            os.rename(top + ".new", top)
            swaps += 1
        except OSError:
            pass
    os.write(counts_out, f"{swaps} ".encode())
    os._exit(0)


print("ready", flush=True)
while not stopping:
    # 1. The hook's copy folder (.notebooks-*, .docs-*), as soon as it appears, is swapped
    #    for a link to a folder of the student's: the copy is made in there, in sight.
    if not select.select([events], [], [], 0.05)[0]:
        continue
    data, at, names = os.read(events, 65536), 0, []
    while at < len(data):
        size = struct.unpack_from("iIII", data, at)[3]
        names.append(data[at + 16:at + 16 + size].rstrip(b"\0").decode())
        at += 16 + size
    for name in names:
        path = os.path.join(home, name)
        if not name.startswith((".notebooks-", ".docs-")) or name[-1] in "~w":
            continue
        try:
            if os.path.islink(path) or os.lstat(path).st_nlink != 2:
                continue   # the copy has begun in it: too late for this one
            baits += 1
            bait = os.path.join(home, f"bait-{baits}")
            os.mkdir(bait)
            os.rename(path, path + "~")
            os.symlink(bait, path + ".new")
            os.rename(path + ".new", path)
            swaps += 1
        except OSError:
            continue
        child = os.fork()
        if child == 0:
            follow(path, os.path.join(bait, name[1:].split("-")[0]))
        children.append(child)
os.close(counts_out)
for child in children:
    try:
        os.kill(child, signal.SIGTERM)
        os.waitpid(child, 0)
    except OSError:
        pass
counts = os.read(counts_in, 1 << 20).split()
print(swaps + sum(map(int, counts)), baits, flush=True)
"""


def root_files_taken(places, inodes: set, uid: int) -> set:
    """The victim's files (by inode) that are now the student's, wherever they went; the
    racer's links come and go meanwhile (os.walk passes over what vanished)."""
    found = set()
    for place in places:
        for folder, folders, files in os.walk(place):
            for name in folders + files:
                try:
                    info = os.lstat(os.path.join(folder, name))
                except FileNotFoundError:
                    continue
                if info.st_ino in inodes and info.st_uid == uid:
                    found.add(info.st_ino)
    return found


def load_hook(course: Path, runtime_root: Path):
    """The pre_spawn_hook of the students' course's deployed config (its umask left as it was)."""
    from traitlets.config.loader import PyFileConfigLoader
    path = course / classroom.HUB_CONFIG
    os.environ.update(COURSE_DIR=str(course), COURSE_RUNTIME_ROOT=str(runtime_root),
                      COURSE_CLASS_KEYS=str(runtime_root / "no-keys.json"))
    umask = os.umask(0o022)
    try:
        return PyFileConfigLoader(path.name, str(path.parent)).load_config().Spawner.pre_spawn_hook
    finally:
        os.umask(umask)
        for name in ("COURSE_DIR", "COURSE_RUNTIME_ROOT", "COURSE_CLASS_KEYS"):
            os.environ.pop(name, None)


@NEEDS_A_HUB
def test_the_hook_never_follows_a_students_links(course):
    rounds, files = 40, 3000
    folder = Path(tempfile.mkdtemp(prefix="ccrace-"))
    victim = folder / "victim"   # root's files outside any home, as /etc is
    (victim / "notebooks").mkdir(parents=True)
    names = [f"root-only-{n:04d}" for n in range(files)]
    for name in names:
        (victim / "notebooks" / name).write_text("root's")
    # ... and entries with the names of the copy's own, as a real target may have
    for entry in (course / "notebooks").iterdir():
        names.append(entry.name)
        if entry.is_dir() and not entry.is_symlink():
            (victim / "notebooks" / entry.name).mkdir()
        else:
            (victim / "notebooks" / entry.name).write_text("root's")
    inodes = {p.lstat().st_ino for p in victim.rglob("*")}
    hook = load_hook(course, folder / "run")
    taken, done, failed = set(), 0, 0
    with hubkit.removed(folder), hubkit.class_of(course, 1, prefix="ccr") as (_, passwords):
        student = next(iter(passwords))
        uid, own = pwd.getpwnam(student).pw_uid, home(student)
        racer = subprocess.Popen([str(hubkit.SYSTEM_PYTHON), "-c", RACER, str(own),
                                  str(victim / "notebooks")],
                                 user=student, group=student, extra_groups=[], cwd="/",
                                 stdout=subprocess.PIPE, text=True)
        assert racer.stdout.readline().strip() == "ready"
        try:
            for _ in range(rounds):
                spawner = SimpleNamespace(user=SimpleNamespace(name=student), environment={},
                                          log=SimpleNamespace(info=lambda *a: None))
                try:
                    result = hook(spawner)
                    if asyncio.iscoroutine(result):
                        asyncio.run(result)
                    done += 1
                except Exception:  # noqa: BLE001  a copy the student broke fails; what counts is below
                    failed += 1
                taken |= root_files_taken([victim, own], inodes, uid)
                # The next round starts from a home without the copy, as after `rm -rf ~/notebooks`.
                for entry in own.iterdir():
                    if entry.name.startswith((".notebooks-", ".docs-", "notebooks", "docs", "bait-")):
                        subprocess.run(["rm", "-rf", "--one-file-system", str(entry)], capture_output=True)
        finally:
            racer.send_signal(signal.SIGTERM)
            swaps, baits = map(int, racer.communicate(timeout=60)[0].split()[-2:])
        hubkit.say(f"race: {rounds} hook runs ({done} done, {failed} failed), {baits} copy folders "
                   f"taken, {swaps} swaps, "
                   f"{len(taken)} of {len(names)} root files outside the home made the student's")
    assert swaps >= 1000
    assert taken == set()


# -- the config itself, read without starting anything (any user) ------------------------

def hub_config():
    from traitlets.config.loader import PyFileConfigLoader
    path = classroom.ROOT / classroom.HUB_CONFIG
    umask = os.umask(0o022)
    try:
        return PyFileConfigLoader(path.name, str(path.parent)).load_config()
    finally:
        os.umask(umask)


def test_the_config_serves_loopback_with_the_venvs_server_on_notebook_00():
    config = hub_config()
    assert config.JupyterHub.ip == config.JupyterHub.hub_ip == "127.0.0.1"
    assert config.Spawner.cmd == [str(classroom.ROOT / ".venv" / "bin" / "jupyterhub-singleuser")]
    assert config.Spawner.default_url == "/lab/tree/notebooks/00_why_compaction.ipynb"
    assert (classroom.ROOT / "notebooks" / "00_why_compaction.ipynb").is_file()
    assert callable(config.Spawner.pre_spawn_hook)


def test_the_config_keeps_servers_across_a_restart_and_its_state_in_one_folder():
    config = hub_config()
    assert config.JupyterHub.cleanup_servers is False
    assert config.JupyterHub.db_url == "sqlite:////srv/jupyterhub/jupyterhub.sqlite"
    assert config.JupyterHub.cookie_secret_file == "/srv/jupyterhub/jupyterhub_cookie_secret"


def test_the_config_leaves_port_8000s_proxy_to_its_own_service():
    # A hub that starts configurable-http-proxy stops it at its restart: port 8000 was closed
    # for 5 s (test_a_hub_restart_never_closes_port_8000_and_a_students_page_keeps_answering).
    config = hub_config()
    assert config.ConfigurableHTTPProxy.should_start is False
    assert config.ConfigurableHTTPProxy.api_url == "https://127.0.0.1:8001"
    hub = deployed_hub_text("jupyterhub.service")
    assert "Wants=jupyterhub-proxy.service" in hub and "jupyterhub-proxy.service" in hub.split("After=")[1]
    proxy = deployed_hub_text("jupyterhub-proxy.service")
    assert "ExecStart=/opt/course/deploy/hub/start-hub-proxy.sh" in proxy
    assert "CONFIGPROXY_AUTH_TOKEN" in deployed_hub_text("start-hub-proxy.sh")


def deployed_hub_text(name: str) -> str:
    return (classroom.ROOT / "deploy" / "hub" / name).read_text()


def test_the_config_starts_kernels_over_ipc_with_no_news_and_an_idle_culler():
    args = hub_config().Spawner.args
    assert "--KernelManager.transport=ipc" in args
    # The folder of course.sh's overrides.json (the browser test sees it hide the prompt).
    assert f"--LabApp.app_settings_dir={classroom.ROOT / 'scripts' / 'jupyterlab'}" in args
    # The contents manager course.sh uses (the browser test sees a notebook open clean there).
    assert ("--ServerApp.contents_manager_class="
            "compact_course.lessons.lab_contents.CourseContentsManager") in args
    assert "--MappingKernelManager.cull_idle_timeout=1800" in args  # 30 minutes
    assert "--ServerApp.shutdown_no_activity_timeout=3600" in args  # an hour
    # No websocket pings: jupyter_server's figures (ms) would reach tornado as seconds, with a warning.
    assert '--ServerApp.tornado_settings={"ws_ping_interval": 0}' in args


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


# -- issue 38: the teacher let in; issue 49: a server the hub can tell apart (any user) -------

def deployed_hub_module(name: str):
    """A module of deploy/hub/ from its file. identity.py imports `home` and `limits` by name
    (the hub runs with their folder first on its path): each is loaded from its file first,
    under that name, so nothing edits this process's path (test_install's rule)."""
    for sibling in ("limits", "home"):
        if sibling not in sys.modules:
            sys.modules[sibling] = hubkit.deployed_module(classroom.ROOT, sibling)
    return hubkit.deployed_module(classroom.ROOT, name)


def test_each_uid_gets_a_loopback_address_of_its_own_and_never_the_hubs():
    identity = deployed_hub_module("identity")
    uids = [*range(0, 140_000), identity.UID_LIMIT - 1]
    addresses = [identity.student_address(uid) for uid in uids]
    assert len(set(addresses)) == len(uids)   # one uid, one address
    for address in addresses:
        first, second, *_ = map(int, address.split("."))
        assert first == 127 and 1 <= second <= 254, address   # loopback, never 127.0.x.x nor the broadcast
    assert identity.student_address(1000) == "127.1.3.232"
    for uid in (-1, identity.UID_LIMIT):
        with pytest.raises(ValueError, match=f"uid {uid} has no loopback address of its own"):
            identity.student_address(uid)


def test_the_config_turns_on_jupyterhubs_internal_tls_with_certificates_naming_only_the_servers_address():
    config = hub_config()
    assert config.JupyterHub.internal_ssl is True
    assert config.JupyterHub.internal_certs_location == "/srv/jupyterhub/internal-ssl"
    assert config.ConfigurableHTTPProxy.api_url == "https://127.0.0.1:8001"
    assert config.Spawner.ssl_alt_names_include_local is False   # no 127.0.0.1, no localhost
    assert config.Spawner.ssl_alt_names(SimpleNamespace(ip="127.1.3.232")) == ["IP:127.1.3.232"]
    assert config.JupyterHub.spawner_class.__name__ == "CourseSpawner"
    assert config.CourseSpawner.tls_root == "/run/course-kernels"
    assert not hasattr(deployed_hub_module("limits"), "server_port")   # the uid rule is gone


def test_the_spawner_listens_on_its_students_address_on_a_port_drawn_anew_each_start(monkeypatch):
    identity = deployed_hub_module("identity")
    started = []

    async def start(self):
        started.append((self.ip, self.port))
        self.port = 50000 + len(started)   # as LocalProcessSpawner: a pick of its own, kept on the spawner
        return (self.ip, self.port)

    monkeypatch.setattr(identity.LimitedSpawner.__mro__[1], "start", start)
    monkeypatch.setattr(sys.modules["limits"], "mode", lambda: "rlimit")
    me = pwd.getpwuid(os.getuid())
    spawner = identity.CourseSpawner(user=SimpleNamespace(name=me.pw_name))
    asyncio.run(spawner.start())
    asyncio.run(spawner.start())   # after a failed start JupyterHub keeps the spawner, and its port
    assert started == [(identity.student_address(me.pw_uid), 0)] * 2


def test_the_proxys_start_passes_the_tls_flags_jupyterhub_passes_the_proxy_it_starts(tmp_path):
    from jupyterhub.app import JupyterHub
    from jupyterhub.httpclient import JupyterHubHTTPClient
    from jupyterhub.proxy import ConfigurableHTTPProxy
    app = JupyterHub(internal_ssl=True, internal_certs_location=str(tmp_path / "internal-ssl"))

    async def init():   # its HTTP client wants a running loop
        app.init_internal_ssl()

    asyncio.run(init())
    JupyterHubHTTPClient.clear_instance()
    theirs = ConfigurableHTTPProxy._get_ssl_options(SimpleNamespace(app=app))
    script = deployed_hub_text("start-hub-proxy.sh")
    ours = script[script.index('exec "$(command -v configurable-http-proxy)"'):].replace("\\\n", " ").split()
    flags = {arg: next_arg for arg, next_arg in zip(ours, [*ours[1:], ""]) if "-ssl-" in arg}

    def basename(value: str) -> str:
        return value.strip('"').rsplit("/", 1)[-1]

    for flag, value in zip(theirs, [*theirs[1:], ""]):
        if flag.startswith("--"):
            assert flag in flags, flag
            if not value.startswith("--"):   # a file: the same one, copied to proxy-ssl/ by hub-certs.sh
                assert basename(flags[flag]) == basename(value), flag
                assert basename(value) in deployed_hub_text("hub-certs.sh"), value
    assert len(flags) == len([f for f in theirs if f.startswith("--")])
    assert '--default-target "$hub_api"' in script and "hub_api=https://" in script


def test_the_teacher_in_course_admins_is_let_in_and_an_admin_without_the_students_group(monkeypatch):
    from jupyterhub.auth import PAMAuthenticator
    # Accounts every Debian has, neither in the group: `daemon` as the teacher, `nobody` not.
    monkeypatch.setenv("COURSE_ADMINS", "daemon")
    monkeypatch.setenv("COURSE_GROUP", "root")
    authenticator = PAMAuthenticator(config=hub_config())
    assert "daemon" in authenticator.admin_users

    def allowed(name):
        answer = authenticator.check_allowed(name, {"name": name})
        return asyncio.run(answer) if asyncio.iscoroutine(answer) else answer

    assert allowed("daemon") is True
    assert allowed("nobody") is False


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (throwaway students)")
def test_a_servers_key_goes_to_a_folder_of_roots_for_its_student_alone_and_never_through_a_link(tmp_path):
    identity = deployed_hub_module("identity")
    made = {}
    for what, text in (("keyfile", "the key"), ("certfile", "the certificate"), ("cafile", "the CA")):
        made[what] = tmp_path / what
        made[what].write_text(text)
    root = Path(tempfile.mkdtemp(prefix="cctls-"))
    root.chmod(0o755)
    victim = root / "root-only"   # a file of root's that a planted link points to
    victim.write_text("root's")
    with hubkit.removed(root), hubkit.class_of(classroom.ROOT, 2, prefix="cck") as (_, passwords):
        student, other = passwords
        account = pwd.getpwnam(student)
        folder = root / f"{account.pw_uid}.tls"
        folder.mkdir()
        (folder / "server.key").symlink_to(victim)
        placed = identity.place_certs({w: str(p) for w, p in made.items()}, root, account)
        assert placed == {"keyfile": str(folder / "server.key"), "certfile": str(folder / "server.crt"),
                          "cafile": str(folder / "ca.crt")}
        assert victim.read_text() == "root's" and victim.stat().st_uid == 0
        assert (folder / "server.key").read_text() == "the key" and not (folder / "server.key").is_symlink()
        assert stat.S_IMODE(folder.stat().st_mode) == 0o711 and folder.stat().st_uid == 0
        for path in placed.values():
            info = Path(path).stat()
            assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (account.pw_uid, 0o400)
            assert hubkit.can_read(student, path) == "allowed"
            assert hubkit.can_read(other, path) == "PermissionError"
        assert not made["keyfile"].exists() and not made["certfile"].exists()   # moved, as JupyterHub's own
        # A link in place of the student's folder: refused, nothing written through it.
        shutil.rmtree(folder)
        elsewhere = root / "elsewhere"
        elsewhere.mkdir()
        folder.symlink_to(elsewhere)
        made["keyfile"].write_text("the key")
        made["certfile"].write_text("the certificate")
        with pytest.raises(OSError):
            identity.place_certs({w: str(p) for w, p in made.items()}, root, account)
        assert list(elsewhere.iterdir()) == []


LEAVE = r"""
import os, sys, tempfile
# What a kernel stopped in the middle of notebook 09 leaves: its TemporaryDirectory, the workspace in it.
folder = tempfile.mkdtemp(prefix="live-run-", dir="/tmp")
os.makedirs(os.path.join(folder, "workspace", ".transcripts"))
open(os.path.join(folder, "workspace", "notes.md"), "w").write("mine")
for place in ("/var/tmp", "/dev/shm"):
    open(os.path.join(place, f"left-{os.getuid()}"), "w").write("mine")
print(folder)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (a throwaway student)")
def test_a_removed_student_leaves_nothing_in_the_shared_temporary_folders():
    with hubkit.class_of(classroom.ROOT, 1, prefix="ccx") as (_, passwords):
        student = next(iter(passwords))
        uid = pwd.getpwnam(student).pw_uid
        folder = hubkit.as_student(student, LEAVE)
        assert Path(folder, "workspace", "notes.md").stat().st_uid == uid
        assert len(hubkit.left_behind({uid})) >= 5   # the test can see what is left
    assert hubkit.left_behind({uid}) == []
    assert not Path(folder).exists()


GIT_SHOW = r"""
import subprocess, sys
done = subprocess.run(["git", "-c", "safe.directory=*", "-C", sys.argv[1], "show", "HEAD:docs/TEACHING.md"],
                      capture_output=True, text=True)
print("shown" if done.returncode == 0 else "refused")
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (a throwaway student)")
def test_a_student_cannot_read_the_solutions_from_the_clones_git_objects():
    folder = Path(tempfile.mkdtemp(prefix="ccgit-", dir="/tmp"))
    folder.chmod(0o755)
    clone = folder / "course"
    with hubkit.removed(folder):
        subprocess.run(["git", "clone", "--quiet", "--no-local", str(classroom.ROOT), str(clone)], check=True)
        subprocess.run(["chmod", "-R", "a+rX", str(clone)], check=True)   # as a clone under umask 022
        subprocess.run(["bash", "-c", hubkit.TEACHER_ONLY], cwd=clone, check=True)
        with hubkit.class_of(classroom.ROOT, 1, prefix="ccg") as (_, passwords):
            student = next(iter(passwords))
            assert hubkit.as_student(student, GIT_SHOW, str(clone)) == "refused"
            assert hubkit.can_read(student, clone / "docs" / "TEACHING.md") == "PermissionError"
            assert hubkit.can_read(student, clone / "notebooks" / NOTEBOOK) == "allowed"


def test_the_class_run_resends_a_request_whose_reused_connection_was_reset():
    """deploy/class/class_live_run.py, the recipe's class run: a server that closes a keep-alive
    connection as the next request arrives on it (configurable-http-proxy's 5 s keep-alive
    timeout did so, and 2 of 30 kernel starts failed with ConnectionResetError in the fresh
    Debian run) gets the request again on a new connection, as a browser resends it."""
    import importlib.util
    import socket
    import struct
    script = hubkit.ROOT / "deploy" / "class" / "class_live_run.py"
    spec = importlib.util.spec_from_file_location("class_live_run", script)
    live_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(live_run)
    server = socket.create_server(("127.0.0.1", 0))
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok"

    def read_request(connection) -> None:   # its head and its Content-Length of body, whole
        data = b""
        while b"\r\n\r\n" not in data:
            data += connection.recv(65536)
        head, body = data.split(b"\r\n\r\n", 1)
        length = int(re.search(rb"(?i)content-length: *(\d+)", head)[1])
        while len(body) < length:
            body += connection.recv(65536)

    def serve():   # each connection: one request answered, the next one reset once it is in
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            read_request(connection)
            connection.sendall(answer)
            read_request(connection)
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()

    threading.Thread(target=serve, daemon=True).start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}/user/a/api/sessions"
    try:
        plain = requests_session()
        assert plain.post(url, json={}, timeout=10).status_code == 200
        with pytest.raises(Exception, match="reset|aborted"):
            plain.post(url, json={}, timeout=10)
        session = live_run.hub_session()
        assert [session.post(url, json={}, timeout=10).status_code for _ in range(3)] == [200, 200, 200]
    finally:
        server.close()


def requests_session():
    import requests
    session = requests.Session()
    session.trust_env = False
    return session
