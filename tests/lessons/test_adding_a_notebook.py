"""Adding a notebook is cheap: what a throwaway notebook demands, in a copy of the repository.

The test copies the checkout, adds a notebook after the last one in both
editions (its two sources) with a prediction checker (its module), and makes the
hand edits listed in HAND_EDITED, nothing else. Then, in the copy, it runs what a
contributor runs: `scripts/notebook_tables.py` and `scripts/build_notebooks.py`
for the two new notebooks; and the tests that read the series (every notebook's
shape in both editions, the teaching path, the documents' tables and counts, the
exercise catalogue) with nbval on the two new notebooks. They must all pass, and
the files that changed must be the sources, the checker, the generated files and
HAND_EDITED: at most 5 files edited by hand. Before the hand edits, the tests of
the documents' tables and of the exercise catalogue fail.

Left out: the browser and hub tests (they open one named notebook) and nbval
on the thirteen notebooks already there (the copy changes none of them).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
LAST = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))[-1].stem
NUMBER = f"{int(LAST[:2]) + 1:02d}"
NAME = f"{NUMBER}_throwaway"

EN_SOURCE = f'''# %% [markdown] id="title"
# # {NUMBER} · A throwaway notebook

# %% [markdown] id="goal"
# **Goal.** You will learn nothing new: this notebook counts the files a new notebook
# needs. About 5 minutes on your own.

# %%
# %matplotlib inline
from matplotlib.figure import Figure

from compact_course.lessons.exercises import check_throwaway, hint

figure = Figure(figsize=(2, 2))
figure.add_subplot().plot([0, 1], [0, 1])
figure

# %% [markdown] id="predict"
# **Predict.** What is 2 + 2?

# %%
prediction = None
check_throwaway(prediction)

# %%
hint()

# %% [markdown] id="recap"
# **Recap.**
# - one
# - two
# - three
#
# **Next:** nothing.
'''

ZH_SOURCE = f'''# %% [markdown] id="title"
# # {NUMBER} · 一次性的练习本

# %% [markdown] id="goal"
# **目标。** 这一课不教新内容：它只用来数一数新增一课需要改哪些文件。自学约 5 分钟。

# %% [markdown] id="predict"
# **预测。** 二加二等于几？

# %% [markdown] id="recap"
# **小结。**
# - 第一点
# - 第二点
# - 第三点
#
# **下一步：** 没有了。
'''

CHECKER = f'''"""{NUMBER} · a throwaway notebook: predict one sum."""

from .catalogue import exercise
from .check import CheckResult, check_prediction, hint


@exercise("{NUMBER}")
def check_throwaway(answer) -> CheckResult:
    """Predict 2 + 2."""
    return check_prediction("throwaway", answer, {{"sum": 4}}, hint("throwaway"))
'''

NEW = {
    f"notebooks/src/{NAME}.py": EN_SOURCE,
    f"notebooks/src/zh/{NAME}.py": ZH_SOURCE,
    "compact_course/lessons/exercises/throwaway.py": CHECKER,
}
GENERATED = {f"notebooks/{NAME}.ipynb", f"notebooks/zh/{NAME}.ipynb", "README.zh.md"}


def after_line(text: str, starts: str, new: str) -> str:
    """`text` with the line `new` after the last line that starts with `starts`."""
    lines = text.split("\n")
    at = max(i for i, line in enumerate(lines) if line.startswith(starts))
    return "\n".join([*lines[:at + 1], new, *lines[at + 1:]])


def add_hint(text: str) -> str:
    texts = json.loads(text)
    texts["hints"]["throwaway"] = {"en": "add the two numbers.", "zh": "把两个数相加。"}
    return json.dumps(texts, ensure_ascii=False, indent=1) + "\n"


# The files a new notebook makes a contributor edit by hand, and the edit.
HAND_EDITED = {
    "compact_course/lessons/exercises/__init__.py":
        lambda text: after_line(text, "from .", "from .throwaway import check_throwaway"),
    "compact_course/lessons/exercises/texts.json": add_hint,
    "README.md": lambda text: after_line(text, f"| `{LAST}` |", f"| `{NAME}` | a throwaway | a prediction |"),
    "docs/TEACHING.md":
        lambda text: after_line(text, f"| {LAST[:2]} | ", f"| {NUMBER} | a prediction | a sum |"),
}

SERIES_TESTS = [
    "tests/lessons/test_notebook_sources.py", "tests/lessons/test_zh_edition.py",
    "tests/lessons/test_teaching_path.py",
    "tests/lessons/test_notebook_catalogue.py",
    "tests/lessons/test_exercises.py::test_every_notebook_has_a_checker_and_nine_have_code_to_write",
]
QUICK_TESTS = SERIES_TESTS[3:]


def snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts}


def run(args, root: Path) -> subprocess.CompletedProcess:
    # The copy's package first: PYTHONPATH comes before the editable install's finder.
    env = {**os.environ, "PYTHONPATH": str(root), "COMPACT_OFFLINE": "1"}
    env.pop("COMPACT_LANG", None)
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=900)


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("house") / "repo"
    shutil.copytree(ROOT, root, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".ruff_cache", ".pytest_cache", "__pycache__", "*.egg-info", ".task_outputs",
        ".transcripts"))
    return root


def test_a_new_notebook_needs_its_sources_its_checker_and_at_most_five_hand_edits(copy):
    before = snapshot(copy)
    for name, text in NEW.items():
        (copy / name).write_text(text, encoding="utf-8")

    missing = run(["-m", "pytest", "-q", "-p", "no:randomly", *QUICK_TESTS], copy)
    assert missing.returncode != 0, "the series' tests pass without the hand edits"

    for name, edit in HAND_EDITED.items():
        path = copy / name
        path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    # Built first: TEACHING's table "In class" counts what a core notebook prints.
    built = run(["scripts/build_notebooks.py", NUMBER, f"zh/{NUMBER}"], copy)
    assert built.returncode == 0, built.stdout + built.stderr
    tables = run(["scripts/notebook_tables.py"], copy)
    assert tables.returncode == 0, tables.stderr
    tests = run(["-m", "pytest", "-q", "-p", "no:randomly", *SERIES_TESTS,
                 f"notebooks/{NAME}.ipynb", f"notebooks/zh/{NAME}.ipynb"], copy)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]

    after = snapshot(copy)
    changed = {name for name in after if before.get(name) != after[name]}
    assert changed == set(NEW) | GENERATED | set(HAND_EDITED), sorted(changed)
    assert len(HAND_EDITED) <= 5
