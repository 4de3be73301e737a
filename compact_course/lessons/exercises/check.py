"""The checkers' shared machinery: run the learner's answer, compare, explain a miss.

A checker runs the learner's function on cases whose expected value comes
from the package itself, and prints one PASS/FAIL line per case. On the
checker's first failing run in a kernel a FAIL gives the case's input and a
direction only (`direction`, one table of kinds: too high, 2 items should be 3,
a key missing), so the learner has something left to reason out; the second
failing run, and `hint()`, say *how* the answer differs from the expected value:
- when the types differ, both types (`expected an int, got a str`);
- for texts, the first differing character, with a little context either side;
- for lists, tuples and dicts, the first differing element or key, explained
  the same way, recursively;
- the failing case's input, so the learner can run it again by hand;
- and a hint tied to the mistake when the checker recognises it (`diagnose`),
  otherwise the checker's general hint. Hints stay closed until the learner
  asks: `hint()` (compact_course/lessons/exercises/hints.py) opens the last check's.

A stub that still raises NotImplementedError, or an answer left as None, is
"not attempted yet": a friendly line, never a traceback, so a notebook shipped
unsolved runs top to bottom. A learner's bug is a FAIL line, not a traceback.

Every line speaks the notebook's language (compact_course/display/lang.py): the frame's
words and each checker's diagnoses are rows of the phrasebook
(compact_course/display/phrases.py), filled with the learner's values; texts.json holds
each checker's hint in English and Chinese. The English lines are the ones the
English notebooks store.

Left out on purpose: grading and timing.
"""

import inspect
import math
import re
from dataclasses import dataclass, field

from ...display.lang import language
from ...display.phrases import PHRASES, say
from .case_names import shown
from .hints import failed_before, hint_text, made, remember

SHOWN_FAILS = 3      # failing cases explained in full; the others get their first two lines
BRIEF = 110          # characters of each of those lines
CONTEXT = 40         # characters of context either side of a text difference
SHORT = 70           # characters of a value shown whole
INPUT = 160          # characters of one argument shown in a failing case's input


@dataclass
class CheckResult:
    name: str
    passed: int
    total: int
    attempted: bool = True
    rows: list = field(default_factory=list)  # (case, ok, detail with the expected value)
    general: str = ""                         # the checker's hint
    hints: list = field(default_factory=list)  # (case, hint tied to that case's mistake)
    held: list = field(default_factory=list)  # (case, difference) a first try kept back

    @property
    def ok(self) -> bool:
        return self.attempted and self.passed == self.total

    def hint(self) -> str:
        """The hints for this check, as `hint()` prints them: the mistake first.

        One wrong answer can look like two mistakes on one case (30,000 is both the
        article's limit and one more than 29,999), so the hint named on the most
        failing cases is the one shown, with any that tie; once it is fixed, the next
        check shows the next one."""
        first, count = {}, {}
        for case, text in self.hints:
            kind = re.sub(r"\d[\d,]*", "#", text)  # one line per mistake, not per number
            first.setdefault(kind, (case, text))
            count[kind] = count.get(kind, 0) + 1
        most = max(count.values(), default=0)
        lines = [frame("hint for", case=shown(case), hint=text)
                 for kind, (case, text) in first.items() if count[kind] == most]
        return "\n".join([*lines, frame("hint general", hint=self.general), *self.answers()])

    def answers(self) -> list:
        """The expected values a first try held back: the first SHOWN_FAILS in full."""
        return [frame("answer for", case=shown(case),
                      what=text if n < SHOWN_FAILS else _brief(text, 1))
                for n, (case, text) in enumerate(self.held)]

    def __repr__(self) -> str:
        state = f"{self.passed}/{self.total}" if self.attempted else "not attempted"
        return f"CheckResult({self.name}: {state})"



# Each checker's hint is in texts.json (hints.py reads it); the frame (PASS, FAIL,
# what differs) is in the package's phrasebook, as "check ..." rows.
hint = hint_text


def frame(key: str, **values) -> str:
    """A line of the checkers' frame: the phrasebook's row "check <key>", filled in."""
    return say(f"check {key}", **values)


class NotAttempted(Exception):
    """The learner's stub said it is not written yet."""


# -- explaining a difference -----------------------------------------------------

def short(value) -> str:
    text = repr(value)
    return text if len(text) <= SHORT else text[: SHORT - 3] + "..."


