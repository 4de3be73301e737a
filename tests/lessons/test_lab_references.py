"""The reference tables lab 02 moved to docs/DESIGN.md (issue 52: labs as lessons) are the
package's own: the benchmark's legend and the price list, verbatim, so the page cannot drift
from what `python -m compact_course bench` prints and bills; and the lab links to them."""

from pathlib import Path

from compact_course.bench import prices, tables

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "docs" / "DESIGN.md"
SECTION = "## The benchmark's reference (lab 02)"


def section() -> str:
    text = DESIGN.read_text(encoding="utf-8")
    start = text.index(SECTION)
    return text[start:text.index("\n## ", start + len(SECTION))]


def test_the_legend_and_the_price_list_are_what_the_package_prints():
    text = section()
    assert f"```\n{tables.legend()}\n```" in text
    assert "```\n" + "\n".join(prices.table_lines()) + "\n```" in text


def test_lab_02_links_to_the_section_in_both_editions():
    anchor = "DESIGN.md#the-benchmarks-reference-lab-02"
    for source in ("notebooks/src/labs/02_evidence.py", "notebooks/src/zh/labs/02_evidence.py"):
        assert anchor in (ROOT / source).read_text(encoding="utf-8"), source


def test_lab_02_names_every_column_its_tables_print_in_both_editions():
    # Issue 52's reviewer: the "Columns" paragraph left out `refused`, which the table prints.
    import ast
    import re
    english = (ROOT / "notebooks/src/labs/02_evidence.py").read_text(encoding="utf-8")
    [printed] = [ast.literal_eval(line.split("=", 1)[1].strip()) for line in english.splitlines()
                 if line.startswith("COLUMNS = ")]
    for source in ("notebooks/src/labs/02_evidence.py", "notebooks/src/zh/labs/02_evidence.py"):
        text = (ROOT / source).read_text(encoding="utf-8")
        title = text[:text.index('# %% [markdown] id="goal"')]
        named = set(re.findall(r"\*\*([^*]+)\*\*", title))
        assert set(printed) <= named, (source, set(printed) - named)
