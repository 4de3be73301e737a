"""Check-yourself exercises: one checker per notebook, run against the package itself.

Each `check_<name>(answer)` takes what the learner wrote (a function, or a
predicted number) and runs it on a few cases next to the package's own
implementation: it prints one PASS/FAIL line per case and a one-line verdict,
and returns a `CheckResult(passed, total)`. A stub that still raises
`NotImplementedError`, or a prediction left as `None`, gets a friendly
"not attempted yet" line, never a traceback.

    00 check_chars(chars)                    chars(messages) -> int
    01 check_persisted(persisted)            persisted(sizes, batch_limit, large_limit) -> [index]
    02 check_cut_points(cut_points)          cut_points(kinds, max_messages, keep_head) -> (h, t)
    03 check_placeholders(prediction)        (placeholders, omitted) on five_reads, seed step 3
    04 check_summary_cut(summary_cut)        summary_cut(text, limit) -> str
    05 check_order_loss(prediction)          outputs lost, step 3 before step 1 on huge_result
    06 check_too_long(too_long)              too_long(message) -> bool
    07 check_answer_batch(answer_batch)      answer_batch(tool_uses, run) -> (results, bool)
    08 check_seed_losses(prediction)         (long_session, timeline_150) lost by the seed
    09 check_cache_cost(cache_cost)          cache_cost(previous, current) -> float
    10 check_summary_calls(prediction)       summary calls, offline compare-code run, seed

A prediction is a number, a tuple in the order shown, or a dict by name. Its
reference value is computed live from the package on every run (never written
down here), so it follows the package if the package changes; a wrong guess is
told the right number. Left out on purpose: grading and timing.
"""

import json
import math
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import formats
from ..config import CompactionConfig
from ..messages import estimate_chars, text_of, to_plain, tool_results
from ..reactive import is_prompt_too_long
from .histories import data_dir

SHOWN = 60  # characters of a value shown on a FAIL line


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


class _NotAttempted(Exception):
    """The learner's stub said it is not written yet."""


# -- printing ------------------------------------------------------------------

def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _report(name: str, rows: list, hint: str) -> CheckResult:
    width = max(len(case) for case, _, _ in rows)
    print(f"{name}: {len(rows)} cases")
    for case, ok, detail in rows:
        line = f"  {'PASS' if ok else 'FAIL'}  {case.ljust(width)}"
        print((line if ok or not detail else f"{line}  {detail}").rstrip())
    passed = sum(1 for _, ok, _ in rows if ok)
    if passed == len(rows):
        print(f"All {len(rows)} cases pass.")
    else:
        print(f"{passed} of {len(rows)} cases pass. Hint: {hint}")
    return CheckResult(name, passed, len(rows), True, rows)


def _not_attempted(name: str, total: int, hint: str, what: str) -> CheckResult:
    print(f"{name}: not attempted yet ({what}). Hint: {hint}")
    return CheckResult(name, 0, total, False, [])


# -- running the learner's function ----------------------------------------------

def _call(function, *args):
    """(ok, value or error text); NotImplementedError means not attempted."""
    try:
        return True, function(*args)
    except NotImplementedError as error:
        raise _NotAttempted() from error
    except Exception as error:  # a learner's bug is a FAIL line, not a traceback
        return False, f"raised {type(error).__name__}: {error}"


def _check_function(name, function, cases, compare, hint) -> CheckResult:
    """cases: [(label, args, expected)]; compare(expected, got) -> bool."""
    if function is None:
        return _not_attempted(name, len(cases), hint, "the answer is None")
    if not callable(function):
        print(f"{name}: expected a function, got {type(function).__name__}.")
        return CheckResult(name, 0, len(cases), True, [])
    rows = []
    try:
        for label, args, expected in cases:
            ran, got = _call(function, *args)
            if not ran:
                rows.append((label, False, got))
            elif compare(expected, got):
                rows.append((label, True, ""))
            else:
                rows.append((label, False, f"expected {_short(expected)}, got {_short(got)}"))
    except _NotAttempted:
        return _not_attempted(name, len(cases), hint, "it still raises NotImplementedError")
    return _report(name, rows, hint)


