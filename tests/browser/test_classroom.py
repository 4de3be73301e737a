"""The classroom, tried as a learner would: the course command's JupyterLab on the tracked lessons.

- The lessons' folder lists the lessons: `src/`, `conftest.py`, `jupytext.toml` and
  `sanitize.cfg` are hidden from the file browser (course.sh's `hide_globs`); the
  notebooks, the Chinese edition and `docs/` are there.
- A lesson's link to `docs/` opens the page inside JupyterLab: the server's root is
  `notebooks/`, and `notebooks/docs` is a link to `docs/`, so `../docs/DESIGN.md`
  resolves to a page the server has.
- Opening a lesson, running every cell and closing it leaves `git status` as it was:
  the course's settings turn autosave off (scripts/jupyterlab/overrides.json), so only
  a learner's own Ctrl-S writes a tracked notebook. The test makes autosave fire after
  5 s, so that without the course's setting the rewrite happens while it watches.
- The README's nbconvert command leaves no file behind.

The browser is Debian's /usr/bin/chromium driven by playwright, as in
tests/browser/test_browser.py, whose helpers this file reuses; every wait is bounded.
"""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser.test_browser import (
    CHROMIUM,
    COURSE,
    SECONDS,
    chromium_page,  # noqa: F401  (a fixture: the browser tab)
    open_notebook,
    run_all_cells,
)
from tests.jupyterlab_server import DIRECT, LabServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
HIDDEN = ("src", "conftest.py", "jupytext.toml", "sanitize.cfg")
LESSON = "02_snip_compact.ipynb"     # quick to run, no model server
LINKING = "02_snip_compact.ipynb"  # links to docs/DESIGN.md (a test of the notebooks asserts it)

needs_the_course_venv = pytest.mark.skipif(
    Path(sys.prefix).resolve() != (ROOT / ".venv").resolve(),
    reason="the course command runs .venv's JupyterLab: run this test with .venv/bin/python")
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian's chromium is not installed (bash scripts/test.sh installs it)")


class CourseLab(LabServer):
    """The course command, with the learner's own settings left at JupyterLab's defaults,
    except an autosave interval of 5 s: a notebook marked changed would be written while
    the test looks, unless the course's settings turn autosave off."""

    def _settings(self) -> Path:
        folder = self.state_dir / "settings"
        # Every cell in the page, not only the visible ones, so a link can be found.
        for name, values in (("docmanager-extension/plugin", {"autosaveInterval": 5}),
                             ("notebook-extension/tracker", {"windowingMode": "none"})):
            path = folder / "@jupyterlab" / f"{name}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        return folder


def git_status() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout


def contents(lab, path: str = "") -> dict:
    with DIRECT.open(f"{lab.base_url}/api/contents/{path}?token={lab.token}", timeout=10) as answer:
        return json.load(answer)


@pytest.fixture
def course_lab(tmp_path):
    # A checkpoint is a copy made on save: into tmp, not beside the tracked notebooks.
    launcher = [*COURSE, f"--FileCheckpoints.checkpoint_dir={tmp_path / 'checkpoints'}"]
    with CourseLab(ROOT / "notebooks", tmp_path / "lab", launcher=launcher) as lab:
        yield lab


@needs_the_course_venv
def test_the_lessons_folder_lists_the_lessons(course_lab):
    names = {item["name"] for item in contents(course_lab)["content"]}
    assert not names & set(HIDDEN), names & set(HIDDEN)
    assert {"00_why_compaction.ipynb", "09_live_agent.ipynb", "labs", "zh", "docs"} <= names
    zh = {item["name"] for item in contents(course_lab, "zh")["content"]}
    assert {"00_why_compaction.ipynb", "labs"} <= zh and not zh & set(HIDDEN)
    labs = {item["name"] for item in contents(course_lab, "zh/labs")["content"]}
    assert "01_seed_vs_default.ipynb" in labs
    # Hidden from the listing only: the sources still open (Open With > Jupytext Notebook).
    assert contents(course_lab, "src/00_why_compaction.py")["type"] in ("file", "notebook")


@needs_the_course_venv
@needs_chromium
def test_a_docs_link_in_a_lesson_opens_the_page(course_lab, chromium_page):  # noqa: F811
    page = chromium_page
    open_notebook(page, course_lab, LINKING)
    link = page.locator('.jp-RenderedMarkdown a', has_text="docs/DESIGN.md").first
    link.scroll_into_view_if_needed(timeout=30 * SECONDS)
    link.click()
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.lm-TabBar-tab.lm-mod-current')]"
        ".some(t => t.textContent.includes('DESIGN.md'))", timeout=30 * SECONDS)
    assert "DESIGN.md" in tab.first.inner_text()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-MarkdownViewer, .jp-FileEditor')]"
        ".some(w => w.offsetParent !== null && w.textContent.includes('Design notes: what'))",
        timeout=30 * SECONDS)
    assert page.get_by_text("File Load Error").count() == 0
    # The Chinese edition's ../../docs/ links land on the same pages.
    assert contents(course_lab, "docs/GLOSSARY.md")["type"] in ("file", "notebook")


@needs_the_course_venv
@needs_chromium
def test_opening_running_and_closing_a_lesson_leaves_git_status_unchanged(
        course_lab, chromium_page):  # noqa: F811
    page = chromium_page
    before = git_status()
    open_notebook(page, course_lab, LESSON)
    run_all_cells(page)
    page.wait_for_timeout(8 * SECONDS)  # longer than the 5 s autosave interval
    assert git_status() == before, "opening and running the lesson rewrote a tracked file"
    page.locator(".lm-TabBar-tab.lm-mod-current .lm-TabBar-tabCloseIcon").first.click()
    discard = page.get_by_role("button", name=re.compile("Discard|Don't Save", re.I))
    if discard.count():  # the run changed outputs: closing asks, and the learner did not edit
        discard.first.click()
    page.wait_for_function(
        f"() => ![...document.querySelectorAll('.lm-TabBar-tab')]"
        f".some(t => t.textContent.includes('{LESSON}'))", timeout=30 * SECONDS)
    assert git_status() == before


def readme_nbconvert() -> str:
    readme = (ROOT / "docs" / "INSTALL.md").read_text(encoding="utf-8")
    found = re.findall(r"`(jupyter nbconvert [^`]+)`", readme)
    assert len(found) == 1, found
    return found[0]


def test_the_readmes_nbconvert_command_leaves_no_file_behind(tmp_path):
    before = git_status()
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               COMPACT_OFFLINE="1", JUPYTER_PLATFORM_DIRS="1", TMPDIR=str(tmp_path))
    command = readme_nbconvert()
    done = subprocess.run(["bash", "-c", command], cwd=ROOT / "notebooks", env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert git_status() == before, f"{shlex.quote(command)} left files in the checkout"


def test_the_readme_says_where_the_agent_works():
    readme = (ROOT / "docs" / "INSTALL.md").read_text(encoding="utf-8")
    assert "--workspace data/workspace" in readme
    assert re.search(r"`agent` and `run` work on a fresh copy of the sample workspace", readme)


