"""The course in a real browser: JupyterLab, the threshold widgets, a slider that redraws.

nbval checks what the notebooks print; it cannot see a widget. This test opens
one notebook in JupyterLab in headless Chromium (Debian's /usr/bin/chromium,
driven by PyPI's playwright; no browser is downloaded), runs all its cells from
the Run menu, waits for the threshold explorer to render, moves the
`context_char_limit` slider one step with the keyboard, and checks that the
kernel redrew the charts: the slider's readout goes up and the first chart's
image changes.

JupyterLab serves a temporary copy of the notebook (outputs and execution
counts removed, so "every cell has a count" means "ran in this test") on
127.0.0.1 (see tests/jupyterlab_server.py), and is stopped whatever happens.
Every wait is bounded. A screenshot of the last state goes to the test's tmp
folder, for a look when it fails.

The course command itself (`bash scripts/course.sh`, with a port and a token
added) is opened too: its first page must be notebook 00, with no "official
Jupyter news" prompt over it. A plain JupyterLab on the same folder and page,
without the course's settings folder, does show the prompt here, so the check
can see it and its absence is the command's doing. The same goes for the kernels' "running
over TCP without encryption" warning: the course command's kernels use IPC, so running
notebook 00 there prints none, while the plain JupyterLab's kernel prints it. And a stored
notebook opened there, its kernel connected, has no "unsaved" mark on its tab.
"""

import os
import re
import sys
import time
from pathlib import Path

import nbformat
import pytest

from tests.jupyterlab_server import LabServer

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
# A notebook with a threshold explorer (tests/lessons/test_notebook_sources.py: EXPLORERS).
NOTEBOOK = ROOT / "notebooks" / "01_tool_result_budget.ipynb"
COURSE = ["bash", str(ROOT / "scripts" / "course.sh")]
FIRST_NOTEBOOK = "00_why_compaction.ipynb"
NEWS_PROMPT = "Would you like to get notified about official Jupyter news?"
TCP_WARNING = "Kernel is running over TCP without encryption"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]
SECONDS = 1000  # playwright waits in milliseconds

SLIDER = ".widget-slider"
SLIDER_NAME = "context_char_limit"
CHART = ".widget-output img"
ERROR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
PROGRESS = r"""() => {
    const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
        .map(p => p.textContent);
    return {total: prompts.length,
            done: prompts.filter(t => /\[\d+\]/.test(t)).length,
            busy: prompts.some(t => t.includes('*'))};
}"""
CHART_CHANGED = """([selector, before]) => {
    const image = document.querySelector(selector);
    return image !== null && image.getAttribute('src') !== before;
}"""

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian's chromium is not installed (bash scripts/test.sh installs it)")]


def open_notebook(page, lab, name: str) -> None:
    page.goto(lab.notebook_url(name), timeout=60 * SECONDS)
    page.wait_for_selector(".jp-NotebookPanel", timeout=60 * SECONDS)
    lab.wait_for_connected_kernel()
    page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]',
                           timeout=60 * SECONDS)


def click_run_all(page) -> None:
    page.click('.lm-MenuBar-itemLabel:text-is("Run")')
    page.click('.lm-Menu-item[data-command="runmenu:run-all"]')


def assert_no_error(page) -> None:
    errors = page.locator(ERROR_OUTPUT)
    assert errors.count() == 0, f"a cell failed: {errors.first.inner_text()[-1500:]}"


def run_all_cells(page, timeout: float = 90, tries: int = 3) -> None:
    """Run > Run All Cells, until every code cell has an execution count.

    A command given while the page is still starting its kernel is dropped
    (the cells go back to `[ ]` without running). `open_notebook` waits for a
    connected kernel; as a safety net, when nothing is running and not
    everything is done, the command is given again, at most `tries` times,
    never sooner than 5 s after the last one.
    """
    deadline = time.monotonic() + timeout
    clicks, last_click, state = 0, float("-inf"), {}
    while time.monotonic() < deadline:
        assert_no_error(page)
        state = page.evaluate(PROGRESS)
        if state["total"] and state["done"] == state["total"] and not state["busy"]:
            return
        if not state["busy"] and time.monotonic() - last_click > 5:
            assert clicks < tries, f"Run All Cells did not run the notebook in {tries} tries"
            click_run_all(page)
            clicks, last_click = clicks + 1, time.monotonic()
        time.sleep(0.5)
    raise AssertionError(f"the notebook did not finish within {timeout:.0f} s: {state}")


