"""The house: the pipeline alone in context_compact/, the course's rooms beside it, imports one way.

    context_compact/ (the pipeline)
      <- compact_course/: display <- article.py <- sessions <- probes <- offline <- agent <- bench <- lessons
         <- __main__.py (the command table)

Installed top-level names are the project's own: `context_compact` and `compact_course`,
nothing generic such as `compact` or `workbench` (issue 50). context_compact/ is a flat
folder of small modules: no subfolder, at most 1,500 lines; a module of it imported on its
own loads no plotting, widget, HTTP-server or SDK library, and imports nothing of the
course. compact_course/article.py, the article's pipeline flat, is at most 300 lines and
imports nothing of ours. Every other module of compact_course sits in one room and imports
only from the rooms below it (and its own): the offline model stands above the pipeline
and the probes it answers. No module imports one that imports it back, not even inside a
function (a circle). The command line, compact_course/__main__.py, stands above every room
and names each command's module as a string, imported through importlib when asked for.
Last, the suite's own setup: the hypothesis profiles.
"""

import ast
import functools
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIPELINE = ROOT / "context_compact"
COURSE = ROOT / "compact_course"
TOP_LEVEL = sorted(p.stem for p in PIPELINE.glob("*.py"))
ROOMS = ("display", "article", "sessions", "probes", "offline", "agent", "bench", "lessons")  # lowest first
INSTALLED = ["compact_course", "context_compact"]
MAX_PIPELINE_LINES = 1500
# Issue 51's practitioner parts, moved into the package it asks for them in: the no-progress
# guard, the SDK's tool-runner middleware, media counted by the API's rule. Issue 50's 1,500
# was set before them: the steps and their frame keep it, these three have a bound of their own.
PRACTITIONER = ("guard.py", "runner.py", "media.py")
MAX_PRACTITIONER_LINES = 330
MAX_ARTICLE_LINES = 300
HEAVY = ("matplotlib", "ipywidgets", "http.server", "aiohttp", "anthropic")