def _a(type_) -> str:
    name = type_.__name__
    if language() == "zh":
        return name
    return ("an " if name[0] in "aeiou" else "a ") + name


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def same(expected, got) -> bool:
    """Equal, and of the same type (a bool is not a count; 2 and 2.0 are the same number)."""
    if is_number(expected) and is_number(got):
        return math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-6)
    if type(expected) is not type(got):
        return False
    if isinstance(expected, (list, tuple)):
        return len(expected) == len(got) and all(map(same, expected, got))
    if isinstance(expected, dict):
        return expected.keys() == got.keys() and all(same(v, got[k]) for k, v in expected.items())
    return expected == got


def text_difference(expected: str, got: str) -> str:
    """Where two texts first differ, shown with context, and their lengths."""
    at = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b),
              min(len(expected), len(got)))
    start = max(0, at - CONTEXT)
    before = expected[start:at]
    lead = "..." if start else ""
    want = repr(before + expected[at: at + CONTEXT])
    have = repr(before + got[at: at + CONTEXT])
    caret = " " * (len(lead) + len(repr(before)) - 1) + "^"
    where = frame("texts", at=at, n=len(expected), m=len(got))
    if at == len(got):
        where += frame("stops")
    elif at == len(expected):
        where += frame("goes on")
    return (f"{where}\n{frame('expected:')}{lead}{want}\n{frame('got:')}{lead}{have}"
            f"\n                {caret}")


def difference(expected, got) -> str:
    """A short account of how `got` differs from `expected`."""
    if is_number(expected) and is_number(got):
        return frame("expected got", want=repr(expected), have=repr(got))
    if type(expected) is not type(got):
        return frame("types", want_type=_a(type(expected)), want=short(expected),
                     have_type=_a(type(got)), have=short(got))
    if isinstance(expected, str):
        if len(expected) <= SHORT and len(got) <= SHORT:
            return frame("expected got", want=repr(expected), have=repr(got))
        return text_difference(expected, got)
    if isinstance(expected, (list, tuple)):
        return list_difference(expected, got)
    if isinstance(expected, dict):
        missing = [k for k in expected if k not in got]
        extra = [k for k in got if k not in expected]
        if missing or extra:
            return frame("keys", missing=missing, extra=extra)
        key = next(k for k in expected if not same(expected[k], got[k]))
        return frame("at", where=repr(key), what=difference(expected[key], got[key]))
    return frame("expected got", want=short(expected), have=short(got))


def list_difference(expected, got) -> str:
    """Which item differs, and both lists when they are short enough to read."""
    whole = frame("both", want=short(expected), have=short(got))
    if _sortable(expected) and _sortable(got) and sorted(expected) == sorted(got):
        return frame("order", want=short(expected), have=short(got))
    if _flat(expected) and _flat(got):
        missing = [item for item in expected if item not in got]
        extra = [item for item in got if item not in expected]
        if missing or extra:
            return frame("missing extra", missing=short(missing), extra=short(extra)) + whole
    for index, (want, have) in enumerate(zip(expected, got)):
        if not same(want, have):
            what = frame("at", where=index, what=difference(want, have))
            return what + whole if _flat(expected) and _flat(got) else what
    return frame("items", n=len(expected), m=len(got), want=short(expected), have=short(got))


def _flat(items) -> bool:
    return all(isinstance(i, (int, float, str, type(None))) for i in items)


def _sortable(items) -> bool:
    return _flat(items) and len({type(i) for i in items}) <= 1 and len(items) > 1


# -- a direction, not the answer -----------------------------------------------------
# A first wrong try is told which way it is off, never the expected value, so the
# learner still has something to reason out. Each row: (applies to (expected, got),
# the direction); the first row that applies speaks. Only the learner's own values
# are quoted.

def _number_way(expected, got) -> str:
    if got > expected:
        return frame("too high")
    return frame("too low") if got < expected else frame("wrong")  # NaN is neither


def _type_way(expected, got) -> str:
    return frame("should be type", want_type=_a(type(expected)), have_type=_a(type(got)))


def _text_way(expected: str, got: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b),
              min(len(expected), len(got)))
    end = frame("stops") if at == len(got) else frame("goes on") if at == len(expected) else ""
    return frame("text from", at=at) + end


def _list_way(expected, got) -> str:
    # a name or path that does not belong is named; a number that is off gets its direction
    extra = next((item for item in got
                  if _flat(got) and not is_number(item) and item not in expected), _NONE)
    if len(expected) != len(got):
        count = frame("count", n=len(expected), m=len(got))
        if extra is not _NONE:
            return count + frame("then") + frame("item extra", item=short(extra))
        return count + (frame("then") + frame("item missing") if len(got) < len(expected) else "")
    if _sortable(expected) and _sortable(got) and sorted(expected) == sorted(got):
        return frame("wrong order")
    if extra is not _NONE:
        return frame("item extra", item=short(extra))
    index = next(i for i, (want, have) in enumerate(zip(expected, got)) if not same(want, have))
    return frame("item wrong", i=index, what=direction(expected[index], got[index]))


