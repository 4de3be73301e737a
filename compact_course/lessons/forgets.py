"""What each step and each design keeps where: the figures lab 05 prints (the audit and the
rounds by default; the others behind its `show_all` switch).

    step_run("huge_result", "tool_result_budget")   # one step of the article alone, seed profile
    design_runs("long_session", asker)              # every design of the benchmark, at the end
    summary_keeps(["long_session", ...])            # what a summary alone keeps, kind by kind
    cost_and_forgotten("tool-heavy", 120)           # a bench session: each design's cost and forgotten
    recorded_audit(path, asker)                     # the compactions a session file records, audited
    rounds_of("tool-heavy", 400, designs)           # each design's first compactions of a bench session

The probes are `compact_course.probes`'; where each stands is `compact_course.probes.status`'s; the
designs and their bill are the benchmark's (`compact_course.bench`). A step runs alone on
a history (`ContextCompactor.run_step`), in the seed profile: the article as written.
`summary_keeps` asks what step 4's summary message keeps with no file behind it:
the transcript it names is left out on purpose, to see the summary by itself.

Left out: charts (`compact_course.lessons.forgets_chart`) and the command (`compact_course.bench.probe`).
"""

import tempfile

from context_compact.compactor import ContextCompactor
from context_compact.config import CompactionConfig
from context_compact.store import seeded_ids

from ..bench.benchmark import DESIGN_TABLE, ORACLE, run_session
from ..bench.probe_walk import tally, walk
from ..bench.recorded import audit, designs_at, read_recorded
from ..bench.rounds import session_rounds
from ..bench.simulated import make_session, session_messages
from ..offline.model.extractive import extractive_summary
from ..probes import KINDS, make_probes
from ..probes.status import Locator
from ..sessions.histories import load_history

# Each step of the article on the canned history made to show it.
STEP_HISTORIES = (("tool_result_budget", "huge_result"), ("snip_compact", "long_session"),
                  ("micro_compact", "five_reads"), ("compact_history", "two_code_files"))


def step_run(name: str, step: str, profile: str = "seed", asker=None) -> dict:
    """One step alone on a history: the probes, their statuses, the table, the answers."""
    history = load_history(name)
    messages, request = history["messages"], history["active_request"]
    probes = make_probes(messages, request)
    with tempfile.TemporaryDirectory(prefix="compact-forgets-") as folder:
        compactor = ContextCompactor(folder, extractive_summary, CompactionConfig.named(profile),
                                     new_id=seeded_ids())
        sent = compactor.run_step(step, messages, request)
        statuses = Locator(probes, compactor.store).statuses(sent)
        answers = asker(sent, folder, probes, statuses) if asker else None
    return {"history": name, "step": step, "probes": probes, "statuses": statuses,
            "table": tally(probes, statuses), "answers": answers}


def design_runs(name: str, asker=None, designs=tuple(DESIGN_TABLE)) -> dict:
    """design -> its walk over a canned history, located and (with `asker`) asked at the end."""
    history = load_history(name)
    probes = make_probes(history["messages"], history["active_request"])
    return {design: walk(history["messages"], history["active_request"], design, probes=probes,
                         ask=asker, every_call=False) for design in designs}


def summary_keeps(names) -> dict:
    """{kind: {"probes", "in context", "summary only", "gone", "gone texts"}} over the
    histories, when step 4's summary message replaces each whole history and no file
    behind it is read."""
    table = {kind: {"probes": 0, "in context": 0, "summary only": 0, "gone": 0, "gone texts": []}
             for kind in KINDS}
    for name in names:
        history = load_history(name)
        probes = make_probes(history["messages"], history["active_request"])
        with tempfile.TemporaryDirectory(prefix="compact-forgets-") as folder:
            compactor = ContextCompactor(folder, extractive_summary, new_id=seeded_ids())
            sent = compactor.compact_history(history["messages"], history["active_request"])
        for probe, status in zip(probes, Locator(probes).statuses(sent)):
            table[probe.kind]["probes"] += 1
            table[probe.kind][status] += 1
            if status == "gone":
                table[probe.kind]["gone texts"].append((name, probe.detail, probe.expected))
    return table


def cost_and_forgotten(kind: str = "tool-heavy", turns: int = 120, seed: int = 0,
                       designs=tuple(d for d in DESIGN_TABLE if d != ORACLE)) -> list[dict]:
    """One bench session through each design a compactor can be (the oracle knows the
    future: lab 02 has it): its row, with `forgotten` and `probes`."""
    session = make_session(kind, turns, seed)
    probes = make_probes(*session_messages(session))
    return [run_session(session, design, probes=probes) for design in designs]


ARTICLE_DESIGNS = ("none", "summary", "seed", "default")


def recorded_audit(path, asker=None, designs=ARTICLE_DESIGNS) -> list[tuple]:
    """(the compaction, its audit row, the designs at the same point) for each compaction
    the file records (`compact_course.bench.recorded`)."""
    found = read_recorded(path)
    return [(recorded, row, designs_at(row, recorded, designs))
            for recorded, row in zip(found, audit(found, asker))]


def rounds_of(kind: str = "tool-heavy", turns: int = 400, designs=ARTICLE_DESIGNS, seed: int = 0) -> dict:
    """design -> its walk over a bench session, its first compactions located
    (`compact_course.bench.rounds`)."""
    return session_rounds(*session_messages(make_session(kind, turns, seed)), designs=designs)