def _check_prediction(name, answer, expected: dict, hint) -> CheckResult:
    """expected: {label: number}; answer: one number, a tuple in that order, or a dict."""
    labels = list(expected)
    if answer is None:
        return _not_attempted(name, len(labels), hint, "the prediction is None")
    if isinstance(answer, dict):
        given = {label: answer.get(label) for label in labels}
    elif isinstance(answer, (tuple, list)):
        if len(answer) != len(labels):
            print(f"{name}: expected {len(labels)} numbers ({', '.join(labels)}), "
                  f"got {len(answer)}.")
            return CheckResult(name, 0, len(labels), True, [])
        given = dict(zip(labels, answer))
    elif len(labels) == 1:
        given = {labels[0]: answer}
    else:
        print(f"{name}: expected {len(labels)} numbers ({', '.join(labels)}), got one value.")
        return CheckResult(name, 0, len(labels), True, [])
    if any(value is None for value in given.values()):
        return _not_attempted(name, len(labels), hint, "a prediction is still None")
    rows = []
    for label in labels:
        ok = _same_number(given[label], expected[label])
        rows.append((label, ok, "" if ok else
                     f"you said {_short(given[label])}, the package says {expected[label]}"))
    return _report(name, rows, hint)


def _same_number(got, expected) -> bool:
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return False
    return math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-6)


def _equal(expected, got) -> bool:
    return expected == got


# -- shared case builders -----------------------------------------------------------

def _tool_pair(ids_and_texts, note="Reading."):
    """An assistant turn calling one tool per (id, text) and the user turn answering it."""
    uses = [{"type": "tool_use", "id": tid, "name": "read_file", "input": {"path": f"{tid}.txt"}}
            for tid, _ in ids_and_texts]
    results = [{"type": "tool_result", "tool_use_id": tid, "content": text}
               for tid, text in ids_and_texts]
    return [{"role": "assistant", "content": [{"type": "text", "text": note}, *uses]},
            {"role": "user", "content": results}]


# == 00 the measure

def _chars_cases():
    chinese = "请读取五节课程的 README.md，比较它们的一级标题。"
    return [
        ("an empty list", [[]]),
        ("one English request", [[{"role": "user", "content": "Summarize README.md."}]]),
        ("a Chinese request", [[{"role": "user", "content": chinese}]]),
        ("quotes, newlines and a tab",
         [[{"role": "user", "content": 'say "hi"\n\tthen stop'}]]),
        ("a tool_use / tool_result pair",
         [[{"role": "user", "content": "Read it."},
           *_tool_pair([("toolu_01", "# s01 Agent Loop\n智能体循环")])]]),
        ("an emoji and accents", [[{"role": "assistant",
                                    "content": [{"type": "text", "text": "café ✅ 🚀"}]}]]),
    ]


def check_chars(chars) -> CheckResult:
    """00: chars(messages) -> the article's measure, characters of the JSON."""
    cases = [(label, args, estimate_chars(args[0])) for label, args in _chars_cases()]
    return _check_function(
        "chars", chars, cases, _equal,
        "measure len(json.dumps(messages, ensure_ascii=False)); with the default "
        "ensure_ascii=True every Chinese character is written as \\uXXXX, six characters.")


# == 01 tool_result_budget

PERSISTED_CASES = [
    # (label, sizes, batch_limit, large_limit); the article's numbers first.
    ("one huge result in a small batch", [250_000, 1_000, 500], 200_000, 30_000),
    ("two huge results, both needed", [300_000, 250_000], 200_000, 30_000),
    ("the largest first, not the first", [35_000, 31_000, 40_000, 150_000], 200_000, 30_000),
    ("over the batch limit, nothing large", [25_000] * 10, 200_000, 30_000),
    ("exactly 30000 is not longer", [30_000] * 8, 200_000, 30_000),
    ("stop once under the limit", [31_000] * 7, 200_000, 30_000),
    ("a batch under the limit", [100_000, 50_000, 40_000], 200_000, 30_000),
    ("small limits", [9_000, 8_000, 7_000, 1_000], 13_000, 5_000),
]


