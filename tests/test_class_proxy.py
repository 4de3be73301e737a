"""The class proxy as deployed (deploy/proxy/, issue 38): one way in, bounded bodies, one ledger.

As root: deploy/proxy/start-proxy.sh runs LiteLLM (from /opt/course-proxy) behind serve.py
as a throwaway user, the offline model its upstream, and class_keys.py makes the keys
(tests/hubkit.py's ClassProxy). The proxy's environment also points LiteLLM's Anthropic
pass-through (ANTHROPIC_API_BASE) at that upstream, as an attacker would wish it: a
request that got through would show in the upstream's count of requests.
Not root, or no LiteLLM in /opt/course-proxy: skipped with the reason; the checks of
serve.py's guard alone and of the unit file run anywhere.
"""

import asyncio
import importlib.util
import json
import os
import pwd
import re
import subprocess
import tempfile
from pathlib import Path

import psutil
import pytest

from tests import hubkit
from workbench.bench import classroom

if os.geteuid() != 0:
    REASON = "needs root (a throwaway proxy user)"
elif not (hubkit.PROXY_VENV / "bin" / "litellm").exists():
    REASON = f"needs LiteLLM's proxy in {hubkit.PROXY_VENV} (bash scripts/test.sh installs it)"
else:
    REASON = ""
NEEDS_THE_PROXY = pytest.mark.skipif(bool(REASON), reason=f"the proxy test {REASON}")
DEPLOY = classroom.ROOT / "deploy"
BUDGET = 0.01
MB = 1024 ** 2


@pytest.fixture(scope="module")
def proxy():
    folder = Path(tempfile.mkdtemp(prefix="ccproxy-"))
    folder.chmod(0o711)   # the proxy's user crosses it to its own state folder
    course = folder / "course"
    course.mkdir()
    subprocess.run(["cp", "-r", str(DEPLOY), str(course)], check=True)
    subprocess.run(["chmod", "-R", "a+rX", str(course)], check=True)
    running = hubkit.ClassProxy(course, folder)
    try:
        running.start()
        # The pass-through's target: the same upstream, so a request let through would reach it.
        running.env_file.write_text(running.env_file.read_text()
                                    + f"ANTHROPIC_API_BASE={running.upstream.base_url}\n")
        restart(running)
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        running.user + "s"], check=True, capture_output=True)
        running.student = running.user + "s"
        running.keys(folder / "class-keys.json", [running.student], BUDGET)
        running.student_key = read_key(folder / "class-keys.json", running.student)
        yield running
    finally:
        running.stop()
        subprocess.run(["userdel", running.user + "s"], capture_output=True)
        subprocess.run(["rm", "-rf", str(folder)])


def restart(running) -> None:
    """start() wrote the env file and started the proxy; start it again on the amended file."""
    running.process.terminate()
    running.process.wait(timeout=30)
    classroom.stop_processes_of(pwd.getpwnam(running.user).pw_uid)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
           "COURSE_PROXY_ENV": str(running.env_file), "COURSE_PROXY_STATE": str(running.state),
           "COURSE_PROXY_VENV": str(hubkit.PROXY_VENV), "COURSE_PROXY_PORT": str(running.port),
           "COURSE_PROXY_USER": running.user}
    running.process = subprocess.Popen(["bash", str(running.course / "deploy" / "proxy" / "start-proxy.sh")],
                                       env=env, start_new_session=True)
    running.wait()


def read_key(hub_file: Path, student: str) -> str:
    return json.loads(hub_file.read_text())["keys"][student]


def call(proxy, method: str, path: str, key: str, body=None, data=None, headers=None):
    session = hubkit.DeployedHub.session()
    return session.request(method, proxy.base_url + path, json=body, data=data, timeout=120,
                           headers={"x-api-key": key, "anthropic-version": "2023-06-01", **(headers or {})})


def message(text: str = "Say hello.", model: str = "course-model") -> dict:
    return {"model": model, "max_tokens": 64, "messages": [{"role": "user", "content": text}]}


def table(proxy) -> dict:
    """class_keys.py spend, as the teacher reads it: {student: (spend text, budget text)}."""
    rows = proxy.class_keys("spend").splitlines()[1:]
    return {row.split()[0]: tuple(row.split()[1:3]) for row in rows}


# -- one way in --------------------------------------------------------------------------

PASS_THROUGH = [
    ("POST", "/anthropic/v1/messages", message(model="claude-opus-4-1")),
    ("POST", "/anthropic/v1/messages/batches", {"requests": [{"custom_id": "a", "params": message()}]}),
    ("GET", "/anthropic/v1/files", None),
    ("GET", "/v1/models", None),
    ("POST", "/chat/completions", {"model": "course-model", "messages": [{"role": "user", "content": "hi"}]}),
    ("GET", "/health", None),   # LiteLLM's own health check asks every upstream model
]


@NEEDS_THE_PROXY
@pytest.mark.parametrize("method,path,body", PASS_THROUGH, ids=[p for _, p, _ in PASS_THROUGH])
def test_a_students_key_reaches_nothing_but_the_messages_api(proxy, method, path, body):
    before = proxy.upstream.served
    answer = call(proxy, method, path, proxy.student_key, body)
    assert answer.status_code == 404, (answer.status_code, answer.text[:300])
    assert "not served by the class proxy" in answer.json()["error"]["message"]
    assert proxy.upstream.served == before


@NEEDS_THE_PROXY
def test_a_model_outside_litellm_yaml_is_refused_before_it_is_forwarded(proxy):
    before = proxy.upstream.served
    answer = call(proxy, "POST", "/v1/messages", proxy.student_key, message(model="claude-opus-4-1"))
    assert answer.status_code == 400
    assert "'claude-opus-4-1' is not a model of the class proxy; it serves course-model" in answer.text
    assert proxy.upstream.served == before


