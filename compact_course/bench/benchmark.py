"""The long-session benchmark's driver: each design replayed over a whole session.

The article shows the pipeline one call at a time. Here a whole session
(`compact_course.bench.simulated`) is replayed turn by turn, and each design prepares the
context before every model call; the request "sent" is the prepared context:
- none: the list as it grows; requests over the model window are counted as
  refused (the offline model's window, DEFAULT_WINDOW = 200000 tokens of its
  estimate, the unit the requests are counted in); the figures are what the
  requests would have cost had the API taken them all;
- summary: compact_history whenever the list is over CONTEXT_CHAR_LIMIT;
- seed: `prepare` with `CompactionConfig.seed()`, the article as written;
- default: `prepare` with `CompactionConfig()`, the flaws fixed;
- default+cold: the default with the cache-aware switch on
  (`CompactionConfig.compact_when_cold`): on a call whose prompt cache has
  expired (the session's clock, `compact_course.bench.simulated.call_times`), the
  pipeline runs with `when_cold(config)`, down to the target;
- server-clear, server-compact, default+server-compact: the API's own context
  management as the offline server plays it, with the API's defaults
  (`compact_course.bench.server_designs`): the client keeps one list and the model reads
  another, and a compaction's summary is booked as a summary call;
- oracle: the floor, a design no compactor can be, for it knows the future: every
  tool output is saved on arrival and arrives as a saved placeholder, and on a call
  that needs one it has that output in front of the model at the price of writing it
  (its tokens at the 5-minute write price, no call spent asking, `CostLedger.add_miss`
  with `call=False`); the rest of the list (requests, replies, placeholders) the
  default's `prepare` keeps in bounds. It never misses and loses nothing.
`DESIGN_TABLE` has one row per design; `run_bench` runs the article's four
(`DESIGNS`) unless told otherwise, the command (`compact_course.bench.cli`) all of them.

Prices: a run bills one model (`model`, a row of `compact_course.bench.prices`);
`run_bench(models=...)` runs each design once per model. A miss is priced as its
re-read (`compact_course.bench.cost.miss_usage`): `repaid`, and `cost_repaid` = cost +
repaid, the bill with misses priced; `x oracle` in the tables is a design's
cost_repaid over the oracle's on the same session.
Summaries come from `compact_course.offline.model.extractive.extractive_summary` (no model), each
counted as a summary call whose input and output are booked by `compact_course.bench.cost`,
which also defines what a request is billed (tokens in, cache writes and reads, tokens
out), the lost outputs and the misses (a call whose needed earlier output,
`Turn.refers_to`, is not whole in the request sent). Probed runs add the forgotten:
the probes of the session (`compact_course.probes`) that nothing the design sends for the
next turn, no file it names and no summary keeps (`compact_course.probes.status`). Runs with
thinking on (`thinking=True`: each reply starts with a thinking block,
`compact_course.bench.thinking`) add `thinking_invalid`: the blocks the design sent back
behind a changed prefix (the API's 400, or that reasoning dropped), beside the misses
and the lost outputs.

Time: each request is booked at its time on the session's clock (tools, the
model, the user's pauses, now and then a long one), so a cache entry left
alone past its lifetime is gone; `cost` is that bill, `cost_no_pauses` the
bill of the very same requests with the user's pauses left out (the designs do
not look at the clock, but for default+cold). `run_bench(clocks=...)` runs on
each clock of `compact_course.bench.simulated.CLOCKS` (the bench's, issue 43's "every
pause 6-10 minutes" and "no call survives 5 minutes").

The cache's lifetime: `run_bench(ttls=...)` bills the designs of TTL_DESIGNS
under each breakpoint rule of `compact_course.agent.breakpoints.TTL_RULES` (where the
breakpoints go, 5 minutes or an hour each); the seed profile keeps its one
5-minute breakpoint, so `x seed` always compares with the article as sent. A
rule changes the bill, never what is sent: one replay (`run_bills`) books every
model, rule and clock of a design and session (default+cold: one per clock).

Timing: `prepare` (or the design's equivalent) is timed per call with
time.perf_counter. growth = (median ms per call at the longer session / at the
shorter) / (median new characters per call, same ratio): about 1 when the work
per call follows the new content, about 400/120 = 3.3 when it follows the
session's length (a quadratic loop). It also moves when the mix of calls
changes: the seed profile, once past 50 messages, archives (and writes a
transcript) on every call, so a longer session with more such calls shows a
higher median though each kind of call takes the same time; the chart's
per-call line shows that. Timings are printed, never asserted.

The rest of the benchmark, one job a module: `stats` (mean and worst across
seeds), `tables` (the fixed-width tables and their legends), `chart` (the
figure, and writing a PNG whole), `cli` (`python -m compact_course bench`).

Left out on purpose: a real model (replies are canned, so a design cannot
change what the model does next, and tokens are the offline estimate),
reactive_compact and the compact tool.
"""

