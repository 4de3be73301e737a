"""JupyterLab with jupytext opens a notebook source as a notebook, and saves it unchanged.

The server (tests/jupyterlab_server.py) serves a temporary copy of one source
and notebooks/jupytext.toml. Through the contents API, as the JupyterLab page
does: the source comes back as a notebook with the cells the build makes of it;
saved back with a kernel in its metadata (what a page adds), the file on disk is
the same bytes, and no paired .ipynb appears beside it.
"""

import json
import shutil
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import load_builder
from tests.jupyterlab_server import DIRECT, LabServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "notebooks" / "src" / "03_micro_compact.py"


def test_a_source_opens_as_a_notebook_and_saves_back_the_same_bytes(tmp_path):
    served = tmp_path / "notebooks"
    (served / "src").mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / "jupytext.toml", served)
    copy = served / "src" / SOURCE.name
    shutil.copy(SOURCE, copy)
    with LabServer(served, tmp_path / "lab") as lab:
        url = f"{lab.base_url}/api/contents/src/{SOURCE.name}"
        with DIRECT.open(f"{url}?type=notebook&content=1&token={lab.token}", timeout=30) as answer:
            model = json.load(answer)
        assert model["type"] == "notebook"
        built = load_builder().to_notebook(SOURCE.read_text(encoding="utf-8"), SOURCE.stem)
        cells = model["content"]["cells"]
        assert [(c["cell_type"], c["source"]) for c in cells] == [
            (c.cell_type, c.source) for c in built.cells]

        model["content"]["metadata"]["kernelspec"] = {
            "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
        body = json.dumps({"type": "notebook", "format": "json", "content": model["content"]})
        request = urllib.request.Request(f"{url}?token={lab.token}", data=body.encode(), method="PUT",
                                         headers={"Content-Type": "application/json"})
        with DIRECT.open(request, timeout=30) as answer:
            assert answer.status == 200
    assert copy.read_bytes() == SOURCE.read_bytes()
    assert sorted(p.name for p in copy.parent.iterdir()) == [SOURCE.name]
