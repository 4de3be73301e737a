"""The one module that knows the language: the notebook's, or a request's.

    language()          "zh" or "en": the notebook's (the kernel's environment)
    language_of(text)   "zh" or "en": a text's own (the offline model answers in it)
    choose(en, zh)      the one of two texts in the notebook's language

The two editions share their code cells, so a helper cannot be told the
language by the cell that calls it; it reads it from the kernel instead:
- `COMPACT_LANG` (`en` or `zh`) when it is set, for a script or a test;
- else "zh" when the kernel's working folder is named `zh`, or is a `labs`
  folder inside one: the Chinese notebooks live in `notebooks/zh/` and their
  labs in `notebooks/zh/labs/`, and JupyterLab, nbval and
  `scripts/build_notebooks.py` all start a notebook's kernel in its own folder;
- else "en".
Charts, checkers and widgets ask on every call, never at import, so a test can
switch with `COMPACT_LANG`. A request to the offline model is answered in its
own language: Chinese when it holds a Chinese character. The words themselves
are in the phrasebook beside this module (phrases.py).

Left out: any other language, and translation: quoted lines, file names and
values stay as they are, whatever the language of the sentence around them.
"""

import os
import re
from pathlib import Path

LANGUAGES = ("en", "zh")
ENV = "COMPACT_LANG"
LABS = "labs"   # the deep dives' folder, inside each edition's
CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def language() -> str:
    """'zh' or 'en': $COMPACT_LANG, else 'zh' in a folder named zh (or in its labs/), else 'en'."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen:
        if chosen not in LANGUAGES:
            raise ValueError(f"{ENV}={chosen!r}: use one of {', '.join(LANGUAGES)}")
        return chosen
    here = Path.cwd()
    if here.name == LABS:   # notebooks/zh/labs/ is Chinese, notebooks/labs/ English
        here = here.parent
    return "zh" if here.name == "zh" else "en"


def language_of(text: str) -> str:
    """'zh' when the text holds a Chinese character, else 'en'."""
    return "zh" if CJK_RE.search(text or "") else "en"


def choose(english: str, chinese: str, lang: str | None = None) -> str:
    """The text in `lang` (default: the notebook's language)."""
    return chinese if (lang or language()) == "zh" else english


def pick(table: dict, key: str, **values) -> str:
    """table[language()][key], filled with values; a key missing in zh falls back to en."""
    words = table.get(language(), {})
    text = words[key] if key in words else table["en"][key]
    return text.format(**values) if values else text
