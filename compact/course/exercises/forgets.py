"""12 · what each design forgets: the rule a summary must keep, the user's instructions.

The offline model's summary (`compact.offline.model.extractive`) leaves the user's
instructions out: it keeps the current request, not "Do not edit anything under
web/." said ten turns before. The learner writes `instructions(text)`: the
sentences of what a user typed that a summary must keep, which are also the
constraint probes of `compact.probes`. The checker runs it on canned texts (the
traps: a cue inside a word, capitals, a contraction, Chinese with no spaces, two
sentences on one line) and on seeded random ones, against `compact.probes.instructions`.

Left out: meaning. The rule is cue words, as the probes' is; "the only file" counts.
"""

from ...display.phrases import say as phrase
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


def _diagnose(args, expected, got):
    (text,) = args
    if not isinstance(got, list):
        return phrase("forgets: not a list")
    if got and got == [ln.strip() for ln in text.splitlines() if ln.strip() and any(
            ln.strip() in e or e in ln.strip() for e in expected)]:
        return phrase("forgets: whole lines")
    lower_only = [s for s in _sentences(text) if any(c in s for c in CONSTRAINT_EN + CONSTRAINT_ZH)]
    if got == lower_only and got != expected:
        return phrase("forgets: case")
    if len(got) > len(expected) and set(expected) <= set(got):
        return phrase("forgets: inside a word")
    if len(got) < len(expected) and any(not s.isascii() for s in set(expected) - set(got)):
        return phrase("forgets: Chinese cues")
    return None


@exercise("12", writes_code=True)
def check_instructions(function) -> CheckResult:
    """instructions(text) -> the sentences of `text` that are the user's instructions."""
    return check_function("instructions", function, all_cases(), hint("instructions"),
                          diagnose=_diagnose)