import statistics
import tempfile
import time
from dataclasses import replace
from itertools import product

from context_compact import formats
from context_compact.compactor import ContextCompactor
from context_compact.config import CompactionConfig
from context_compact.messages import estimate_chars
from context_compact.store import seeded_ids
from context_compact.summary import summary_input

from ..display.palette import BLACK, BLUE, GREY, PURPLE, VERMILLION, YELLOW
from ..offline.model.extractive import extractive_summary
from ..offline.tokens import DEFAULT_WINDOW
from ..probes import make_probes
from ..probes.status import Locator
from . import cost, server_designs
from .prices import DEFAULT_MODEL
from .simulated import KINDS, Session, call_times, make_session, session_messages
from .thinking import Invalidated, session_with_thinking

TURNS = (120, 400)
SEEDS = 8
QUICK_TURNS = (20, 60)


def _none(compactor: ContextCompactor):
    return lambda context, request: context


def _summary_only(compactor: ContextCompactor):
    limit = compactor.config.context_char_limit

    def summary_only(context, request):
        if estimate_chars(context) > limit:
            return compactor.compact_history(context, request)
        return context
    return summary_only


def _prepare(compactor: ContextCompactor):
    return compactor.prepare


# One row per design: what it runs before each model call, made from the run's compactor
# ((context, active_request) -> the request, or a server design's Call), and its colour,
# from the one palette (a summary is step 4, drawn in step 4's colour in the course's charts).
DESIGN_TABLE = {
    "none": (_none, GREY),
    "summary": (_summary_only, PURPLE),
    "seed": (_prepare, VERMILLION),
    "default": (_prepare, BLUE),
    "default+cold": (_prepare, YELLOW),
    "server-clear": (server_designs.bench_step("server-clear"), server_designs.COLOURS["server-clear"]),
    "server-compact": (server_designs.bench_step("server-compact"), server_designs.COLOURS["server-compact"]),
    "default+server-compact": (server_designs.bench_step("default+server-compact"),
                               server_designs.COLOURS["default+server-compact"]),
    "oracle": (_prepare, BLACK),   # the default's prepare over the oracle's session (_oracle)
}
# The article's designs, no management and the floor: what run_bench runs unless told
# (lab 02). The oracle needs a bench session's future (`Turn.refers_to`): no
# replay of a recorded history can run it (`compact_course.bench.probe` leaves it out).
ORACLE = "oracle"
DESIGNS = ("none", "summary", "seed", "default", ORACLE)
COLOURS = {name: colour for name, (_, colour) in DESIGN_TABLE.items()}
# The designs whose breakpoints are the course's to place: each runs once per rule of
# run_bench's `ttls`. The article's (seed) is sent as its code sends it, the API's automatic
# 5-minute breakpoint; so are none, summary and the server designs.
TTL_DESIGNS = ("default", "default+cold", ORACLE)


def _oracle(session: Session, store) -> Session:
    """The session as the oracle sends it: every output saved on arrival, a saved
    placeholder in its place (what a call needs, `_drive` puts in front of the model)."""
    turns = []
    for turn in session.turns:
        content = turn.user["content"]
        if isinstance(content, list):
            content = [{**block, "content": formats.saved_placeholder(
                           store.persist_result(block["tool_use_id"], block["content"]))}
                       for block in content]
        turns.append(replace(turn, user={**turn.user, "content": content}))
    return replace(session, turns=tuple(turns))


def _config(design: str, limits: dict | None) -> CompactionConfig:
    if design not in DESIGN_TABLE:
        raise ValueError(f"unknown design {design!r}: use one of {', '.join(DESIGN_TABLE)}")
    if design == "default+cold":
        return CompactionConfig(**{"compact_when_cold": True, **(limits or {})})
    return CompactionConfig.named("seed" if design == "seed" else "default", **(limits or {}))


