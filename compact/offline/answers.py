"""Writing the general policy's answer from what its lookups returned, and nothing else.

One function per kind of question (see ask.py). Each quotes the lines it rests
on with their file and line number, and ends with the calls it looked at. When
the lookups found nothing, or their text is gone from the context, the answer
says the workspace does not answer and where it looked. English or Chinese
follows the question; quoted lines stay as the files have them.

Left out: anything not in the lookups' text (no knowledge of Python, pytest or
pip beyond the line patterns below), and more than MAX_QUOTES quoted lines.
"""

import re

from .facts import file_facts, first_line, line_count, short
from .lang import say
from .lookup import MAX_LINES, grep_lines, listing
from .question import Question

MAX_QUOTES = 8
REQUIREMENT_RE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._\-\[\],]*)\s*(.*?)\s*(?:#.*)?$")


def t(q: Question, en: str, zh: str) -> str:
    return zh if q.lang == "zh" else en


def quote(q: Question, path: str, number: int, text: str) -> str:
    line = short(text.strip(), 140)
    return t(q, f"- {path}, line {number}: '{line}'", f"- {path} 第 {number} 行：'{line}'")


def cannot(q: Question, why: str) -> str:
    return say(q.lang, "cannot", why=why)


def looked(q: Question, done: list) -> str:
    calls = [label for got in done for label, _ in got.texts] + \
            [label for got in done for label in got.gone]
    return say(q.lang, "sources", where="; ".join(calls)) if calls else ""


def finish(q: Question, done: list, lines: list) -> str:
    partial = [label for got in done for label in got.partial]
    if partial:
        lines.append(t(q, f"(Only a preview of {', '.join(partial)} is left in this context.)",
                          f"（{', '.join(partial)} 在上下文里只剩预览。）"))
    return "\n".join(lines + [looked(q, done)]).strip()


# -- by kind -------------------------------------------------------------------------

def folder_answer(q: Question, done: list) -> str:
    found = listing(done[0].text())
    where = q.folder or t(q, "the workspace", "工作区")
    if not found:
        return finish(q, done, [cannot(q, t(
            q, f"I found no folder named {where} with anything in it.",
            f"我没有找到名为 {where} 且有内容的文件夹。"))])
    if q.folder is None:
        lines = [t(q, f"The workspace holds {count(len(found), q)} at the top: "
                      f"{', '.join(found)}.",
                   f"工作区顶层有 {count(len(found), q)}：{'、'.join(found)}。")]
    else:
        groups = {}
        for entry in found:
            parent, _, name = entry.rpartition("/")
            groups.setdefault(parent, []).append(name)
        lines = [t(q, f"{parent}/ holds {count(len(names), q)}: {', '.join(names)}.",
                   f"{parent}/ 里有 {count(len(names), q)}：{'、'.join(names)}。")
                 for parent, names in groups.items()]
    for label, text in (done[1].texts if len(done) > 1 else []):
        path = label[len("read_file("):].split(",")[0].rstrip(")")
        if text.startswith("Error: "):
            lines.append(f"- {path}: {first_line(text)}")
            continue
        begins = first_line(text)
        lines.append(t(q, f"- {path}: {line_count(text)} lines; it begins '{short(begins, 100)}'",
                       f"- {path}：共 {line_count(text)} 行，开头是 '{short(begins, 100)}'"))
    return finish(q, done, lines)


def defines(q: Question, text: str) -> bool:
    """A line that defines one of the names: `def x`, `class x`, `x = ...`."""
    return any(re.match(rf"\s*(?:(?:async\s+)?def|class)\s+{re.escape(name)}\b", text)
               or assignment(name, text) is not None for name in q.exact)


def quoted_matches(q: Question, found: list) -> list:
    """Up to three lines per file, a definition first, then in file order."""
    files = list(dict.fromkeys(path for path, _, _ in found))
    lines = []
    for path in files:
        here = sorted((item for item in found if item[0] == path),
                      key=lambda item: not defines(q, item[2]))
        lines += [quote(q, p, n, text) for p, n, text in here[:3]]
    return lines[:MAX_QUOTES]


def mention_answer(q: Question, done: list) -> str:
    what = ", ".join(q.terms)
    if not q.terms:
        return cannot(q, t(q, "the question names no word to look for.", "问题里没有可以查找的词。"))
    found = grep_lines(done[0].text())
    if not found:
        return finish(q, done, [cannot(q, t(q, f"no file in {scope_name(q)} mentions {what}.",
                                            f"{scope_name(q)} 里没有文件提到 {what}。"))])
    files = list(dict.fromkeys(path for path, _, _ in found))
    counts = ", ".join(f"{p} ({sum(1 for f, _, _ in found if f == p)})" for p in files)
    lines = [t(q, f"{what} appears in {len(files)} file(s), lines per file: {counts}.",
               f"{what} 出现在 {len(files)} 个文件里（每个文件的行数）：{counts}。")]
    lines += quoted_matches(q, found)
    if len(found) >= MAX_LINES:
        lines.append(t(q, f"(The search printed its first {MAX_LINES} lines only.)",
                       f"（搜索只输出了前 {MAX_LINES} 行。）"))
    return finish(q, done, lines)


def scope_name(q: Question) -> str:
    return ", ".join(q.paths) if q.paths else t(q, "the workspace", "工作区")


def count(n: int, q: Question) -> str:
    return t(q, f"{n} entry" if n == 1 else f"{n} entries", f"{n} 项")


def assignment(name: str, text: str) -> str | None:
    """The value a line gives `name` (`NAME = 3`, `"name": 3`, `name: 3`), if it sets it."""
    match = re.match(r"^\s*(?:export\s+)?[\"']?" + re.escape(name)
                     + r"[\"']?\s*(?::\s*[\w\[\], .]+)?\s*[:=]\s*(.+?)\s*,?\s*(?:#.*)?$", text)
    return match[1] if match else None


def value_answer(q: Question, done: list) -> str:
    name = q.exact[0]
    found = grep_lines(done[0].text())
    sets = [(p, n, text, assignment(name, text)) for p, n, text in found
            if assignment(name, text) is not None]
    if not found:
        return finish(q, done, [cannot(q, t(q, f"{name} does not occur in {scope_name(q)}.",
                                            f"{scope_name(q)} 里没有出现 {name}。"))])
    if not sets:
        lines = [t(q, f"{name} occurs on {len(found)} line(s) in {scope_name(q)}, but none "
                      f"of them sets its value:",
                   f"{name} 在 {scope_name(q)} 里出现了 {len(found)} 行，但没有一行给它赋值：")]
        return finish(q, done, lines + quoted_matches(q, found))
    lines = []
    for path, number, text, value in sets[:3]:
        lines.append(t(q, f"{name} is set to {value} in {path}, line {number}: "
                          f"'{short(text.strip(), 120)}'.",
                       f"{name} 在 {path} 第 {number} 行设为 {value}：'{short(text.strip(), 120)}'。"))
    others = [n for p, n, text in found if (p, n) not in {(s[0], s[1]) for s in sets}]
    if others:
        lines.append(t(q, f"It is used on {len(others)} other line(s), e.g. line {others[0]}.",
                       f"它还在另外 {len(others)} 行用到，例如第 {others[0]} 行。"))
    return finish(q, done, lines)


FAILED_RE = re.compile(r"^FAILED\s+(\S+)(?:\s+-\s+(.*))?$|^(\S+::\S+)\s+FAILED\b|^FAIL:\s+(\S+)")
SUMMARY_RE = re.compile(r"\b\d+ failed\b")
FAILURE_LINE_RE = re.compile(r"FAILED|FAIL:|ERROR|[0-9]+ failed")  # ask.FAILURE_PATTERN


def failures_answer(q: Question, done: list) -> str:
    named = [p for p in q.files if p.endswith(".log")]
    logs = named or listing(done[0].text())
    if not logs:
        return finish(q, done, [cannot(q, t(q, "there is no log file in the workspace.",
                                            "工作区里没有日志文件。"))])
    if named:   # read whole: its lines, numbered as a grep would
        found = [(label[len("read_file("):-1], n, line) for label, text in done[0].texts
                 for n, line in enumerate(text.splitlines(), 1) if FAILURE_LINE_RE.search(line)]
        errors = [text for _, text in done[0].texts if text.startswith("Error: ")]
        if errors:
            return finish(q, done, [cannot(q, first_line(errors[0]))])
    else:
        found = grep_lines(done[1].text()) if len(done) > 1 else []
    tests, reasons, where = [], {}, {}
    for path, number, text in found:
        match = FAILED_RE.match(text.strip())
        if match:
            test = match[1] or match[3] or match[4]
            tests.append(test)
            if match[2] or test not in where:
                where[test], reasons[test] = (path, number, text), match[2]
    tests = list(dict.fromkeys(tests))
    summary = [f for f in found if SUMMARY_RE.search(f[2])]
    if not tests:
        return finish(q, done, [t(q, f"No test failed: {', '.join(logs)} has no FAILED line.",
                                  f"没有测试失败：{'、'.join(logs)} 里没有 FAILED 行。")])
    lines = [t(q, f"{len(tests)} test(s) failed in the run logged in {', '.join(logs)}:",
               f"{'、'.join(logs)} 记录的测试运行中有 {len(tests)} 个测试失败：")]
    for test in tests:
        path, number, text = where[test]
        reason = f" ({reasons[test]})" if reasons.get(test) else ""
        lines.append(t(q, f"- {test}{reason}: {path}, line {number}",
                       f"- {test}{reason}：{path} 第 {number} 行"))
    if summary:
        path, number, text = summary[-1]
        lines.append(t(q, f"The run's summary, {path} line {number}: '{short(text.strip(), 120)}'",
                       f"运行汇总，{path} 第 {number} 行：'{short(text.strip(), 120)}'"))
    return finish(q, done, lines)


def count_answer(q: Question, done: list) -> str:
    words = [w for w in q.words if w.isascii()]
    found = grep_lines(done[0].text()) if done and done[0].texts else []
    if not found:
        what = " / ".join(words) or q.text
        return finish(q, done, [cannot(q, t(q, f"no line in {scope_name(q)} states a number "
                                               f"of {what}.",
                                            f"{scope_name(q)} 里没有一行写出 {what} 的数目。"))])

    def score(item):
        text = item[2].lower()
        named = sum(1 for p in q.paths if p.lower() in text or p.lower() in item[0].lower())
        return named, sum(1 for w in words if w in text), item[0] == found[-1][0], item[1]
    path, number, text = max(found, key=score)
    pattern = r"\b([0-9][0-9,]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)" \
              r" +((?:" + "|".join(map(re.escape, words)) + r")[a-z]*)"
    counts = [f"{n} {w}" for n, w in re.findall(pattern, text, re.IGNORECASE)]
    lines = [t(q, f"{', '.join(counts)}: so says {path}, line {number}: '{short(text.strip(), 120)}'",
               f"{'，'.join(counts)}：见 {path} 第 {number} 行：'{short(text.strip(), 120)}'")]
    return finish(q, done, lines)


def packages_answer(q: Question, done: list) -> str:
    reads = done[1].texts if len(done) > 1 else []
    if not reads:
        return finish(q, done, [cannot(q, t(q, "I found no requirements file in the workspace.",
                                            "我在工作区里没有找到 requirements 文件。"))])
    lines = []
    for label, text in reads:
        path = label[len("read_file("):].rstrip(")")
        if text.startswith("Error: "):
            lines.append(f"- {path}: {first_line(text)}")
            continue
        packages = []
        for line in text.splitlines():
            match = REQUIREMENT_RE.match(line)
            if match and not line.lstrip().startswith(("#", "-")):
                packages.append(match[1] + (f" ({match[2]})" if match[2] else ""))
        lines.append(t(q, f"{path} lists {len(packages)} package(s): {', '.join(packages)}.",
                       f"{path} 列出了 {len(packages)} 个包：{'、'.join(packages)}。"))
    return finish(q, done, lines)


def describe_answer(q: Question, done: list) -> str:
    if q.terms:
        return mention_answer(q, done)
    lines = []
    for label, text in done[0].texts:
        path = label[len("read_file("):].split(",")[0]
        if text.startswith("Error: "):
            lines.append(cannot(q, f"{path}: {first_line(text)}"))
            continue
        lines.append(f"{path}: {file_facts(path, text)}" if q.lang == "en"
                     else f"{path}：共 {line_count(text)} 行")
        shown = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("... (")][:3]
        lines += [t(q, f"  line {i}: '{short(ln.strip(), 120)}'",
                    f"  第 {i} 行：'{short(ln.strip(), 120)}'")
                  for i, ln in enumerate(shown, 1)]
    return finish(q, done, lines)


