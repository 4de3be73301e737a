"""The same job on the server: the API's own context management as designs of the benchmark.

The article's pipeline runs on the client: the list itself changes, and what it
drops is gone unless a file holds it. The real API can do the job on its side
(`compact_course.offline.api.context_edits`, `compact_course.offline.api.server_compaction`, where the
offline server plays it). As designs, call by call, each says what the client
keeps and what the model reads:
- server-clear: `clear_tool_uses_20250919`. The client keeps and sends its whole
  list; the model reads it with the old tool results cleared. Nothing is lost for
  good (the client holds it all), but the model misses what was cleared;
- server-compact: `compact_20260112`. Past the trigger the server summarizes, the
  client's list becomes the `compaction` block (plus what follows it), and the
  model reads the summary. What the block replaced is gone from the conversation;
- default+server-compact: the article's pipeline in its default profile on the
  client (`prepare`), then server-side compaction on what it sends.
`none` (the list as it grows) is the benchmark's own design.

`replay` walks a canned history through one design, call after call, the
model's replies taken from the history (a design cannot change what the model
does next), and books every request as the benchmark does (`compact_course.bench.cost`:
input, cache writes and reads, output, and each summary call's input and
output). Per call it gives the tokens the model reads, the tokens read from the
prompt cache, whether the request starts with the whole previous one (the
cache's only hit), whether a summary was paid for, and what clearing took.
`bench_step` makes the same designs rows of the benchmark's table. Tokens are
the offline estimate (`compact_course.offline.tokens`), not the API's tokenizer.

Left out: the HTTP round trip (the offline server's answer to each request is
not needed, only what it would read) and misses (whether the model needed what
it no longer reads).
"""

import tempfile
from dataclasses import dataclass, field

from context_compact.compactor import ContextCompactor
from context_compact.config import CompactionConfig
from context_compact.messages import text_of, tool_results, user_text
from context_compact.store import seeded_ids

from ..display.palette import BLUE, GREEN, GREY, ORANGE, SKY
from ..offline.api import context_edits, context_management
from ..offline.api import server_compaction as sc
from ..offline.api.context_management import EDITS, Compact
from ..offline.model.extractive import extractive_summary
from . import cost

SECRET = b"the benchmark's own key"   # signs the blocks a replay makes; no server involved


@dataclass
class Call:
    """One model call under one design."""
    kept: list                      # the client's list after the call's context management
    seen: list                      # what the model reads
    summary: tuple | None = None    # (the summary request's input, the summary) when one was paid for
    cleared: dict | None = None     # the applied clear_tool_uses edit, if any


@dataclass
class ServerSettings:
    """The knobs of the server designs, in the API's words (triggers in input tokens)."""
    clear: dict = field(default_factory=lambda: {"type": context_edits.EDIT_TYPE})
    compact_trigger: int = sc.DEFAULT_TRIGGER

    def clear_edits(self) -> list:
        return read_edits({"edits": [self.clear]})

    def compact_edits(self) -> list:
        # The bench's call: a trigger under the API's minimum is allowed here (a scale model).
        return [Compact(trigger=self.compact_trigger)]


def read_edits(config: dict) -> list:
    """`context_management` as the offline server reads it (ManagementError when refused)."""
    every = {beta for beta, _ in EDITS.values()}
    return context_management.read_edits(config, every)


def server_step(edits: list, secret: bytes = SECRET):
    """The server's edits, in order, on what the client sends: step(kept, request) -> Call.
    The edits are the offline server's own (`context_management.run_edits`)."""
    def step(kept, request):
        edited = context_management.run_edits({"messages": sc.adopt(kept, secret)}, edits, secret)
        summary = None
        if edited.block is not None:
            kept = [{"role": "assistant", "content": [edited.block]}]
            # Booked as the server reports it (`usage.iterations`): its instructions in.
            summary = (sc.COMPACTION_PROMPT, edited.block["content"])
        cleared = edited.applied[-1] if edited.applied else None
        return Call(kept, edited.messages, summary=summary, cleared=cleared)
    return step


def clear_design(settings: ServerSettings, compactor=None):
    return server_step(settings.clear_edits())


def compact_design(settings: ServerSettings, compactor=None):
    return server_step(settings.compact_edits())


def default_then_compact_design(settings: ServerSettings, compactor=None):
    server = server_step(settings.compact_edits())

    def step(kept, request):
        head = kept[:1] if sc.has_blocks(kept[:1]) else []
        return server(head + compactor.prepare(kept[len(head):], request), request)
    return step