def chart_source(page) -> str:
    return page.locator(CHART).first.get_attribute("src")


@pytest.fixture
def lab(tmp_path):
    served = tmp_path / "notebooks"
    served.mkdir()
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(notebook, served / NOTEBOOK.name)
    with LabServer(served, tmp_path / "lab") as server:
        yield server


def test_moving_a_slider_redraws_the_charts(lab, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            open_notebook(page, lab, NOTEBOOK.name)
            run_all_cells(page)
            slider = page.locator(SLIDER, has_text=SLIDER_NAME).first
            slider.locator(".noUi-handle").wait_for(timeout=30 * SECONDS)
            page.wait_for_selector(CHART, timeout=30 * SECONDS)

            readout = slider.locator(".widget-readout")
            # The readout is drawn a moment after the handle: read it once it shows a number
            # (read at once, it was '' in one run of two on a loaded machine).
            sync_api.expect(readout).to_have_text(re.compile(r"^\d+$"), timeout=30 * SECONDS)
            # text_content, as expect reads it: inner_text is '' while the readout is not laid
            # out (a loaded machine, in CI's runs)
            readout_before = readout.text_content().strip()
            chart_before = chart_source(page)
            slider.locator(".noUi-handle").focus()
            page.keyboard.press("ArrowRight")
            page.wait_for_function(CHART_CHANGED, arg=[CHART, chart_before],
                                   timeout=60 * SECONDS)

            # Under load the readout is '' for a moment after the key press: wait for a number
            # other than the one before, then compare.
            sync_api.expect(readout).to_have_text(re.compile(rf"^(?!{readout_before}$)\d+$"),
                                                  timeout=60 * SECONDS)
            assert int(readout.text_content()) > int(readout_before)
            assert chart_source(page).startswith("data:image/png")
            assert_no_error(page)
        finally:
            page.screenshot(path=str(tmp_path / "browser.png"))
            browser.close()


# -- the course command ------------------------------------------------------------------

@pytest.fixture
def chromium_page(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            yield page
        finally:
            page.screenshot(path=str(tmp_path / "browser.png"))
            browser.close()


def first_page(page, tmp_path, launcher, run: bool = False, then=None) -> str:
    """Start a launcher, open its root URL; the notebook tab it lands on.

    Its kernel is started and connected before the server stops (run=True: every cell ran;
    `then(page)` is called while the server still runs); what the server and the kernel
    printed stays in lab_log(tmp_path).
    """
    # Opening a notebook makes a checkpoint copy: into tmp, not beside the tracked notebooks.
    launcher = [*launcher, f"--FileCheckpoints.checkpoint_dir={tmp_path / 'checkpoints'}"]
    with LabServer(ROOT / "notebooks", tmp_path / "lab", launcher=launcher) as lab:
        page.goto(f"{lab.base_url}/?token={lab.token}", timeout=60 * SECONDS)
        page.wait_for_selector(".jp-NotebookPanel", timeout=60 * SECONDS)
        # The prompt comes once the app is restored; give it the time it takes here, twice over.
        page.wait_for_selector(".jp-LabShell[data-shell-mode]", timeout=30 * SECONDS)
        page.wait_for_timeout(4 * SECONDS)
        assert page.url.split("?")[0] == f"{lab.base_url}/lab/tree/{FIRST_NOTEBOOK}"
        lab.wait_for_connected_kernel()
        if run:
            run_all_cells(page)
        if then is not None:
            then(page)
        return page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current").inner_text()


def lab_log(tmp_path) -> str:
    return (tmp_path / "lab" / "jupyterlab.log").read_text(errors="replace")


def test_the_course_command_opens_notebook_00_with_no_news_prompt(chromium_page, tmp_path):
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        pytest.skip("the course command runs .venv's JupyterLab: run this test with .venv/bin/python")
    tab = first_page(chromium_page, tmp_path, COURSE, run=True)
    assert tab.strip() == FIRST_NOTEBOOK
    assert chromium_page.get_by_text(NEWS_PROMPT).count() == 0
    assert_no_error(chromium_page)
    # Its kernel started and ran every cell, over IPC: no TCP warning.
    assert "Kernel started" in lab_log(tmp_path)
    assert TCP_WARNING not in lab_log(tmp_path)


def test_a_plain_jupyterlab_shows_the_prompt_the_course_command_hides(chromium_page, tmp_path):
    plain = [sys.executable, "-m", "jupyterlab", "--ip=127.0.0.1", f"--notebook-dir={ROOT / 'notebooks'}",
             f"--LabApp.default_url=/lab/tree/{FIRST_NOTEBOOK}",
             *(["--allow-root"] if os.geteuid() == 0 else [])]
    assert first_page(chromium_page, tmp_path, plain).strip() == FIRST_NOTEBOOK
    # Looked for after the same wait as above: that wait is long enough to see it.
    assert chromium_page.get_by_text(NEWS_PROMPT).count() == 1
    # A kernel started the default way (TCP) warns: the check above can see the warning.
    assert TCP_WARNING in lab_log(tmp_path)


def test_the_course_command_opens_the_chinese_edition_with_zh(chromium_page, tmp_path):
    # `course.sh zh` serves notebooks/zh/: the same first page, its prose in Chinese.
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        pytest.skip("the course command runs .venv's JupyterLab: run this test with .venv/bin/python")
    tab = first_page(chromium_page, tmp_path, [*COURSE, "zh"])
    assert tab.strip() == FIRST_NOTEBOOK
    # The notebook's own title (the table of contents holds a hidden copy of it).
    title = chromium_page.locator(".jp-NotebookPanel .jp-RenderedMarkdown h1").first
    assert "为什么要压缩" in title.inner_text(timeout=30 * SECONDS)
    assert chromium_page.get_by_text(NEWS_PROMPT).count() == 0


# -- a stored notebook opens clean ------------------------------------------------------------

DIRTY_TAB = ".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current.jp-mod-dirty"


@pytest.mark.parametrize("edition", ["", "zh"])
def test_a_stored_notebook_opens_in_the_course_command_with_no_unsaved_mark(
        chromium_page, tmp_path, edition):
    # On connect JupyterLab writes the kernel's language_info and kernelspec into the
    # notebook's metadata; a value that differs from the stored one (the kernel's "3.11.7"
    # for the stored "3.11") marks the document changed: the tab's dot, and a prompt on close.
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        pytest.skip("the course command runs .venv's JupyterLab: run this test with .venv/bin/python")
    seen = {}

    def look(page):
        page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]',
                               timeout=60 * SECONDS)
        page.wait_for_timeout(3 * SECONDS)  # the kernel's info reply has been applied
        current = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
        seen.update(tabs=current.count(), dirty=page.locator(DIRTY_TAB).count(),
                    classes=current.first.get_attribute("class"))

    tab = first_page(chromium_page, tmp_path, [*COURSE, *([edition] if edition else [])], then=look)
    assert tab.strip() == FIRST_NOTEBOOK
    assert seen["tabs"] == 1 and seen["dirty"] == 0, seen
    # The course's contents manager serves it, with jupytext's built on top (.py sources open).
    assert ("Deriving an AsyncTextFileContentsManager from CourseContentsManager"
            in lab_log(tmp_path))


