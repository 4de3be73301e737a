"""The README's two commands never go quiet for more than 10 s (issue 50).

`bash scripts/course.sh` and `bash scripts/test.sh quick` run in a copy of the scripts, with
a stand-in for each slow part that prints nothing for QUIET seconds (more than 10): making
the venv, pip installing (its packages' .dist-info made one by one), matplotlib's font
cache, JupyterLab starting, ruff, pytest importing a test file and running a test (the real
pytest, with the heartbeat plugin). Every line either command prints (a line ends at \\n or
\\r) is timed: no two are more than 10 s apart, and the heartbeats name what is running. The
stand-ins' sleeps add up to more than 10 s a phase, so without the heartbeats the gaps show.

Left out: the real pip and JupyterLab (docs/CONTRIBUTING.md gives a fresh install's figures),
and apt-get, which setup.sh runs only on a machine without the CJK font: there the test is
skipped rather than install it.
"""

import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUIET = 12      # seconds each stand-in keeps quiet: more than the 10 s promised
GAP = 10
CJK = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")

# The interpreter setup.sh makes the venv with: making the venv is the stand-in; anything
# else (scripts/heartbeat.py) runs on this Python.
FAKE_PYTHON = """#!/bin/bash
if [ "$1" = -m ] && [ "$2" = venv ]; then
  sleep "$QUIET"; mkdir -p "$3/bin"; cp "$FAKES"/venv/* "$3/bin/"; exit 0
fi
exec "$REAL" "$@"
"""
# The venv's python: pip and the font cache are stand-ins; pytest and heartbeat.py are real.
VENV_PYTHON = """#!/bin/bash
if [ "$1 $2" = "-m pip" ]; then
  echo "Collecting alpha==1.0 (from -r requirements.txt (line 1))"
  echo "Collecting beta==2.0 (from -r requirements.txt (line 2))"
  echo "Processing /opt/wheels/gamma-3.0-py3-none-any.whl (from -r requirements.txt (line 3))"
  echo "Installing collected packages: gamma, beta, alpha"
  for name in gamma beta alpha; do sleep $((QUIET / 3)); mkdir -p "$SITE/$name-1.0.dist-info"; done
  echo "Successfully installed alpha-1.0 beta-2.0 gamma-3.0"
  exit 0
fi
if [ "$1" = -c ]; then
  case "$2" in
    *sysconfig*) echo "$SITE"; exit 0 ;;
    *font_manager*) sleep "$FONT_QUIET"; exit 0 ;;
    *remove_stale_scratch*) exit 0 ;;
  esac
fi
exec "$REAL" "$@"
"""
RUFF = '#!/bin/bash\nsleep "$QUIET"\n'
JUPYTER = ('#!/bin/bash\nsleep "$QUIET"\n'
           'echo "[I ServerApp] Jupyter Server is running at: http://127.0.0.1:8888/lab"\n')
SLOW_TEST = f"import time\ntime.sleep({QUIET})\n\n\ndef test_slow():\n    time.sleep({QUIET})\n"


def executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def copy(tmp_path) -> Path:
    if not CJK.exists():
        pytest.skip("no CJK font: setup.sh would install fonts-noto-cjk")
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    for name in ("setup.sh", "course.sh", "test.sh", "heartbeat.py"):
        shutil.copy(ROOT / "scripts" / name, root / "scripts" / name)
    for name in ("requirements.txt", "requirements-test.txt", "pyproject.toml"):
        shutil.copy(ROOT / name, root / name)
    (root / "notebooks").mkdir()
    executable(root / "fakes" / "python3.11", FAKE_PYTHON)
    executable(root / "fakes" / "venv" / "python", VENV_PYTHON)
    executable(root / "fakes" / "venv" / "ruff", RUFF)
    executable(root / "fakes" / "venv" / "jupyter", JUPYTER)
    # The quick loop's two rooms: the slow stand-in in one, the other empty.
    for room in ("pipeline", "lessons"):
        (root / "tests" / room).mkdir(parents=True)
        (root / "tests" / room / "__init__.py").write_text("", encoding="utf-8")
    (root / "tests" / "pipeline" / "test_slow.py").write_text(SLOW_TEST, encoding="utf-8")
    (root / "site").mkdir()
    return root


