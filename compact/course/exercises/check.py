"""The checkers' shared machinery: run the learner's answer, compare, explain a miss.

A checker runs the learner's function on cases whose expected value comes
from the package itself, and prints one PASS/FAIL line per case. A FAIL says
*how* the answer differs, not only that it does:
- when the types differ, both types (`expected an int, got a str`);
- for texts, the first differing character, with a little context either side;
- for lists, tuples and dicts, the first differing element or key, explained
  the same way, recursively;
- and a hint tied to the mistake when the checker recognises it (`diagnose`),
  otherwise the checker's general hint.

A stub that still raises NotImplementedError, or an answer left as None, is
"not attempted yet": a friendly line, never a traceback, so a notebook shipped
unsolved runs top to bottom. A learner's bug is a FAIL line, not a traceback.

Left out on purpose: grading and timing.
"""

import math
from dataclasses import dataclass, field

SHOWN_FAILS = 3      # failing cases explained in full; the others get one line
CONTEXT = 24         # characters of context either side of a text difference
SHORT = 70           # characters of a value shown whole


@dataclass
class CheckResult:
    name: str
    passed: int
    total: int
    attempted: bool = True
    rows: list = field(default_factory=list)  # (case, ok, detail)

    @property
    def ok(self) -> bool:
        return self.attempted and self.passed == self.total

    def __repr__(self) -> str:
        state = f"{self.passed}/{self.total}" if self.attempted else "not attempted"
        return f"CheckResult({self.name}: {state})"


class NotAttempted(Exception):
    """The learner's stub said it is not written yet."""


# -- explaining a difference -----------------------------------------------------

def short(value) -> str:
    text = repr(value)
    return text if len(text) <= SHORT else text[: SHORT - 3] + "..."


def _a(type_) -> str:
    name = type_.__name__
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
    where = (f"texts differ at character {at:,d} (expected {len(expected):,d} characters, "
             f"got {len(got):,d})")
    if at == len(got):
        where += "; yours stops there"
    elif at == len(expected):
        where += "; yours goes on"
    return (f"{where}\n      expected: {lead}{want}\n      got:      {lead}{have}"
            f"\n                {caret}")


def difference(expected, got) -> str:
    """A short account of how `got` differs from `expected`."""
    if is_number(expected) and is_number(got):
        return f"expected {expected!r}, got {got!r}"
    if type(expected) is not type(got):
        return (f"expected {_a(type(expected))} ({short(expected)}), "
                f"got {_a(type(got))} ({short(got)})")
    if isinstance(expected, str):
        return text_difference(expected, got)
    if isinstance(expected, (list, tuple)):
        for index, (want, have) in enumerate(zip(expected, got)):
            if not same(want, have):
                return f"at [{index}]: {difference(want, have)}"
        return (f"expected {len(expected)} items, got {len(got)}: "
                f"expected {short(expected)}, got {short(got)}")
    if isinstance(expected, dict):
        missing = [k for k in expected if k not in got]
        extra = [k for k in got if k not in expected]
        if missing or extra:
            return f"keys differ: missing {missing}, not expected {extra}"
        key = next(k for k in expected if not same(expected[k], got[k]))
        return f"at [{key!r}]: {difference(expected[key], got[key])}"
    return f"expected {short(expected)}, got {short(got)}"


# -- printing ----------------------------------------------------------------------

def report(name: str, rows: list, hint: str) -> CheckResult:
    """Print the PASS/FAIL lines and the verdict; rows are (case, ok, detail)."""
    width = max(len(case) for case, _, _ in rows)
    print(f"{name}: {len(rows)} cases")
    explained = 0
    for case, ok, detail in rows:
        line = f"  {'PASS' if ok else 'FAIL'}  {case.ljust(width)}".rstrip()
        if not ok and detail and explained < SHOWN_FAILS:
            explained += 1
            line = f"{line}\n      {detail}"
        print(line)
    passed = sum(1 for _, ok, _ in rows if ok)
    if passed == len(rows):
        print(f"All {len(rows)} cases pass.")
    else:
        print(f"{passed} of {len(rows)} cases pass. Hint: {hint}")
    return CheckResult(name, passed, len(rows), True, rows)


def not_attempted(name: str, total: int, hint: str, what: str) -> CheckResult:
    print(f"{name}: not attempted yet ({what}). Hint: {hint}")
    return CheckResult(name, 0, total, False, [])


# -- running the learner's answer ----------------------------------------------------

def call(function, *args):
    """(ok, value or error text); NotImplementedError means not attempted."""
    try:
        return True, function(*args)
    except NotImplementedError as error:
        raise NotAttempted() from error
    except Exception as error:  # a learner's bug is a FAIL line, not a traceback
        return False, f"raised {type(error).__name__}: {error}"


def check_function(name, function, cases, hint, *, normalise=None, diagnose=None,
                   explain_errors=False) -> CheckResult:
    """Run `function` on cases [(label, args, expected)] and report.

    `normalise(got)` may turn an acceptable shape into the expected one (a list
    of indexes into a sorted list, say) before the comparison; `diagnose(args,
    expected, got)` may return a hint for the mistake it recognises; with
    `explain_errors` it is also asked (with got None) when the function raised.
    """
    if function is None:
        return not_attempted(name, len(cases), hint, "the answer is None")
    if not callable(function):
        print(f"{name}: expected a function, got {_a(type(function))}.")
        return CheckResult(name, 0, len(cases), True, [])
    rows = []
    try:
        for label, args, expected in cases:
            ran, got = call(function, *args)
            if not ran:
                specific = diagnose(args, expected, None) if diagnose and explain_errors else None
                rows.append((label, False, got + (f"\n      hint: {specific}" if specific else "")))
                continue
            if normalise is not None:
                try:
                    got = normalise(got)
                except (TypeError, ValueError):
                    pass  # left as it is: the comparison explains the shape
            if same(expected, got):
                rows.append((label, True, ""))
                continue
            detail = difference(expected, got)
            specific = diagnose(args, expected, got) if diagnose else None
            rows.append((label, False, detail + (f"\n      hint: {specific}" if specific else "")))
    except NotAttempted:
        return not_attempted(name, len(cases), hint, "it still raises NotImplementedError")
    return report(name, rows, hint)


def check_prediction(name, answer, expected: dict, hint) -> CheckResult:
    """expected: {label: value}; answer: one value, a tuple in that order, or a dict."""
    labels = list(expected)
    if answer is None:
        return not_attempted(name, len(labels), hint, "the prediction is None")
    if isinstance(answer, dict):
        given = {label: answer.get(label) for label in labels}
    elif isinstance(answer, tuple) and len(labels) > 1:
        if len(answer) != len(labels):
            print(f"{name}: expected {len(labels)} values ({', '.join(labels)}), "
                  f"got {len(answer)}.")
            return CheckResult(name, 0, len(labels), True, [])
        given = dict(zip(labels, answer))
    elif len(labels) == 1:
        given = {labels[0]: answer}
    else:
        print(f"{name}: expected {len(labels)} values ({', '.join(labels)}), got one.")
        return CheckResult(name, 0, len(labels), True, [])
    if any(value is None for value in given.values()):
        return not_attempted(name, len(labels), hint, "a prediction is still None")
    rows = [(label, same(expected[label], given[label]),
             "" if same(expected[label], given[label])
             else difference(expected[label], given[label]))
            for label in labels]
    return report(name, rows, hint)