def none_design(settings: ServerSettings, compactor=None):
    return lambda kept, request: Call(kept, kept)


def default_design(settings: ServerSettings, compactor=None):
    def step(kept, request):
        sent = compactor.prepare(kept, request)
        return Call(sent, sent)
    return step


# One row per design: how it is made (settings, a ContextCompactor) -> step(kept, request) -> Call.
DESIGNS = {
    "none": none_design,
    "default": default_design,
    "server-clear": clear_design,
    "server-compact": compact_design,
    "default+server-compact": default_then_compact_design,
}
SERVER_DESIGNS = ("server-clear", "server-compact", "default+server-compact")
# From the one palette: the client-side designs keep the benchmark's colours.
COLOURS = {"none": GREY, "default": BLUE, "server-clear": GREEN, "server-compact": ORANGE,
           "default+server-compact": SKY}


def model_calls(messages) -> list[int]:
    """The index of each reply in a history: call k sends messages[:i] and gets messages[i]."""
    return [i for i, m in enumerate(messages) if i and m["role"] == "assistant"]


def typed_request(messages, fallback: str = "") -> str:
    """The last text the user typed (a tool result is a user message too)."""
    for message in reversed(messages):
        if message["role"] == "user" and not tool_results(message) and user_text(message):
            return user_text(message)
    return fallback


def replay(messages, design, settings: ServerSettings | None = None,
           config: CompactionConfig | None = None) -> dict:
    """A canned history through one design: {"calls": one record a model call (see the
    module's doc), "lost": the tool_use_ids whose output can no longer be read verbatim,
    from the client's list or the files its pipeline saved, "outputs": how many there
    were, "usage" and "cost": the four counts over the session and their price, as
    `compact_course.bench.cost` bills them}."""
    settings = settings or ServerSettings()
    calls = model_calls(messages)
    ledger = cost.CostLedger()
    with tempfile.TemporaryDirectory(prefix="compact-server-") as folder:
        compactor = ContextCompactor(folder, lambda m: extractive_summary(m), config or CompactionConfig(),
                                     new_id=seeded_ids())
        # A design's name, or the edits of a context_management to play on the server.
        step = DESIGNS[design](settings, compactor) if isinstance(design, str) else server_step(design)
        kept, previous, records = list(messages[:calls[0]]), [], []
        for n, reply in enumerate(calls):
            call = step(kept, typed_request(messages[:reply]))
            texts = [cost.message_json(m) for m in call.seen]
            usage = ledger.add_request(texts, reply=cost.message_json(messages[reply]))
            if call.summary:
                ledger.add_summary(*call.summary)
            records.append({"call": n + 1, "tokens": sum(usage[f] for f in cost.FIELDS[:3]),
                            "cached": usage["cache_read_input_tokens"],
                            "written": usage["cache_creation_input_tokens"],
                            "whole_prefix": bool(previous) and texts[:len(previous)] == previous,
                            "summary": call.summary is not None,
                            "cleared": call.cleared["cleared_tool_uses"] if call.cleared else 0})
            previous = texts
            following = calls[n + 1] if n + 1 < len(calls) else len(messages)
            kept = [*call.kept, *messages[reply:following]]
        originals = {b["tool_use_id"]: text_of(b.get("content", "")) for m in messages
                     for b in tool_results(m)}
        lost = cost.lost_outputs(originals, kept, compactor.store)
    return {"calls": records, "lost": lost, "outputs": len(originals), "usage": ledger.total,
            "cost": ledger.cost}


def breaks(records: list[dict]) -> int:
    """Calls whose request does not start with the whole previous one: the prompt cache
    has nothing to read (the API reads a whole earlier request, `compact_course.bench.cost`)."""
    return sum(1 for record in records[1:] if not record["whole_prefix"])


def totals(run: dict) -> dict:
    """One line of figures for a replay: tokens read, written to the cache, cost, breaks, ..."""
    calls, usage = run["calls"], run["usage"]
    return {"tokens": sum(c["tokens"] for c in calls), "cached": usage["cache_read_input_tokens"],
            "written": usage["cache_creation_input_tokens"], "output": usage["output_tokens"],
            "cost": round(run["cost"]), "breaks": breaks(calls),
            "summary_calls": sum(1 for c in calls if c["summary"]),
            "largest": max(c["tokens"] for c in calls), "lost": len(run["lost"]),
            "outputs": run["outputs"]}


def bench_step(design: str, settings: ServerSettings | None = None):
    """A row of the benchmark's designs table: compactor -> step(context, request) -> Call."""
    return lambda compactor: DESIGNS[design](settings or ServerSettings(), compactor)
