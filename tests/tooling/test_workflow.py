"""The CI workflow for people who fork: valid under actionlint, and it runs the README's test command.

actionlint is the `actionlint` command that requirements-test.txt installs into
this interpreter's folder; it reads the workflow's YAML, its expressions and its
`run:` scripts. A broken copy of the workflow must fail the same check, so a
pass means something.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "tests.yml"
ACTIONLINT = Path(sys.executable).parent / "actionlint"


def actionlint(path: Path) -> subprocess.CompletedProcess:
    if not ACTIONLINT.exists():
        pytest.fail(f"{ACTIONLINT} is missing: pip install -r requirements-test.txt")
    return subprocess.run([str(ACTIONLINT), "-no-color", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_the_workflow_passes_actionlint():
    result = actionlint(WORKFLOW)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_broken_workflow_fails_actionlint(tmp_path):
    broken = tmp_path / "tests.yml"
    broken.write_text(WORKFLOW.read_text(encoding="utf-8").replace("runs-on:", "runs_on:"))
    result = actionlint(broken)
    assert result.returncode != 0 and '"runs-on" section is missing' in result.stdout


def test_the_workflow_installs_chromium_and_bubblewrap_then_runs_the_readme_command():
    steps = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["test"]["steps"]
    scripts = [step.get("run", "") for step in steps]
    installs = [s for s in scripts if "apt-get install" in s]
    assert installs and all(name in installs[0] for name in ("chromium", "bubblewrap"))
    assert scripts[-1].strip() == "bash scripts/test.sh"
    assert "    bash scripts/test.sh\n" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_versions_job_runs_the_tests_on_every_python_the_readme_names():
    job = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["versions"]
    # debian:bookworm's python3 is Debian 12's 3.11.2; the python images put theirs first on PATH.
    assert job["strategy"]["matrix"]["image"] == ["debian:bookworm", "python:3.12-bookworm",
                                                  "python:3.13-bookworm"]
    readme = " ".join((ROOT / "docs" / "INSTALL.md").read_text(encoding="utf-8").split())
    assert "tests pass on 3.11 (Debian 12's own `python3`, 3.11.2, included), 3.12 and 3.13" in readme
    scripts = "\n".join(step.get("run", "") for step in job["steps"])
    assert "pip install --quiet -r requirements-test.txt" in scripts
    assert scripts.rstrip().endswith("python -m pytest tests")


@pytest.mark.parametrize("name", ["README.md", "README.zh.md"])
def test_the_readme_is_a_landing_page_that_links_the_pages_it_left(name):
    # Issue 40: at most 200 lines; installing, safety and the class set-up are pages of docs/,
    # in both editions (README.zh.md kept a stale copy of the class set-up).
    readme = (ROOT / name).read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200, len(readme.splitlines())
    for page in ("docs/INSTALL.md", "docs/SAFETY.md", "docs/CLASS.md", "docs/RECIPE.md"):
        assert f"]({page})" in readme and (ROOT / page).is_file(), page
    assert "## Safety" not in readme and "## One machine for a class" not in readme
    assert "## 一台机器给全班用" not in readme and "class_keys.py" not in readme
    for target in re.findall(r"\]\(([^)#]+)", readme):
        assert target.startswith("http") or (ROOT / target).exists(), (name, target)
    assert "from context_compact import ContextCompactor" in readme   # the lines for your own agent
