"""A history through each design of the benchmark, with every probe located at every call.

    from workbench.bench.probe_walk import walk, session_messages
    run = walk(messages, active_request, "default")      # or any name of DESIGN_TABLE
    run["end"]        # {kind: {status: count}}: where each probe stands at the end
    run["calls"]      # per model call, {status: count} over the probes made so far

The history is replayed as `workbench.bench.server_designs.replay` replays one: call k
sends what the design makes of the messages before the k-th reply, and the replies
are the history's own. One more call at the end prepares the whole history for the
next turn (`active_request`, the turn a canned history is about to prepare). The
request located is what the model reads: a server design's `seen` list. A bench
session (`workbench.bench.sessions`) is a history too: `session_messages(session)`.

`ask(sent, workspace)`, when given, is called once at the end, while the design's
files are still on disk: the offline model (or Claude) answers the probes there
(`workbench.bench.probe_ask`).

Left out: the cost of each request (the benchmark books it: `run_session`), and the
model's own replies (they are the history's, whatever the design kept).
"""

import bisect
import tempfile
import time
from collections import Counter

from compact.compactor import ContextCompactor
from compact.store import seeded_ids

from ..offline.model.extractive import extractive_summary
from ..probes import KINDS, STATUSES, make_probes
from ..probes.status import Locator
from . import server_designs
from .benchmark import DESIGN_TABLE, _config
from .server_designs import model_calls, typed_request
from .sessions import session_messages  # noqa: F401 - the walk's callers take it from here


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


def walk(messages, active_request: str, design: str, *, probes=None, every_call: bool = True,
         locate: bool = True, limits: dict | None = None, ask=None, root=None) -> dict:
    """Replay `messages` through `design`, locating the probes (see the module's doc)."""
    probes = make_probes(messages, active_request) if probes is None else probes
    config = _config(design, limits)
    calls = model_calls(messages) or [len(messages)]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="compact-probe-", dir=root) as folder:
        compactor = ContextCompactor(folder, extractive_summary, config, new_id=seeded_ids())
        step = DESIGN_TABLE[design][0](compactor)
        locator = Locator(probes, compactor.store) if locate else None
        sources = [p.source for p in probes]
        kept, per_call = list(messages[:calls[0]]), []
        for n, reply in enumerate(calls):
            kept, seen = _sent(step(kept, typed_request(messages[:reply], active_request)))
            if locator and every_call:
                made = bisect.bisect_left(sources, reply)   # the probes of messages[:reply]
                counted = Counter(locator.statuses(seen)[:made])
                per_call.append({status: counted[status] for status in STATUSES})
            following = calls[n + 1] if n + 1 < len(calls) else len(messages)
            kept = [*kept, *messages[reply:following]]
        # The end: the whole history prepared for the next turn.
        kept, seen = _sent(step(kept, active_request))
        statuses = locator.statuses(seen) if locator else []
        answers = ask(seen, folder, probes, statuses) if ask and locator else None
        files = len(compactor.store.written)
    return {"design": design, "probes": probes, "statuses": statuses,
            "end": tally(probes, statuses) if locator else None, "calls": per_call,
            "answers": answers, "files": files, "seconds": time.perf_counter() - started}


def forgotten(table: dict) -> int:
    """Probes gone at the end: nothing the model is sent, no file, no summary keeps them."""
    return sum(row["gone"] for row in table.values())
