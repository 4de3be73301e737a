"""What the documents say about the series of notebooks, read against notebooks/src/.

- the tables `scripts/notebook_tables.py` writes (README.zh.md's list, TEACHING's
  self-study path) are what the sources make now, and a stale one is named;
- README.md's table and TEACHING's exercises table, written by hand, name every
  notebook, in order;
- no document, source or module docstring gives a count of notebooks that is not
  the count of sources (README.zh.md said "11 个 notebook" when there were 13),
  except the counts of a part of the series named in PARTS, each computed here.
"""

import re
import shutil
from pathlib import Path

import pytest

from compact_course.lessons.exercises import CHECKERS, WRITES_CODE
from tests.helpers import load_script

ROOT = Path(__file__).resolve().parents[2]
TABLES = load_script("notebook_tables")
STEMS = [TABLES.name(path) for path in TABLES.sources()]   # the core path, then labs/NN_name
KEYS = [TABLES.key(path) for path in TABLES.sources()]      # "03", "labs/01"

NUMBER_WORDS = {word: n for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}
ZH_DIGITS = {c: n for n, c in enumerate("零一二三四五六七八九")}
EN_COUNT = re.compile(rf"\b(\d+|{'|'.join(NUMBER_WORDS)})\s+notebooks\b", re.IGNORECASE)
ZH_COUNT = re.compile(r"(\d+|[零一二三四五六七八九十]+)\s*个\s*notebook")


def writes_code() -> int:
    """Notebooks where the learner writes code: a function a checker grades, or a step of the
    build track (08's only exercise is the build track's prepare)."""
    from compact_course.lessons.build_track import STEPS
    return len({nb for nb, checks in CHECKERS.items() if any(c in WRITES_CODE for c in checks)}
               | {step.NOTEBOOK for step in STEPS.values()})


# A count of part of the series: the words after the number, and what it must be.
PARTS = {
    "notebooks ask the learner to write code": writes_code,
}


def zh_number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if "十" not in text:
        return ZH_DIGITS[text]
    tens, _, ones = text.partition("十")
    return (ZH_DIGITS[tens] if tens else 1) * 10 + (ZH_DIGITS[ones] if ones else 0)


def counts(text: str) -> list:
    """(number, the words that follow it) for each count of notebooks in `text`."""
    found = []
    flat = re.sub(r"\s+", " ", text)
    for match in EN_COUNT.finditer(flat):
        word = match[1].lower()
        number = int(word) if word.isdigit() else NUMBER_WORDS[word]
        found.append((number, flat[match.start(1) + len(match[1]):match.end() + 40].strip()))
    for match in ZH_COUNT.finditer(flat):
        found.append((zh_number(match[1]), flat[match.end() - 8:match.end() + 20]))
    return found


def documents() -> list[Path]:
    return [ROOT / "README.md", ROOT / "README.zh.md", *sorted((ROOT / "docs").glob("*.md")),
            *sorted((ROOT / "notebooks" / "src").rglob("*.py")),
            *sorted((ROOT / "context_compact").rglob("*.py")),
            *sorted((ROOT / "compact_course").rglob("*.py"))]


def stale_counts(paths, total: int, root: Path = ROOT) -> list[str]:
    wrong = []
    for path in paths:
        for number, after in counts(path.read_text(encoding="utf-8")):
            part = next((make for words, make in PARTS.items() if after.startswith(words)), None)
            expected = part() if part else total
            if number != expected:
                wrong.append(f"{path.relative_to(root)}: {number} {after!r}: should be {expected}")
    return wrong


def test_no_document_gives_a_stale_count_of_notebooks():
    assert stale_counts(documents(), len(STEMS)) == []


def test_the_count_check_reads_both_languages_and_numbers_in_words():
    assert [n for n, _ in counts("构建 `notebooks/zh/` 中的 11 个 notebook，连同输出")] == [11]
    assert [n for n, _ in counts("十三个 notebook")] == [13]
    assert [n for n, _ in counts("the series is Thirteen\n notebooks long; 9 notebooks ask")] == [13, 9]
    assert counts("notebooks 01, 03 and 08") == []


def test_the_count_check_finds_a_stale_count(tmp_path):
    # README.zh.md's old line, and a count of part of the series that is right.
    page = tmp_path / "README.zh.md"
    page.write_text("`scripts/build_notebooks.py zh` 构建 `notebooks/zh/` 中的 11 个 notebook，连同输出\n"
                    f"{writes_code()} notebooks ask the learner to write code.\n", encoding="utf-8")
    wrong = stale_counts([page], 13, root=tmp_path)
    assert len(wrong) == 1 and wrong[0].startswith("README.zh.md: 11 ") and "should be 13" in wrong[0]


def test_the_generated_tables_are_what_the_sources_make():
    assert TABLES.stale(ROOT) == [], "run: .venv/bin/python scripts/notebook_tables.py"


def copy_for_tables(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "notebooks" / "src", root / "notebooks" / "src")
    for built in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"):   # the class table reads them
        shutil.copy(built, root / "notebooks" / built.name)
    for name in TABLES.TABLES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, root / name)
    return root


def test_a_new_source_makes_both_generated_tables_stale(tmp_path):
    root = copy_for_tables(tmp_path)
    for folder in ("", "zh/"):
        last = root / "notebooks" / "src" / f"{folder}{STEMS[-1]}.py"
        shutil.copy(last, last.with_name("99_extra.py"))
    assert TABLES.stale(root) == list(TABLES.TABLES)
    assert TABLES.stale(root, write=True) == list(TABLES.TABLES)
    assert TABLES.stale(root) == []
    assert "| labs/99_extra |" in (root / "docs" / "TEACHING.md").read_text(encoding="utf-8")


def test_a_table_without_its_markers_is_refused_by_name(tmp_path):
    root = copy_for_tables(tmp_path)
    guide = root / "docs" / "TEACHING.md"
    guide.write_text(guide.read_text(encoding="utf-8").replace("<!-- notebooks: end -->", ""),
                     encoding="utf-8")
    with pytest.raises(ValueError, match="docs/TEACHING.md: needs one"):
        TABLES.stale(root)


def first_column(text: str, heading: str) -> list[str]:
    """The first cell of each row of the tables under `heading` (README's core path, then its labs)."""
    lines = text.split(heading, 1)[1].split("\n## ", 1)[0].splitlines()
    # A table's header is the row just above its |---| line.
    rows = [line for i, line in enumerate(lines) if line.startswith("| ")
            and not set(line) <= set("|- ") and not (i + 1 < len(lines) and set(lines[i + 1]) <= set("|- ")
                                                      and lines[i + 1].startswith("|-"))]
    return [row.strip("|").split("|")[0].strip().strip("`") for row in rows]


def test_readmes_table_names_every_notebook_in_order():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert first_column(readme, "## The notebooks") == STEMS


def test_teachings_exercises_table_names_every_notebook_in_order():
    guide = (ROOT / "docs" / "TEACHING.md").read_text(encoding="utf-8")
    assert first_column(guide, "## The exercises") == KEYS
    from compact_course.lessons.build_track import STEPS
    assert sorted({*CHECKERS, STEPS["prepare"].NOTEBOOK}) == KEYS   # 08's: the build track's
