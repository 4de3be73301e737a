"""labs/05 · what each design forgets: the rule a summary must keep, the user's instructions.

The offline model's summary (`compact_course.offline.model.extractive`) leaves the user's
instructions out: it keeps the current request, not "Do not edit anything under
web/." said ten turns before. The learner writes `instructions(text)`: the
sentences of what a user typed that a summary must keep, which are also the
constraint probes of `compact_course.probes`. The notebook does not state the rule: it
prints EXAMPLES, each text with the sentences the rule keeps (computed here by
`compact_course.probes.instructions`, never written by hand), and the learner infers
the cue words, that case does not matter, that an English cue counts only as a
whole word ("commonly" is no "only"), and that a Chinese cue counts anywhere.
Every cue word appears in some example; false friends too ("the only file" is
kept: the rule reads words, not meaning; "Keep the report under 300 words." is
not). The checker runs it on canned texts (the traps: a cue inside a word,
capitals, a contraction, Chinese with no spaces, two sentences on one line) and
on seeded random ones, against `compact_course.probes.instructions`.

Left out: meaning. The rule is cue words, as the probes' is.
"""

import re

from ...display.phrases import say
from ...probes import CONSTRAINT_EN, CONSTRAINT_ZH, instructions, readable_units
from .build import rng
from .catalogue import exercise
from .check import CheckResult, check_function, hint

CASES = [
    ("one instruction after a request", "Fix the cart test. Do not change the public API."),
    ("capitals and a contraction", "DON'T push to main. Run the linter first. Always run the tests."),
    ("a cue inside a word is no cue", "The commonly used helper is slow. Profile it."),
    ("only, as a word", "Touch only the tests. Leave the rest alone."),
    ("must at the end", "The report must stay under 300 words.\nThanks."),
    ("Chinese: no spaces", "请修复购物车测试。不要改公共接口。先看日志。"),
    ("Chinese and English on one line", "只改 tests/ 目录。Never edit web/. 谢谢！"),
    ("no instruction at all", "Summarize lesson s01 in two sentences."),
    ("lines of their own", "Plan:\n- never delete the transcripts\n- keep notes short"),
]
# What the notebook shows, to infer the rule from. Distinct from CASES, so that the
# checker's canned texts are new to the learner; every cue of the rule appears here.
EXAMPLES = (
    "Fix the login test. Do not change the public API.",
    "Keep the report under 300 words.",
    "DON'T push to main. Run the linter.",
    "Never delete the transcripts.",
    "Always run the tests first.",
    "Touch only the tests.",
    "The summary must stay short.",
    "README.md is the only file here.",
    "The commonly used helper is slow.",
    "Do nothing until the build ends.",
    "Read the log, then compare the two files.",
    "请不要改公共接口。",
    "必须先跑测试。这只是一个草稿。",
    "请看一下日志。",
    "不能删除 transcript。不许推送到 main。",
    "禁止修改 web/ 目录。务必保留日志。",
    "一定要先读 README。总是用中文回答。",
    "始终保持报告简短。谢谢！",
)


def examples() -> list:
    """[(text, the sentences the rule keeps)] for the notebook to print."""
    return [(text, instructions(text)) for text in EXAMPLES]


FILLER = ("Read the log.", "Compare the two files.", "The cart sums its items.", "请看一下日志。",
          "检查设计说明。", "Report the three failures.", "Thanks.")


def random_cases(count: int = 8) -> list:
    draw, cases = rng(), []
    for n in range(count):
        parts = []
        for _ in range(draw.randint(2, 6)):
            if draw.random() < 0.4:
                cue = draw.choice(CONSTRAINT_EN + CONSTRAINT_ZH)
                word = cue.capitalize() if draw.random() < 0.5 else cue
                thing = draw.choice(("api", "docs", "tests"))
                parts.append(f"{cue}改这个文件。" if not cue.isascii() else f"{word} touch the {thing}.")
            else:
                parts.append(draw.choice(FILLER))
        cases.append((f"random text {n + 1}", draw.choice((" ", "\n")).join(parts)))
    return cases


def all_cases() -> list:
    return [(label, (text,), instructions(text)) for label, text in CASES + random_cases()]


def _sentences(text: str) -> list:
    return readable_units(text, "sentence")


def _holding(text: str, cased: bool, whole: bool) -> list:
    """The sentences a rule with one slip keeps: cues matched as written (`cased`), or
    inside longer words too (not `whole`)."""
    kept = []
    for sentence in _sentences(text):
        seen = sentence if cased else sentence.lower()
        english = any(re.search(rf"(?<![a-z]){re.escape(cue)}(?![a-z])", seen) if whole else cue in seen
                      for cue in CONSTRAINT_EN)
        if english or any(cue in sentence for cue in CONSTRAINT_ZH):
            kept.append(sentence)
    return kept


def _diagnose(args, expected, got):
    (text,) = args
    if not isinstance(got, list):
        return say("forgets: not a list")
    if got and got == [ln.strip() for ln in text.splitlines() if ln.strip() and any(
            ln.strip() in e or e in ln.strip() for e in expected)]:
        return say("forgets: whole lines")
    # A substring search finds "only" in "commonly": that is the whole-word slip, even
    # when the same answer also matches the cues as written.
    if got == _holding(text, cased=False, whole=False):
        return say("forgets: inside a word")
    if got in (_holding(text, cased=True, whole=True), _holding(text, cased=True, whole=False)):
        return say("forgets: case")
    if len(got) > len(expected) and set(expected) <= set(got):
        return say("forgets: inside a word")
    if len(got) < len(expected) and any(not s.isascii() for s in set(expected) - set(got)):
        return say("forgets: Chinese cues")
    return None


@exercise("labs/05", writes_code=True)
def check_instructions(function) -> CheckResult:
    """instructions(text) -> the sentences of `text` that are the user's instructions."""
    return check_function("instructions", function, all_cases(), hint("instructions"),
                          diagnose=_diagnose)