def _dict_way(expected: dict, got: dict) -> str:
    missing = next((k for k in expected if k not in got), _NONE)
    if missing is not _NONE:
        return frame("key missing", name=short(missing))
    extra = next((k for k in got if k not in expected), _NONE)
    if extra is not _NONE:
        return frame("key extra", name=short(extra))
    key = next(k for k in expected if not same(expected[k], got[k]))
    return frame("at", where=repr(key), what=direction(expected[key], got[key]))


_NONE = object()  # "no such item": None can be an item
WAYS = [
    (lambda e, g: is_number(e) and is_number(g), _number_way),
    (lambda e, g: type(e) is not type(g), _type_way),
    (lambda e, g: isinstance(e, str), _text_way),
    (lambda e, g: isinstance(e, (list, tuple)), _list_way),
    (lambda e, g: isinstance(e, dict), _dict_way),
    (lambda e, g: True, lambda e, g: frame("wrong")),
]


def direction(expected, got) -> str:
    """Which way `got` is off from `expected`, without saying what `expected` is."""
    return next(way(expected, got) for applies, way in WAYS if applies(expected, got))


def shown_input(names, args) -> str:
    """A failing case's input, argument by argument, each cut to INPUT characters."""
    parts = []
    for name, value in zip(names, args):
        text = repr(value)
        if len(text) > INPUT:
            size = frame("long value", n=len(value)) if isinstance(value, (str, list, dict)) else ""
            text = text[: INPUT - 3] + "..." + size
        parts.append(f"{name}={text}")
    return frame("input", args=", ".join(parts))


def _names(function, args) -> list:
    """The learner's own parameter names, else arg1, arg2, ..."""
    try:
        names = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"arg{i + 1}" for i in range(len(args))]


# -- printing ----------------------------------------------------------------------

def report(name: str, rows: list, hint: str, hints=(), ways=None) -> CheckResult:
    """Print the PASS/FAIL lines and the verdict; rows are (case, ok, detail).

    `ways` holds, for each row, (its detail with a direction in place of the expected
    value, the difference alone): the directions are printed on the checker's first
    failing run in this kernel and the differences kept for hint(); the next run prints
    the rows' own details. The hints are not printed: the verdict says how to open them."""
    failing = any(not ok for _, ok, _ in rows)
    first = failing and ways is not None and not failed_before(name)
    printed = [(case, ok, way) for (case, ok, _), (way, _) in zip(rows, ways)] if first else rows
    held = [(case, kept) for (case, ok, _), (_, kept) in zip(rows, ways or ())
            if first and not ok and kept is not None]
    width = max(len(shown(case)) for case, _, _ in rows)
    one = "one " if len(rows) == 1 else ""   # "1 case", never "1 cases"
    print(frame(f"{one}cases", name=name, n=len(rows)))
    explained = 0
    for case, ok, detail in printed:
        line = f"  {frame('PASS') if ok else frame('FAIL')}  {shown(case).ljust(width)}".rstrip()
        if not ok and detail:
            explained += 1
            shown_detail = detail if explained <= SHOWN_FAILS else _brief(detail)
            line = f"{line}\n      {shown_detail}"
        print(line)
    passed = sum(1 for _, ok, _ in rows if ok)
    if passed == len(rows):
        print(frame(f"{one}all pass", n=len(rows)))
    else:
        print(frame(f"{one}some pass", passed=passed, n=len(rows)))
    if first:
        print(frame("held" if held else "held to second"))
    return remember(CheckResult(name, passed, len(rows), True, rows, hint, list(hints), held))


def _brief(detail: str, count: int = 2) -> str:
    """A failing case past the first SHOWN_FAILS: its first two lines (the input, when the
    case has one, and the start of the reason), each cut to BRIEF characters, so that no
    FAIL line stands without its reason."""
    lines = [line.strip() for line in detail.splitlines() if line.strip()][:count]
    return "\n      ".join(line if len(line) <= BRIEF else line[: BRIEF - 3] + "..."
                           for line in lines)


def not_attempted(name: str, total: int, hint: str, what: str, **values) -> CheckResult:
    reason = frame(what, **values) if f"check {what}" in PHRASES else what
    print(frame("not attempted", name=name, what=reason))
    return remember(CheckResult(name, 0, total, False, [], hint))


# -- running the learner's answer ----------------------------------------------------

def call(function, *args):
    """(ok, value or error text); NotImplementedError means not attempted."""
    try:
        return True, function(*args)
    except NotImplementedError as error:
        raise NotAttempted() from error
    except Exception as error:  # a learner's bug is a FAIL line, not a traceback
        return False, frame("raised", kind=type(error).__name__, error=error)