def imported_modules(path: Path) -> set:
    """Every module an import statement in the file names, relative ones made absolute."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = ".".join(parts[:len(parts) - node.level + 1]) if node.level else ""
            module = ".".join(p for p in (base, node.module) if p)
            found.add(module)
            # `from .. import agent` names a module too.
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def reaches(path: Path, room: str) -> list:
    name = f"compact_course.{room}" if room else "compact_course"
    return sorted(m for m in imported_modules(path) if m == name or m.startswith(name + "."))


def room_files(room: str) -> list:
    module = COURSE / f"{room}.py"
    return [module] if module.exists() else sorted((COURSE / room).rglob("*.py"))


def test_the_installed_names_are_the_projects_own():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    packages = project["tool"]["setuptools"]["packages"]["find"]["include"]
    assert sorted({p.split(".")[0] for p in packages}) == INSTALLED
    assert list(project["project"]["scripts"]) == ["compact-course"]
    # Nothing generic left behind in the checkout, where `pip install -e .` would find it.
    assert sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").exists() and p.name != "tests") \
        == INSTALLED


@pytest.mark.parametrize("module", TOP_LEVEL)
def test_a_pipeline_module_loads_no_heavy_library(module):
    name = "context_compact" if module == "__init__" else f"context_compact.{module}"
    code = (f"import sys, {name}\n"
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], f"importing {name} loads {done.stdout.strip()}"


def test_the_heavy_check_sees_a_heavy_import():
    # The same check on a module that only draws, and so loads matplotlib with itself.
    code = "import sys, compact_course.bench.chart; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.stdout.strip() == "True", done.stderr


@pytest.mark.parametrize("module", TOP_LEVEL)
def test_the_pipeline_imports_nothing_of_the_course(module):
    path = PIPELINE / f"{module}.py"
    assert reaches(path, "") == [], f"context_compact/{path.name} imports {reaches(path, '')}"


def test_the_pipeline_is_one_small_flat_folder():
    assert [p.name for p in PIPELINE.iterdir() if p.is_dir() and p.name != "__pycache__"] == []
    lines = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in PIPELINE.glob("*.py")}
    steps = sum(n for name, n in lines.items() if name not in PRACTITIONER)
    practitioner = sum(lines[name] for name in PRACTITIONER)
    assert steps <= MAX_PIPELINE_LINES, f"context_compact/*.py but {PRACTITIONER} is {steps} lines"
    assert practitioner <= MAX_PRACTITIONER_LINES, f"{PRACTITIONER} are {practitioner} lines"


def test_the_article_is_one_short_module_of_its_own():
    path = COURSE / "article.py"
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_ARTICLE_LINES, f"compact_course/article.py is {lines} lines"
    ours = [m for m in imported_modules(path) if m.split(".")[0] in INSTALLED]
    assert ours == [], f"the article's pipeline imports {ours}: it must share nothing with ours"


def test_the_course_check_sees_an_import_of_the_course():
    assert reaches(COURSE / "agent" / "loop.py", "") != []


@pytest.mark.parametrize("lower", ROOMS)
def test_a_room_imports_only_the_rooms_below_it(lower):
    higher = ROOMS[ROOMS.index(lower) + 1:]
    for path in room_files(lower):
        for room in higher:
            assert reaches(path, room) == [], f"{path.relative_to(ROOT)} imports compact_course.{room}"


def test_the_room_check_sees_an_import_back_up():
    # lessons/replay.py imports the benchmark's chart: from bench/ it would run back up.
    assert reaches(COURSE / "lessons" / "replay.py", "bench") != []


def test_every_course_module_is_in_a_room():
    # A module loose on compact_course's own top level would stand outside the rooms, where
    # any room could import it and it any room.
    loose = sorted(p.stem for p in COURSE.glob("*.py"))
    assert loose == ["__init__", "__main__", "article"], f"compact_course/ holds {loose}: put each in a room"
    assert not [m for m in imported_modules(COURSE / "__main__.py") if m.split(".")[0] in INSTALLED], \
        "the command line names its modules as strings"
    folders = sorted(p.name for p in COURSE.iterdir() if (p / "__init__.py").exists())
    assert folders == sorted(r for r in ROOMS if r != "article")


def test_the_command_table_names_a_module_of_each_command():
    from compact_course.__main__ import COMMANDS
    for command, target in COMMANDS.items():
        module, function = target.split(":")
        path = ROOT / (module.replace(".", "/") + ".py")
        assert path.is_file(), f"{command}: {module} is no module"
        names = {n.name for n in ast.parse(path.read_text(encoding="utf-8")).body
                 if isinstance(n, ast.FunctionDef)}
        assert function in names, f"{command}: {module} has no {function}"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(roots=(PIPELINE, COURSE)) -> dict:
    """module -> the modules of ours it imports, at the top or inside a function.

    A name is cut back to the module that defines it (`compact_course.probes.make_probes`
    is `compact_course.probes`). An import of a package a module is inside is left out:
    Python loads the package first anyway, and its __init__ naming its own modules
    is not a circle."""
    files = {module_name(p): p for root in roots for p in root.rglob("*.py")}

    def module_of(name: str) -> str:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name

    return {name: {m for n in imported_modules(path) if (m := module_of(n))
                   and m != name and not name.startswith(m + ".")}
            for name, path in files.items()}


def circles(graph: dict) -> list:
    """Each set of modules that import one another round (Tarjan's strongly connected
    components of more than one module), sorted."""
    order, low, stack, found = {}, {}, [], []

    def visit(node):
        order[node] = low[node] = len(order)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in order:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], order[other])
        if low[node] == order[node]:
            part = stack[stack.index(node):]
            del stack[stack.index(node):]
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return sorted(found)


def test_no_module_imports_one_that_imports_it_back():
    assert circles(import_graph()) == []


def test_the_circle_check_sees_a_circle():
    # The two circles issue 39 removed, as they were: sweep_chart took two names from
    # sweep, whose command imported sweep_chart for --chart; hints.hint() read check.LAST,
    # and check put hint() in the notebook's names.
    graph = import_graph()
    graph["compact_course.lessons.sweep"].add("compact_course.lessons.sweep_chart")
    graph["compact_course.lessons.sweep_chart"].add("compact_course.lessons.sweep")
    graph["compact_course.lessons.exercises.hints"].add("compact_course.lessons.exercises.check")
    assert circles(graph) == [["compact_course.lessons.exercises.check",
                               "compact_course.lessons.exercises.hints"],
                              ["compact_course.lessons.sweep", "compact_course.lessons.sweep_chart"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_offline_model_never_imports_the_api_it_is_served_by():
    # compact_course/offline/model/ is the deterministic model; offline/api/ plays the
    # Messages API around it. The API may ask the model; the model knows nothing of HTTP,
    # the request rules, clearing, server compaction or billing. tokens.py sits below both.
    model = sorted((COURSE / "offline" / "model").rglob("*.py"))
    assert len(model) > 10
    for path in model:
        assert reaches(path, "offline.api") == [], \
            f"{path.relative_to(ROOT)} imports compact_course.offline.api"


def test_the_offline_model_check_sees_an_import_of_the_api():
    assert reaches(COURSE / "offline" / "api" / "server.py", "offline.model") != []
    assert reaches(COURSE / "offline" / "api" / "server.py", "offline.api") != []


def test_the_import_reader_resolves_relative_imports():
    assert "compact_course.offline.tokens" in imported_modules(COURSE / "agent" / "loop.py")
    assert "context_compact.formats" in imported_modules(PIPELINE / "snip.py")  # from . import formats
    assert reaches(COURSE / "lessons" / "replay.py", "bench") != []


def test_hypothesis_is_quick_by_default_and_thorough_in_ci():
    from hypothesis import settings

    from tests.conftest import profile_name
    assert profile_name({}) == "quick" and profile_name({"CI": "false"}) == "quick"
    assert profile_name({"CI": "true"}) == "thorough"
    assert profile_name({"CI": "true", "HYPOTHESIS_PROFILE": "quick"}) == "quick"
    assert settings.get_profile("quick").max_examples < settings.get_profile("thorough").max_examples
    assert settings.get_profile("thorough").derandomize and settings.get_profile("quick").derandomize


# -- what nothing reaches is deleted ---------------------------------------------------------

NAMED = re.compile(r"\b(?:compact_course|context_compact)(?:[./][a-z_]+)+")


def code_strings(text: str) -> list:
    """The string literals of a module's code, its docstrings left out."""
    tree = ast.parse(text)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)}
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]


