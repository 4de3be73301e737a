"""Notes: the one line the offline model writes about each result it just received,
in the request's language, and the facts read back from notes in either.

Left out: any judgement of what matters; the notes follow fixed patterns.
"""

import re

from ....display.lang import language_of
from ....display.phrases import say
from ..facts import MAX_LINE, first_line, fitting, short, title_of
from ..view import View

LESSONS_GLOB = "s*/README.md"
LESSON_RE = re.compile(r"^(s\d\d_[A-Za-z0-9_]+)/README\.md$", re.MULTILINE)
# A note is written in the request's language and read back in either.
LESSONS_NOTE_RE = re.compile(r"(?:Lessons found: |找到的课程：)([A-Za-z0-9_, ]+)")
DEF_RE = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", re.MULTILINE)
OUTLINE_RE = re.compile(r"^\d+:\s*(?:async\s+)?(?:def|class)\s+(\w+)", re.MULTILINE)
# Most telling first: a note has room for a few names only.
CONTEXT_WORDS = ("budget", "snip", "micro", "compact", "summar", "reactive", "prepare",
                 "transcript", "context", "estimate", "persist_large", "window", "token")
MEMORY_WORDS = ("memor", "remember", "recall", "forget", "fact")


def notes_on_fresh(view: View) -> list:
    """One line per result I have just received: what I learned from it."""
    lines, lang = [], language_of(view.request)
    for call in [c for c in view.calls if c.fresh and c.kind == "whole"]:   # just received, whole
        if call.name == "glob" and LESSON_RE.search(call.text):
            lines.append(short(say("fact lessons", lang, names=", ".join(LESSON_RE.findall(call.text)))))
        elif call.name == "read_file" and call.path.endswith(".py"):
            lines.append(code_note(call.path, code_facts(call.text), lang))
        elif call.name == "read_file" and title_of(call.text):
            # A saved copy read back is noted under the file it was saved from.
            path = next((c.path for c in view.calls if c.saved == call.path and c.path), call.path)
            lines.append(short(say("fact title", lang, path=path, title=title_of(call.text))))
        elif call.name == "bash" and call.command.startswith("grep -nE"):   # an outline (compare_code)
            target = call.command.rsplit(" ", 1)[-1]
            lines.append(code_note(target, code_facts(call.text, outline=True), lang))
        elif call.name == "read_file":
            lines.append(short(say("fact first line", lang, path=call.path, line=first_line(call.text))))
    return lines


def last_match(pattern, text: str):
    """The last match of `pattern` in `text`, or None: the newest note is the one that counts."""
    return next(reversed(list(re.finditer(pattern, text))), None)


def lessons_found(view: View) -> list | None:
    """Lesson folders, from a whole glob result or my note ([] for none; None: nothing says)."""
    for call in reversed(view.calls):
        if call.name == "glob" and call.arg("pattern") == LESSONS_GLOB and call.kind == "whole":
            return LESSON_RE.findall(call.text)
    match = last_match(LESSONS_NOTE_RE, view.knowledge)
    return [name.strip() for name in match[1].split(",") if name.strip()] if match else None


def code_facts(text: str, outline: bool = False) -> dict:
    """Size and the context / memory names of a code file, or of its grep outline."""
    names = list(dict.fromkeys((OUTLINE_RE if outline else DEF_RE).findall(text)))

    def pick(words):
        rank = {n: next((i for i, w in enumerate(words) if w in n.lower()), None) for n in names}
        return sorted((n for n in names if rank[n] is not None), key=lambda n: rank[n])
    return {"lines": None if outline else len(text.splitlines()),
            "context": pick(CONTEXT_WORDS), "memory": pick(MEMORY_WORDS)}


def code_note(path: str, facts: dict, lang: str = "en") -> str:
    size = say("fact lines", lang, n=facts["lines"]) if facts["lines"] else say("fact outline", lang)
    empty = say("fact none", lang)
    head = fitting(say("fact code", lang, path=path, size=size), facts["context"], MAX_LINE - 30, empty,
                   more=False)
    return fitting(head + say("fact memory", lang), facts["memory"], empty=empty, more=False)


def parse_code_note(path: str, text: str) -> dict | None:
    """The facts of the last code note about `path` in `text`, if there is one."""
    match = last_match(re.escape(path) + r"(?:: (?:(\d+) lines|outline); context: ([^;\n]*); memory: "
                       r"([^\n]*)|：(?:(\d+) 行|大纲)；上下文：([^；\n]*)；记忆：([^\n]*))", text)
    if not match:
        return None
    lines, context, memory = (match[i] or match[i + 3] for i in (1, 2, 3))

    def names(s):
        if (s or "").strip() in ("none", "无", ""):
            return []
        return [n.strip() for n in s.rstrip(".").split(",") if n.strip()]
    return {"lines": int(lines) if lines else None, "context": names(context), "memory": names(memory)}
