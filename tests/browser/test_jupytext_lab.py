"""JupyterLab with jupytext opens a notebook source as a notebook, and saves it unchanged.

The server (tests/jupyterlab_server.py) serves a temporary copy of one source
and notebooks/jupytext.toml. Through the contents API, as the JupyterLab page
does: the source comes back as a notebook with the cells the build makes of it,
each markdown cell's stable id in its metadata; saved back with a kernel in its
metadata (what a page adds), the file on disk is the same bytes, and no paired
.ipynb appears beside it. The same for the source's Chinese catalogue
(notebooks/src/zh/), whose cells are matched to the English ones by those ids.

And in a real page (headless Chromium, as tests/browser/test_browser.py drives it): the
source opened with Open With > Jupytext Notebook, one markdown cell edited and
a markdown cell added, saved with Ctrl-S: the edited cell and every other keep
their ids, the new cell has none, and the build refuses it naming its position.
"""

import difflib
import json
import shutil
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import load_builder
from tests.jupyterlab_server import DIRECT, LabServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "notebooks" / "src"
SOURCE = SRC / "03_micro_compact.py"
BUILD = load_builder()
CHROMIUM = Path("/usr/bin/chromium")
SECONDS = 1000  # playwright waits in milliseconds
EDITING = ".jp-Notebook.jp-mod-editMode .jp-MarkdownCell .cm-focused"


def expected_cells(source: Path) -> list:
    """(kind, id in the metadata, text) of each cell, as the build reads the source."""
    text = source.read_text(encoding="utf-8")
    if source.parent.name == "zh":
        english = SOURCE.read_text(encoding="utf-8")
        catalogue = BUILD.read_prose(text, "zh/" + source.name, english)
        return [("markdown", cell_id, prose) for cell_id, prose in catalogue.items()]
    return [(c.cell_type, c.id if c.cell_type == "markdown" else None, c.source)
            for c in BUILD.to_notebook(text, source.stem).cells]


@pytest.mark.parametrize("source", [SOURCE, SRC / "zh" / SOURCE.name], ids=["en", "zh"])
def test_a_source_opens_as_a_notebook_and_saves_back_the_same_bytes(tmp_path, source):
    served = tmp_path / "notebooks"
    (served / "src").mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / "jupytext.toml", served)
    copy = served / "src" / source.name
    shutil.copy(source, copy)
    with LabServer(served, tmp_path / "lab") as lab:
        url = f"{lab.base_url}/api/contents/src/{source.name}"
        with DIRECT.open(f"{url}?type=notebook&content=1&token={lab.token}", timeout=30) as answer:
            model = json.load(answer)
        assert model["type"] == "notebook"
        cells = model["content"]["cells"]
        assert [(c["cell_type"], c["metadata"].get("id"), c["source"]) for c in cells] == \
            expected_cells(source)

        model["content"]["metadata"]["kernelspec"] = {
            "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
        body = json.dumps({"type": "notebook", "format": "json", "content": model["content"]})
        request = urllib.request.Request(f"{url}?token={lab.token}", data=body.encode(), method="PUT",
                                         headers={"Content-Type": "application/json"})
        with DIRECT.open(request, timeout=30) as answer:
            assert answer.status == 200
    assert copy.read_bytes() == source.read_bytes()
    assert sorted(p.name for p in copy.parent.iterdir()) == [source.name]


def served_copy(tmp_path: Path, source: Path) -> Path:
    served = tmp_path / "notebooks"
    (served / "src").mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / "jupytext.toml", served)
    return Path(shutil.copy(source, served / "src" / source.name))


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
def test_jupyterlab_keeps_the_ids_of_an_edited_source_and_a_new_cell_is_refused(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    copy = served_copy(tmp_path, SOURCE)
    before = copy.read_text(encoding="utf-8")
    with LabServer(copy.parent.parent, tmp_path / "lab") as lab, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.goto(f"{lab.base_url}/lab/tree/src?token={lab.token}", timeout=60 * SECONDS)
            item = page.locator(".jp-DirListing-item", has_text=SOURCE.name)
            item.wait_for(timeout=60 * SECONDS)
            item.click(button="right")
            page.locator(".lm-Menu-itemLabel", has_text="Open With").hover()
            page.locator(".lm-Menu-itemLabel", has_text="Jupytext Notebook").click()
            page.wait_for_selector(".jp-NotebookPanel", timeout=60 * SECONDS)
            page.locator(".jp-Dialog-button", has_text="No Kernel").click()   # prose only
            page.locator(".jp-MarkdownCell").first.click()
            page.keyboard.press("Enter")
            page.wait_for_selector(EDITING, timeout=10 * SECONDS)
            page.keyboard.press("Control+End")
            page.keyboard.type(" Edited in the browser.")
            page.keyboard.press("Escape")
            page.keyboard.press("b")   # a cell below the first, made markdown
            page.keyboard.press("m")
            page.keyboard.press("Enter")
            page.wait_for_selector(EDITING, timeout=10 * SECONDS)
            page.keyboard.type("A new cell.")
            page.keyboard.press("Escape")
            page.keyboard.press("Control+s")
            deadline = time.monotonic() + 30
            while copy.read_text(encoding="utf-8") == before and time.monotonic() < deadline:
                time.sleep(0.2)
        finally:
            page.screenshot(path=str(tmp_path / "browser.png"))
            browser.close()
    after = copy.read_text(encoding="utf-8")
    changed = [line for line in difflib.ndiff(before.splitlines(), after.splitlines())
               if line.startswith(("- ", "+ "))]
    assert changed == [
        "- #     [Earlier tool result omitted.]",
        "+ #     [Earlier tool result omitted.] Edited in the browser.",
        "+ ", "+ # %% [markdown]", "+ # A new cell."], changed
    with pytest.raises(BUILD.BuildError, match="03_micro_compact cell 1: a markdown cell without an id"):
        BUILD.to_notebook(after, SOURCE.stem)
