"""The class deployment's tests. deploy/class/ is no package: its scripts run from their
folder and import each other by name (`import classroom`), so its two modules are loaded
here from their files under those names, before any test of this folder imports them
(no sys.path entry: tests/tooling/test_install.py)."""

import importlib.util
import sys
from pathlib import Path

CLASS = Path(__file__).resolve().parents[2] / "deploy" / "class"

for name in ("classroom_kernels", "classroom"):   # classroom imports classroom_kernels
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, CLASS / f"{name}.py")
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