def when_cold(config: CompactionConfig) -> CompactionConfig:
    """For a call on a cold cache: the target is the limit (steps act over it, down to it)."""
    if config.context_token_limit is None:
        return replace(config, context_char_limit=max(1, config.target_chars), target_fraction=1.0)
    return replace(config, context_token_limit=max(1, config.target_size), target_fraction=1.0)


def _step(design: str, compactor: ContextCompactor):
    """What the design runs before each model call."""
    return DESIGN_TABLE[design][0](compactor)


def _drive(session, step, ledgers: list, window: int, compactor=None, originals=None,
           oracle: bool = False) -> dict:
    """Replay the session; the final context and the per-call figures. `ledgers` are
    (ledger, call times) pairs booking the same requests; the first one's clock decides
    a cold call when the compactor's config has `compact_when_cold`."""
    ledger = ledgers[0][0]
    context, active = [session.opening], session.request
    texts = [cost.message_json(session.opening)]
    new = len(texts[0])
    # The outputs as the tools wrote them (the oracle's session holds placeholders for some).
    originals = session.outputs() if originals is None else originals
    timings, news, sizes, refused, misses = [], [], [], 0, 0
    thinking, added = Invalidated(), []
    warm = compactor.config if compactor is not None else None
    colds = 0
    for number, turn in enumerate(session.turns):
        cold = warm is not None and warm.compact_when_cold and ledger.cold(ledgers[0][1][number])
        if cold:
            compactor.config, colds = when_cold(warm), colds + 1
        start = time.perf_counter()
        sent = kept = step(context, active)
        timings.append((time.perf_counter() - start) * 1000)
        if cold:
            compactor.config = warm
        if isinstance(sent, server_designs.Call):
            # A server design: the client keeps one list, the model reads another.
            call, kept, sent = sent, sent.kept, sent.seen
            if call.summary:
                for book, _ in ledgers:
                    book.add_summary(*call.summary)
        if sent is not context:
            # JSON once per message per call keeps the bookkeeping O(request);
            # an unchanged list (design none) reuses what it had.
            texts = [cost.message_json(m) for m in sent]
        # What the client sends back is what the API checks: a server design's kept list.
        thinking.see(texts if kept is sent else [cost.message_json(m) for m in kept], kept, added)
        added = [cost.message_json(turn.assistant), cost.message_json(turn.user)]
        usages = [book.add_request(texts, reply=added[0], at=times[number]) for book, times in ledgers]
        usage = usages[0]
        needed = turn.refers_to
        if needed is not None and not cost.in_context(sent, needed, originals[needed]):
            # Each ledger repays the miss: the model goes back and reads the output; the
            # oracle knew, and had it written in the request at no call's cost.
            misses += not oracle
            for (book, _), booked in zip(ledgers, usages):
                book.add_miss(cost.prompt_tokens(booked), originals[needed], call=not oracle)
        sizes.append(cost.request_size(texts))
        # The window counts tokens: every input token of the request, cached or not.
        refused += usage["input_tokens"] + usage["cache_creation_input_tokens"] \
            + usage["cache_read_input_tokens"] > window
        news.append(new)
        new = len(added[0]) + len(added[1])
        context, texts = [*kept, turn.assistant, turn.user], [*texts, *added]
        active = turn.request or active
    return {"final": context, "timings": timings, "news": news, "sizes": sizes,
            "refused": refused, "misses": misses, "cold_calls": colds,
            "thinking_invalid": thinking.count}


def run_session(session, design: str, *, limits: dict | None = None,
                summarize=extractive_summary, root=None, window: int = DEFAULT_WINDOW,
                probes=None, model: str = DEFAULT_MODEL, thinking: bool = False,
                ttl: str = "5m", clock: str = "bench") -> dict:
    """One design over one session: a row of figures (see format_table).

    `limits` overrides CompactionConfig fields (tests use tiny ones);
    `summarize(messages) -> str` stands in for the summary model; `window` is the
    model's, in tokens: a request over it counts as refused; `model` the row of
    `compact_course.bench.prices` the bill prices. `probes`
    (`compact_course.probes.make_probes` of the session) adds `forgotten`: the probes gone
    from what the design sends for the turn after the last (`compact_course.probes.status`).
    `thinking`: every reply starts with a thinking block; the row's `thinking_invalid`
    counts those the design sent back behind a changed prefix (None when off).
    `ttl`: the rule that places the breakpoints (`compact_course.agent.breakpoints.TTL_RULES`;
    only the designs of TTL_DESIGNS take another than "5m"); `clock`: a row of
    `compact_course.bench.simulated.CLOCKS`.
    """
    return run_bills(session, design, [(model, ttl, clock)], limits=limits, summarize=summarize,
                     root=root, window=window, probes=probes, thinking=thinking)[0]


