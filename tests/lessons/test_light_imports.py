"""A notebook's import cell loads only what that notebook uses (issue 50, "Load lazily").

The notebooks that run no model and draw nothing in their import cell (the core path's
01-05 and 08, lab 01) import their helpers without matplotlib, ipywidgets, the SDK or an
HTTP server: a chart imports matplotlib when it draws (lessons/charts.py), the widgets
import ipywidgets when they are made, and `lessons.exercises` imports a checker's module
when the notebook asks for that checker. How long the cell takes is farm-bench's to say
(docs/CONTRIBUTING.md), not a test's.

Left out: the notebooks whose import cell does run the model or draws on import
(00, 06, 07, 09 and the other labs); what the kernel has loaded before the cell (IPython).
"""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "notebooks" / "src"
HEAVY = ("matplotlib", "ipywidgets", "aiohttp", "anthropic", "http.server")
LIGHT = ["01_tool_result_budget", "02_snip_compact", "03_micro_compact", "04_compact_history",
         "05_why_the_order", "08_build_prepare", "labs/01_seed_vs_default"]


def import_cell(source: Path) -> list[str]:
    """The import statements of a notebook's first code cell that imports anything,
    IPython's left out (the kernel has it already)."""
    text = source.read_text(encoding="utf-8")
    heads = re.findall(r"^# %%.*$", text, flags=re.M)
    bodies = re.split(r"^# %%.*$", text, flags=re.M)[1:]
    for head, body in zip(heads, bodies):
        if "[markdown]" in head:
            continue
        found = [ast.unparse(node) for node in ast.parse(body).body
                 if isinstance(node, ast.Import | ast.ImportFrom)
                 and not (getattr(node, "module", None) or "").startswith("IPython")]
        if found:
            return found
    return []


def heavy_after(statements: list[str]) -> list[str]:
    code = "\n".join([*statements, "import sys",
                      f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT / "notebooks", timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize("name", LIGHT)
def test_the_import_cell_loads_no_heavy_library(name):
    statements = import_cell(SOURCES / f"{name}.py")
    assert any("compact_course" in s for s in statements), statements
    assert heavy_after(statements) == [], f"notebook {name}'s import cell"


def test_the_check_sees_a_heavy_import():
    # Lab 04 draws its sweep with a module that only draws: its import cell loads matplotlib.
    assert "matplotlib" in heavy_after(import_cell(SOURCES / "labs" / "04_your_own_agent.py"))
