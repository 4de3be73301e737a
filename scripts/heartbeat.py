"""Run a command and never leave the terminal quiet for long: a line says what is running.

    python3 scripts/heartbeat.py "setup.sh: making .venv" -- python3.11 -m venv .venv
    python3 scripts/heartbeat.py --until-output "course.sh: starting JupyterLab" -- jupyter lab ...
    python3 scripts/heartbeat.py --log FILE "setup.sh: matplotlib's font cache" -- python -c ...
    python3 scripts/heartbeat.py --pip 126 --log FILE --site DIR "setup.sh: installing" -- python -m pip ...

The command's output (stdout and stderr together) is copied through as it comes, or to
--log FILE only. Whenever nothing has been printed for --every seconds (7), a heartbeat:

    setup.sh: installing (41 s): 57 of 126 installed, now jupyterlab
    test.sh: pytest (23 s): collecting tests/agent/test_agent.py (41 files so far)

and when the command ends after a quiet spell, one line says it is done. So two lines
are never more than 10 s apart, across one command and the next: a quiet tail shorter
than 2 s, then at most 7 s to the next command's first heartbeat.

What the command is on comes from the command itself, never from a guess:
- with --pip TOTAL, pip's own lines: one line a package it collects (`Collecting NAME` or
  `Processing .../NAME-VERSION-...whl`, "[n/TOTAL] NAME"), the package it downloads or
  builds, and, while it installs (pip prints nothing then), how many of the packages of its
  `Installing collected packages:` line have their `.dist-info` in --site since;
- otherwise, the file named by HEARTBEAT_STATUS, which this script makes for the command:
  a command that knows what it is on writes it there. This module is also the pytest
  plugin that does so (`pytest -p scripts.heartbeat`): the file it collects, the test it runs.

On a terminal, --pip's lines are one line rewritten in place (\\r), as pip's counter was.
The child sees no terminal (its output is a pipe): COLUMNS and PY_COLORS tell pytest the
terminal's width and to colour, PYTHONUNBUFFERED makes a Python child print as it goes.
Ctrl-C goes to the command (the same process group); this script waits for it and exits
with its status.

The gap it fills: pip's own progress bar covers downloads, not the install (a fresh .venv
sat 45 s on `Installing collected packages:` with nothing new on screen), and pytest's live
"collecting N items" shows only on a terminal without -q, counts items rather than naming
the file it imports, and nothing marks a long test until it ends.

Left out: a spinner or a bar (a heartbeat says only what the command told it), and any
output parsing beyond pip's lines. Python 3.9+, standard library only: setup.sh runs it
before .venv exists.
"""

from __future__ import annotations

import argparse
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EVERY = 7.0        # seconds of quiet before a heartbeat
DONE_AFTER = 2.0   # a command that ends this long after its last line gets a "done" line
STATUS = "HEARTBEAT_STATUS"


# -- what pip is on ---------------------------------------------------------------------

def normal(name: str) -> str:
    """A project name as a .dist-info folder spells it: `websocket-client` -> `websocket_client`."""
    return re.sub(r"[-_.]+", "_", name).lower()


def wheel_name(path: str) -> str:
    """`/x/aiohappyeyeballs-2.7.1-py3-none-any.whl` -> `aiohappyeyeballs==2.7.1`; a folder: its name."""
    base = path.rstrip("/").rsplit("/", 1)[-1]
    parts = base.split("-")
    if base.endswith((".whl", ".tar.gz", ".zip")) and len(parts) >= 2:
        return f"{parts[0]}=={parts[1].removesuffix('.tar.gz').removesuffix('.zip')}"
    return base


def installed(names: list, site: str, since: float) -> int:
    """How many of `names` have a .dist-info in `site` made at or after `since` (a time.time())."""
    if not site or not os.path.isdir(site):
        return 0
    made = set()
    for entry in os.scandir(site):
        if entry.name.endswith(".dist-info"):
            try:
                if entry.stat().st_mtime >= since - 1:
                    made.add(normal(entry.name.split("-", 1)[0]))
            except OSError:
                continue
    return sum(normal(name) in made for name in names)


class Pip:
    """pip's lines read one by one: the progress line each package gets, and what pip is on."""

    def __init__(self, total: str, site: str):
        self.total, self.site = total, site
        self.count, self.package, self.doing = 0, "", ""
        self.installing, self.since = [], 0.0

    def read(self, line: str) -> str | None:
        """The progress line for this pip line, if it starts a package."""
        words = line.split()
        if not words:
            return None
        if words[0] == "Collecting" and len(words) > 1:
            self.package, self.doing = words[1], ""
        elif words[0] == "Processing" and len(words) > 1:
            self.package, self.doing = wheel_name(words[1]), ""
        elif words[0] == "Downloading":
            self.doing = "downloading"
            return None
        elif line.lstrip().startswith(("Building wheel for ", "Building editable for ")):
            self.doing = "building " + words[3]
            return None
        elif line.startswith("Installing collected packages:"):
            self.installing = [n.strip() for n in line.split(":", 1)[1].split(",") if n.strip()]
            self.since = time.time()
            return f"installing {len(self.installing)} packages"
        else:
            return None
        self.count += 1
        return f"[{self.count}/{self.total}] {self.package}"

    def on(self) -> str:
        if self.installing:
            done, total = installed(self.installing, self.site, self.since), len(self.installing)
            if self.site and done == total:
                return f"all {total} installed, pip is finishing"
            return f"{done} of {total} installed" + (f", now {self.installing[done]}" if self.site else "")
        if self.doing.startswith("building"):
            return self.doing
        if self.package:
            return f"{self.doing or 'on'} {self.package}"
        return ""


# -- the command ---------------------------------------------------------------------------

