"""The course in a real browser: JupyterLab, the threshold widgets, a slider that redraws.

nbval checks what the notebooks print; it cannot see a widget. This test opens
one notebook in JupyterLab in headless Chromium (Debian's /usr/bin/chromium,
driven by PyPI's playwright; no browser is downloaded), runs all its cells from
the Run menu, waits for the threshold explorer to render, moves the
`context_char_limit` slider one step with the keyboard, and checks that the
kernel redrew the charts: the slider's readout and the first chart's image both
change.

JupyterLab serves a temporary copy of the notebook on 127.0.0.1 (see
tests/jupyterlab_server.py) and is stopped whatever happens. Every wait is
bounded. The screenshot of the last state is written to the test's tmp folder.
"""

import shutil
from pathlib import Path

import pytest

from tests.jupyterlab_server import LabServer

CHROMIUM = Path("/usr/bin/chromium")
NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "07_compact_tool.ipynb"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]
SECONDS = 1000  # playwright waits in milliseconds

SLIDER = ".widget-slider"
SLIDER_NAME = "context_char_limit"
CHART = ".widget-output img"
ERROR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian's chromium is not installed (bash scripts/test.sh installs it)")


def open_notebook(page, url: str) -> None:
    page.goto(url, timeout=60 * SECONDS)
    page.wait_for_selector(".jp-NotebookPanel", timeout=60 * SECONDS)
    page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]',
                           timeout=60 * SECONDS)


def run_all_cells(page) -> None:
    page.click('.lm-MenuBar-itemLabel:text-is("Run")')
    page.click('.lm-Menu-item[data-command="runmenu:run-all"]')


def wait_until_done(page) -> None:
    """Every cell has run: no prompt says [*] and the kernel is idle."""
    page.wait_for_function(
        """() => {
            const busy = [...document.querySelectorAll('.jp-InputPrompt')]
                .some(p => p.textContent.includes('*'));
            const idle = document.querySelector(
                '.jp-Notebook-ExecutionIndicator[data-status="idle"]');
            return !busy && idle !== null;
        }""", timeout=90 * SECONDS)


def wait_for_slider_or_error(page, slider) -> None:
    """The explorer renders, or a cell fails: then say which error, at once."""
    handle_or_error = slider.locator(".noUi-handle").or_(page.locator(ERROR_OUTPUT))
    handle_or_error.first.wait_for(timeout=90 * SECONDS)
    errors = page.locator(ERROR_OUTPUT)
    assert errors.count() == 0, f"a cell failed: {errors.first.inner_text()[-1500:]}"


def chart_source(page) -> str:
    return page.locator(CHART).first.get_attribute("src")


@pytest.fixture
def lab(tmp_path):
    served = tmp_path / "notebooks"
    served.mkdir()
    shutil.copy(NOTEBOOK, served / NOTEBOOK.name)
    with LabServer(served, tmp_path / "lab") as server:
        yield server


def test_moving_a_slider_redraws_the_charts(lab, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            open_notebook(page, lab.notebook_url(NOTEBOOK.name))
            run_all_cells(page)
            slider = page.locator(SLIDER, has_text=SLIDER_NAME).first
            wait_for_slider_or_error(page, slider)
            page.wait_for_selector(CHART, timeout=60 * SECONDS)
            wait_until_done(page)
            assert page.locator(ERROR_OUTPUT).count() == 0, "a cell wrote an error or a warning"

            readout = slider.locator(".widget-readout")
            readout_before = readout.inner_text()
            chart_before = chart_source(page)
            slider.locator(".noUi-handle").focus()
            page.keyboard.press("ArrowRight")
            page.wait_for_function(
                """([selector, before]) => {
                    const image = document.querySelector(selector);
                    return image !== null && image.getAttribute('src') !== before;
                }""", arg=[CHART, chart_before], timeout=60 * SECONDS)

            # One step up: the article's 50000 plus the slider's step.
            assert int(readout.inner_text()) > int(readout_before)
            assert chart_source(page).startswith("data:image/png")
            assert chart_source(page) != chart_before
        finally:
            page.screenshot(path=str(tmp_path / "browser.png"), full_page=True)
            browser.close()
