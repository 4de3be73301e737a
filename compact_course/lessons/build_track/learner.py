"""The learner's file: read afresh on every check, and refused when it imports the course.

`load(path)` executes my_compact.py anew (an edit saved a moment ago counts, no importlib.reload
needed), under the name `my_compact`. `forbidden(source)` reads its syntax tree: a build that
imports `context_compact` or `compact_course` (an import statement, `__import__` or
`importlib.import_module` with the name written out) is not the learner's build. A name put
together at run time passes this reading; the trap (trap.py) catches that one while the
learner's function runs. Left out: sandboxing the learner's code (it is their own, in their kernel).
"""

import ast
import importlib.util
import inspect
import sys
from pathlib import Path

FORBIDDEN = ("context_compact", "compact_course")
FILE = "my_compact.py"


def _ours(name) -> bool:
    return isinstance(name, str) and name.split(".")[0] in FORBIDDEN


def forbidden(source: str) -> list:
    """(line, module) of every import of the course's packages the source writes out."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if _ours(a.name)]
        elif isinstance(node, ast.ImportFrom) and not node.level and _ours(node.module):
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in ("__import__", "import_module") and _ours(node.args[0].value):
                found.append((node.lineno, node.args[0].value))
    return found


def source_of(function) -> tuple[str | None, str | None]:
    """(the source of the file the function is defined in, its name); the function's own when
    it has no file (a notebook cell); (None, None) when neither can be read."""
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    path = getattr(module, "__file__", None)
    if path and Path(path).is_file():
        return Path(path).read_text(encoding="utf-8"), Path(path).name
    try:
        return inspect.getsource(function), "your cell"
    except (OSError, TypeError):
        return None, None


def load(path: Path):
    """The module my_compact.py defines, executed now (SyntaxError and others propagate)."""
    spec = importlib.util.spec_from_file_location("my_compact", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["my_compact"] = module
    spec.loader.exec_module(module)
    return module
