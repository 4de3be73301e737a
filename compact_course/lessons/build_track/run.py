"""Running a check: the learner's function against the package's seed profile, case by case.

For each case (the step's fixed ones, then ones drawn at random on this run) the package's
answer is computed first, in a folder of its own; then the learner's function runs in another
folder, with the package trapped (trap.py); then the step's `problems` says in words what is
wrong with the learner's output. A failing case prints its input in short and those words,
never the package's output: not on the first run, not on any other. A case that probes a
flaw of the article names the flaw when it fails (words.FLAWS). `hint()` opens the next idea
for the step checked last, never code.

A step is a module with: NAME, NOTEBOOK, HINTS and FLAW_HINTS (sentences, (en, zh)),
fixed() and drawn(draw) (lists of Case), describe(case) (the input in short), reference(case,
root), run(function, case, root, calls) and problems(case, got, expected, where). A flaw is named
only when the same case without the flaw passes (`twin_of`: a case's own data["twin"], or made
for flaws 6, 11 and 12): else something else failed it too. Left out:
grading on time or style, and any memory beyond the kernel (a new kernel starts hints again).
"""

import copy
import random
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import learner, words
from .trap import package_refuses
from .words import say

SHOWN = 3      # failing cases explained in full
PROBLEMS = 3   # problem lines a case shows


@dataclass
class Case:
    label: tuple                       # (en, zh)
    messages: list = field(default_factory=list)
    numbers: dict = field(default_factory=dict)   # the learner's keyword numbers, in signature order
    flaw: int | None = None            # the article's flaw this case probes (docs/DESIGN.md)
    request: str = ""                  # active_request, for the steps that take one
    setup: object = None               # setup(root): files the case needs before the run
    data: dict = field(default_factory=dict)

    def numbers_text(self) -> str:
        return ", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v!r}"
                         for k, v in self.numbers.items())


@dataclass
class Where:
    """The two folders of one case: the package's and the learner's."""
    package: Path
    yours: Path
    calls: list = field(default_factory=list)   # what the learner's function handed to callbacks


@dataclass
class BuildResult:
    name: str
    passed: int
    total: int
    attempted: bool = True
    failing: list = field(default_factory=list)   # (label, flaw, problems)

    @property
    def ok(self) -> bool:
        return self.attempted and self.total > 0 and self.passed == self.total

    @property
    def flaws(self) -> list:
        return sorted({flaw for _, flaw, _ in self.failing if flaw})

    def __repr__(self) -> str:
        state = f"{self.passed}/{self.total}" if self.attempted else "not attempted"
        return f"BuildResult({self.name}: {state})"


LAST: list = []          # the last result, for hint()
GIVEN: dict = {}         # step name -> hints given so far (general, then flaw ones by number)


def step_named(name: str):
    from . import STEPS
    if name not in STEPS:
        raise ValueError(f"no build-track step named {name!r}: the steps are {', '.join(STEPS)}")
    return STEPS[name]


def _function(name: str, path: Path | None):
    """(the learner's function, its file's name), or (None, None) after printing why not."""
    path = Path(path) if path else Path.cwd() / learner.FILE
    if not path.is_file():
        print(say("no file", name=name, file=path.name, folder=path.parent))
        return None, None
    try:
        source = path.read_text(encoding="utf-8")
        found = learner.forbidden(source)
    except (OSError, UnicodeDecodeError, SyntaxError) as error:
        print(say("file broken", name=name, file=path.name, error=_error_line(error)))
        return None, None
    if found:
        line, module = found[0]
        print(say("imports ours", name=name, file=path.name, module=module, line=line))
        return None, None
    try:
        module = learner.load(path)
    except Exception as error:   # the learner's file, run: any error is theirs, said in one line
        print(say("file broken", name=name, file=path.name, error=_error_line(error)))
        return None, None
    function = getattr(module, name, None)
    if not callable(function):
        print(say("no function", name=name, file=path.name))
        return None, None
    return function, path.name


def _error_line(error) -> str:
    if isinstance(error, SyntaxError):
        return f"SyntaxError at line {error.lineno}: {error.msg}"
    return f"{type(error).__name__}: {error}"


