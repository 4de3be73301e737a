"""The layout: the pipeline alone in context_compact/, the compact_course beside it, imports one way.

    context_compact/ (the pipeline)
      <- compact_course/: probes <- importers <- display <- offline <- agent <- bench <- course

context_compact/ is a flat folder of small modules: no subfolder, at most 1,500 lines (issue
50). A module of it imported on its own loads no plotting, widget, HTTP-server or SDK
library, and imports nothing of the compact_course. Every compact_course module sits in one
of the layers, and imports only from the layers below it (and its own): the
offline model stands beside the agent, above the pipeline and the probes it
answers, never between the pipeline's layers. No module of either package imports
one that imports it back, not even inside a function (a circle). The command line,
compact_course/__main__.py, stands above every layer and names each command's module as
a string, imported through importlib when asked for: it imports no module of ours.
Last, the suite's own setup: the hypothesis profiles.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "context_compact"
WORKBENCH = ROOT / "compact_course"
TOP_LEVEL = sorted(p.stem for p in PACKAGE.glob("*.py"))
SUBPACKAGES = ("probes", "importers", "display", "offline", "agent", "bench", "course")  # lowest first
MAX_PIPELINE_LINES = 1500
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


def reaches(path: Path, subpackage: str) -> list:
    name = f"compact_course.{subpackage}" if subpackage else "compact_course"
    return sorted(m for m in imported_modules(path) if m == name or m.startswith(name + "."))


@pytest.mark.parametrize("module", TOP_LEVEL)
def test_a_top_level_module_loads_no_heavy_library(module):
    name = "context_compact" if module == "__init__" else f"context_compact.{module}"
    code = (f"import sys, {name}\n"
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=PACKAGE.parent, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], f"importing {name} loads {done.stdout.strip()}"


def test_the_heavy_check_sees_a_heavy_import():
    # The same check on a subpackage module that does load matplotlib.
    code = "import sys, compact_course.course.charts; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=PACKAGE.parent, timeout=120)
    assert done.stdout.strip() == "True", done.stderr


@pytest.mark.parametrize("module", TOP_LEVEL)
def test_the_pipeline_imports_nothing_of_the_workbench(module):
    path = PACKAGE / f"{module}.py"
    assert reaches(path, "") == [], f"context_compact/{path.name} imports {reaches(path, '')}"


def test_the_pipeline_is_one_small_flat_folder():
    assert [p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"] == []
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.glob("*.py"))
    assert lines <= MAX_PIPELINE_LINES, f"context_compact/*.py is {lines} lines"


def test_the_workbench_check_sees_an_import_of_the_workbench():
    assert reaches(WORKBENCH / "agent" / "loop.py", "") != []


@pytest.mark.parametrize("lower", SUBPACKAGES)
def test_a_subpackage_imports_only_the_layers_below_it(lower):
    higher = SUBPACKAGES[SUBPACKAGES.index(lower) + 1:]
    for path in sorted((WORKBENCH / lower).rglob("*.py")):
        for subpackage in higher:
            assert reaches(path, subpackage) == [], (
                f"{path.relative_to(ROOT)} imports compact_course.{subpackage}")


def test_every_workbench_module_is_in_a_layer():
    # A module on the compact_course's own top level would stand outside the layers, where
    # any layer could import it and it any layer: the probes stood there until issue 39.
    loose = [p.name for p in WORKBENCH.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    assert loose == [], f"compact_course/ holds {loose}: put each in one of {SUBPACKAGES}"
    assert not [m for m in imported_modules(WORKBENCH / "__main__.py") if m.split(".")[0] in
                ("context_compact", "compact_course")], "the command line names its modules as strings"
    folders = sorted(p.name for p in WORKBENCH.iterdir() if (p / "__init__.py").exists())
    assert folders == sorted(SUBPACKAGES)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(roots=(PACKAGE, WORKBENCH)) -> dict:
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
    graph["compact_course.course.sweep"].add("compact_course.course.sweep_chart")
    graph["compact_course.course.sweep_chart"].add("compact_course.course.sweep")
    graph["compact_course.course.exercises.hints"].add("compact_course.course.exercises.check")
    assert circles(graph) == [["compact_course.course.exercises.check",
                               "compact_course.course.exercises.hints"],
                              ["compact_course.course.sweep", "compact_course.course.sweep_chart"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_offline_model_never_imports_the_api_it_is_served_by():
    # compact_course/offline/model/ is the deterministic model; compact_course/offline/api/ plays the
    # Messages API around it. The API may ask the model; the model knows nothing of HTTP,
    # the request rules, clearing, server compaction or billing. tokens.py sits below both.
    model = sorted((WORKBENCH / "offline" / "model").rglob("*.py"))
    assert len(model) > 10
    for path in model:
        assert reaches(path, "offline.api") == [], \
            f"{path.relative_to(ROOT)} imports compact_course.offline.api"


def test_the_offline_model_check_sees_an_import_of_the_api():
    assert reaches(WORKBENCH / "offline" / "api" / "server.py", "offline.model") != []
    assert reaches(WORKBENCH / "offline" / "api" / "server.py", "offline.api") != []


def test_the_import_reader_resolves_relative_imports():
    assert "compact_course.offline.tokens" in imported_modules(WORKBENCH / "agent" / "loop.py")
    assert "context_compact.formats" in imported_modules(PACKAGE / "snip.py")  # from . import formats
    assert reaches(WORKBENCH / "course" / "replay.py", "bench") != []


def test_hypothesis_is_quick_by_default_and_thorough_in_ci():
    from hypothesis import settings

    from tests.conftest import profile_name
    assert profile_name({}) == "quick" and profile_name({"CI": "false"}) == "quick"
    assert profile_name({"CI": "true"}) == "thorough"
    assert profile_name({"CI": "true", "HYPOTHESIS_PROFILE": "quick"}) == "quick"
    assert settings.get_profile("quick").max_examples < settings.get_profile("thorough").max_examples
    assert settings.get_profile("thorough").derandomize and settings.get_profile("quick").derandomize