def _persisted_reference(sizes, batch_limit, large_limit) -> list[int]:
    """Which results the package's step 1 persists, run for real in a scratch folder."""
    from ..compactor import ContextCompactor
    config = CompactionConfig.seed(tool_result_batch_char_limit=batch_limit,
                                   large_result_char_limit=large_limit)
    texts = [(f"toolu_{i:02d}", (f"line {i}\n" * size)[:size]) for i, size in enumerate(sizes)]
    messages = [{"role": "user", "content": "Look at the files."}, *_tool_pair(texts)]
    with tempfile.TemporaryDirectory() as root:
        after = ContextCompactor(root, config=config).tool_result_budget(messages)
    kinds = [formats.kind_of_result(text_of(b["content"])) for b in tool_results(after[-1])]
    return [i for i, kind in enumerate(kinds) if kind == "persisted"]


def check_persisted(persisted) -> CheckResult:
    """01: persisted(sizes, batch_limit, large_limit) -> indexes step 1 moves to disk."""
    cases = [(label, (sizes, batch, large), _persisted_reference(sizes, batch, large))
             for label, sizes, batch, large in PERSISTED_CASES]

    def same_indexes(expected, got):
        try:
            return sorted(expected) == sorted(int(i) for i in got)
        except (TypeError, ValueError):
            return False

    return _check_function(
        "persisted", persisted, cases, same_indexes,
        "only when the batch total is over batch_limit; go largest first, skip results "
        "not longer than large_limit, count a persisted one as its 2000-character "
        "preview, and stop as soon as the total is not over the limit.")


# == 02 snip_compact

CUT_CASES = [
    # (label, kinds, max_messages, keep_head)
    ("plain turns", ["user", "assistant"] * 4, 6, 2),
    ("the head ends on a tool_use",
     ["user", "tool_use", "tool_result", "tool_use", "tool_result", "assistant",
      "user", "assistant", "user"], 6, 2),
    ("the tail opens on a tool_result",
     ["user", "assistant", "user", "assistant", "tool_use", "tool_result",
      "tool_use", "tool_result", "assistant"], 6, 2),
    ("both cuts on pairs",
     ["user", "tool_use", "tool_result", "tool_use", "tool_result", "tool_use",
      "tool_result", "tool_use", "tool_result", "assistant"], 6, 2),
    ("the article's numbers, 60 messages",
     ["user"] + ["tool_use", "tool_result"] * 29 + ["assistant"], 50, 3),
    ("the article's numbers, head on a tool_use",
     ["user", "assistant", "tool_use", "tool_result"] + ["assistant", "user"] * 28, 50, 3),
]

_KIND_MESSAGES = {
    "user": lambda n: {"role": "user", "content": f"Request {n}."},
    "assistant": lambda n: {"role": "assistant",
                            "content": [{"type": "text", "text": f"Note {n}."}]},
}


def _messages_of_kinds(kinds) -> list[dict]:
    messages = []
    for n, kind in enumerate(kinds):
        if kind == "tool_use":
            messages.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_{n:03d}", "name": "read_file",
                 "input": {"path": f"file{n}.txt"}}]})
        elif kind == "tool_result":
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n - 1:03d}",
                 "content": f"text of file{n - 1}.txt"}]})
        elif kind in _KIND_MESSAGES:
            messages.append(_KIND_MESSAGES[kind](n))
        else:
            raise ValueError(f"unknown message kind {kind!r} at position {n}")
    return messages


def _cut_reference(kinds, max_messages, keep_head) -> tuple[int, int]:
    from ..messages import validate_messages
    from ..snip import cut_points
    messages = _messages_of_kinds(kinds)
    validate_messages(messages)  # a case with a broken pair would teach the wrong thing
    config = CompactionConfig.seed(snip_max_messages=max_messages, snip_keep_head=keep_head)
    return cut_points(messages, config)


