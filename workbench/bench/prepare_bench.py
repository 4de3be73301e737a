"""How long one `prepare` takes, against the floor of one `json.dumps` of the list.

    python -m workbench bench-prepare            # 50..50,000 messages x 50k..12M characters
    python -m workbench bench-prepare --quick    # the smallest list, both of 50,000 messages, 4M

Designs, each timed per call (CPU time of this process, time.process_time, so
other work on a shared machine is not counted; the garbage collector off; the
fastest of several calls; the designs take turns, interleaved, so what is left
of a busy machine's noise slows all alike):
- floor: one `json.dumps(messages, ensure_ascii=False)`, what measuring the
  list once costs; no `prepare` can do less and still measure; timed in each
  case beside the designs, as often, so each x/floor compares like with like;
- article: the article's own code, `tests/article_s08.py` (a flat copy kept
  with the tests, loaded by its path; "n/a" where the tests are not there);
- seed: `prepare` with `CompactionConfig.seed()`;
- default: `prepare` with `CompactionConfig()`.

Two cases:
- no-op: the list is the compactor's own last output plus one new tool call
  and its result, and every limit is above it (step 3 keeps every result
  whole), so nothing changes: what an agent pays on most turns;
- compacting: the article's 50,000-character limit with step 2's count out of
  the way (`snip_max_messages` above the list): the seed's step 3 rewrites every
  old result, then the summary (a fixed string, so the summarizer's own time is
  left out) if still over; the default archives down to its target in one
  transcript (flaw 17);
- saving: the default only, without flaw 17's switch, so step 3 saves
  every old result to a file of its own first: the store's write path;
- tokens: the saving case with a limit in tokens (the article's 50,000
  characters over 4) and a `TokenMeasure`, its `count_tokens` answered in the
  process by the offline model's estimate (no HTTP): each replacement is
  measured by its message and its call, never the whole list again (issue 51).

growth: the exponent b in ms ~ size^b from the smallest list to the largest
(about 1: the work follows the list; 2: a quadratic loop).

Left out: the model call, the agent loop, and any figure stored in a
notebook (timings vary from run to run; they are printed, never asserted).
"""

import argparse
import gc
import importlib.util
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from compact.compactor import ContextCompactor
from compact.config import CompactionConfig
from compact.store import seeded_ids
from compact.tokens import TokenMeasure

from ..display.text import fixed_width
from ..offline.tokens import estimate_tokens

ARTICLE_FILE = Path(__file__).resolve().parents[2] / "tests" / "article_s08.py"
# 50,000 messages: issue 41's size, twice: each result the list's smallest (200 characters),
# so the work a message costs, not its characters, is what is timed; and 40M characters
# (results of about 1,300), the list of issue 41's first report.
SIZES = ((50, 50_000), (500, 50_000), (500, 400_000), (5_000, 400_000), (5_000, 4_000_000),
         (50, 4_000_000), (50_000, 12_000_000), (50_000, 40_000_000))
QUICK_SIZES = ((50, 50_000), (50_000, 12_000_000), (50_000, 40_000_000), (5_000, 4_000_000))
DESIGNS = ("floor", "article", "seed", "default")
ARTICLE_LIMIT = 50_000
SUMMARY = "Goal, files, decisions and the work left, in a few lines."
WORDS = ("load", "save", "check", "merge", "parse", "render", "cart", "order", "stock", "tax")


def _text(n: int, size: int) -> str:
    """`size` characters of log-like lines, different for each n."""
    line = " ".join(WORDS[(n + k) % len(WORDS)] for k in range(7))
    lines, total, k = [], 0, 0
    while total < size:
        lines.append(f"[{n}:{k}] {line}")
        total += len(lines[-1]) + 1
        k += 1
    return "\n".join(lines)[:size]