def run_bills(session, design: str, bills, *, limits: dict | None = None,
              summarize=extractive_summary, root=None, window: int = DEFAULT_WINDOW,
              probes=None, thinking: bool = False) -> list[dict]:
    """`run_session` for each (model, ttl, clock) of `bills`, from one replay: the design
    does not look at the bill, so every bill books the same requests (default+cold looks
    at the clock: the first bill's decides its cold calls). One row per bill."""
    for _, ttl, _ in bills:
        if ttl != "5m" and design not in TTL_DESIGNS:
            raise ValueError(f"design {design!r} sends the 5-minute breakpoint only (TTL_DESIGNS: "
                             f"{', '.join(TTL_DESIGNS)})")
    session = session_with_thinking(session) if thinking else session
    config = _config(design, limits)
    pieces = cost.shared_pieces()
    pairs = [(cost.CostLedger(model, ttl, pieces), cost.CostLedger(model, ttl, pieces))
             for model, ttl, _ in bills]

    def summarizer(messages):
        text = summarize(messages)
        for book in (book for pair in pairs for book in pair):
            book.add_summary(summary_input(messages, config.summary_input_char_limit), text)
        return text

    with tempfile.TemporaryDirectory(prefix="compact-bench-", dir=root) as folder:
        compactor = ContextCompactor(folder, summarizer, config, new_id=seeded_ids())
        step = _step(design, compactor)
        books = [book for (ledger, calm), (_, _, clock) in zip(pairs, bills)
                 for book in ((ledger, call_times(session, clock=clock)),
                              (calm, call_times(session, pauses=False, clock=clock)))]
        originals = session.outputs()
        sent = _oracle(session, compactor.store) if design == ORACLE else session
        run = _drive(sent, step, books, window, compactor, originals, oracle=design == ORACLE)
        lost = cost.lost_outputs(originals, run["final"], compactor.store)
        files = len(compactor.store.written)
        gone = None if probes is None else _forgotten(session, step, run["final"], probes, compactor)
    timed = design != "none"
    shared = {
        **({} if gone is None else {"forgotten": gone, "probes": len(probes)}),
        "session": session.kind, "turns": len(session.turns), "design": design,
        "refused": run["refused"], "cold_calls": run["cold_calls"],
        "outputs": len(originals), "lost": len(lost), "lost_ids": lost, "files": files,
        "misses": run["misses"], "references": sum(t.refers_to is not None for t in session.turns),
        "thinking_invalid": run["thinking_invalid"] if thinking else None,
        "median_ms": statistics.median(run["timings"]) if timed else None,
        "worst_ms": max(run["timings"]) if timed else None,
        "median_new_chars": statistics.median(run["news"]), "growth": None,
        "prepare_ms": run["timings"] if timed else [], "request_chars": run["sizes"],
        "limit": config.context_char_limit,
    }
    return [{**shared, **_bill(ledger, calm, len(session.turns)), "ttl": ttl, "clock": clock}
            for (ledger, calm), (_, ttl, clock) in zip(pairs, bills)]


def _bill(ledger, calm, turns: int) -> dict:
    """One bill's figures: the ledger with the user's pauses, and `calm` without them."""
    return {
        "model_calls": turns + ledger.summary_calls, "summary_calls": ledger.summary_calls,
        "tokens_in": ledger.input_tokens_sent, "tokens_out": ledger.total["output_tokens"],
        "cache_read": ledger.total["cache_read_input_tokens"], "cost": round(ledger.cost, 1),
        "cost_no_pauses": round(calm.cost, 1), "priced_as": ledger.model,
        "repaid": round(ledger.repaid, 1), "cost_repaid": round(ledger.cost + ledger.repaid, 1),
        "repaid_no_pauses": round(calm.repaid, 1),
        "largest": ledger.largest, "largest_tokens": ledger.largest_tokens,
    }


