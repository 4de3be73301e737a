"""Stored outputs show no prediction's answer: 03's, 05's, lab 06's and 09's (issue 40).

Lab 06 shows the server's answer to its prediction in a cell that opens with
`revealed("dropped_paths")`; built by Run All, that cell stored the one-line notice and
no stored output after the prediction holds the answer. Notebook 09's prediction is the
default run of experiment 3, which only "Your turn" runs, and the stored "Your turn" is
the seed run.

Left out: what a learner's own run prints once the answer is revealed (tests/lessons/test_reveal.py).
"""

from pathlib import Path

import nbformat
import pytest

from compact_course.display.phrases import say
from compact_course.lessons.exercises import live
from compact_course.lessons.exercises.dropped import expected

ROOT = Path(__file__).resolve().parents[2]


def stored(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def after_the_prediction(path: Path, checker: str) -> list:
    nb = nbformat.read(path, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    at = next(i for i, cell in enumerate(code) if f"{checker}(" in cell.source)
    return code[at + 1:]


@pytest.mark.parametrize("edition, lang", [("", "en"), ("zh/", "zh")])
def test_lab_06_holds_the_servers_answer_back(edition, lang):
    cells = after_the_prediction(ROOT / "notebooks" / f"{edition}labs" / "06_todays_api.ipynb",
                                 "check_dropped_paths")
    [answer] = [cell for cell in cells if 'revealed("dropped_paths")' in cell.source]
    assert stored(answer) == say("check held back", lang) + "\n"
    paths = [str(value) for value in expected().values() if value]
    assert not any(p in stored(cell) for cell in cells for p in paths)


@pytest.mark.parametrize("edition", ["", "zh/"])
def test_notebook_09_stores_no_record_of_the_predicted_run(edition):
    # Built with the prediction None: the cell that runs the learner's prepare and checks the
    # prediction, and every cell after it, store no step fired at any call.
    nb = nbformat.read(ROOT / "notebooks" / f"{edition}09_live_agent.ipynb", as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    at = next(i for i, cell in enumerate(code) if "check_my_run(" in cell.source)
    assert "prediction = None" in code[at].source
    printed = "".join(stored(cell) for cell in code[at:])
    assert not any(step in printed for step in live.STEPS)


# Each gated cell's answer, by a line only the answer prints (03: what step 3 left and the
# files written; 05: the table of the orders' losses and the read step 3 left).
GATED = [("03_micro_compact", "placeholders", ("files written:", "[Earlier tool result")),
         ("05_why_the_order", "order_loss", ("lost, seed", "the read, step 3 first"))]


@pytest.mark.parametrize("name, checker, answers", GATED, ids=[g[0] for g in GATED])
@pytest.mark.parametrize("edition, lang", [("", "en"), ("zh/", "zh")])
def test_a_gated_cell_stores_the_notice_and_not_the_answer(edition, lang, name, checker, answers):
    nb = nbformat.read(ROOT / "notebooks" / f"{edition}{name}.ipynb", as_version=4)
    [gate] = [cell for cell in nb.cells if f'if revealed("{checker}"):' in cell.source]
    assert stored(gate).endswith(say("check held back", lang) + "\n")
    later = nb.cells[nb.cells.index(gate):]
    printed = "".join(stored(cell) for cell in later if cell.cell_type == "code")
    assert not any(answer in printed for answer in answers)
