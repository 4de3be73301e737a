"""Write the notebook tables that follow from notebooks/src/, between their markers.

    .venv/bin/python scripts/notebook_tables.py            # rewrite every generated table, print the clock
    .venv/bin/python scripts/notebook_tables.py --check    # exit 1 and name each stale file

The series is the core path (notebooks/src/NN_name.py) and then the labs
(notebooks/src/labs/NN_name.py); a notebook's name is its path there without
`.py` (`03_micro_compact`, `labs/01_seed_vs_default`). Its title is its first
cell's heading (`# # NN · Title`, a lab's `# # Lab NN · Title`), in each
edition's own words; its minutes are its Goal cell's "About N minutes on your
own" (Chinese: 自学约 N 分钟). From them:

    README.zh.md       the Chinese edition's notebooks: title and minutes
    docs/TEACHING.md   the self-study path: every notebook and its minutes;
                       the walkthrough: each notebook's words, code cells and
                       the minutes one reading of it takes in class;
                       in class: each core notebook's words of prose and printed
                       output (its built notebook's), code cells, their reading
                       and the exercises' minutes; the core path's reading (added,
                       rounded up once); the one line "core minutes": set-up +
                       reading + exercises, the 90-minute class's own need;
                       on one's own: what each core Goal's "About N minutes"
                       should say by the self-study method, beside what it says

Each table sits between `<!-- notebooks: NAME -->` and `<!-- notebooks: end -->`;
the lines outside the markers are hand-written and left as they are. So adding a
notebook's sources and running this script updates both tables, and
tests/lessons/test_notebook_catalogue.py fails while one is stale.

The figures' sources: the reading and exercise minutes are counted; SETUP_MINUTES and
the self-study method's three figures are a teacher's estimate, said so where defined.

Left out: README.md's table, whose "what you see" and "you write" are prose no
source holds; the same test checks that it names every notebook, in order.
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "notebooks" / "src"
END = "<!-- notebooks: end -->"


LABS = "labs"


def sources(root: Path = ROOT) -> list[Path]:
    """The English sources, in order: notebooks/src/NN_name.py, then notebooks/src/labs/NN_name.py."""
    src = root / "notebooks" / "src"
    return sorted(src.glob("[0-9][0-9]_*.py")) + sorted((src / LABS).glob("[0-9][0-9]_*.py"))


def name(path: Path) -> str:
    """A source's name in the series: `03_micro_compact`, or `labs/01_seed_vs_default` for a lab."""
    return f"{LABS}/{path.stem}" if path.parent.name == LABS else path.stem


def key(path: Path) -> str:
    """The notebook's number as the exercises name it: `03`, or `labs/01` for a lab."""
    return name(path).split("_", 1)[0]


def in_core(path: Path) -> bool:
    """True for a notebook of the core path (the numbered series, not a lab)."""
    return path.parent.name != LABS


def zh_source(path: Path) -> Path:
    """The Chinese prose of an English source: notebooks/src/zh/NAME.py."""
    return path.parents[1 if path.parent.name == LABS else 0] / "zh" / f"{name(path)}.py"


def title(path: Path) -> str:
    """The notebook's title, without its number: `# # 03 · Step 3 ...` -> `Step 3 ...`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = re.fullmatch(r"# # (?:Lab )?\d\d · (.+)", lines[1]) if len(lines) > 1 else None
    if not found:
        raise ValueError(f"{path}:2: the first cell opens with '# # NN · Title' "
                         "(a lab's '# # Lab NN · Title')")
    return found[1]


def goal(path: Path) -> str:
    """The Goal cell's text, on one line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(("# **Goal.**", "# **目标。**"))),
                 None)
    if start is None:
        raise ValueError(f"{path}: no Goal cell ('**Goal.**' or '**目标。**')")
    cell = []
    for line in lines[start:]:
        if not line.startswith("#") or line.startswith("# %%"):
            break
        cell.append(line[2:])
    return " ".join(cell)


def minutes(path: Path) -> tuple[int, int]:
    """(on one's own, in the 90-minute class or 0) from a Goal cell, English or Chinese."""
    text = goal(path)
    alone = re.search(r"About (\d+) minutes|(?:自学)?约\s*(\d+)\s*分钟", text)
    if not alone:
        raise ValueError(f"{path}: no 'About N minutes' in its Goal cell: {text}")
    cls = re.search(r"in the 90-minute class, (\d+)|在\s*90\s*分钟\s*的课堂上\s*用\s*(\d+)\s*分钟", text)
    return int(alone[1] or alone[2]), int(cls[1] or cls[2]) if cls else 0


def zh_table(root: Path) -> list[str]:
    rows = ["| notebook | 内容 | 自学（分钟） |", "|---|---|---|"]
    for path in sources(root):
        zh = zh_source(path)
        rows.append(f"| [`{name(path)}`](notebooks/zh/{name(path)}.ipynb) | {title(zh)} | {minutes(zh)[0]} |")
    return rows


def self_study_table(root: Path) -> list[str]:
    rows = ["| notebook | minutes |", "|---|---|"]
    return rows + [f"| {name(path)} | {minutes(path)[0]} |" for path in sources(root)]