# -- the learner's own file opens in the editor ------------------------------------------------

@pytest.mark.parametrize("edition", ["", "zh"])
def test_double_clicking_my_compact_py_opens_it_in_the_editor(chromium_page, tmp_path, edition):
    # Notebooks 01-08 say "double-click `my_compact.py` in the file browser": with jupytext
    # installed a .py could open as a notebook; the learner's file must open as text to edit.
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        pytest.skip("the course command runs .venv's JupyterLab: run this test with .venv/bin/python")
    seen = {}

    def open_mine(page):
        listing = page.locator(".jp-DirListing-item", has_text="my_compact.py")
        if not listing.first.is_visible():   # the file browser folded away: open its tab
            page.locator('.jp-SideBar [data-id="filebrowser"]').first.click()
        listing.first.dblclick(timeout=30 * SECONDS)
        editor = page.locator(".jp-FileEditor .cm-content").last
        editor.wait_for(timeout=60 * SECONDS)
        current = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
        seen.update(tab=current.inner_text().strip(), text=editor.text_content(),
                    notebooks=page.locator(".jp-NotebookPanel:visible").count())

    first_page(chromium_page, tmp_path, [*COURSE, *([edition] if edition else [])], then=open_mine)
    assert seen["tab"] == "my_compact.py", seen
    assert "def tool_result_budget(" in seen["text"]   # the starter's first step, as text
    assert seen["notebooks"] == 0                     # the editor, not a notebook, in front