def tool_call(n: int, size: int) -> list:
    """One read: the assistant's tool_use and the user's tool_result of `size` characters."""
    use_id = f"toolu_{n:06d}"
    return [{"role": "assistant", "content": [
                {"type": "text", "text": f"Reading part {n}."},
                {"type": "tool_use", "id": use_id, "name": "read_file", "input": {"path": f"f{n}.txt"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": use_id, "content": _text(n, size)}]}]


def make_list(messages: int, chars: int) -> list:
    """A request and tool calls: `messages` messages, about `chars` characters of JSON."""
    calls = max(1, (messages - 1) // 2)
    each = max(200, chars // calls - 260)  # 260: the JSON around a result
    listed = [{"role": "user", "content": "Read every part and list what fails."}]
    for n in range(calls):
        listed += tool_call(n, each)
    return listed


def _load_article():
    if not ARTICLE_FILE.is_file():
        return None
    spec = importlib.util.spec_from_file_location("article_s08", ARTICLE_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ArticleCompactor


class _Counter:
    """count_tokens in the process: the offline model's estimate, as its server answers it."""

    def __init__(self):
        self.messages = self

    def count_tokens(self, model: str, messages: list, **fixed):
        return SimpleNamespace(input_tokens=estimate_tokens({"messages": messages, **fixed}))


def _limits(case: str, messages: list) -> tuple[int, int, int]:
    """(context limit, snip trigger, results kept whole) for a case: for no-op all three
    above the list, so no design has anything to do; else the article's limit and 3."""
    if case == "no-op":
        chars = len(json.dumps(messages, ensure_ascii=False))
        return 2 * chars + ARTICLE_LIMIT, 2 * len(messages) + 10, len(messages)
    return ARTICLE_LIMIT, 2 * len(messages) + 10, 3


def _preparer(design: str, root: Path, case: str, messages: list, article):
    """prepare(messages, request) for one design, with the case's limits."""
    limit, snip, keep = _limits(case, messages)
    if design == "floor":
        return lambda listed, request: json.dumps(listed, ensure_ascii=False)
    if design == "article":
        compactor = article(root, lambda system, text, max_tokens: SUMMARY,
                            CONTEXT_CHAR_LIMIT=limit, MAX_MESSAGES=snip, KEEP_RECENT_RESULTS=keep)
        return compactor.prepare
    # "saving": the default without flaw 17's switch, so step 3 saves every old result
    # to its own file: the store's write path, file after file.
    one_call = {"compact_in_one_call": False} if case in ("saving", "tokens") else {}
    tokens = {"context_token_limit": limit // 4} if case == "tokens" else {}
    config = CompactionConfig.named(design, context_char_limit=limit, snip_max_messages=snip,
                                    keep_recent_results=keep, **one_call, **tokens)
    compactor = ContextCompactor(root, summarizer=lambda listed: SUMMARY, config=config, new_id=seeded_ids(),
                                 measure=TokenMeasure(_Counter(), "bench") if tokens else None)
    return compactor.prepare


def _timed(prepare, listed, request) -> float:
    """CPU seconds of one call, the garbage collector off (as timeit does)."""
    gc.disable()
    try:
        start = time.process_time()
        prepare(listed, request)
        return time.process_time() - start
    finally:
        gc.enable()


def time_noop(designs, size: tuple, article, scratch: Path, budget: float = 2.0) -> dict:
    """design -> ms per call (the fastest): prepare on its own last output plus one new
    call, nothing to do. The designs take turns, so a busy machine slows all alike."""
    messages = make_list(*size)
    request = messages[0]["content"]
    runs = {}
    for design in designs:
        prepare = _preparer(design, Path(tempfile.mkdtemp(dir=scratch)), "no-op", messages, article)
        settled = prepare([*messages], request)
        runs[design] = (prepare, messages if design == "floor" else settled, [])
    spent, n = 0.0, 10 ** 6
    while n < 10 ** 6 + 7 or (spent < budget and n < 10 ** 6 + 40):
        new = tool_call(n, 400)
        n += 1
        for prepare, settled, times in runs.values():
            times.append(_timed(prepare, [*settled, *new], request))
            spent += times[-1]
    return {design: min(times) * 1000 for design, (_, _, times) in runs.items()}


def time_compacting(designs, size: tuple, article, scratch: Path, runs: int = 3,
                    case: str = "compacting") -> dict:
    """design -> ms per call (the fastest): one prepare that compacts, each run on a fresh
    list and folder, the designs taking turns."""
    times = {design: [] for design in designs}
    for _ in range(runs):
        for design in designs:
            messages = make_list(*size)
            prepare = _preparer(design, Path(tempfile.mkdtemp(dir=scratch)), case, messages, article)
            times[design].append(_timed(prepare, messages, messages[0]["content"]))
    return {design: min(spent) * 1000 for design, spent in times.items()}


def growth(rows: list, design: str, case: str) -> float | None:
    """The exponent b in ms ~ characters^b from the smallest list to the largest."""
    mine = [r for r in rows if r["design"] == design and r["case"] == case and r["ms"]]
    if len(mine) < 2:
        return None
    small = min(mine, key=lambda r: (r["chars"], r["messages"]))
    large = max(mine, key=lambda r: (r["chars"], r["messages"]))
    if large["chars"] == small["chars"]:
        return None
    return math.log(large["ms"] / small["ms"]) / math.log(large["chars"] / small["chars"])


CASES = ("no-op", "compacting", "saving", "tokens")


def run(sizes=SIZES, cases=CASES, designs=DESIGNS, runs: int = 3) -> list:
    article = _load_article()
    rows = []
    with tempfile.TemporaryDirectory(prefix="compact-bench-prepare-") as folder:
        scratch = Path(folder)
        for case in cases:
            # The floor is timed in every case, taking turns with the designs, so each
            # ratio is over a json.dumps timed as often and as interleaved as its design.
            timed = [d for d in designs if (d != "article" or article is not None)
                     and (d in ("default", "floor") or case not in ("saving", "tokens"))]
            for size in sizes:
                if case == "no-op":
                    ms = time_noop(timed, size, article, scratch)
                else:
                    ms = time_compacting(timed, size, article, scratch, runs, case)
                rows.extend({"case": case, "messages": size[0], "chars": size[1],
                             "design": design, "ms": ms.get(design)} for design in designs)
    return rows


def format_rows(rows: list) -> str:
    """One line per (case, size): ms per call of each design, and x the floor."""
    designs = list(dict.fromkeys(r["design"] for r in rows))
    header = ("case", "messages", "characters", *designs, *(f"{d} /floor" for d in designs[1:]))
    lines = [header]
    for key in dict.fromkeys((r["case"], r["messages"], r["chars"]) for r in rows):
        ms = {r["design"]: r["ms"] for r in rows if (r["case"], r["messages"], r["chars"]) == key}
        floor = ms.get("floor")   # the json.dumps timed beside this case's designs
        shown = ["-" if ms.get(d) is None else f"{ms[d]:.2f}" for d in designs]
        ratios = ["-" if ms.get(d) is None or not floor else f"{ms[d] / floor:.2f}"
                  for d in designs[1:]]
        lines.append((key[0], f"{key[1]:,d}", f"{key[2]:,d}", *shown, *ratios))
    for case in dict.fromkeys(r["case"] for r in rows):
        exponents = [growth(rows, d, case) for d in designs]
        lines.append((case, "growth", "", *("-" if b is None else f"{b:.2f}" for b in exponents),
                      *([""] * (len(designs) - 1))))
    widths = [10, 8, 10, *([8] * len(designs)), *([10] * (len(designs) - 1))]
    table = fixed_width(lines, widths, ">", "  ")
    return "\n".join([table[0], "-" * len(table[0]), *table[1:]])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench bench-prepare",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="four lists: the smallest, both of 50,000 messages, and 4M characters")
    parser.add_argument("--case", choices=CASES, nargs="+", default=list(CASES))
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    rows = run(QUICK_SIZES if args.quick else SIZES, tuple(args.case))
    print(format_rows(rows))
    print("\nms of CPU time per call, the fastest of several calls; x/floor: that time over one json.dumps "
          "of the same list;\ngrowth: b in ms ~ characters^b, smallest list to largest. "
          "Timings vary from run to run.")
    if _load_article() is None:
        print(f"article: n/a, {ARTICLE_FILE} is not here (it comes with the tests)")
    return 0