def check_cut_points(cut_points) -> CheckResult:
    """02: cut_points(kinds, max_messages, keep_head) -> (head_end, tail_start) of the seed cut."""
    cases = [(label, (list(kinds), mx, head), _cut_reference(kinds, mx, head))
             for label, kinds, mx, head in CUT_CASES]

    def same_pair(expected, got):
        return isinstance(got, (tuple, list)) and tuple(got) == tuple(expected)

    return _check_function(
        "cut_points", cut_points, cases, same_pair,
        "head_end starts at keep_head and tail_start at len(kinds) - (max_messages - "
        "keep_head); if kinds[head_end - 1] is a tool_use, step over its tool_result; if "
        "kinds[tail_start] is a tool_result right after a tool_use, start one earlier.")


# == 03 micro_compact (prediction)

def _count_kinds(messages) -> dict:
    counts = {"whole": 0, "persisted": 0, "placeholder": 0, "omitted": 0}
    for message in messages:
        for block in tool_results(message):
            counts[formats.kind_of_result(text_of(block.get("content", "")))] += 1
    return counts


def placeholders_on_five_reads() -> dict:
    """Placeholders the seed profile's step 3 leaves on five_reads, and how many say omitted."""
    from .histories import load_history
    from .replay import replay
    run = replay(load_history("five_reads"), profile="seed", step="micro_compact")
    counts = _count_kinds(run.after)
    return {"placeholders": counts["placeholder"] + counts["omitted"],
            "omitted": counts["omitted"]}


def check_placeholders(answer) -> CheckResult:
    """03: predict (placeholders, omitted) for the seed profile's step 3 on five_reads."""
    return _check_prediction(
        "placeholders", answer, placeholders_on_five_reads(),
        "count the tool results, keep the newest 3 whole, and leave alone any of 120 "
        "characters or fewer; the rest become placeholders. Without a saved copy "
        "from step 1, the placeholder says omitted.")


# == 04 compact_history

def _summary_cases():
    def reads(n, size, chinese=False):
        unit = "摘要只保留事实。" if chinese else "a line of a long file\n"
        pairs = [(f"toolu_{i:02d}", (unit * size)[:size]) for i in range(n)]
        return [{"role": "user", "content": "Compare the two files."}, *_tool_pair(pairs)]
    return [
        ("under the limit: unchanged", reads(2, 1_000), 80_000),
        ("the article's limit, 80000", reads(3, 40_000), 80_000),
        ("a small limit, 100", reads(1, 500), 100),
        ("a limit not divisible by 4, 101", reads(1, 500), 101),
        ("Chinese text", reads(2, 3_000, chinese=True), 4_000),
    ]


def check_summary_cut(summary_cut) -> CheckResult:
    """04: summary_cut(text, limit) -> the summarizer's input, cut like the article's."""
    from ..summary import summary_input
    cases = []
    for label, messages, limit in _summary_cases():
        text = json.dumps(to_plain(messages), ensure_ascii=False)
        cases.append((label, (text, limit), summary_input(messages, limit)))
    # A text exactly at the limit must come back whole.
    text = cases[0][1][0]
    cases.append(("exactly at the limit: unchanged", (text, len(text)), text))

    def same_text(expected, got):
        return isinstance(got, str) and got == expected

    return _check_function(
        "summary_cut", summary_cut, cases, same_text,
        "above the limit keep text[:limit // 4], then the marker "
        "compact.formats.MIDDLE_OMITTED, then the last limit - limit // 4 characters; "
        "at or under the limit return the text unchanged.")


# == 05 why the order (prediction)

def order_loss_on_huge_result() -> dict:
    """Tool outputs lost for good when step 3 runs before step 1 on huge_result (seed)."""
    from .histories import load_history
    from .replay import wrong_order_loss
    return {"lost": wrong_order_loss(load_history("huge_result"))}


def check_order_loss(answer) -> CheckResult:
    """05: predict how many tool outputs are lost for good in the wrong order."""
    return _check_prediction(
        "order_loss", answer, order_loss_on_huge_result(),
        "in the wrong order step 3 sees the batch first: every result but the newest 3 "
        "that is longer than 120 characters becomes 'omitted', with no copy on disk.")