def check(step, path=None, *, seed=None, pin=None) -> BuildResult:
    """Grade the learner's step: `step` is its name (read from my_compact.py beside the notebook,
    or `path`, afresh) or the function itself. `seed` fixes the drawn cases (a test's); `pin`
    holds numbers fixed (the article's code hard-codes some: fixed cases that vary them are left out)."""
    name = step if isinstance(step, str) else getattr(step, "__name__", repr(step))
    module = step_named(name)
    if isinstance(step, str):
        function, file = _function(name, path)
    else:
        function, file = step, None
        source, file = learner.source_of(step)
        found = learner.forbidden(source) if source else []
        if found:
            print(say("imports ours", name=name, file=file, module=found[0][1], line=found[0][0]))
            function = None
    if function is None:
        return _remember(BuildResult(name, 0, 0, True))
    return _remember(grade(module, function, file or learner.FILE, seed=seed, pin=pin))


def cases(module, seed=None, pin=None) -> tuple[list, list, int]:
    """(fixed cases, drawn cases, fixed cases left out by `pin`)."""
    pin = pin or {}
    fixed = [c for c in module.fixed() if all(c.numbers.get(k, v) == v for k, v in pin.items())]
    left_out = len(module.fixed()) - len(fixed)
    drawn = module.drawn(random.Random(seed))
    for case in drawn:
        case.numbers.update({k: v for k, v in pin.items() if k in case.numbers})
    return fixed, drawn, left_out


def never_summarize(messages):
    """The reference's summarizer for steps 1-3: the package asks for one when the compactor
    is made, and these steps never call it, so a call is the checker's own bug."""
    raise AssertionError("a step 1-3 reference asked for a summary")


def on_messages(function, case, root, calls):
    """A step of 1-3 on the case's messages, its root and its numbers, in the contract's order."""
    return function(case.messages, root, *case.numbers.values())


class NotWritten(Exception):
    """The learner's function still raises NotImplementedError."""


def grade(module, function, file: str, *, seed=None, pin=None) -> BuildResult:
    name = module.NAME
    fixed, drawn, left_out = cases(module, seed, pin)
    rows = []   # (case, problems, whether the case's flaw is what failed it)
    with tempfile.TemporaryDirectory(prefix="build-track-") as scratch:
        try:
            for n, case in enumerate([*fixed, *drawn]):
                found = one_case(module, function, case, Path(scratch) / f"{n}")
                twin = twin_of(case) if case.flaw and found else None
                # A flaw is named only when the same history without it passes: else something
                # else failed the case too, and the flaw's name would send the learner astray.
                flawed = bool(case.flaw and found) and not (
                    twin and one_case(module, function, twin(), Path(scratch) / f"{n}-twin"))
                rows.append((case, found, flawed))
        except NotWritten:
            print(say("not written", name=name, file=file))
            return BuildResult(name, 0, len(fixed) + len(drawn), False)
    return report(module, rows, len(fixed), len(drawn), left_out, pin)


def twin_of(case):
    """A maker of the same case without its flaw: the case's own (data["twin"]), else for flaw 6
    its results that only quote a "Full output: " line with the line reworded, for flaw 11 its
    lists of blocks as their text, for flaw 12 its SDK objects as plain dicts; None if none."""
    from .looking import PERSISTED, plain, text_of
    if "twin" in case.data:
        return case.data["twin"]
    if case.flaw == 6:
        def unquoted(block):
            content = block.get("content")
            if not isinstance(content, str) or PERSISTED.match(content):
                return block
            return {**block, "content": content.replace("Full output: ", "Kept at: ")}
        return lambda: replace(case, flaw=None, data={}, messages=[
            {**m, "content": [unquoted(b) if isinstance(b, dict) and b.get("type") == "tool_result" else b
                              for b in m["content"]]} if isinstance(m.get("content"), list) else m
            for m in case.messages])
    if case.flaw == 12:
        return lambda: replace(case, messages=plain(case.messages), flaw=None, data={})
    if case.flaw == 11:
        def as_text(message):
            content = message.get("content")
            if not isinstance(content, list):
                return message
            return {**message, "content": [
                {**b, "content": text_of(b["content"])} if isinstance(b, dict)
                and b.get("type") == "tool_result" and isinstance(b.get("content"), list) else b
                for b in content]}
        return lambda: replace(case, messages=[as_text(m) for m in case.messages], flaw=None, data={})
    return None


