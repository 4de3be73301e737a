"""scripts/heartbeat.py: a command's output copied through, and a line when it goes quiet.

- the output is copied byte for byte (a line left open too) and the status is the command's
  (128 + N when a signal N ended it);
- quiet for --every seconds, a heartbeat: the label, the seconds so far and what the
  command wrote to HEARTBEAT_STATUS, on a line of its own even after an open line;
  with --until-output none after the first output (a server that is up may idle);
- a command that ends after a quiet spell gets one "done" line;
- with --pip: one line a package pip collects or processes, pip's own lines only in the log,
  and while pip installs, how many packages of its list have their .dist-info since;
- as a pytest plugin (`-p scripts.heartbeat`) it writes what pytest is on: the file it
  collects, the test it runs.
The sleeps are short (--every 0.3); tests/tooling/test_never_quiet.py runs the README's commands at
the real 7 s.
"""

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "heartbeat.py"
heartbeat = load_script("heartbeat")


def beat(*args, every="0.3", cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--every", every, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def python(code: str) -> list:
    return ["--", sys.executable, "-c", code]


def test_a_quick_command_is_copied_through_with_its_status():
    done = beat("demo", *python("import sys; print('a'); print('b', end=''); sys.exit(3)"))
    assert (done.returncode, done.stdout) == (3, "a\nb")


def test_a_command_ended_by_a_signal_exits_128_plus_it():
    done = beat("demo", *python("import os, signal; os.kill(os.getpid(), signal.SIGTERM)"))
    assert done.returncode == 128 + 15


@pytest.mark.slow
def test_a_quiet_command_gets_heartbeats_saying_what_it_is_on():
    code = ("import os, time; open(os.environ['HEARTBEAT_STATUS'], 'w').write('on step one');"
            "print('partial', end='', flush=True); time.sleep(1.2)")
    done = beat("demo", *python(code))
    assert done.returncode == 0
    # (Before the child writes, while Python starts, a heartbeat has nothing to add.)
    before, after = done.stdout.split("partial", 1)
    assert all(re.fullmatch(r"demo \(\d+ s\)(: on step one)?", b) for b in before.splitlines()), before
    assert after.startswith("\ndemo (")      # the open line closed first
    beats = after.splitlines()[1:]
    assert len(beats) >= 2 and all(re.fullmatch(r"demo \(\d+ s\): on step one", b) for b in beats), beats


@pytest.mark.slow
def test_until_output_stops_the_heartbeats_once_the_command_speaks():
    done = beat("--until-output", "server", *python(
        "import time; time.sleep(1); print('ready', flush=True); time.sleep(1.5)"))
    before, after = done.stdout.split("ready\n")
    assert re.search(r"^server \(\d+ s\)$", before, re.M) and after == "", done.stdout


@pytest.mark.slow
def test_a_command_that_ends_after_a_quiet_spell_gets_a_done_line():
    done = beat("demo", *python("import time; time.sleep(2.5)"), every="60")
    assert re.fullmatch(r"demo: done \(\d+ s\)\n", done.stdout), done.stdout
    failed = beat("demo", *python("import sys, time; time.sleep(2.5); sys.exit(4)"), every="60")
    assert re.fullmatch(r"demo: ended with status 4 \(\d+ s\)\n", failed.stdout) and failed.returncode == 4


FAKE_PIP = """
import os, sys, time
lines = ["Looking in indexes: https://pypi.org/simple",
         "Collecting alpha==1.0 (from -r requirements.txt (line 1))",
         "  Downloading alpha-1.0-py3-none-any.whl (10 kB)",
         "Processing /opt/pypi/files/beta_pkg-2.0-py3-none-any.whl (from -r requirements.txt (line 2))",
         "Installing collected packages: beta-pkg, alpha"]
print("\\n".join(lines), flush=True)
time.sleep(0.5)
os.mkdir(os.path.join(sys.argv[1], "beta_pkg-2.0.dist-info"))
time.sleep(1.2)
print("Successfully installed alpha-1.0 beta-pkg-2.0")
"""


@pytest.mark.slow
def test_pip_gets_a_line_a_package_and_a_count_while_it_installs(tmp_path):
    site, log = tmp_path / "site", tmp_path / "pip.log"
    site.mkdir()
    (site / "old-0.1.dist-info").mkdir()        # there before: not counted
    done = beat("--pip", "2", "--log", str(log), "--site", str(site), "setup.sh: installing",
                "--", sys.executable, "-c", FAKE_PIP, str(site))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith("  ")] == [
        "  [1/2] alpha==1.0", "  [2/2] beta_pkg==2.0", "  installing 2 packages"]
    assert any(re.fullmatch(r"setup.sh: installing \(\d+ s\): 1 of 2 installed, now alpha", line)
               for line in lines), lines
    assert "Downloading" not in done.stdout and "Downloading" in log.read_text()
    assert "Successfully installed" in log.read_text()


