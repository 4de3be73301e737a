"""08 · the capstone: build `prepare` from the four steps, in the article's order.

The learner writes `my_prepare(compactor, messages, active_request)` with the
compactor's step methods, one per step of the article (`tool_result_budget`,
`snip_compact`, `micro_compact`, `compact_history`), and `compactor.size` and
`compactor.config.context_limit` for the rule of step 4: it runs only if the
list is *still* over the limit after steps 1-3.

The reference is the package's own `ContextCompactor.prepare`, seed profile (the
article's four steps: the default profile's extra pass is off there), run on the
same history in a scratch folder of its own with the same seeded file names, so
both sides write the same files; the two outputs are compared with each folder's
path written as `<root>`. The cases: the six canned histories (each makes a
different step act) and seeded random ones (huge batches, long lists, lists over
the limit). A miss is diagnosed by running the usual wrong pipelines on the same
case: the one whose output is the learner's names the mistake.

Left out: reactive_compact and the compact tool (they are not part of prepare).
"""

import random
import tempfile
from pathlib import Path

from ...display.phrases import say as phrase
from .build import SEED
from .catalogue import exercise
from .check import CheckResult, check_function, hint

CANNED = ("five_reads", "huge_result", "long_session", "two_code_files", "overflow",
          "compact_tool")
RANDOM_CASES = 8


def _compactor(root: Path):
    from ..replay import make_compactor
    return make_compactor(root, "seed")


# -- histories -------------------------------------------------------------------

SMALL, MIXED = (60, 400, 1_500), (60, 400, 3_000, 12_000, 40_000, 110_000)


def random_history(draw: random.Random, sizes=MIXED) -> tuple[list, str]:
    """A valid history (messages, active request): batches of reads of the given sizes.

    The mixed sizes reach every step: a batch over 200,000 characters (step 1),
    more than 50 messages (step 2), old results over 120 characters (step 3), and
    a list over 50,000 characters after them (step 4); the small ones mostly stay
    under the limit, where step 4 must not run."""
    request = f"Summarize what the logs say about job {draw.randint(1, 99)}."
    messages, n = [{"role": "user", "content": request}], 0
    for _ in range(draw.randint(2, 34)):
        uses, results = [], []
        for _ in range(draw.choice((1, 1, 2, 3))):
            n += 1
            size = draw.choice(sizes)
            uses.append({"type": "tool_use", "id": f"toolu_{n:03d}", "name": "read_file",
                         "input": {"path": f"logs/part{n}.log"}})
            line = f"part {n}: line of log output\n"
            results.append({"type": "tool_result", "tool_use_id": f"toolu_{n:03d}",
                            "content": (line * (size // len(line) + 1))[:size]})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "Reading."}, *uses]})
        messages.append({"role": "user", "content": results})
    return messages, request


def cases() -> list:
    """[(label, messages, active_request)]: the canned histories, then seeded random ones."""
    from ...sessions.histories import load_history
    found = []
    for name in CANNED:
        history = load_history(name)
        found.append((name, history["messages"], history["active_request"]))
    draw = random.Random(SEED)
    for k in range(RANDOM_CASES):
        messages, request = random_history(draw, SMALL if k % 2 else MIXED)
        found.append((f"random history {k + 1} ({len(messages)} messages)", messages, request))
    return found


# -- running a prepare in a folder of its own ---------------------------------------

def rooted(value, root: str):
    """`value` with the scratch folder's path written as <root>, in every text."""
    if isinstance(value, str):
        return value.replace(root, "<root>")
    if isinstance(value, list):
        return [rooted(item, root) for item in value]
    if isinstance(value, dict):
        return {key: rooted(item, root) for key, item in value.items()}
    return value


def run_in(folder: Path, prepare, messages, request):
    """(messages or None, files written) of `prepare(compactor, messages, request)` in `folder`."""
    folder.mkdir(parents=True)
    compactor = _compactor(folder)
    out = prepare(compactor, messages, request)
    return rooted(out, str(folder.resolve())), sorted(compactor.store.written)


def package_prepare(compactor, messages, request):
    return compactor.prepare(messages, request)


# The usual wrong pipelines: the first one that gives the learner's output names the mistake.
def _steps(order, rule):
    def pipeline(c, messages, request):
        run = {"1": c.tool_result_budget, "3": c.micro_compact,
               "2": lambda m: c.snip_compact(m, request)}
        first = c.size(messages)
        for step in order:
            messages = run[step](messages)
        if rule == "always" or (rule == "before" and first > c.config.context_limit) or (
                rule == "after" and c.size(messages) > c.config.context_limit):
            messages = c.compact_history(messages, request)
        return messages
    return pipeline


MISTAKES = (
    ("prepare: step 4 on every call", _steps("123", "always")),
    ("prepare: step 4 measured before steps 1-3", _steps("123", "before")),
    ("prepare: step 4 never", _steps("123", "never")),
    ("prepare: step 3 before step 1", _steps("312", "after")),
    ("prepare: step 3 before step 1", _steps("321", "after")),
    ("prepare: step 3 before step 1", _steps("132", "after")),
    ("prepare: a step left out", _steps("23", "after")),
    ("prepare: a step left out", _steps("13", "after")),
    ("prepare: a step left out", _steps("12", "after")),
)


class Case:
    """One history, the scratch folder its runs write into, and how many runs it has had."""

    def __init__(self, root: Path, label: str, messages, request):
        self.root, self.label, self.messages, self.request = root, label, messages, request
        self.runs = 0

    def run(self, prepare):
        self.runs += 1
        return run_in(self.root / f"{self.runs}", prepare, self.messages, self.request)

    def __repr__(self) -> str:
        return self.label


def show_input(args) -> str:
    from context_compact import estimate_chars
    case = args[0]
    size = estimate_chars(case.messages)
    return phrase("prepare: input", label=case.label, n=len(case.messages), size=size,
                  request=case.request[:60]) + "\n      "


def _diagnose(args, expected, got):
    case, _ = args
    matched = [key for key, pipeline in MISTAKES if case.run(pipeline) == got]
    if {"prepare: step 4 on every call", "prepare: step 4 measured before steps 1-3"} <= set(matched):
        # Over the limit as it came in, under it after steps 1-3: both rules summarize it.
        return phrase("prepare: step 4 although steps 1-3 were enough")
    if matched:
        return phrase(matched[0])
    if got is not None and isinstance(got[0], list) and isinstance(expected[0], list):
        if len(got[0]) != len(expected[0]):
            return phrase("prepare: a different number of messages", want=len(expected[0]),
                          have=len(got[0]))
    return None


@exercise("08", writes_code=True)
def check_my_prepare(my_prepare) -> CheckResult:
    """my_prepare(compactor, messages, active_request) -> the list to send to the model."""
    with tempfile.TemporaryDirectory(prefix="compact-exercise-") as scratch:
        root, built = Path(scratch), []
        for n, (label, messages, request) in enumerate(cases()):
            case = Case(root / f"case{n}", label, messages, request)
            built.append((label, (case, my_prepare), case.run(package_prepare)))

        def run(case, prepare):
            # The learner's function, in a folder of its own: (messages, files written).
            return case.run(prepare)
        # None and a stub are the learner's own: check_function says "not attempted".
        answer = run if callable(my_prepare) else my_prepare
        return check_function("my_prepare", answer, built, hint("my_prepare"),
                              diagnose=_diagnose, explain_errors=True, show_input=show_input)
