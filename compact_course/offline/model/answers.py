"""The general policy's answers, one function per kind: lines quoted with file and line,
or none, which `cannot` turns into "I can't tell" and why.

Left out: anything not in the lines, and more than MAX_QUOTES quoted lines.
"""

import re

from ...display.phrases import say
from ...display.text import plural
from .facts import short

MAX_QUOTES = 8
FAILED_RE = re.compile(r"^FAILED\s+(\S+)(?:\s+-\s+(.*))?$")
SUMMARY_RE = re.compile(r"^=+ .*\b\d+ (?:passed|failed)")
OUTCOMES = {"pass": "passed", "fail": "failed", "skip": "skipped", "error": "error",
            "warn": "warning", "deselect": "deselected"}
JSON_LINE_RE = re.compile(r'^(\s*)"([^"]+)"\s*:\s*(.*?),?\s*$')   # indent, key, value
REQUIREMENT_RE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._\-\[\],]*)\s*(.*?)\s*(?:#.*)?$")
DEFINES_RE = re.compile(r"\s*(?:async\s+)?(?:class|def)\s+(\w+)")
WORD_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def finish(q, ev, lines: list) -> str:
    """The answer's lines, then where it looked."""
    looked = say("sources", q.lang, where="; ".join(dict.fromkeys(ev.looked))) if ev.looked else ""
    return "\n".join(lines + [looked]).strip()


def cannot(q, ev, why: str | None = None) -> str:
    """I can't tell: why (each part not known, or what the whole search did not find), and where."""
    reasons = [say("why " + key, q.lang, **values) for key, values in ev.missing]
    reasons = reasons or [why or say("why nothing", q.lang)]
    return finish(q, ev, [say("cannot", q.lang, why=say("join", q.lang).join(reasons))])


def matched(q, text: str) -> int:
    """How many of the question's words (as stems) a name or a line holds."""
    words = {w.lower() for w in WORD_RE.findall(text)}
    return sum(1 for s in q.stems if any(w.startswith(s) or s.startswith(w) and len(w) > 3
                                         for w in words))


def best(q, items: list, text_of) -> object | None:
    """The one item that holds most of the question's words, or None on a tie or no match."""
    scored = sorted(((matched(q, text_of(item)), i) for i, item in enumerate(items)), reverse=True)
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return items[scored[0][1]]


# -- by kind: each returns the answer's lines, [] when the lines found do not answer it --

def lines_answer(q, ev) -> list:
    return [say("line count", q.lang, path=p, n=n) for p, n in ev.counts.items()]


def failures_answer(q, ev) -> list:
    failed = [(p, n, FAILED_RE.match(t)) for p, n, t in ev.hits if FAILED_RE.match(t)]
    summary = [h for h in ev.hits if SUMMARY_RE.match(h[2])][-1:]   # the run's last summary line
    paths = say("and", q.lang).join(dict.fromkeys(p for p, _, _ in ev.hits))
    if failed:
        lines = [say("failed tests", q.lang, n=len(failed), paths=paths)]
        lines += [say("failed test", q.lang, test=m[1], reason=f" ({m[2]})" if m[2] else "",
                      path=p, line=n) for p, n, m in failed]
        return lines + [say("run summary", q.lang, path=p, line=n, text=short(t.strip(), 120))
                        for p, n, t in summary]
    return [say("no test failed", q.lang, path=p, line=n, text=t.strip())
            for p, n, t in summary if ev.whole and " failed" not in t]


def outcome_asked(q) -> str | None:
    """The test outcome a question counts (passed, failed, ...), if it names one."""
    return next((word for key, word in OUTCOMES.items() for w in q.words if w.startswith(key)), None)


def results_answer(q, ev) -> list:
    summary = [h for h in ev.hits if SUMMARY_RE.match(h[2])]
    path, line, text = summary[-1] if summary else (None, None, "")
    found = re.search(rf"(\d+) ({outcome_asked(q)}s?)\b", text)
    return [say("result count", q.lang, count=found[1], word=found[2], path=path, line=line,
                text=short(text.strip(), 120))] if found else []


def title_answer(q, ev) -> list:
    first = {}   # each file's first title
    for path, line, text in ev.hits:
        first.setdefault(path, (line, text))
    return [say("title is", q.lang, path=path, title=text.strip(), line=line)
            for path, (line, text) in first.items()]


def json_field_answer(q, ev) -> list:
    """The field the question names, at the least indented place it is set."""
    other = re.search(r"version of (\w+)|版本的\s*(\w+)", q.text, re.IGNORECASE)
    if other and (other[1] or other[2]).lower() not in ("the", "this", "its", "it", "web", "site"):
        return []   # a version of something else: not this file's own field
    hits = [(p, n, t, m) for p, n, t in ev.hits for m in [JSON_LINE_RE.match(t)] if m]
    if not hits:
        return []
    order = {w: i for i, w in enumerate(reversed(q.words))}   # the field the question names first
    path, line, text, m = min(hits, key=lambda h: (-order.get(h[3][2], -1), len(h[3][1]), h[1]))
    value = m[3] if not m[3].startswith(("{", "[")) else say("json text", q.lang)
    return [say("field is", q.lang, key=m[2], path=path, value=value, line=line,
                text=short(text.strip(), 120))]


def packages_answer(q, ev) -> list:
    by_file = {}
    for path, line, text in ev.hits:
        match = REQUIREMENT_RE.match(text)
        if match and not text.lstrip().startswith(("#", "-")):
            by_file.setdefault(path, []).append((line, match[1] + (f" ({match[2]})" if match[2] else "")))
    return [say("packages", q.lang, path=p, n=len(found), first=found[0][0], last=found[-1][0],
                names=say("and", q.lang).join(name for _, name in found)) for p, found in by_file.items()]


def location_answer(q, ev) -> list:
    """The path constant whose name holds the question's words."""
    found = best(q, ev.hits, lambda hit: hit[2].split("=")[0])
    if not found:
        return []
    path, line, text = found
    value = text.split("=", 1)[1].split("#")[0].strip()
    return [say("kept in", q.lang, path=path, value=value, line=line, text=short(text.strip(), 120))]


def definition_answer(q, ev) -> list:
    """The class or def whose name and docstring hold most of the question's words."""
    docs = {(p, n): t.strip().strip('"') for p, n, t in ev.hits if t.strip().startswith('"""')}
    defs = [(p, n, t, m[1], docs.get((p, n + 1), "")) for p, n, t in ev.hits
            for m in [DEFINES_RE.match(t)] if m]
    found = best(q, defs, lambda d: d[3] + " " + d[4])
    if not found:
        return []
    path, line, text, name, doc = found
    lines = [say("defined", q.lang, name=name, path=path, line=line, text=short(text.strip(), 120))]
    return lines + ([say("docstring", q.lang, doc=short(doc, 120))] if doc else [])


def value_answer(q, ev) -> list:
    return [say("value is", q.lang, name=q.names[0], value=t.split("=", 1)[1].split("#")[0].strip()
                if "=" in t else t.split(":", 1)[1].strip().rstrip(","),
                path=p, line=n, text=short(t.strip(), 120)) for p, n, t in ev.hits[:3]]


def mention_answer(q, ev) -> list:
    if not ev.hits:
        return []
    files = list(dict.fromkeys(p for p, _, _ in ev.hits))
    counts = ", ".join(f"{f} ({sum(1 for p, _, _ in ev.hits if p == f)})" for f in files)
    lines = [say("mentions", q.lang, what=", ".join(q.names or q.words), n=len(files), counts=counts)]
    per_file = [h for f in files for h in [x for x in ev.hits if x[0] == f][:3]]
    return lines + [say("quote", q.lang, path=p, line=n, text=short(t.strip(), 140))
                    for p, n, t in per_file[:MAX_QUOTES]]


def folders_answer(q, ev) -> list:
    folders = [p for p in ev.listing if "." not in p.rsplit("/", 1)[-1]]
    return [say("folders named", q.lang, what=", ".join(w for w in q.words if w.isascii()),
                names=say("and", q.lang).join(folders))] if folders else []


def contents_answer(q, ev) -> list:
    groups = {}
    for entry in ev.listing:
        parent, _, name = entry.rpartition("/")
        groups.setdefault(parent or ".", []).append(name)
    return [say("workspace holds" if parent == "." else "folder holds", q.lang, folder=parent, n=len(names),
                entries=plural(len(names), "entry", "entries"), names=say("and", q.lang).join(names))
            for parent, names in groups.items()]


def unknown_why(q, ev) -> str:
    """Why a question of no kind in the table is never answered; the lines found are only pointed at."""
    found = say("why found", q.lang, n=len(ev.hits)) if ev.hits else say("why found none", q.lang)
    return say("why no kind", q.lang) + found
