"""The notebook's language: English or Chinese, read from the kernel's environment.

    language()   "zh" or "en"

The two editions share their code cells, so a helper cannot be told the
language by the cell that calls it; it reads it from the kernel instead:
- `COMPACT_LANG` (`en` or `zh`) when it is set, for a script or a test;
- else "zh" when the kernel's working folder is named `zh`: the Chinese
  notebooks live in `notebooks/zh/`, and JupyterLab, nbval and
  `scripts/build_notebooks.py` all start a notebook's kernel in its own folder;
- else "en".
Charts, checkers and widgets ask on every call, never at import, so a test can
switch with `COMPACT_LANG`.

Left out: any other language, and the offline model's answers, whose language
is the request's own (compact/offline/lang.py).
"""

import os
from pathlib import Path

LANGUAGES = ("en", "zh")
ENV = "COMPACT_LANG"


def language() -> str:
    """'zh' or 'en': $COMPACT_LANG, else 'zh' in a folder named zh, else 'en'."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen:
        if chosen not in LANGUAGES:
            raise ValueError(f"{ENV}={chosen!r}: use one of {', '.join(LANGUAGES)}")
        return chosen
    return "zh" if Path.cwd().name == "zh" else "en"


def pick(table: dict, key: str, **values) -> str:
    """table[language()][key], filled with values; a key missing in zh falls back to en."""
    words = table.get(language(), {})
    text = words[key] if key in words else table["en"][key]
    return text.format(**values) if values else text
