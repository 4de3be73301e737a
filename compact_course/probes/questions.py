"""Probes: questions about a session whose right answers the session itself holds.

    from compact_course.probes import make_probes
    probes = make_probes(messages, active_request)
    probes[0].kind, probes[0].question, probes[0].expected, probes[0].source

The field asks four kinds of question after a compaction (Factory's evaluation of
compaction, December 2025): recall, artifact, continuation, decision. Here each
is drawn from the messages, deterministically and without a model:
- recall: a distinctive line of a tool output (no other output has it), near its middle
  (one with a number when there is one);
- artifact: each (tool, file) of a call of a file tool: the course's read_file, write_file and
  edit_file, and other agents' (Claude Code's Read, Edit, Bash..., the Codex CLI's shell,
  apply_patch...), each in its own name (`compact_course.probes.file_tools`, one table);
- continuation: the current request (by default the last real prompt, not a harness text:
  `compact_course.probes.prompts`), and the assistant's last stated next step;
- decision: the user's instructions ("do not", "always", "only", "must" and their
  Chinese forms: detail "constraint") and the assistant's stated decisions;
- latest value: a fact the session states more than once with different values
  (`FACT_RULES`: a line `name = value`, a test's result, a sentence asking to set
  something), asked for its latest value; the question says how many values it took,
  and an earlier one (`stale`) answered is wrong, not "can't tell" (a stale summary).
A recall, continuation or decision probe gives the start of a line or a sentence
(`cue`) and asks for the whole of it (`expected`); the cue is chosen so that every
line or sentence of the session that starts with it is the expected one, so any
copy found answers right. An artifact probe names the tool and the path and
expects "yes". Each probe keeps the index of the message it came from.

`readable_units(text, unit)` cuts a text into the lines or sentences a probe
asks for; `compact_course.probes.status` (where a probe stands after compaction) and the
offline model's answer (`compact_course.offline.model.probe_reply`) cut the same way, so
the three agree on what "the whole line" is. `score(probe, answer)` says right,
can't tell or wrong.

Left out: grammar (cue words, not meaning: "only" in "the only file" counts as an
instruction), probes that need two facts at once, any ranking of importance, and
which file a value is in (two files with the same name for different things read as
one fact).
"""

import bisect
import json
import re
from collections import Counter
from dataclasses import dataclass

from context_compact.messages import text_of, tool_results, tool_uses, user_text

from .file_tools import files_of
from .prompts import last_prompt

KINDS = ("recall", "artifact", "continuation", "decision", "latest value")
STATUSES = ("in context", "on disk", "summary only", "gone")
SCORES = ("right", "can't tell", "wrong")

CONSTRAINT_EN = ("do not", "don't", "never", "always", "only", "must")
CONSTRAINT_ZH = ("不要", "不能", "不许", "禁止", "必须", "务必", "一定要", "总是", "始终", "只")
# The assistant's stated steps and decisions: these words open the sentence ("Then I",
# not "... name, then rename"), or, for the last group, appear anywhere in it.
DECISION_START = ("i'll", "i will", "let me", "next", "then", "now i", "plan:", "first",
                  "we'll", "we will")
DECISION_EN = ("decided", "decide to", "instead", "going to", "i'll", "i will")
DECISION_ZH = ("下一步", "接下来", "然后", "我会", "我先", "决定", "改用", "打算", "计划")

MIN_CUE = 12          # characters of a cue at least (4 for Chinese, a character a word)
MIN_LEFT = 6          # characters the answer must add to the cue (2 in Chinese)
MAX_UNIT = 300        # longer lines and sentences are not asked for
# A sentence ends at . ! ? followed by a space or the end, or at 。！？; never inside "...".
SENTENCE_END = re.compile(r"(?<!\.)[.!?](?!\.)(?=\s|$)|[。！？]")


def cjk(text: str) -> bool:
    return bool(re.search(r"[\u3400-\u9fff]", text))


def sentences(line: str) -> list[str]:
    """The sentences of one line, each stripped, its end mark kept."""
    out, start = [], 0
    for match in SENTENCE_END.finditer(line):
        piece = line[start:match.end()].strip()
        if piece:
            out.append(piece)
        start = match.end()
    if line[start:].strip():
        out.append(line[start:].strip())
    return out