def one_case(module, function, case, folder: Path) -> list:
    """The problems of the learner's function on one case (the package's answer first)."""
    where = Where(folder / "package" / "root", folder / "yours" / "root")
    for root in (where.package, where.yours):
        root.mkdir(parents=True)
        if case.setup:
            case.setup(root)
    expected = module.reference(copy.deepcopy(case), where.package)
    hits, got, error = [], None, None
    with package_refuses(hits):
        try:
            got = module.run(function, copy.deepcopy(case), where.yours, where.calls)
        except NotImplementedError:
            raise NotWritten() from None
        except Exception as caught:   # a learner's bug is a failing case, not a traceback
            error = caught
    if hits:
        return [say("refused")]
    if error is not None:
        return [say("raised", kind=type(error).__name__, error=str(error)[:200])]
    return _judged(module, case, got, expected, where)



def _judged(module, case, got, expected, where) -> list:
    """The step's problems with the learner's output; an output too odd to read is one problem."""
    try:
        return module.problems(case, got, expected, where)
    except (AttributeError, KeyError, TypeError, ValueError, IndexError) as error:
        return [say("unreadable", error=f"{type(error).__name__}: {error}"[:200])]


def report(module, rows, fixed: int, drawn: int, left_out: int, pin) -> BuildResult:
    name = module.NAME
    print(say("cases", name=name, total=len(rows), fixed=fixed, drawn=drawn))
    if left_out:
        varied = [name for name in pin if any(name in case.numbers for case, _, _ in rows)]
        print(say("pinned", n=left_out, names=", ".join(varied)))
    failing, shown = [], 0
    for case, found, flawed in rows:
        label = words.pick(case.label)
        if not found:
            print(f"  {say('PASS')}  {label}")
            continue
        failing.append((label, case.flaw if flawed else None, found))
        shown += 1
        if shown > SHOWN:
            continue
        print(f"  {say('FAIL')}  {label}")
        print(f"        {say('input', what=module.describe(case))}")
        if flawed:
            print(f"        {words.flaw(case.flaw)}")
        for line in found[:PROBLEMS]:
            print(f"        - {line}")
    if shown > SHOWN:
        print(say("more fails", n=shown - SHOWN))
    passed = len(rows) - len(failing)
    print(say("verdict all", name=name, n=len(rows)) if not failing
          else say("verdict some", name=name, passed=passed, n=len(rows)))
    return BuildResult(name, passed, len(rows), True, failing)


def _remember(result: BuildResult) -> BuildResult:
    LAST[:] = [result]
    try:   # every verdict says "run hint()": make sure a notebook has the name
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is not None:
        # The notebook's other checkers have a hint() of their own: after a build check, `hint`
        # is this one, unless the learner gave the name to something else.
        from ..exercises import hints
        if shell.user_ns.get("hint", hints.hint) in (hints.hint, hint):
            shell.user_ns["hint"] = hint
    return result


def next_hint(result: BuildResult) -> str:
    """The next idea for the last check's step: a failed flaw's first, then the step's in order."""
    module = step_named(result.name)
    given = GIVEN.setdefault(result.name, set())
    for number in result.flaws:
        if ("flaw", number) not in given and number in module.FLAW_HINTS:
            given.add(("flaw", number))
            return say("hint", name=result.name, text=words.pick(module.FLAW_HINTS[number]))
    for n, text in enumerate(module.HINTS):
        if n not in given:
            given.add(n)
            last = "" if n + 1 < len(module.HINTS) else "\n" + say("hint last", name=result.name)
            return say("hint", name=result.name, text=words.pick(text)) + last
    last = say("hint last", name=result.name)
    return say("hint", name=result.name, text=words.pick(module.HINTS[-1])) + "\n" + last


def hint() -> None:
    """Print the next idea for the step checked last (never code, never an expected value)."""
    if not LAST:
        print(say("no hint yet"))
    elif LAST[0].ok:
        print(say("hint passed", name=LAST[0].name))
    else:
        print(next_hint(LAST[0]))


def forget() -> None:
    """A fresh kernel's state (for tests)."""
    LAST.clear()
    GIVEN.clear()