def timed_lines(command: list, root: Path, **env) -> tuple[list, int]:
    """(seconds, line) for each line the command prints, stdout and stderr together."""
    environment = {**os.environ, "PYTHON": str(root / "fakes" / "python3.11"), "QUIET": str(QUIET),
                   "FAKES": str(root / "fakes"), "REAL": sys.executable, "SITE": str(root / "site"),
                   **env}
    environment.pop("COMPACT_LANG", None)
    start = time.monotonic()
    child = subprocess.Popen(command, cwd=root, env=environment, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    lines, pending = [], b""
    while chunk := os.read(child.stdout.fileno(), 65536):
        pending += chunk
        *done, pending = re.split(rb"[\r\n]", pending)
        lines += [(time.monotonic() - start, line.decode(errors="replace")) for line in done if line.strip()]
    code = child.wait(timeout=60)
    lines.append((time.monotonic() - start, "<end>"))
    return lines, code


def longest_gap(lines: list) -> tuple[float, str]:
    gaps = [(later[0] - earlier[0], later[1]) for earlier, later in zip([(0.0, "<start>"), *lines], lines)]
    return max(gaps)


def test_the_course_command_says_what_it_does_at_least_every_10_s(copy):
    lines, code = timed_lines(["bash", "scripts/course.sh"], copy, FONT_QUIET=str(QUIET))
    text = "\n".join(line for _, line in lines)
    assert code == 0, text
    assert lines[-1][0] > 4 * QUIET, text       # venv, pip, font cache, JupyterLab: each quiet
    gap, before = longest_gap(lines)
    assert gap <= GAP, f"{gap:.1f} s of silence before {before!r}:\n{text}"
    for said in (r"setup\.sh: making \.venv \(\d+ s\)",
                 r"setup\.sh: installing \(\d+ s\): \d of 3 installed, now (gamma|beta|alpha)",
                 r"setup\.sh: building matplotlib's font cache \(\d+ s\)",
                 r"course\.sh: starting JupyterLab \(\d+ s\)"):
        assert re.search(said, text), said
    assert "[3/" in text and "Jupyter Server is running" in text


def test_the_test_command_says_what_it_does_at_least_every_10_s(copy):
    # A venv already made for the tests: setup.sh's stamp names this set and these files.
    venv = copy / ".venv" / "bin"
    shutil.copytree(copy / "fakes" / "venv", venv)
    pins = b"".join((copy / name).read_bytes()
                    for name in ("requirements.txt", "requirements-test.txt", "pyproject.toml"))
    (copy / ".venv" / ".requirements.sha").write_text(f"test {hashlib.sha256(pins).hexdigest()}\n")
    lines, code = timed_lines(["bash", "scripts/test.sh", "quick", "-p", "no:randomly",
                               "-p", "no:cacheprovider"], copy, FONT_QUIET="0")
    text = "\n".join(line for _, line in lines)
    assert code == 0, text
    assert lines[-1][0] > 3 * QUIET, text       # ruff, importing the test file, the test
    gap, before = longest_gap(lines)
    assert gap <= GAP, f"{gap:.1f} s of silence before {before!r}:\n{text}"
    for said in (r"test\.sh: lint \(\d+ s\)",
                 r"test\.sh: pytest \(\d+ s\): collecting tests/pipeline/test_slow\.py \(1 files so far\)",
                 r"test\.sh: pytest \(\d+ s\): running tests/pipeline/test_slow\.py::test_slow"):
        assert re.search(said, text), said
    assert "1 passed" in text