@functools.cache
def names_in(path: Path) -> frozenset:
    """What a file names of ours: a page, any mention; a module, its imports and the module
    names its code writes as strings (not a docstring or a comment that mentions one)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return frozenset(NAMED.findall(text))
    names = {n for literal in code_strings(text) for n in NAMED.findall(literal)}
    names |= imported_modules(path)
    if path.is_relative_to(ROOT):
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
        # a lazy table: "check_x": "budget" names the module budget beside it
        names |= {f"{package}.{m}" for m in re.findall(r'"[a-z_]+": "([a-z_]+)"', text)}
    return frozenset(names)


def reached_from(roots: list, docs: list) -> set:
    """The modules of ours the files `roots` and the pages `docs` reach: imports (inside
    functions too) and module names written as strings in code (the
    command table, the hub's contents manager, the checkers' lazy table), followed through."""
    files = {module_name(p): p for root in (PIPELINE, COURSE) for p in root.rglob("*.py")}

    def module_of(name: str) -> str:
        name = name.replace("/", ".").removesuffix(".py")
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name

    def named_in(path: Path) -> set:
        return {m for n in names_in(path) if (m := module_of(n))}

    todo = [m for path in roots + docs for m in named_in(path)]
    todo += [module_name(path) for path in roots if path.is_relative_to(COURSE)]   # a root of ours
    seen: set = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]   # its packages load too
        todo += sorted(named_in(files[name]) - seen)
    return seen


def test_every_module_is_reached_by_a_lesson_a_command_a_script_or_a_docs_page():
    roots = [p for pattern in ("notebooks/src/**/*.py", "scripts/**/*.py", "deploy/**/*.py",
                               "examples/**/*.py") for p in ROOT.glob(pattern)]
    roots.append(COURSE / "__main__.py")    # the command table
    # CONTRIBUTING.md maps every module, so it reaches nothing of its own.
    docs = [p for p in ROOT.glob("docs/*.md") if p.name != "CONTRIBUTING.md"]
    docs += [ROOT / "README.md", ROOT / "README.zh.md"]
    every = {module_name(p) for root in (PIPELINE, COURSE) for p in root.rglob("*.py")}
    assert sorted(every - reached_from(roots, docs)) == []


def test_the_reach_check_sees_a_module_nothing_reaches():
    # From notebook 01 alone, the command line and lab 05's helpers are out of reach; the
    # SDK's tool runner is reached by docs/RECIPE.md alone.
    seen = reached_from([ROOT / "notebooks" / "src" / "01_tool_result_budget.py"], [])
    assert "compact_course.lessons.charts" in seen and "compact_course.lessons.exercises.budget" in seen
    assert "compact_course.__main__" not in seen and "compact_course.lessons.forgets" not in seen
    assert "context_compact.runner" in reached_from([], [ROOT / "docs" / "RECIPE.md"])


def test_the_top_conftest_loads_nothing_heavy():
    # Every room's run loads it: the SDK and the offline server come with the fixtures that
    # start them, not with the suite's setup.
    code = (f"import sys, tests.conftest\n"
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], f"tests/conftest.py loads {done.stdout.strip()}"