def _forgotten(session, step, final: list, probes: list, compactor) -> int:
    """Probes gone from the request the design makes of the whole session (not billed)."""
    sent = step(final, session_messages(session)[1])
    seen = sent.seen if isinstance(sent, server_designs.Call) else sent
    return Locator(probes, compactor.store).statuses(seen).count("gone")


def add_growth(rows: list[dict]) -> list[dict]:
    """Set `growth` on each row against the shortest run of its session, seed and design."""
    groups: dict[tuple, list] = {}
    for row in rows:
        key = (row.get("priced_as"), row["session"], row.get("seed", 0), row["design"],
               row.get("ttl"), row.get("clock"))
        groups.setdefault(key, []).append(row)
    for group in groups.values():
        base = min(group, key=lambda r: r["turns"])
        for row in group:
            if row["turns"] == base["turns"] or not row["median_ms"] or not base["median_ms"]:
                continue
            time_ratio = row["median_ms"] / base["median_ms"]
            content_ratio = row["median_new_chars"] / base["median_new_chars"]
            row["growth"] = round(time_ratio / content_ratio, 2)
    return rows


def oracle_of(row: dict, by_key: dict):
    """The oracle's row for `row`: the same session (model, kind, length, seed, clock) under
    the same breakpoint rule, or under the 5-minute one when the oracle ran without it."""
    key = (row.get("priced_as"), row["session"], row["turns"], row.get("seed", 0), row.get("clock", "bench"))
    return by_key.get((*key, row.get("ttl", "5m"))) or by_key.get((*key, "5m"))


def oracles(rows: list[dict]) -> dict:
    return {(r.get("priced_as"), r["session"], r["turns"], r.get("seed", 0), r.get("clock", "bench"),
             r.get("ttl", "5m")): r for r in rows if r["design"] == ORACLE}


def add_oracle(rows: list[dict]) -> list[dict]:
    """Set `x_oracle` on each row: its cost_repaid over the oracle's (`oracle_of`); None
    when the oracle did not run."""
    floor = oracles(rows)
    for row in rows:
        base = oracle_of(row, floor)
        row["x_oracle"] = row["cost_repaid"] / base["cost_repaid"] if base and base["cost_repaid"] else None
    return rows


def run_bench(turns=TURNS, sessions=KINDS, designs=DESIGNS, seed: int = 0,
              limits: dict | None = None, root=None, seeds=None, probe_seeds=(),
              models=(DEFAULT_MODEL,), thinking: bool = False, ttls=("5m",),
              clocks=("bench",)) -> list[dict]:
    """Every design over every session at every length, for `seed` (or each of `seeds`),
    billed as each of `models`, on each of `clocks`: one row each, and one per rule of
    `ttls` for the designs of TTL_DESIGNS; the runs' scratch folders go in `root`
    (default: the temporary folder). The runs of the seeds in `probe_seeds` are probed
    too (`forgotten`); `thinking`: every reply thinks first, and each row counts the
    blocks invalidated (`thinking_invalid`)."""
    rows = []
    for number in (seed,) if seeds is None else seeds:
        for kind in sessions:
            longest = make_session(kind, max(turns), number)
            for count in sorted(turns):
                # The first `count` turns: the same text as make_session(kind, count, number).
                session = replace(longest, turns=longest.turns[:count])
                probes = make_probes(*session_messages(session)) if number in probe_seeds else None
                made_here = []
                for design in designs:
                    bills = list(product(models, ttls if design in TTL_DESIGNS else ("5m",), clocks))
                    # One replay books every bill, but default+cold's: its cold calls follow the clock.
                    groups = [[b for b in bills if b[2] == clock] for clock in clocks] \
                        if design == "default+cold" else [bills]
                    for group in groups:
                        made = run_bills(session, design, group, limits=limits, root=root, probes=probes,
                                         thinking=thinking)
                        made_here += [{**row, "seed": number} for row in made]
                # In the tables' order: by model, clock, design, rule.
                order = {name: k for names in (models, clocks, designs, ttls) for k, name in enumerate(names)}
                rows += sorted(made_here, key=lambda r: tuple(order.get(r[field], -1) for field in
                                                              ("priced_as", "clock", "design", "ttl")))
    return add_oracle(add_growth(rows))


