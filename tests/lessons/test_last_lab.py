"""The last lab says it is the last (issue 52: lab 06 ended "Next: the last lab" and was
the last), in both editions, and points to a page that exists.

Left out: the other labs' "Next" lines (each names the lab after it; their owners keep them).
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABS = sorted((ROOT / "notebooks" / "src" / "labs").glob("[0-9][0-9]_*.py"))


@pytest.mark.parametrize("edition, last_words, next_mark", [
    ("", "this is the last lab", "**Next:**"), ("zh", "这是最后一个实验", "**下一步：**")])
def test_the_last_lab_says_so_and_names_a_page_that_exists(edition, last_words, next_mark):
    source = ROOT / "notebooks" / "src" / edition / "labs" / LABS[-1].name
    text = source.read_text(encoding="utf-8").replace("\n# ", " ")
    after = text[text.index(next_mark):][:300]
    assert last_words in after, after
    pages = re.findall(r"(docs/[A-Z_]+\.md|examples/\w+\.py)", after)
    assert pages and all((ROOT / page).exists() for page in pages), after