# == 06 reactive_compact

TOO_LONG_CASES = [
    ("the real API's text", "prompt is too long: 210445 tokens > 200000 maximum"),
    ("the SDK's BadRequestError text",
     "Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', "
     "'message': 'prompt is too long: 210445 tokens > 200000 maximum'}}"),
    ("the article's first spelling", "prompt_too_long"),
    ("the article's second spelling", "Request failed: too many tokens in the prompt"),
    ("capital letters", "PROMPT IS TOO LONG: 300000 tokens > 200000 maximum"),
    ("an orphan tool_result (400)",
     "messages.3.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
     "toolu_01. Each `tool_result` block must have a corresponding `tool_use` block in "
     "the previous message."),
    ("a tool_use without results (400)",
     "messages.2: `tool_use` ids were found without `tool_result` blocks immediately "
     "after: toolu_02. Each `tool_use` block must have a corresponding `tool_result` "
     "block in the next message."),
    ("max_tokens too large (400)",
     "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens"),
    ("rate limited (429)", "Error code: 429 - rate_limit_error: Number of request tokens "
                           "has exceeded your per-minute rate limit"),
    ("overloaded (529)", "Error code: 529 - {'type': 'error', 'error': "
                         "{'type': 'overloaded_error', 'message': 'Overloaded'}}"),
]


def check_too_long(too_long) -> CheckResult:
    """06: too_long(message) -> True when an error message is the prompt-too-long refusal."""
    cases = [(label, (text,), is_prompt_too_long(Exception(text)))
             for label, text in TOO_LONG_CASES]

    def same_bool(expected, got):
        return isinstance(got, bool) and got == expected

    return _check_function(
        "too_long", too_long, cases, same_bool,
        "lower-case the text and look for any of 'prompt is too long', "
        "'prompt_too_long', 'too many tokens'; the real API says the first, the "
        "article only checked the other two. Return a bool.")


# == 07 the compact tool

def answer_batch_reference(tool_uses, run):
    """The article's batch: every tool_use answered in order, compact with the ack text."""
    results, compact_requested = [], False
    for use in tool_uses:
        if use["name"] == "compact":
            output, compact_requested = formats.COMPACT_TOOL_ACK, True
        else:
            output = run(use)
        results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output})
    return results, compact_requested


def _fake_run(use) -> str:
    # compact has no handler: a learner who runs it gets this text, not the ack.
    if use["name"] == "compact":
        return "Error: unknown tool 'compact'"
    return f"ran {use['name']} {json.dumps(use['input'], sort_keys=True)}"


def _use(n, name, **data):
    return {"type": "tool_use", "id": f"toolu_{n:02d}", "name": name, "input": data}


ANSWER_BATCH_CASES = [
    ("one read, no compact", [_use(1, "read_file", path="README.md")]),
    ("write, then compact", [_use(2, "write_file", path="notes.md", content="done"),
                             _use(3, "compact")]),
    ("compact alone", [_use(4, "compact")]),
    ("compact first, two tools after", [_use(5, "compact"), _use(6, "bash", command="ls"),
                                        _use(7, "glob", pattern="*.md")]),
    ("an empty batch", []),
]


def check_answer_batch(answer_batch) -> CheckResult:
    """07: answer_batch(tool_uses, run) -> (results, compact_requested)."""
    cases = [(label, (uses, _fake_run), answer_batch_reference(uses, _fake_run))
             for label, uses in ANSWER_BATCH_CASES]

    def same_answer(expected, got):
        return (isinstance(got, (tuple, list)) and len(got) == 2
                and list(got[0]) == expected[0] and got[1] is expected[1])

    return _check_function(
        "answer_batch", answer_batch, cases, same_answer,
        "answer every tool_use in order with {'type': 'tool_result', 'tool_use_id': ..., "
        "'content': ...}; for compact use compact.formats.COMPACT_TOOL_ACK and do not "
        "call run; return (results, True) when compact was called.")


