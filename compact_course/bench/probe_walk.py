"""A history through each design of the benchmark, with every probe located at every call.

    from compact_course.bench.probe_walk import walk, session_messages
    run = walk(messages, active_request, "default")      # or any name of DESIGN_TABLE
    run["end"]        # {kind: {status: count}}: where each probe stands at the end
    run["calls"]      # per model call, {status: count} over the probes made so far

The history is replayed as `compact_course.bench.server_designs.replay` replays one: call k
sends what the design makes of the messages before the k-th reply, and the replies
are the history's own. One more call at the end prepares the whole history for the
next turn (`active_request`, the turn a canned history is about to prepare). The
request located is what the model reads: a server design's `seen` list. A bench
session (`compact_course.bench.simulated`) is a history too: `session_messages(session)`.

A history with thinking blocks (`compact_course.bench.thinking.with_thinking`, `probe
--thinking`) also counts `thinking_invalid`: the blocks the design sent back behind a
changed prefix (`compact_course.bench.thinking.Invalidated`, on what the client sends).

`ask(sent, workspace)`, when given, is called once at the end, while the design's
files are still on disk: the offline model (or Claude) answers the probes there
(`compact_course.bench.probe_ask`).

Left out: the session's clock and a server design's summary calls in the `ledger` a walk
may book (the benchmark's bill is `run_session`'s), and the
model's own replies (they are the history's, whatever the design kept).
"""

import bisect
import json
import tempfile
import time
from collections import Counter

from context_compact.compactor import ContextCompactor
from context_compact.store import TRANSCRIPTS, seeded_ids
from context_compact.summary import summary_input

from ..offline.model.extractive import extractive_summary
from ..probes import KINDS, STATUSES, make_probes
from ..probes.status import Locator
from . import cost, server_designs
from .benchmark import DESIGN_TABLE, _config
from .server_designs import model_calls, typed_request
from .simulated import session_messages  # noqa: F401 - the walk's callers take it from here
from .thinking import Invalidated, blocks_in


def tally(probes, statuses) -> dict:
    """{kind: {status: count}}, every kind and status present (0 when none)."""
    table = {kind: dict.fromkeys(STATUSES, 0) for kind in KINDS}
    for probe, status in zip(probes, statuses):
        table[probe.kind][status] += 1
    return table


def _sent(result):
    """(what the client keeps, what the model reads) of one step's result."""
    if isinstance(result, server_designs.Call):
        return result.kept, result.seen
    return result, result


def _booked(ledger, config):
    """The summarizer, its calls booked in `ledger` when there is one."""
    if ledger is None:
        return extractive_summary

    def summarize(messages):
        text = extractive_summary(messages)
        ledger.add_summary(summary_input(messages, config.summary_input_char_limit), text)
        return text
    return summarize


def compacted(result, store, files_before: int) -> bool:
    """Whether a call compacted: a transcript written (step 2 archiving, step 4 or a
    summary-only design summarizing) or the server's compaction or clearing applied.
    Steps 1 and 3 alone, one result at a time, are not a round."""
    if isinstance(result, server_designs.Call):
        return bool(result.summary or result.cleared)
    return any(path.startswith(TRANSCRIPTS + "/") for path in store.written[files_before:])


def walk(messages, active_request: str, design: str, *, probes=None, every_call: bool = True,
         locate: bool = True, limits: dict | None = None, ask=None, root=None, ledger=None,
         rounds: int = 0) -> dict:
    """Replay `messages` through `design`, locating the probes (see the module's doc).
    `ledger` (a `compact_course.bench.cost.CostLedger`), when given, books every request the
    model reads and every summary call. `rounds`: locate the probes made so far at each
    of the design's first `rounds` compactions (`compacted`), in `run["rounds"]`: "table"
    as everywhere, "held" with no file followed (in context, summary only or gone: what
    the model reads without re-reading)."""
    probes = make_probes(messages, active_request) if probes is None else probes
    config = _config(design, limits)
    calls = model_calls(messages) or [len(messages)]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="compact-probe-", dir=root) as folder:
        compactor = ContextCompactor(folder, _booked(ledger, config), config, new_id=seeded_ids())
        step = DESIGN_TABLE[design][0](compactor)
        locator = Locator(probes, compactor.store) if locate else None
        held = Locator(probes) if locate and rounds else None   # no file followed: what it reads
        sources = [p.source for p in probes]
        kept, per_call, per_round = list(messages[:calls[0]]), [], []
        checked = Invalidated() if any(blocks_in(m) for m in messages) else None
        appended = []
        for n, reply in enumerate(calls):
            files = len(compactor.store.written)
            result = step(kept, typed_request(messages[:reply], active_request))
            kept, seen = _sent(result)
            if checked:
                checked.see([json.dumps(m, ensure_ascii=False) for m in kept], kept, appended)
            if locator and len(per_round) < rounds and compacted(result, compactor.store, files):
                made = bisect.bisect_left(sources, reply)
                per_round.append({"round": len(per_round) + 1, "call": n + 1,
                                  "table": tally(probes[:made], locator.statuses(seen)[:made]),
                                  "held": tally(probes[:made], held.statuses(seen)[:made])})
            if ledger is not None:
                answer = cost.message_json(messages[reply]) if reply < len(messages) else None
                ledger.add_request([cost.message_json(m) for m in seen], reply=answer)
            if locator and every_call:
                made = bisect.bisect_left(sources, reply)   # the probes of messages[:reply]
                counted = Counter(locator.statuses(seen)[:made])
                per_call.append({status: counted[status] for status in STATUSES})
            following = calls[n + 1] if n + 1 < len(calls) else len(messages)
            kept = [*kept, *messages[reply:following]]
            if checked:
                appended = [json.dumps(m, ensure_ascii=False) for m in messages[reply:following]]
        # The end: the whole history prepared for the next turn.
        kept, seen = _sent(step(kept, active_request))
        statuses = locator.statuses(seen) if locator else []
        answers = ask(seen, folder, probes, statuses) if ask and locator else None
        files = len(compactor.store.written)
    return {"design": design, "probes": probes, "statuses": statuses,
            "end": tally(probes, statuses) if locator else None, "calls": per_call, "rounds": per_round,
            "answers": answers, "files": files, "seconds": time.perf_counter() - started,
            "thinking_invalid": checked.count if checked else None}


def forgotten(table: dict) -> int:
    """Probes gone at the end: nothing the model is sent, no file, no summary keeps them."""
    return sum(row["gone"] for row in table.values())