def readable_units(text: str, unit: str) -> list[str]:
    """The stripped lines ('line') or sentences ('sentence') of a text."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return lines if unit == "line" else [s for ln in lines for s in sentences(ln)]


def normal(text: str) -> str:
    return " ".join((text or "").split())


@dataclass(frozen=True)
class Probe:
    kind: str            # one of KINDS
    detail: str          # tool output, the file tool, request, next step, constraint, decision;
                         # a latest value: value, test or setting
    question: str
    expected: str        # what a right answer holds ("yes" for an artifact)
    cue: str             # the start the question gives, the path, or a latest value's fact
    unit: str            # "line", "sentence" or "use" (a tool call on a path)
    source: int          # the index of the message it came from
    tool: str = ""       # artifact: the tool; recall: the call whose output it is
    use_id: str = ""     # the tool_use id the probe came from, when one
    stale: tuple = ()    # latest value: the earlier lines or sentences, each now wrong

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


# -- the questions ---------------------------------------------------------------

QUESTIONS = {
    "line": ("Probe: a tool output earlier in this session ({call}) has a line that starts with {cue}. "
             "Quote that whole line."),
    "sentence": ("Probe: {who} earlier in this session a sentence that starts with {cue}. "
                 "Quote that whole sentence."),
    "use": ("Probe: did the agent call {tool} on the file {cue} in this session? "
            "Answer yes or no, and say where you saw it."),
    "latest": ("Probe: in this session {what} {cue} took {values} values, one after another. "
               "Quote the line or sentence that gives its latest value."),
}
WHO = {"request": "the user wrote", "constraint": "the user wrote",
       "next step": "the assistant wrote", "decision": "the assistant wrote"}
QUESTION_RE = re.compile(
    r"(?:\A|\n)Probe: (?:a tool output earlier in this session \((?P<call>.*)\) has a line that starts with "
    r"(?P<line>\".*\")\. Quote that whole line\."
    r"|(?P<who>the user|the assistant) wrote earlier in this session a sentence that starts with "
    r"(?P<sentence>\".*\")\. Quote that whole sentence\."
    r"|did the agent call (?P<tool>\w+) on the file (?P<use>\".*\") in this session\? "
    r"Answer yes or no, and say where you saw it\."
    r"|in this session (?P<what>the value of|the result of the test|the setting) "
    r"(?P<latest>\".*\") took (?P<values>\d+) values, one after another\. "
    r"Quote the line or sentence that gives its latest value\.)\Z", re.DOTALL)


def question_for(unit: str, cue: str, detail: str = "", call: str = "", tool: str = "",
                 values: int = 0) -> str:
    quoted = json.dumps(cue, ensure_ascii=False)
    return QUESTIONS[unit].format(cue=quoted, call=call, tool=tool, who=WHO.get(detail, ""),
                                  what=FACT_WORDS.get(detail, ""), values=values)


def read_question(text: str) -> tuple | None:
    """(unit, cue, tool) when `text` ends with a probe question, else None; for a line,
    `tool` is the call the question names (`describe_use`); for a latest value
    (unit "latest", cue the fact's name), (detail, values: how many it took) of the fact."""
    match = QUESTION_RE.search((text or "").strip())
    if not match:
        return None
    if match["latest"]:
        try:
            name = json.loads(match["latest"])
        except ValueError:
            return None
        detail = next(d for d, words in FACT_WORDS.items() if words == match["what"])
        return "latest", name, (detail, int(match["values"]))
    for unit in ("line", "sentence", "use"):
        if match[unit]:
            try:
                cue = json.loads(match[unit])
            except ValueError:
                return None
            return unit, cue, match["tool"] or match["call"] or ""
    return None


# -- facts that change: the latest value -----------------------------------------

# The words a latest-value question names its fact with, by detail.
FACT_WORDS = {"value": "the value of", "test": "the result of the test", "setting": "the setting"}
# A value is a literal: a number (a unit or % may follow), or a word (hyphens and a
# version's ".1" allowed), quoted or not; `self.payments` or a path is code, not a setting.
_VALUE = r"[\"'`]?(?P<value>-?\d+(?:\.\d+)*[A-Za-z%]{0,3}|[A-Za-z][\w\-]{0,39}(?:\.\d+)*)[\"'`]?"
# A line as a file viewer numbers it (`cat -n`, Claude Code's Read: "    12→text").
_NUMBERED = r"(?:\d+(?:\t|→))?\s*"
# One row per way a session states a fact: (detail, unit, pattern with key and value).
# A line `name = value` or `name: value` (a setting in a file, an output's field), a test's
# result in pytest's or unittest's words, a sentence asking to set something.
FACT_RULES = (
    ("value", "line", re.compile(_NUMBERED + r"(?P<key>[A-Za-z_][\w.\-]{0,40})\s*[:=]\s*"
                                 + _VALUE + r"[,;]?")),
    ("test", "line", re.compile(_NUMBERED + r"(?P<key>\S*test\w*\S*)(?: \([\w.]+\))?(?: \.\.\.)? "
                                r"(?P<value>PASSED|FAILED|ERROR|SKIPPED|ok|FAIL)(?: .*)?")),
    ("test", "line", re.compile(r"(?P<value>PASSED|FAILED|ERROR) (?P<key>\S*test\w*\S*)(?: - .*)?")),
    ("setting", "sentence", re.compile(r"(?:please )?(?:set|change|switch|make) (?:the )?"
                                       r"(?P<key>[\w\-]+(?: [\w\-]+){0,3}?) to " + _VALUE + r"[.!]?",
                                       re.IGNORECASE)),
    ("setting", "sentence", re.compile(r"(?:请)?把(?P<key>\S{1,12}?)(?:改成|改为|设为|设成|设置为)"
                                       + _VALUE + r"[。！]?")),
)


def facts_in(text: str) -> list[tuple]:
    """(detail, key, value, unit text) of each fact a text states, in its order; the same
    reading for drawing a probe (`make_probes`) and answering it (the offline model)."""
    found = []
    for line in readable_units(text, "line"):
        for detail, unit, pattern in FACT_RULES:
            pieces = [line] if unit == "line" else sentences(line)
            for piece in pieces:
                if match := pattern.fullmatch(piece):
                    key = match["key"].lower() if detail == "setting" else match["key"]
                    found.append((detail, key, match["value"], piece))
    return found


def value_runs(stated) -> list[list]:
    """The values of one fact, in order, as runs: [[value, unit text, ...], ...], a value
    stated again in a row joining its run."""
    runs = []
    for value, unit in stated:
        if runs and runs[-1][0] == value:
            runs[-1].append(unit)
        else:
            runs.append([value, unit])
    return runs


def _latest_probes(messages) -> list[Probe]:
    """A probe per fact whose value changed: the latest value new (never stated before),
    stated in the same words each time, in no text of a stale one, and the fact given
    one value per message (a key with many values in one output is a list, not a fact)."""
    stated, mixed = {}, set()
    for i, message in enumerate(messages):
        here = {}
        for text in _message_texts(message):
            for detail, key, value, unit in facts_in(text):
                here.setdefault((detail, key), set()).add(value)
                stated.setdefault((detail, key), []).append((i, value, unit))
        mixed |= {fact for fact, values in here.items() if len(values) > 1}
    probes = []
    for (detail, key), said in stated.items():
        runs = value_runs((value, unit) for _, value, unit in said)
        if (detail, key) in mixed or len(runs) < 2:
            continue
        latest, *units = runs[-1]
        stale = tuple(dict.fromkeys(u for run in runs[:-1] for u in run[1:]))
        if any(run[0] == latest for run in runs[:-1]) or len(set(units)) > 1 \
                or any(units[0] in old for old in stale):
            continue
        unit = "line" if "\n" not in units[0] and detail != "setting" else "sentence"
        source = next(i for i, value, _ in said if value == latest)
        probes.append(Probe("latest value", detail,
                            question_for("latest", key, detail, values=len(runs)),
                            units[0], key, unit, source, stale=stale))
    return probes


# -- the right answer ------------------------------------------------------------

CANT_TELL = ("can't tell", "cannot tell", "can not tell", "don't know", "do not know", "not sure",
             "unable to", "no way to", "无法确定", "不知道", "无法判断", "不确定")


def score(probe: Probe, answer: str) -> str:
    """'right' when the answer holds the expected text (an artifact: starts with yes),
    'wrong' when it gives a stale value instead (a latest value's earlier one: an
    answer from a stale summary is wrong, whatever doubt it adds), "can't tell" when
    it says so, else 'wrong'."""
    said = normal(answer).lower()
    if probe.unit == "use":
        if re.match(r"\W*(yes|是|对)", said):
            return "right"
        if re.match(r"\W*(no|否|没有|不是)\b", said):
            return "wrong"
        return "can't tell"
    if normal(probe.expected).lower() in said:
        return "right"
    if any(normal(old).lower() in said for old in probe.stale):
        return "wrong"
    return "can't tell" if any(words in said for words in CANT_TELL) else "wrong"


# -- drawing probes from a session -----------------------------------------------

class UnitIndex:
    """Every line and sentence of a session, sorted, to ask what starts with a cue."""

    def __init__(self, texts):
        texts = list(texts)
        self.units = {unit: sorted({u for t in texts for u in readable_units(t, unit)})
                      for unit in ("line", "sentence")}

    def determined(self, cue: str, expected: str, unit: str) -> bool:
        """Whether every unit that starts with `cue` is `expected` (and one is)."""
        units = self.units[unit]
        i = bisect.bisect_left(units, cue)
        found = False
        while i < len(units) and units[i].startswith(cue):
            if units[i] != expected:
                return False
            found, i = True, i + 1
        # Any text, of either unit, that starts with the cue and goes on otherwise
        # would be read as the answer too.
        other = self.units["sentence" if unit == "line" else "line"]
        j = bisect.bisect_left(other, cue)
        while j < len(other) and other[j].startswith(cue):
            if not (expected.startswith(other[j]) or other[j].startswith(expected)):
                return False
            j += 1
        return found


def _cue_for(text: str, unit: str, index: UnitIndex) -> str | None:
    """The shortest start of `text`, cut at a word (any character in Chinese), that
    determines it; None when none leaves MIN_LEFT characters to answer."""
    if len(text) > MAX_UNIT:
        return None
    chinese = cjk(text)
    least = max(4 if chinese else MIN_CUE, int(len(text) * 0.4))
    left = 2 if chinese else MIN_LEFT    # a Chinese character is about a word
    ends = range(least, len(text) - left + 1) if chinese else \
        [m.start() for m in re.finditer(r"\s", text) if least <= m.start() <= len(text) - left]
    for end in ends:
        cue = text[:end].rstrip()
        if len(cue) >= (4 if chinese else MIN_CUE) and index.determined(cue, text, unit):
            return cue
    return None


def _has_cue(sentence: str, en: tuple, zh: tuple) -> bool:
    lower = sentence.lower()
    return any(re.search(r"(?<![a-z])" + re.escape(w) + r"(?![a-z])", lower) for w in en) \
        or any(w in sentence for w in zh)


def instructions(text: str) -> list[str]:
    """The sentences of a user's text that are instructions: a summary must keep them.

    A sentence holds one of CONSTRAINT_EN as a whole word or phrase, in any case
    ("Do not", "ONLY"; not "commonly"), or one of CONSTRAINT_ZH anywhere in it.
    """
    return [s for s in readable_units(text, "sentence") if _has_cue(s, CONSTRAINT_EN, CONSTRAINT_ZH)]


def stated(sentence: str) -> bool:
    """Whether an assistant's sentence states a step or a decision."""
    return sentence.lower().startswith(DECISION_START) or _has_cue(sentence, DECISION_EN, DECISION_ZH)


# The argument that names what a call works on, the first a call gives (a file, a command, a pattern).
DESCRIBED = ("path", "file_path", "notebook_path", "dir_path", "command", "cmd", "pattern")


def describe_use(use: dict) -> str:
    data = use.get("input") if isinstance(use.get("input"), dict) else {}
    arg = next((v for k in DESCRIBED if isinstance(v := data.get(k), str)
                or isinstance(v, list) and all(isinstance(w, str) for w in v)), "")
    arg = " ".join((" ".join(arg) if isinstance(arg, list) else arg).split())
    return f"{use.get('name')} {arg[:80]}".strip()


def _distinctive_line(text: str, index: UnitIndex, outputs_with: Counter) -> tuple | None:
    """(line, cue) of a tool output: of its lines no other output has, the one nearest its
    middle that has a digit and whose start determines it, else the nearest determined at
    all. The middle, not the top: a preview keeps the top of a long output, and a probe
    there would test the preview."""
    lines = [ln for ln in readable_units(text, "line")
             if len(ln) >= MIN_CUE + MIN_LEFT and outputs_with[ln] == 1]
    middle = (len(lines) - 1) / 2
    lines = [ln for _, ln in sorted(enumerate(lines), key=lambda pair: abs(pair[0] - middle))]
    for wanted in (lambda ln: re.search(r"\d", ln), lambda ln: True):
        for line in lines:
            if wanted(line) and (cue := _cue_for(line, "line", index)):
                return line, cue
    return None


def _message_texts(message):
    if message.get("role") == "assistant":
        yield text_of(message.get("content"))
    else:
        yield user_text(message)
        for block in tool_results(message):
            yield text_of(block.get("content", ""))


def _texts(messages):
    for message in messages:
        yield from _message_texts(message)


def make_probes(messages, active_request: str | None = None) -> list[Probe]:
    """The probes of a session, in the order of the messages they came from."""
    index = UnitIndex([*_texts(messages), active_request or ""])
    outputs_with = Counter(line for m in messages for block in tool_results(m)
                           for line in set(readable_units(text_of(block.get("content", "")), "line")))
    probes, seen, uses = [], set(), {}
    steps = []   # the assistant's stated intentions: (message index, sentence)

    def add(probe: Probe) -> None:
        key = (probe.kind, probe.unit, probe.cue if probe.unit == "use" else probe.expected, probe.tool)
        if key not in seen:
            seen.add(key)
            probes.append(probe)

    def text_probe(kind: str, detail: str, sentence: str, source: int) -> None:
        if cue := _cue_for(sentence, "sentence", index):
            add(Probe(kind, detail, question_for("sentence", cue, detail), sentence, cue,
                      "sentence", source))

    for i, message in enumerate(messages):
        if message.get("role") == "assistant":
            for use in tool_uses(message):
                uses[use.get("id")] = use
                for path in files_of(use):
                    add(Probe("artifact", use["name"], question_for("use", path, tool=use["name"]),
                              "yes", path, "use", i, tool=use["name"], use_id=use.get("id", "")))
            for sentence in readable_units(text_of(message.get("content")), "sentence"):
                if stated(sentence):
                    steps.append((i, sentence))
            continue
        for block in tool_results(message):
            found = _distinctive_line(text_of(block.get("content", "")), index, outputs_with)
            if found:
                use = uses.get(block.get("tool_use_id"), {})
                line, cue = found
                add(Probe("recall", "tool output",
                          question_for("line", cue, call=describe_use(use) or "a tool call"),
                          line, cue, "line", i, tool=str(use.get("name", "")),
                          use_id=block.get("tool_use_id", "")))
        for sentence in instructions(user_text(message)):
            text_probe("decision", "constraint", sentence, i)
    for n, (i, sentence) in enumerate(steps):
        last = n == len(steps) - 1
        text_probe("continuation" if last else "decision", "next step" if last else "decision",
                   sentence, i)
    request = active_request if active_request is not None else last_prompt(messages)
    first = next(iter(readable_units(request or "", "sentence")), "")
    if first:
        where = max((i for i, m in enumerate(messages) if first in user_text(m)), default=len(messages) - 1)
        text_probe("continuation", "request", first, where)
    probes.extend(_latest_probes(messages))
    probes.sort(key=lambda p: (p.source, KINDS.index(p.kind)))
    return probes


def count_by_kind(probes) -> dict:
    return {kind: sum(p.kind == kind for p in probes) for kind in KINDS}
