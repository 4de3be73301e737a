"""The general policy: KINDS, the one table of question kinds (the first row that fits
wins; docs/CONTRIBUTING.md adds one), and `plan_question`.

Left out: grammar (a question is cue words and names), and questions that need two kinds.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from ...display.phrases import say
from . import answers
from .lookup import Glob, Grep, InFiles, folder_pattern
from .question import Question, parse
from .view import Plan, View


def cue_in(cues: tuple, text: str) -> bool:
    return any(re.search(r"(?<![a-z])" + re.escape(cue), text) if cue.isascii() else cue in text
               for cue in cues)


@dataclass(frozen=True)
class Kind:
    name: str
    en: tuple                 # English cues, found at a word's start in the lower-cased question
    zh: tuple                 # Chinese cues, found anywhere
    lookup: object            # InFiles / Grep / Glob: what to read and which lines
    answer: Callable          # (question, evidence) -> the answer's lines; none: "I can't tell"
    needs: Callable = lambda q: True
    whole: bool = True        # answers only from a whole search (a count, "the one", a negative)
    why: Callable | None = None   # (question, evidence) -> why it cannot tell, when nothing is missing

    def fits(self, q: Question) -> bool:
        return self.needs(q) and (not (self.en or self.zh) or cue_in(self.en + self.zh, q.bare()))


def json_keys(q: Question) -> str:
    return r'^\s*"(' + "|".join(map(re.escape, sorted(set(q.words) | q.stems))) + r')"\s*:'


def any_words(q: Question) -> str | None:
    """Any of the question's names and words: an English stem with its longer forms."""
    words = sorted(w for w in q.stems if len(w) >= 3 or not w.isascii())
    return "|".join([re.escape(n) for n in q.names]
                    + [re.escape(w) + ("[a-z]*" if w.isascii() else "") for w in words]) or None


MENTION_EN, MENTION_ZH = ("mention", "which file", "refer", "contain"), ("提到", "提及", "哪个文件", "包含")
SUMMARY_LINE = r"^=+ .*[0-9]+ (passed|failed|skipped|errors?|warnings?|deselected)"
PYTHON = dict(glob="**/*.py", name="*.py")
LOGS = dict(glob="**/*.log", name="*.log")

KINDS = (
    Kind("lines", ("how many lines", "number of lines", "line count"), ("多少行", "几行", "行数"),
         InFiles(None), answers.lines_answer, needs=lambda q: bool(q.files or q.folder) and not q.names),
    Kind("mention", MENTION_EN, MENTION_ZH, Grep(lambda q: q.names[0], fixed=True), answers.mention_answer,
         needs=lambda q: bool(q.names)),
    Kind("results", ("how many",), ("多少", "几个"), InFiles(lambda q: SUMMARY_LINE, **LOGS),
         answers.results_answer, needs=answers.outcome_asked, whole=False),
    Kind("failures", ("fail",), ("失败",), InFiles(lambda q: r"^FAILED |" + SUMMARY_LINE, **LOGS),
         answers.failures_answer),
    Kind("title", ("title", "heading"), ("标题",),
         InFiles(lambda q: r"^# ", name="README.md"), answers.title_answer, whole=False),
    Kind("json field", ("version", "name", "field", "schema", "generator"), ("版本", "名字", "名称", "字段"),
         InFiles(json_keys, glob="**/package.json", name="*.json"), answers.json_field_answer,
         needs=lambda q: any(p.endswith(".json") for p in q.files)
         or cue_in(("site", "web", "网站"), q.bare())),
    Kind("packages", ("which packages", "what packages", "dependenc", "requirement"),
         ("哪些包", "什么包", "依赖"),
         InFiles(lambda q: r"^[A-Za-z0-9]", glob="**/requirements*.txt", name="requirements*.txt"),
         answers.packages_answer),
    Kind("location", ("where on disk", "which directory", "which path", "where does", "where do"),
         ("存在哪", "保存在哪", "放在哪", "存放在", "哪个目录"),
         InFiles(lambda q: r"^[A-Z][A-Z0-9_]*(DIR|PATH|ROOT|FOLDER|HOME)[A-Z0-9_]*\s*=", **PYTHON),
         answers.location_answer),
    Kind("class", ("which class", "what class"), ("哪个类", "什么类"),
         InFiles(lambda q: r'^\s*class [A-Za-z_]\w*|^\s*"""', **PYTHON), answers.definition_answer),
    Kind("function", ("which function", "what function", "which method"), ("哪个函数", "什么函数"),
         InFiles(lambda q: r'^\s*(async )?def [A-Za-z_]\w*|^\s*"""', **PYTHON),
         answers.definition_answer),
    Kind("value", ("set to", "value", "equal", "defined as", "what is", "what's"),
         ("的值", "值是", "设为", "等于", "是多少", "是什么"),
         InFiles(lambda q: rf"^\s*[\"']?{re.escape(q.names[0])}[\"']?\s*[:=]", anywhere=True),
         answers.value_answer, whole=False,
         needs=lambda q: bool(q.names) and bool(re.fullmatch(r"[A-Za-z_]\w*", q.names[0]))),
    Kind("named folder", ("which folder", "what folder", "which lesson"), ("哪个文件夹", "哪一课", "哪节课"),
         Glob(lambda q: [f"*{w}*" for w in q.words if w.isascii() and w.isalpha() and len(w) >= 3]),
         answers.folders_answer),
    Kind("folder", ("folder", "director", "what is in", "what's in"), ("文件夹", "目录", "有什么"),
         Glob(lambda q: [f"{folder_pattern(q.folder)}/*"] if q.folder else ["*"]), answers.contents_answer,
         needs=lambda q: not q.files),
    Kind("mention words", MENTION_EN, MENTION_ZH, Grep(any_words, ignore_case=True), answers.mention_answer),
    Kind("unknown", (), (), Grep(any_words, ignore_case=True), lambda q, ev: [], why=answers.unknown_why),
)


def kind_of(q: Question) -> Kind:
    return next(kind for kind in KINDS if kind.fits(q))


def plan_question(view: View) -> Plan:
    """The calls the question still needs, or its answer once every one has its result."""
    q = parse(view.request)
    kind = kind_of(q)
    ev = kind.lookup.gather(view, q)
    if ev.need:
        shown = ", ".join(f"{view.tools.name(name)} {next(iter(i.values()))}" for name, i in ev.need)
        return Plan(say("working", q.lang, calls=shown), ev.need)
    # A quoted line is true in a part of a text; a count or a choice needs the whole of it.
    lines = kind.answer(q, ev) if ev.whole or not kind.whole else []
    if lines:
        return Plan(answers.finish(q, ev, lines))
    return Plan(answers.cannot(q, ev, kind.why(q, ev) if kind.why else None))