class Terminal:
    """Where our lines go: stdout; on a terminal, --pip's lines are rewritten in place."""

    def __init__(self, in_place: bool):
        self.out = sys.stdout.buffer
        self.in_place = in_place and sys.stdout.isatty()
        self.open_line = False   # the last thing written did not end a line
        self.last = time.monotonic()

    def copy(self, chunk: bytes) -> None:
        self._write(chunk)
        self.open_line = not chunk.endswith(b"\n")

    def line(self, text: str) -> None:
        if self.in_place:
            width = (os.get_terminal_size().columns or 80) - 1   # 0 where the size is unknown
            self._write(("\r" + text[:width].ljust(width)).encode())
            self.open_line = True
            return
        self._write((("\n" if self.open_line else "") + text + "\n").encode())
        self.open_line = False

    def end(self) -> None:
        if self.open_line and self.in_place:
            self._write(b"\n")

    def _write(self, data: bytes) -> None:
        try:
            self.out.write(data)
            self.out.flush()
        except BrokenPipeError:
            pass
        self.last = time.monotonic()


def child_env(status: str) -> dict:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env[STATUS] = status
    if sys.stdout.isatty():
        env.setdefault("COLUMNS", str(os.get_terminal_size().columns))
        env.setdefault("PY_COLORS", "1")
    return env


def run(args) -> int:
    terminal = Terminal(in_place=args.pip is not None)
    pip = Pip(args.pip, args.site) if args.pip is not None else None
    log = open(args.log, "ab") if args.log else None
    status = tempfile.NamedTemporaryFile(prefix="heartbeat-", delete=False)
    status.close()
    # A handler, not SIG_IGN: the command starts with Ctrl-C's default, and stops on it.
    signal.signal(signal.SIGINT, lambda *_: None)
    try:
        child = subprocess.Popen(args.command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 env=child_env(status.name))
    except OSError as error:
        print(f"heartbeat: cannot run {args.command[0]}: {error.strerror}", file=sys.stderr)
        return 127
    signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    start, heard, pending = time.monotonic(), False, b""
    selector = selectors.DefaultSelector()
    selector.register(child.stdout, selectors.EVENT_READ)
    try:
        while True:
            if selector.select(timeout=0.25):
                chunk = os.read(child.stdout.fileno(), 65536)
                if not chunk:
                    break
                heard = True
                if log:
                    log.write(chunk)
                    log.flush()
                if pip:
                    pending += chunk
                    *lines, pending = re.split(rb"[\r\n]", pending)
                    for line in lines:
                        said = pip.read(line.decode(errors="replace"))
                        if said:
                            terminal.line("  " + said)
                elif not log:
                    terminal.copy(chunk)
            quiet = time.monotonic() - terminal.last
            if quiet >= args.every and not (args.until_output and heard):
                terminal.line(beat(args.label, time.monotonic() - start, pip, status.name))
    finally:
        selector.close()
        code = child.wait()
        os.unlink(status.name)
        if log:
            log.close()
    if time.monotonic() - terminal.last >= DONE_AFTER and not (args.until_output and heard):
        ended = "done" if code == 0 else f"ended with status {code}"
        terminal.line(f"{args.label}: {ended} ({time.monotonic() - start:.0f} s)")
    terminal.end()
    return code if code >= 0 else 128 - code


def beat(label: str, elapsed: float, pip: Pip | None, status: str) -> str:
    """`label (N s): what the command is on`."""
    if pip:
        on = pip.on()
    else:
        try:
            on = Path(status).read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            on = ""
    return f"{label} ({elapsed:.0f} s)" + (f": {on.splitlines()[0][:120]}" if on else "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("label", help="what the command does, as the heartbeat says it")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    parser.add_argument("--every", type=float, default=EVERY, help="seconds of quiet before a heartbeat")
    parser.add_argument("--until-output", action="store_true",
                        help="heartbeats only until the command's first output (a server)")
    parser.add_argument("--log", help="write the command's output here instead of the terminal")
    parser.add_argument("--pip", metavar="TOTAL", help="the command is pip install: a line a package")
    parser.add_argument("--site", default="", help="with --pip: the site-packages pip installs into")
    args = parser.parse_args(argv)
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("no command: heartbeat.py LABEL -- COMMAND ARGS...")
    return run(args)


# -- the pytest plugin: what pytest is on, for the heartbeat (`pytest -p scripts.heartbeat`) --

_files = []


def _say(text: str) -> None:
    path = os.environ.get(STATUS)
    if path:
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError:
            pass


def pytest_load_initial_conftests(early_config, parser, args) -> None:
    _say("starting: importing the conftest.py files")


def pytest_collectstart(collector) -> None:
    if collector.nodeid and Path(collector.nodeid).suffix in (".py", ".ipynb"):
        _files.append(collector.nodeid)
        _say(f"collecting {collector.nodeid} ({len(_files)} files so far)")
    elif collector.nodeid:
        _say(f"collecting {collector.nodeid}/ (its conftest.py first)")


def pytest_collection_finish(session) -> None:
    _say(f"collected {len(session.items)} tests, starting the first")


def pytest_runtest_logstart(nodeid, location) -> None:
    _say(f"running {nodeid}")


# Under pytest-xdist (`test.sh quick`) each worker loads this plugin too: a worker says what it
# collects and runs, but ending is the controller's to say; an idle worker that ended first
# would say "exiting" while another still runs a test.
def _a_worker() -> bool:
    return bool(os.environ.get("PYTEST_XDIST_WORKER"))


def pytest_sessionfinish(session) -> None:
    if not _a_worker():
        _say("writing the summary")


def pytest_unconfigure(config) -> None:
    if not _a_worker():
        _say("exiting: Python closes what the tests left open")


if __name__ == "__main__":
    sys.exit(main())
