"""Labs as lessons (issue 52): each lab at most 900 words of prose, 500 printed words, and no
table wider than 8 columns, in its source's prose or in what its cells print, in both editions.

The reference tables (prices, sweeps, the bench's columns) live in docs/ or behind a switch
the lab names; what a lab prints by default is what these bounds count."""

import re
from pathlib import Path

import nbformat
import pytest

from tests.helpers import load_script

ROOT = Path(__file__).resolve().parents[2]
tables = load_script("notebook_tables")
LABS = [path for path in tables.sources() if not tables.in_core(path)]
PROSE_WORDS, PRINTED_WORDS, COLUMNS = 900, 500, 8
FIELDS = re.compile(r"\S(?:\S| (?! ))*")   # a printed column: text with no run of two spaces


def built(path: Path, edition: str = "") -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "notebooks" / edition / f"{tables.name(path)}.ipynb", as_version=4)


def widest_table(nb) -> int:
    """The most columns of a table in the notebook: a markdown table's cells, or a printed
    table's fields (two or more lines in a row that split on double spaces alike)."""
    widest = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            rows = [line for line in cell.source.splitlines() if line.lstrip().startswith("|")]
            widest = max([widest, *(line.strip().strip("|").count("|") + 1 for line in rows)])
            continue
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            counts = [len(FIELDS.findall(line)) for line in text.splitlines()]
            runs = [a for a, b in zip(counts, counts[1:]) if a == b and a > 1]
            widest = max([widest, *runs])
    return widest


def test_the_table_counter_counts_a_printed_table_and_a_markdown_one():
    printed = nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output(
        "stream", text="a  b  c d\n1  2  3\n4  5  6\nnot a table, a sentence\n")])
    prose = nbformat.v4.new_markdown_cell("| a | b |\n|---|---|\n| 1 | 2 |")
    assert widest_table(nbformat.v4.new_notebook(cells=[printed])) == 3
    assert widest_table(nbformat.v4.new_notebook(cells=[prose])) == 2


@pytest.mark.parametrize("path", LABS, ids=tables.name)
def test_a_lab_is_a_lesson_in_length(path):
    prose = tables.walkthrough(path)[0]
    printed = tables.printed_words(built(path))
    assert prose <= PROSE_WORDS and printed <= PRINTED_WORDS, (
        f"{tables.name(path)}: {prose} words of prose (at most {PROSE_WORDS}), "
        f"{printed} printed (at most {PRINTED_WORDS})")


@pytest.mark.parametrize("edition", ["", "zh"])
@pytest.mark.parametrize("path", LABS, ids=tables.name)
def test_no_table_in_a_lab_is_wider_than_8_columns(path, edition):
    widest = widest_table(built(path, edition))
    assert widest <= COLUMNS, f"{edition or 'en'} {tables.name(path)}: a table of {widest} columns"