# == 08 seed against default (prediction)

def seed_losses() -> dict:
    """Tool outputs the seed profile loses for good on the two long histories."""
    from .histories import load_history
    from .replay import outputs_lost
    return {name: outputs_lost(load_history(name), profile="seed")
            for name in ("long_session", "timeline_150")}


def check_seed_losses(answer) -> CheckResult:
    """08: predict {long_session: n, timeline_150: m}, outputs the seed profile loses."""
    return _check_prediction(
        "seed_losses", answer, seed_losses(),
        "every result that step 3 turns into '[Earlier tool result omitted.]' is lost: "
        "count the results longer than 120 characters that are not among the newest 3 "
        "and were never persisted by step 1. The default profile loses none.")


# == 09 the cost of a request with a prompt cache

def cache_cost_reference(previous, current) -> float:
    """The benchmark's own cost of a request (compact.bench.cost.request_cost)."""
    from ..bench.cost import message_json, request_cost
    return request_cost([message_json(to_plain(m)) for m in previous],
                        [message_json(to_plain(m)) for m in current])


def _cache_cases():
    ask = {"role": "user", "content": "Compare the two files."}
    pair = _tool_pair([("toolu_01", "def main():\n    return 0\n")])
    reply = {"role": "assistant", "content": [{"type": "text", "text": "They differ in main."}]}
    shrunk = _tool_pair([("toolu_01", formats.OMITTED)])
    chinese = {"role": "user", "content": "请比较这两个文件。"}
    return [
        ("the first request, nothing cached", ([], [ask])),
        ("one message appended", ([ask, *pair], [ask, *pair, reply])),
        ("the same request again", ([ask, *pair], [ask, *pair])),
        ("an old result shrunk: the cache breaks there",
         ([ask, *pair, reply], [ask, *shrunk, reply])),
        ("the first message changed", ([ask, reply], [chinese, reply])),
        ("Chinese text, one appended", ([chinese], [chinese, reply])),
    ]


def check_cache_cost(cache_cost) -> CheckResult:
    """09: cache_cost(previous, current) -> the cache-adjusted cost of the current request."""
    cases = [(label, (prev, cur), cache_cost_reference(prev, cur))
             for label, (prev, cur) in _cache_cases()]

    def close(expected, got):
        return _same_number(got, expected)

    return _check_function(
        "cache_cost", cache_cost, cases, close,
        "the leading messages of current equal to those of previous are cached: the "
        "characters of their JSON, len(json.dumps(m, ensure_ascii=False)) each, cost 0.1; "
        "every other character of len(json.dumps(current, ensure_ascii=False)) costs 1.25.")


# == 10 the live agent run (prediction)

def summary_calls_in_live_run(profile: str = "seed") -> dict:
    """Summary calls in the offline compare-code run, read from the run's records.

    The run works on a scratch copy of the sample workspace (the agent writes
    its transcripts there) with the offline model, no key and no network.
    """
    from ..agent.loop import run_task
    from .replay import seeded_ids
    with tempfile.TemporaryDirectory(prefix="compact-exercise-") as scratch:
        workspace = Path(scratch) / "workspace"
        shutil.copytree(data_dir() / "workspace", workspace)
        agent = run_task("compare-code", workspace, profile=profile, echo=None,
                         new_id=seeded_ids())
        calls = sum(r.model_calls for r in agent.compactor.records)
    return {"summary_calls": calls}


def check_summary_calls(answer) -> CheckResult:
    """10: predict how many summaries the seed profile asks for in the live run."""
    return _check_prediction(
        "summary_calls", answer, summary_calls_in_live_run(),
        "each '[auto compact]' line in the run is one summary call; step 4 runs when the "
        "context is still over 50000 characters after steps 1-3.")


CHECKERS = {
    "00": check_chars, "01": check_persisted, "02": check_cut_points,
    "03": check_placeholders, "04": check_summary_cut, "05": check_order_loss,
    "06": check_too_long, "07": check_answer_batch, "08": check_seed_losses,
    "09": check_cache_cost, "10": check_summary_calls,
}
