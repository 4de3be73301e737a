"""A notebook's cells run in their own order, whatever order the other tests run in.

`-p randomly` (pytest-randomly) and `--reverse` (pytest-reverse) reorder the
collected tests to show any test that depends on another. A notebook is one
test in many cells that share a kernel: its cells go back to cell order, one
notebook after the other, where the first of them landed. Which notebook runs
first is left as the reordering chose: each has a kernel of its own.

nbval names a cell by its number among the code cells ("Cell 4"); a failing
cell's report also names its stable id (scripts/build_notebooks.py), the one
its source and the notebook's diff show.
"""

import pytest
from nbval.plugin import IPyNbCell


def pytest_collection_modifyitems(items):
    cells = [item for item in items if isinstance(item, IPyNbCell)]
    if not cells:
        return
    others = [item for item in items if not isinstance(item, IPyNbCell)]
    at = items.index(cells[0])  # no cell comes before the first one
    notebooks = list(dict.fromkeys(cell.parent for cell in cells))
    # Cells of one notebook stay together: between two of them the kernel would restart.
    ordered = [cell for notebook in notebooks
               for cell in sorted((c for c in cells if c.parent is notebook), key=lambda c: c.cell_num)]
    items[:] = others[:at] + ordered + others[at:]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if isinstance(item, IPyNbCell) and report.failed and item.cell.get("id"):
        report.sections.append(("cell id", item.cell.id))