def check_function(name, function, cases, hint, *, normalise=None, diagnose=None,
                   explain_errors=False, show_input=None) -> CheckResult:
    """Run `function` on cases [(label, args, expected)] and report.

    `normalise(got)` may turn an acceptable shape into the expected one (a list
    of indexes into a sorted list, say) before the comparison; `diagnose(args,
    expected, got)` may return a hint for the mistake it recognises; with
    `explain_errors` it is also asked (with got None) when the function raised.
    """
    if function is None:
        return not_attempted(name, len(cases), hint, "answer None")
    if not callable(function):
        print(frame("not a function", name=name, got=_a(type(function))))
        return remember(CheckResult(name, 0, len(cases), True, [], hint))
    rows, ways, hints = [], [], []
    try:
        for label, args, expected in cases:
            given = (show_input or (lambda a: shown_input(_names(function, a), a)))(args)
            ran, got = call(function, *args)
            if not ran:
                specific = diagnose(args, expected, None) if diagnose and explain_errors else None
                rows.append((label, False, given + got))
                ways.append((given + got, got))
                hints += [(label, specific)] if specific else []
                continue
            if normalise is not None:
                try:
                    got = normalise(got)
                except (TypeError, ValueError):
                    pass  # left as it is: the comparison explains the shape
            if same(expected, got):
                rows.append((label, True, ""))
                ways.append(("", ""))
                continue
            specific = diagnose(args, expected, got) if diagnose else None
            missed = difference(expected, got)
            rows.append((label, False, given + missed))
            ways.append((given + direction(expected, got), missed))
            hints += [(label, specific)] if specific else []
    except NotAttempted:
        return not_attempted(name, len(cases), hint, "still raises")
    return report(name, rows, hint, hints, ways)


def has_none(value) -> bool:
    """None anywhere in a value: `[None]` or `{"a": None}` is a prediction not made yet."""
    if isinstance(value, (list, tuple, set)):
        return any(map(has_none, value))
    if isinstance(value, dict):
        return any(map(has_none, value.values()))
    return value is None


def check_prediction(name, answer, expected: dict, hint, *, diagnose=None,
                     reveal=True) -> CheckResult:
    """expected: {label: value}; answer: one value, a tuple in that order, or a dict.

    `diagnose(label, expected, got)` may return a hint for the mistake it
    recognises in one wrong value, opened by `hint()` like a function's. With
    `reveal=False` every run prints the directions, never the expected value (lab 06:
    a wrong list shown beside the right one is the whole answer). With
    `reveal="second"` a first wrong try prints only which values are wrong, and hint()
    holds none back (09: a direction such as "3 items, should be 2" is the answer); the
    second prints the differences."""
    labels = list(expected)
    if answer is None:
        return not_attempted(name, len(labels), hint, "prediction None")
    if isinstance(answer, dict):
        given = {label: answer.get(label) for label in labels}
    elif isinstance(answer, tuple) and len(labels) > 1:
        if len(answer) != len(labels):
            print(frame("values", name=name, n=len(labels), labels=", ".join(labels), m=len(answer)))
            return remember(CheckResult(name, 0, len(labels), True, [], hint))
        given = dict(zip(labels, answer))
    elif len(labels) == 1:
        given = {labels[0]: answer}
    else:
        print(frame("one value", name=name, n=len(labels), labels=", ".join(labels)))
        return remember(CheckResult(name, 0, len(labels), True, [], hint))
    missing = [label for label, value in given.items() if has_none(value)]
    if missing:
        return not_attempted(name, len(labels), hint, "a prediction None",
                             labels=", ".join(missing), given=len(labels) - len(missing),
                             n=len(labels))
    made(name)  # every value filled in: cells behind revealed(name) may show the answer
    oks = {label: same(expected[label], given[label]) for label in labels}
    rows = [(label, oks[label], "" if oks[label] else difference(expected[label], given[label]))
            for label in labels]
    ways = [("", "") if oks[label] else (direction(expected[label], given[label]), detail)
            for label, _, detail in rows]
    if not reveal:   # every run prints the directions, and hint() holds no value back
        rows, ways = [(label, ok, way) for (label, ok, _), (way, _) in zip(rows, ways)], None
    elif reveal == "second":   # a first try: which values are wrong, nothing held for hint()
        ways = [("", None) for _ in ways]
    hints = [(label, text) for label, ok, _ in rows if not ok and diagnose
             for text in [diagnose(label, expected[label], given[label])] if text]
    return report(name, rows, hint, hints, ways)
