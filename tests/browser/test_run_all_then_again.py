"""Every notebook runs top to bottom, then its "Your turn", checker and hint() cells again.

A learner runs all, then goes back to the exercise: edits, re-runs the checker, asks
for `hint()`, runs "Your turn" once more. Each of those must work after Run All, in
both editions: no cell may depend on a resource a later cell closed (notebook 09's
client), and `hint` must answer wherever a checker tells the learner to run it.

One kernel per notebook (nbclient): all cells in order, then, in the same kernel, each
recognised cell again followed by a `hint()` cell. A cell is recognised when it calls
a checker (`check_...(`, the build track's `check("...")`) or `hint()`, or is the first code
cell under a "Your turn" heading (轮到你了 in the Chinese edition).

Left out: every order a learner could try (the re-runs are the ones a learner does),
and comparing outputs (nbval does that against the stored ones).
"""

import os
import re
import subprocess
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.helpers import load_script

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CHECKER = re.compile(r"\bcheck_\w+\(|\bcheck\(\"|\bhint\(\)")   # check("...") is the build track's
YOUR_TURN = re.compile(r"^#+ .*(Your turn|轮到你了)", re.M)
build = load_script("build_notebooks")
# The core path, then the labs, in each edition.
NOTEBOOKS = [build.Notebook(source).target for source in build.sources()]
ZH = [build.Notebook(source, zh=True).target for source in build.sources()]


def again(nb) -> list[int]:
    """Indexes of the cells a learner runs again after Run All."""
    chosen, under_your_turn = [], False
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            under_your_turn = under_your_turn or bool(YOUR_TURN.search(cell.source))
            continue
        if CHECKER.search(cell.source) or under_your_turn:
            chosen.append(index)
        under_your_turn = False
    return chosen


def errors(cell) -> list[str]:
    return [f"{o.ename}: {o.evalue}" for o in cell.get("outputs", []) if o.output_type == "error"]


def test_the_cells_run_again_are_found_in_notebook_09():
    nb = nbformat.read(ROOT / "notebooks" / "09_live_agent.ipynb", as_version=4)
    sources = [nb.cells[i].source for i in again(nb)]
    assert any("check_my_run(" in s and "live_run(" in s for s in sources)   # the live run again


def client_for(nb, path: Path) -> NotebookClient:
    """A client whose kernel runs in the notebook's folder, offline, in the language's default."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    kernel = build.KernelManager(kernel_name=build.KERNELSPEC["name"],
                                 kernel_spec_manager=build.ThisPython())
    return NotebookClient(nb, km=kernel, timeout=build.CELL_TIMEOUT,
                          kernel_name=build.KERNELSPEC["name"],
                          resources={"metadata": {"path": str(path.parent)}},
                          allow_errors=True, record_timing=False)


ENV = {**{k: v for k, v in os.environ.items() if k != build.LANG_ENV}, "COMPACT_OFFLINE": "1"}


@pytest.mark.parametrize("path", NOTEBOOKS + ZH,
                         ids=[p.relative_to(ROOT / "notebooks").as_posix() for p in NOTEBOOKS + ZH])
def test_run_all_then_the_exercise_cells_again(path):
    nb = nbformat.read(path, as_version=4)
    client = client_for(nb, path)
    failures = []
    with client.setup_kernel(stderr=subprocess.DEVNULL, env=ENV):
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
            failures += [f"run all, cell {index}: {e}" for e in errors(cell)]
        chosen = again(nb)
        for index in chosen:
            cell = nbformat.v4.new_code_cell(nb.cells[index].source)
            client.execute_cell(cell, index)
            failures += [f"again, cell {index}: {e}\n{cell.source[:200]}" for e in errors(cell)]
            asked = nbformat.v4.new_code_cell("hint()")
            client.execute_cell(asked, index)
            failures += [f"hint() after cell {index}: {e}" for e in errors(asked)]
    assert not failures, "\n".join(failures)
    assert chosen, f"{path.name}: no exercise cell found to run again"


SWITCHED = [p for p in NOTEBOOKS if "show_all = False" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", SWITCHED, ids=[p.stem for p in SWITCHED])
def test_a_labs_show_all_switch_runs_and_prints_more(path):
    # The reference tables a lab keeps behind `show_all` (issue 52: labs as lessons) are not
    # in the stored notebook, so nbval never runs them: switched on here, every cell runs.
    nb = nbformat.read(path, as_version=4)
    before = load_script("notebook_tables").printed_words(nb)
    for cell in nb.cells:
        cell.source = cell.source.replace("show_all = False", "show_all = True")
    client = client_for(nb, path)
    with client.setup_kernel(stderr=subprocess.DEVNULL, env=ENV):
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
    assert [e for cell in nb.cells for e in errors(cell)] == []
    assert load_script("notebook_tables").printed_words(nb) > before