def distinct_terms(q: Question, text: str) -> int:
    lower = text.lower()
    return sum(1 for term in q.exact + q.words if term.lower() in lower)


def best_lines(q: Question, found: list, at_least: int = 1) -> list:
    """The lines holding the most of the question's terms (at least `at_least`), best first."""
    ranked = sorted((item for item in found if distinct_terms(q, item[2]) >= at_least),
                    key=lambda item: -distinct_terms(q, item[2]))
    return ranked[:MAX_QUOTES]


def search_answer(q: Question, done: list) -> str:
    terms = q.exact + q.words
    if not terms:
        return cannot(q, t(q, "the question names no file, folder or word I could look for.",
                           "问题里没有我能查找的文件、文件夹或词。"))
    together = best_lines(q, grep_lines(done[0].text()), 2) if done[0].texts else []
    found = together or [item for got in done[1:2] for item in grep_lines(got.text())]
    what = ", ".join(terms)
    if not found:
        return finish(q, done, [cannot(q, t(q, f"no line in {scope_name(q)} mentions {what}.",
                                            f"{scope_name(q)} 里没有一行提到 {what}。"))])
    if together:
        lines = [t(q, f"The lines of {scope_name(q)} where {what} meet, most of them first:",
                   f"{scope_name(q)} 里同时提到 {what} 中几个词的行（含词最多的在前）：")]
    elif len(terms) == 1:
        lines = [t(q, f"The lines of {scope_name(q)} that mention {what}:",
                   f"{scope_name(q)} 里提到 {what} 的行：")]
    else:
        lines = [t(q, f"No line of {scope_name(q)} mentions two of {what}; the lines that "
                      f"mention one:",
                   f"{scope_name(q)} 里没有一行同时提到 {what} 中的两个词；提到其中一个的行：")]
    lines += [quote(q, p, n, text) for p, n, text in best_lines(q, found)]
    return finish(q, done, lines)


ANSWERS = {"folder": folder_answer, "mention": mention_answer, "value": value_answer,
           "failures": failures_answer, "count": count_answer, "packages": packages_answer,
           "describe": describe_answer, "search": search_answer}


def answer(q: Question, done: list) -> str:
    """The answer to `q` from the lookups' results; when one's text is gone, say so."""
    gone = [label for got in done for label in got.gone]
    if gone:
        return finish(q, done, [cannot(q, say(q.lang, "gone", call=", ".join(gone),
                                              omitted="[Earlier tool result omitted.]"))])
    # A search the shell refused (or that failed) found nothing: say so, not "no line".
    failed = [(label, text) for got in done for label, text in got.texts
              if label.startswith("bash(") and text.startswith("Error: ")]
    if failed:
        return finish(q, done, [cannot(q, say(q.lang, "error", call=failed[0][0],
                                              line=first_line(failed[0][1])))])
    return ANSWERS[q.kind](q, done)