# -- bodies bounded before the key is read --------------------------------------------------

def chunks(total: int, size: int = MB):
    """`total` bytes sent chunked (no Content-Length): the sender holds one MB at a time."""
    for _ in range(total // size):
        yield b"x" * size


@NEEDS_THE_PROXY
def test_200_mb_bodies_with_a_wrong_key_leave_the_proxys_memory_where_it_was(proxy):
    process = psutil.Process(proxy.process.pid)
    before, served = process.memory_info().rss, proxy.upstream.served
    answers = []
    for _ in range(3):
        try:
            answer = call(proxy, "POST", "/v1/messages", "sk-class-wrong", data=chunks(200 * MB))
            answers.append(answer.status_code)
        except OSError as error:   # the proxy answered and closed while the body was still coming
            answers.append(type(error).__name__)
    try:
        declared = call(proxy, "POST", "/v1/messages", "sk-class-wrong", data=b"x" * (200 * MB)).status_code
    except OSError as error:
        declared = type(error).__name__
    after = process.memory_info().rss
    assert all(a == 413 or isinstance(a, str) for a in answers), answers
    assert declared in (413, "ConnectionError", "ConnectionResetError", "BrokenPipeError"), declared
    assert after - before < 50 * MB, (before // MB, after // MB)
    assert proxy.upstream.served == served
    assert call(proxy, "GET", "/health/liveliness", "").ok


@NEEDS_THE_PROXY
def test_the_proxy_runs_inside_its_memory_limit_without_systemd(proxy):
    limits = Path(f"/proc/{proxy.process.pid}/limits").read_text()
    line = next(row for row in limits.splitlines() if row.startswith("Max address space"))
    assert line.split()[3:5] == [str(4 * 1024 ** 3)] * 2, line


# -- one ledger --------------------------------------------------------------------------

@NEEDS_THE_PROXY
def test_a_student_is_refused_exactly_when_the_teachers_table_reaches_the_budget(proxy):
    text = "Please read this long request carefully. " * 120   # about 1,300 tokens: $0.004 a call
    seen = []
    for _ in range(40):
        before = table(proxy)[proxy.student]
        answer = call(proxy, "POST", "/v1/messages", proxy.student_key, message(text))
        seen.append((before, answer.status_code))
        if answer.status_code != 200:
            break
    before, status = seen[-1]
    assert status != 200, seen
    # Every request the table allowed was answered; the first refusal came at the budget.
    assert all(float(spend) < BUDGET for (spend, _), code in seen[:-1]), seen
    assert float(before[0]) >= BUDGET, seen
    assert len(seen) >= 2, seen
    error = answer.json()["error"]["message"]
    assert f"Current cost: {before[0]}, Max budget: {before[1]}" in error, (error, before)
    assert "Budget has been exceeded" in error


# -- the guard alone, and the unit (any user) ----------------------------------------------

def guard_module():
    spec = importlib.util.spec_from_file_location("deployed_serve", DEPLOY / "proxy" / "serve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_guard(path: str, body: bytes, headers=(), max_body: int = 1000, method: str = "POST"):
    serve = guard_module()
    reached, sent = [], []

    async def app(scope, receive, send):
        reached.append((await receive())["body"])

    parts = [{"type": "http.request", "body": body[i:i + 100], "more_body": i + 100 < len(body)}
             for i in range(0, max(len(body), 1), 100)]

    async def receive():
        return parts.pop(0) if parts else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "headers": list(headers)}
    asyncio.run(serve.Guard(app, ["course-model"], max_body=max_body)(scope, receive, send))
    status = sent[0]["status"] if sent else None
    return reached, status


def test_the_guard_passes_a_messages_request_whole_and_refuses_the_rest():
    body = b'{"model": "course-model", "messages": []}'
    assert run_guard("/v1/messages", body) == ([body], None)
    assert run_guard("/v1/messages/count_tokens", body) == ([body], None)
    for path in ("/anthropic/v1/messages", "/v1/messages/", "/v1/messages/../anthropic/v1/files",
                 "//v1/messages", "/v1/messages/batches", "/v1/files"):
        assert run_guard(path, body) == ([], 404), path
    assert run_guard("/v1/messages", body, method="GET") == ([], 404)
    assert run_guard("/v1/messages", b'{"model": "claude-opus-4-1"}') == ([], 400)
    assert run_guard("/v1/messages", b"not json") == ([], 400)
    assert run_guard("/health/liveliness", b"", method="GET") == ([b""], None)


def test_the_guard_refuses_a_body_over_its_size_by_header_or_by_count():
    body = b'{"model": "course-model", "pad": "' + b"x" * 2000 + b'"}'
    assert run_guard("/v1/messages", body) == ([], 413)   # chunked: counted as it comes
    assert run_guard("/v1/messages", b"{}", headers=[(b"content-length", b"5000")]) == ([], 413)


def test_the_proxys_unit_runs_the_guard_inside_a_memory_limit():
    unit = (DEPLOY / "proxy" / "course-proxy.service").read_text()
    start = "ExecStart=/opt/course-proxy/bin/python /opt/course/deploy/proxy/serve.py "
    assert re.search("^" + re.escape(start), unit, re.M)
    assert re.search(r"^MemoryMax=1G$", unit, re.M) and re.search(r"^MemorySwapMax=0$", unit, re.M)
    script = (DEPLOY / "proxy" / "start-proxy.sh").read_text()
    assert "prlimit --as=" in script and '"$here/serve.py"' in script
