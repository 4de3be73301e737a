"""The layout: the pipeline alone at the top of compact/, and imports that go one way.

    pipeline (compact/*.py) <- importers <- display <- offline <- agent <- bench <- course

A top-level module of compact/ imported on its own loads no plotting, widget,
HTTP-server or SDK library, and names no subpackage. Each subpackage imports
only from the layers below it. `python -m compact` reaches the subpackages by
name, through importlib, when a command asks for one: that is not an import
and is left out here. Last, the suite's own setup: the hypothesis profiles.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "compact"
TOP_LEVEL = sorted(p.stem for p in PACKAGE.glob("*.py"))
SUBPACKAGES = ("importers", "display", "offline", "agent", "bench", "course")  # lowest first
HEAVY = ("matplotlib", "ipywidgets", "http.server", "aiohttp", "anthropic")


def imported_modules(path: Path) -> set:
    """Every module an import statement in the file names, relative ones made absolute."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
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
    name = f"compact.{subpackage}"
    return sorted(m for m in imported_modules(path) if m == name or m.startswith(name + "."))


@pytest.mark.parametrize("module", TOP_LEVEL)
def test_a_top_level_module_loads_no_heavy_library(module):
    name = "compact" if module == "__init__" else f"compact.{module}"
    code = (f"import sys, {name}\n"
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=PACKAGE.parent, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], f"importing {name} loads {done.stdout.strip()}"


def test_the_heavy_check_sees_a_heavy_import():
    # The same check on a subpackage module that does load matplotlib.
    code = "import sys, compact.course.charts; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=PACKAGE.parent, timeout=120)
    assert done.stdout.strip() == "True", done.stderr


@pytest.mark.parametrize("module", TOP_LEVEL)
def test_the_pipeline_imports_no_subpackage(module):
    path = PACKAGE / f"{module}.py"
    for subpackage in SUBPACKAGES:
        assert reaches(path, subpackage) == [], f"compact/{path.name} imports compact.{subpackage}"


@pytest.mark.parametrize("lower", SUBPACKAGES)
def test_a_subpackage_imports_only_the_layers_below_it(lower):
    higher = SUBPACKAGES[SUBPACKAGES.index(lower) + 1:]
    for path in sorted((PACKAGE / lower).rglob("*.py")):
        for subpackage in higher:
            assert reaches(path, subpackage) == [], (
                f"{path.relative_to(PACKAGE)} imports compact.{subpackage}")


def test_the_offline_model_never_imports_the_api_it_is_served_by():
    # compact/offline/model/ is the deterministic model; compact/offline/api/ plays the
    # Messages API around it. The API may ask the model; the model knows nothing of HTTP,
    # the request rules, clearing, server compaction or billing. tokens.py sits below both.
    model = sorted((PACKAGE / "offline" / "model").rglob("*.py"))
    assert len(model) > 10
    for path in model:
        assert reaches(path, "offline.api") == [], f"{path.relative_to(PACKAGE)} imports compact.offline.api"


def test_the_offline_model_check_sees_an_import_of_the_api():
    assert reaches(PACKAGE / "offline" / "api" / "server.py", "offline.model") != []
    assert reaches(PACKAGE / "offline" / "api" / "server.py", "offline.api") != []


def test_the_import_reader_resolves_relative_imports():
    assert "compact.offline.tokens" in imported_modules(PACKAGE / "agent" / "loop.py")
    assert "compact.formats" in imported_modules(PACKAGE / "snip.py")  # from . import formats
    assert reaches(PACKAGE / "course" / "replay.py", "bench") != []


def test_hypothesis_is_quick_by_default_and_thorough_in_ci():
    from hypothesis import settings

    from tests.conftest import profile_name
    assert profile_name({}) == "quick" and profile_name({"CI": "false"}) == "quick"
    assert profile_name({"CI": "true"}) == "thorough"
    assert profile_name({"CI": "true", "HYPOTHESIS_PROFILE": "quick"}) == "quick"
    assert settings.get_profile("quick").max_examples < settings.get_profile("thorough").max_examples
    assert settings.get_profile("thorough").derandomize and settings.get_profile("quick").derandomize