def test_pips_lines_name_the_package_it_is_on():
    pip = heartbeat.Pip("9", "")
    assert pip.read("Collecting anthropic==2.17.0 (from -r requirements.txt (line 2))") == \
        "[1/9] anthropic==2.17.0"
    assert pip.read("  Downloading anthropic-2.17.0-py3-none-any.whl (300 kB)") is None
    assert pip.on() == "downloading anthropic==2.17.0"
    assert pip.read("Processing /opt/wheels/pure_eval-0.2.3-py3-none-any.whl") == "[2/9] pure_eval==0.2.3"
    assert pip.on() == "on pure_eval==0.2.3"
    assert pip.read("  Building wheel for psutil (pyproject.toml): started") is None
    assert pip.on() == "building psutil"
    assert pip.read("Obtaining file:///work/repo") is None


def test_while_pip_installs_it_counts_its_list_and_names_the_next(tmp_path):
    pip = heartbeat.Pip("2", str(tmp_path))
    assert pip.read("Installing collected packages: pure_eval, Jinja2") == "installing 2 packages"
    assert pip.on() == "0 of 2 installed, now pure_eval"
    (tmp_path / "pure_eval-0.2.3.dist-info").mkdir()
    assert pip.on() == "1 of 2 installed, now Jinja2"
    (tmp_path / "jinja2-3.1.6.dist-info").mkdir()
    assert pip.on() == "all 2 installed, pip is finishing"


def test_a_dist_info_counts_once_made_after_pip_began_installing(tmp_path):
    (tmp_path / "websocket_client-1.9.2.dist-info").mkdir()
    (tmp_path / "Jinja2-3.1.6.dist-info").mkdir()
    names = ["websocket-client", "jinja2", "numpy"]
    assert heartbeat.installed(names, str(tmp_path), since=time.time() - 10) == 2
    assert heartbeat.installed(names, str(tmp_path), since=time.time() + 60) == 0
    assert heartbeat.installed(names, "", since=0) == 0


@pytest.mark.slow
def test_as_a_pytest_plugin_it_says_which_file_it_collects_and_which_test_it_runs(tmp_path):
    (tmp_path / "test_slow.py").write_text(
        "import time\ntime.sleep(1)\n\ndef test_sleeps():\n    time.sleep(1)\n", encoding="utf-8")
    # --rootdir: with none, pytest takes the common ancestor of the working folder and the
    # test's, which is /tmp for a checkout cloned under /tmp (CI's clean clone), and the
    # heartbeat names files from there.
    done = beat("pytest", "--", sys.executable, "-m", "pytest", "-p", "scripts.heartbeat", "-q",
                "-p", "no:randomly", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
                str(tmp_path / "test_slow.py"))
    assert done.returncode == 0, done.stdout
    said = done.stdout
    assert re.search(r"^pytest \(\d+ s\): collecting test_slow\.py \(1 files so far\)$", said, re.M), said
    assert re.search(r"^pytest \(\d+ s\): running test_slow\.py::test_sleeps$", said, re.M), said
    assert "1 passed" in done.stdout