def self_study_method_table(root: Path) -> list[str]:
    from compact_course.lessons.exercises import CHECKERS, WRITES_CODE
    rows = ["| notebook | reading | predictions | functions | build steps | need | Goal says |",
            "|---|---|---|---|---|---|---|"]
    for path in core(root):
        checks = CHECKERS.get(key(path), ())
        functions = sum(1 for check in checks if check in WRITES_CODE)
        rows.append(f"| {name(path)} | {reading(path, root)[2]:.1f} | {len(checks) - functions} | "
                    f"{functions} | {build_steps(path)} | {self_study_minutes(path, root)} | "
                    f"{minutes(path)[0]} |")
    return rows + [f"| the core path | | | | | {sum(self_study_minutes(p, root) for p in core(root))} | "
                   f"{sum(minutes(p)[0] for p in core(root))} |"]


WORDS_PER_MINUTE = 200      # reading prose aloud or along, at a teacher's pace
SECONDS_PER_CELL = 30       # run a code cell and read what it prints


def cells(path: Path) -> list[tuple[str, str]]:
    """(kind, text) of each cell of a percent-format source: kind is 'markdown' or 'code'."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# %%"):
            found.append(["markdown" if "[markdown]" in line else "code", []])
        elif found:
            found[-1][1].append(line)
    return [(kind, "\n".join(lines).strip()) for kind, lines in found]


def walkthrough(path: Path) -> tuple[int, int, int]:
    """(words of prose, code cells, minutes) for one reading of the notebook in class.

    The minutes are words / WORDS_PER_MINUTE + code cells x SECONDS_PER_CELL,
    rounded up: reading every cell once and running every code cell, with no
    time for the class's own predictions, exercises or questions."""
    parts = cells(path)
    words = sum(len(text.split()) for kind, text in parts if kind == "markdown")
    code = sum(1 for kind, _ in parts if kind == "code")
    return words, code, -(-(words * 60 + code * SECONDS_PER_CELL * WORDS_PER_MINUTE)
                          // (60 * WORDS_PER_MINUTE))


# The exercises a class does together, and their minutes: each prediction of the core
# path, and the two functions written in class (03's step 3 core, 08's prepare); the
# other functions are homework (docs/TEACHING.md, "A 90-minute class").
PREDICTION_MINUTES = 2
WRITTEN_IN_CLASS = {"03": 5, "08": 5}
MAX_WORDS = 2_000    # of prose and printed output, in one notebook of the core path
# The class's set-up: the teacher's allowance, not a measurement. It assumes each machine ran
# `bash scripts/course.sh` once before class (the first run installs the pinned packages);
# in class: open JupyterLab and run notebook 00's first cell.
SETUP_MINUTES = 5
MAX_READING = 55     # minutes: the core path's reading by the plain count


def printed_words(nb) -> int:
    """Words a notebook's stored outputs print: streams and plain text, not charts."""
    words = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data = output.get("data", {})
            if output.get("output_type") == "stream":
                words += len(output["text"].split())
            elif "text/plain" in data and "image/png" not in data:
                words += len(data["text/plain"].split())
    return words


def exercise_minutes(path: Path) -> int:
    """The minutes a class gives this notebook's exercises (0 for a lab: homework)."""
    if not in_core(path):
        return 0
    from compact_course.lessons.exercises import CHECKERS, WRITES_CODE
    checks = CHECKERS.get(key(path), ())
    predictions = sum(1 for check in checks if check not in WRITES_CODE)
    return predictions * PREDICTION_MINUTES + WRITTEN_IN_CLASS.get(key(path), 0)


def reading(path: Path, root: Path = ROOT) -> tuple[int, int, float]:
    """(words of prose and printed output, code cells, minutes) of one reading of the built
    English notebook: words / WORDS_PER_MINUTE + code cells x SECONDS_PER_CELL, not rounded."""
    import nbformat
    built = root / "notebooks" / f"{name(path)}.ipynb"
    if not built.exists():
        raise ValueError(f"{built}: not built yet, and the table 'In class' counts what it prints: "
                         f"run scripts/build_notebooks.py {name(path)[:2]} first")
    nb = nbformat.read(built, as_version=4)
    words = sum(len(c.source.split()) for c in nb.cells if c.cell_type == "markdown")
    words += printed_words(nb)
    code = sum(1 for c in nb.cells if c.cell_type == "code")
    return words, code, words / WORDS_PER_MINUTE + code * SECONDS_PER_CELL / 60


def in_class(path: Path, root: Path = ROOT) -> tuple[int, int, int, int]:
    """(words of prose and printed output, code cells, exercise minutes, minutes) in class.

    The minutes are one reading (`reading`), rounded up, plus the exercises' minutes."""
    words, code, minutes = reading(path, root)
    exercises = exercise_minutes(path)
    return words, code, exercises, -int(-minutes // 1) + exercises


def core(root: Path = ROOT) -> list[Path]:
    return [path for path in sources(root) if in_core(path)]


def core_reading_minutes(root: Path = ROOT) -> int:
    """The core path's reading by the plain count: every core notebook's `reading`, added,
    then rounded up once (rounding each notebook up would add up to half a minute each)."""
    return -int(-sum(reading(path, root)[2] for path in core(root)) // 1)


def core_path_minutes(root: Path = ROOT) -> int:
    """The 90-minute class's own need: set-up, the core path's reading, the exercises done together."""
    return SETUP_MINUTES + core_reading_minutes(root) + sum(exercise_minutes(p) for p in core(root))


# A learner on their own (the Goal cell's "About N minutes"): one reading as in class, then
# each exercise done alone and each step of the build track written in my_compact.py until
# its check passes. The figures are a teacher's estimate: the first two set against what a
# learner alone needed before the build track (issue 52: 3.2-3.6 hours for 00-09; 05, 20-25
# minutes); a build step set at 15; an exercise that needs more carries it (MINUTES_ALONE).
PREDICTION_ALONE = 3        # minutes: think, fill in, run the checker, read the answer
FUNCTION_ALONE = 7          # an exercise's function, to "All N cases pass."
BUILD_STEP_ALONE = 15       # one function of my_compact.py, to its check's pass
ROUND_TO = 5                # the Goal cell states the figure rounded up to 5 minutes


def build_steps(path: Path) -> int:
    """How many my_compact.py functions the notebook's build-track cell checks: its check("...") calls."""
    return len(re.findall(r'\bcheck\("\w+"\)', path.read_text(encoding="utf-8")))


def self_study_minutes(path: Path, root: Path = ROOT) -> int:
    """The minutes a learner alone needs for a core notebook, rounded up to ROUND_TO."""
    from compact_course.lessons.exercises import CHECKERS, MINUTES_ALONE, WRITES_CODE
    checks = CHECKERS.get(key(path), ())
    usual = {True: FUNCTION_ALONE, False: PREDICTION_ALONE}
    need = (reading(path, root)[2] + build_steps(path) * BUILD_STEP_ALONE
            + sum(MINUTES_ALONE.get(check, usual[check in WRITES_CODE]) for check in checks))
    return -int(-need // ROUND_TO) * ROUND_TO


def walkthrough_table(root: Path) -> list[str]:
    rows = ["| notebook | words | code cells | one reading, minutes |", "|---|---|---|---|"]
    return rows + [f"| {name(path)} | {words:,d} | {code} | {mins} |"
                   for path in sources(root) for words, code, mins in [walkthrough(path)]]


def class_table(root: Path) -> list[str]:
    rows = ["| notebook | words, prose and printed | code cells | reading, minutes | exercises, minutes |",
            "|---|---|---|---|---|"]
    counts = [(path, reading(path, root), exercise_minutes(path)) for path in core(root)]
    rows += [f"| {name(path)} | {words:,d} | {code} | {mins:.1f} | {ex} |"
             for path, (words, code, mins), ex in counts]
    return rows + [f"| the core path | {sum(r[0] for _, r, _ in counts):,d} | "
                   f"{sum(r[1] for _, r, _ in counts)} | {core_reading_minutes(root)} | "
                   f"{sum(ex for _, _, ex in counts)} |"]


def core_minutes_line(root: Path) -> list[str]:
    exercises = sum(exercise_minutes(p) for p in core(root))
    return [f"set-up {SETUP_MINUTES} + reading {core_reading_minutes(root)} + exercises {exercises}: "
            f"the core path takes {core_path_minutes(root)} minutes."]


# file -> [(marker name, the table's lines made from the sources)]
TABLES = {
    "README.zh.md": [("zh", zh_table)],
    "docs/TEACHING.md": [("self-study", self_study_table), ("walkthrough", walkthrough_table),
                         ("in class", class_table), ("core minutes", core_minutes_line),
                         ("self-study method", self_study_method_table)],
}


def with_table(text: str, name: str, rows: list[str], where: str) -> str:
    """`text` with the lines between its `name` marker and the end marker replaced by `rows`."""
    start = f"<!-- notebooks: {name} -->"
    if text.count(start) != 1 or END not in text.split(start, 1)[1]:
        raise ValueError(f"{where}: needs one '{start}' line and, after it, one '{END}' line")
    head, rest = text.split(start, 1)
    _, tail = rest.split(END, 1)
    return "\n".join([head + start, *rows, END]) + tail


def stale(root: Path = ROOT, write: bool = False) -> list[str]:
    """The files whose generated table differs from the sources; rewritten when `write`."""
    found = []
    for name, tables in TABLES.items():
        path = root / name
        text = path.read_text(encoding="utf-8")
        fresh = text
        for marker, make in tables:
            fresh = with_table(fresh, marker, make(root), name)
        if fresh != text:
            found.append(name)
            if write:
                path.write_text(fresh, encoding="utf-8")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a table is stale")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        changed = stale(args.root, write=not args.check)
    except (ValueError, OSError) as error:
        print(f"notebook_tables: {error}", file=sys.stderr)
        return 2
    for name in changed:
        print(f"{'STALE' if args.check else 'wrote'}  {name}")
    if not args.check:   # the clock, as TEACHING states it
        print(core_minutes_line(args.root)[0])
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
