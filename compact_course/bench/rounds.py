"""Rounds: the same session compacted again and again, and what survives each time, by kind.

    from compact_course.bench.rounds import session_rounds, rounds_table
    runs = session_rounds(messages, request)     # design -> its walk with rounds located
    print(rounds_table(runs))

A round is one of the design's own compactions as the session goes on
(`compact_course.bench.probe_walk.compacted`: a transcript written by step 2 or 4, or the
server's compaction or clearing); round k locates every probe of the messages
before it, so a fact met early is asked again at every round. Two figures a round
and kind: *held*, the share of those probes the model reads in the request itself
(in context or in a summary), and *reachable*, the share not gone (a file the
request names holds it too). Here the summary is the offline model's extractive
one, and the files are the course's.

Up to ROUNDS rounds, or as many as the session runs to; a design that never
compacts has none.

Left out: asking at each round (the statuses are computed; asking is
`compact_course.bench.probe_ask`'s, at the end), and a chart (`compact_course.lessons.forgets_chart`).
"""

from ..display.text import fixed_width
from ..probes import KINDS
from .benchmark import DESIGN_TABLE
from .probe_walk import walk

ROUNDS = 5
HELD = ("in context", "summary only")


def session_rounds(messages, request: str, designs=tuple(DESIGN_TABLE), probes=None, rounds: int = ROUNDS,
                   limits: dict | None = None) -> dict:
    """design -> its walk over the session (`walk`), rounds located."""
    return {design: walk(messages, request, design, probes=probes, every_call=False, rounds=rounds,
                         limits=limits) for design in designs}


def shares(record: dict, kind: str | None = None) -> tuple[float | None, float | None, int]:
    """(held, reachable, probes) of one round, for a kind (all when None); None: no probe."""
    kinds = KINDS if kind is None else (kind,)
    total = sum(sum(record["held"][k].values()) for k in kinds)
    if not total:
        return None, None, 0
    held = sum(record["held"][k][s] for k in kinds for s in HELD)
    reachable = total - sum(record["table"][k]["gone"] for k in kinds)
    return held / total, reachable / total, total


def curves(runs: dict, kind: str | None = None) -> dict:
    """design -> [(round, held, reachable)], for the chart."""
    return {design: [(r["round"], *shares(r, kind)[:2]) for r in run["rounds"]]
            for design, run in runs.items()}


def rounds_table(runs: dict) -> str:
    """A row per design and round: its call, then held/reachable per kind in percent."""
    header = ("design", "round", "call", *KINDS, "all")
    rows = [header]
    for design, run in runs.items():
        if not run["rounds"]:
            rows.append((design, "-", "-", "never compacts"))
        for r in run["rounds"]:
            cells = []
            for kind in (*KINDS, None):
                held, reach, total = shares(r, kind)
                cells.append("-" if not total else f"{held:.0%}/{reach:.0%} of {total}")
            rows.append((design if r["round"] == 1 else "", r["round"], r["call"], *cells))
    widths = [max(len(str(row[k])) for row in rows if len(row) > k) for k in range(len(header))]
    lines = fixed_width(rows, widths, ">", "  ")
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines) + "\n(each cell: held / reachable of the probes made before the round: held in "\
        "context or a summary, reachable on disk too)"
