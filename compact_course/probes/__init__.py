"""What a design forgets: probes drawn from a session, and where each stands after compaction.

    from compact_course.probes import make_probes, count_by_kind
    from compact_course.probes.status import Locator

    questions.py  the probes: questions a session answers (recall, artifact, continuation,
                  decision, latest value), the question's text, scoring an answer (a stale
                  value is wrong); `readable_units`, `facts_in`
    status.py     where a probe stands in a request: in context, on disk, summary only, gone;
                  PLACES, the one table of places (re-read too) for designs and recorded compactions
    file_tools.py FILE_TOOLS, the one table of file tools (the course's, Claude Code's, the
                  Codex CLI's): the files a call names, what an artifact probe is drawn from
    prompts.py    the last real user prompt, not a text the harness wrote in the user's turn

No model: they read messages only, and import only the pipeline (`context_compact`), so the
offline model (its answer to a probe, `compact_course.offline.model.probe_reply`), the bench
(`probe_walk`, `probe_ask`) and the `probe` command (`compact_course.bench.probe`) all stand
above them and agree on what "the whole line" is. The package's names are the questions'.
"""

from .questions import (
    CONSTRAINT_EN,
    CONSTRAINT_ZH,
    FACT_WORDS,
    KINDS,
    SCORES,
    STATUSES,
    Probe,
    count_by_kind,
    describe_use,
    facts_in,
    instructions,
    make_probes,
    question_for,
    read_question,
    readable_units,
    score,
    sentences,
    value_runs,
)

__all__ = ["CONSTRAINT_EN", "CONSTRAINT_ZH", "FACT_WORDS", "KINDS", "SCORES", "STATUSES", "Probe",
           "count_by_kind", "describe_use", "facts_in", "instructions", "make_probes", "question_for",
           "read_question", "readable_units", "score", "sentences", "value_runs"]
