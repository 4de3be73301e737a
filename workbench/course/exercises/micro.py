"""03 · step 3, micro_compact: what an older result becomes.

The learner writes `older_result(text)`: what the article's step 3 leaves in
place of a tool result that is not among the newest 3. The key idea is the
lookup: a result that step 1 persisted starts with its `<persisted-output>`
block, and the path of the saved copy is read back from its `Full output: `
line; there is no table linking the two steps.

The reference runs the package's step 3 (seed profile) in a scratch folder
where step 1 really saved the files the blocks name. The cases include the
traps: a result of exactly 120 characters stays, and a file the agent read
that merely *contains* a `Full output: ` line is not a saved copy (flaw 6:
the package trusts only its own block, in both profiles).
"""

import random
import tempfile

from compact.config import CompactionConfig
from compact.messages import text_of, tool_results

from ...display.phrases import say
from .build import rng, tool_pair
from .catalogue import exercise
from .check import CheckResult, check_function, hint

LINE = "A line of a README the agent read, long enough to be worth shrinking.\n"


def _ordinary(draw: random.Random) -> str:
    return "".join(f"{n}. {LINE}" for n in range(draw.randint(3, 40)))


def _cases_in(root) -> list:
    """[(label, text, expected)], the expected text from the package's step 3."""
    from compact.compactor import ContextCompactor

    from ...offline.model.extractive import extractive_summary  # never asked: no summary here
    saver = ContextCompactor(root, extractive_summary, CompactionConfig.seed(
        tool_result_batch_char_limit=1_000, large_result_char_limit=500))
    step3 = ContextCompactor(root, extractive_summary, CompactionConfig.seed())

    def persisted(tool_id: str, text: str) -> str:
        batch = [{"role": "user", "content": "Read it."}, *tool_pair([(tool_id, text)])]
        return text_of(tool_results(saver.tool_result_budget(batch)[-1])[0]["content"])

    def after_step3(text: str) -> str:
        newer = [(f"toolu_new{n}", "x" * 200) for n in range(3)]
        messages = [{"role": "user", "content": "Read them."},
                    *tool_pair([("toolu_old", text)]), *tool_pair(newer)]
        return text_of(tool_results(step3.micro_compact(messages)[2])[0]["content"])

    draw = rng()
    texts = [
        ("a result step 1 persisted", persisted("toolu_0001", _ordinary(draw) * 30)),
        ("another persisted result, another path", persisted("call_7", _ordinary(draw) * 40)),
        ("a long result step 1 never saw", _ordinary(draw)),
        ("121 characters", "y" * 121),
        ("exactly 120 characters: left alone", "z" * 120),
        ("a short result", "ok"),
        ("a file that mentions a Full output: line",
         "# Notes\nThe budget step writes:\nFull output: .task_outputs/tool-results/toolu_9.txt\n"
         + _ordinary(draw)),
        ("a log that starts with a Full output: line",
         "Full output: .task_outputs/tool-results/toolu_0001.txt\n" + _ordinary(draw)),
    ]
    for n in range(8):
        if draw.random() < 0.5:
            texts.append((f"random persisted result {n + 1}",
                          persisted(f"toolu_r{n}", _ordinary(draw) * draw.randint(20, 60))))
        else:
            texts.append((f"random whole result {n + 1}", _ordinary(draw)))
    return [(label, (text,), after_step3(text)) for label, text in texts]


def _diagnose(args, expected, got):
    (text,) = args
    if not isinstance(got, str):
        return None
    if len(text) <= 120 and got != text:
        return say("micro: a result of at most 120")
    if expected.startswith("[Earlier tool result saved at") and got.startswith("[Earlier"):
        return say("micro: read the path from the line")
    if expected.startswith("[Earlier tool result saved at"):
        return say("micro: this result starts with step 1's")
    if got.startswith("[Earlier tool result saved at"):
        return say("micro: only step 1's own block counts")
    return say("micro: an older result over 120 characters")


@exercise("03", writes_code=True)
def check_older_result(older_result) -> CheckResult:
    """older_result(text) -> what the article's step 3 leaves for an older result."""
    with tempfile.TemporaryDirectory(prefix="compact-exercise-") as root:
        cases = _cases_in(root)
    return check_function(
        "older_result", older_result, cases, hint("older_result"),
        diagnose=_diagnose)


# -- the prediction ------------------------------------------------------------------

def placeholders_on_five_reads() -> dict:
    """Placeholders the seed profile's step 3 leaves on five_reads, and how many say omitted."""
    from compact import formats

    from ..replay import replay
    run = replay("five_reads", profile="seed", step="micro_compact")
    kinds = [formats.kind_of_result(text_of(b.get("content", "")))
             for m in run.after for b in tool_results(m)]
    return {"placeholders": kinds.count("placeholder") + kinds.count("omitted"),
            "omitted": kinds.count("omitted")}


@exercise("03")
def check_placeholders(answer) -> CheckResult:
    """predict (placeholders, omitted) for the seed profile's step 3 on five_reads."""
    from .check import check_prediction
    return check_prediction(
        "placeholders", answer, placeholders_on_five_reads(), hint("placeholders"))
