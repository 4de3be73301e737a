"""05 · why the order: which tool outputs are lost for good.

The learner writes `lost(originals, context, transcripts, saved)`: the ids of
the tool results whose original text can no longer be read verbatim, neither
in the context, nor in a transcript, nor in a saved file that one of our
markers points at. The reference is the benchmark's own
`compact_course.bench.cost.lost_outputs`, run on what the package's steps really
left (in every order of the three cheap steps, on canned histories, in both
profiles).

The traps: a result archived by step 2 is in a transcript, not lost; a
`<persisted-output>` preview is not the original, but its `Full output: ` path
leads to it; a placeholder's path leads to the copy too.
"""

import itertools

from context_compact.messages import text_of, tool_results

from ...display.phrases import say
from .catalogue import exercise
from .check import CheckResult, check_function, hint

CHEAP = ("tool_result_budget", "snip_compact", "micro_compact")


def _situations() -> list:
    """[(label, history, profile, steps)] the cases are made from."""
    number = {step: str(n) for n, step in enumerate(CHEAP, start=1)}
    found = [(f"huge_result, steps {', '.join(number[s] for s in order)}", "huge_result", "seed",
              order) for order in itertools.permutations(CHEAP)]
    return found + [
        ("five_reads, step 3 alone", "five_reads", "seed", ("micro_compact",)),
        ("long_session, steps 2 then 3", "long_session", "seed", ("snip_compact", "micro_compact")),
        ("long_session, step 3 alone", "long_session", "seed", ("micro_compact",)),
        ("two_code_files, prepare", "two_code_files", "seed", ("prepare",)),
        ("huge_result, step 3 first, default profile", "huge_result", "default",
         ("micro_compact", "tool_result_budget")),
        ("five_reads, nothing run", "five_reads", "seed", ()),
    ]


def what_is_left(history, profile, steps, root):
    """(originals, context, transcripts, saved, store) after running `steps` in `root`."""
    from ...sessions.histories import load_history
    from ..replay import make_compactor, run_step
    history = load_history(history)
    compactor = make_compactor(root, profile)
    context = history["messages"]
    for step in steps:
        context = run_step(compactor, step, context, history["active_request"])
    store = compactor.store
    originals = {b["tool_use_id"]: text_of(b.get("content", ""))
                 for m in history["messages"] for b in tool_results(m)}
    transcripts = [store.read_transcript(p) for p in store.written if p.startswith(".transcripts/")]
    saved = {p: store.saved_text(p) for p in store.written if p.startswith(".task_outputs/")}
    return originals, context, transcripts, saved, store


def _cases() -> list:
    import tempfile

    from ...bench.cost import lost_outputs
    cases = []
    for label, history, profile, steps in _situations():
        with tempfile.TemporaryDirectory(prefix="compact-exercise-") as root:
            originals, context, transcripts, saved, store = what_is_left(
                history, profile, steps, root)
            expected = sorted(lost_outputs(originals, context, store))
        cases.append((label, (originals, context, transcripts, saved), expected))
    return cases


def _sorted(got):
    return sorted(got)


def _diagnose(args, expected, got):
    originals, context, transcripts, saved = args
    if not isinstance(got, list):
        return say("order: return a list of tool_use ids")
    extra = [i for i in got if i not in expected]
    if extra and transcripts:
        return say("order: not lost, in a transcript", extra_0=extra[0])
    if extra and saved:
        return say("order: not lost, its marker's path", extra_0=extra[0])
    if extra:
        return say("order: still readable", extra_0=extra[0])
    return say("order: a result is lost when no")


@exercise("05", writes_code=True)
def check_lost(lost) -> CheckResult:
    """lost(originals, context, transcripts, saved) -> ids of outputs lost for good."""
    return check_function(
        "lost", lost, _cases(), hint("lost"),
        normalise=_sorted, diagnose=_diagnose)


# -- the prediction ------------------------------------------------------------------

def order_loss_on_huge_result() -> dict:
    """Tool outputs lost for good when step 3 runs before step 1 on huge_result (seed)."""
    from ..replay import wrong_order_loss
    return {"lost": wrong_order_loss("huge_result")}


@exercise("05")
def check_order_loss(answer) -> CheckResult:
    """predict how many tool outputs are lost for good in the wrong order."""
    from .check import check_prediction
    return check_prediction(
        "order_loss", answer, order_loss_on_huge_result(), hint("order_loss"))
