"""The compactions a session file records, audited: where each probe stands after the agent's own.

    from compact_course.bench.recorded import read_recorded, audit
    found = read_recorded("session.jsonl")   # one Recorded per compaction, with its line
    rows = audit(found)                       # where each probe stands after each one

A Claude Code session records its own compaction as a `system` record with
`subtype: "compact_boundary"`, then a `user` record marked `isCompactSummary`
holding the summary the model wrote. A Codex CLI rollout records a `compacted`
entry whose `message` is the summary and whose `replacement_history` is what
replaced the context. For each, the probes (`compact_course.probes`) are drawn from the
messages before it, with the last real prompt before it as the request
(`compact_course.probes.prompts`: not a slash command, a task notification or a caveat),
and each stands, after it, in one of the places the course's designs are counted in
(`compact_course.probes.status.PLACES`, one table), located by the same code
(`compact_course.probes.status.Locator`) on what the compaction left:
- in context: a message the compaction kept word for word (Claude Code's
  `preservedSegment`, as the importer gives it in the compaction's `kept`; the
  messages of Codex's replacement history but its summary);
- on disk: the transcript the summary points to holds it. Claude Code's summaries end
  "If you need specific details from before compaction (...), read the full transcript
  at: PATH"; when PATH is this file (its name, or `<sessionId>.jsonl` of a session id
  its records carry), the messages before the compaction are that transcript, written
  to a scratch store and named in the summary as a design's transcript is. A transcript
  that is not this file is named in the row, and not read;
- summary only: the recorded summary holds its line or sentence, names its path (an
  artifact), or gives a changed fact's latest value (`in_summary`: a summary is another
  model's prose, so a path named in any line keeps an artifact);
- re-read: none of these, but the agent fetched it again later in the file (a tool
  result after the compaction holds its text, or a call of the same tool on the same file);
- gone: none of these.
The course's designs at the same point (`designs_at`) are placed the same way, "re-read"
included: a probe a design lost is one the agent fetched again later all the same.
`summary_says` counts, besides, the probes the summary keeps whatever else holds them:
what the audit says of the summary itself.

The row also gives the compaction's own token count from the file (Claude Code's
`compactMetadata.preTokens`, else the usage of the last model call before it; a Codex
rollout's last `token_count` event before it), beside the offline model's estimate of
the messages before it as this file holds them (no system prompt, no tools; an earlier
compaction's messages included): a file's slice is not what the agent was sent.

The offline model then answers every probe from what the compaction left (the summary,
the messages kept, the transcript named), the way `compact_course.bench.probe_ask` asks after
a design: an "on disk" probe is right only when it re-read the transcript.

Left out: a compaction whose summary only the server can read (`encrypted`), Codex's
`token_usage_record` lines, and whether a model that read the summary would have
re-read (the file shows what the agent did).
"""

import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath

from context_compact import formats
from context_compact.messages import text_of, tool_results, tool_uses
from context_compact.store import Store, seeded_ids

from ..offline.tokens import estimate_tokens
from ..probes import KINDS, facts_in, make_probes, readable_units, value_runs
from ..probes.file_tools import files_of
from ..probes.prompts import last_prompt
from ..probes.status import PLACES, Locator, place_of, summary_says
from ..sessions import load_session
from ..sessions.source import SessionFileError, read_text
from . import cost
from .probe_walk import walk

# Claude Code's sentence naming the transcript at the end of its summaries (2.x).
TRANSCRIPT_NAMED = re.compile(r"read the full transcript at:\s*(?P<path>[^\n]*?\.jsonl)")
# Fields of a record that name the file it is in (hooks and some records carry one).
PATH_FIELDS = ("transcript_path", "transcriptPath")


@dataclass
class Recorded:
    """One compaction a file records."""
    line: int                 # the line of its record (the boundary, the `compacted` entry)
    kind: str                 # "claude-code compact_boundary" or "codex compacted"
    summary: str              # the summary the agent's model wrote
    before: list              # the messages before it, in the Messages API's blocks
    after: list               # the messages after it, up to the next recorded compaction
    trigger: str = ""         # "auto", "manual": what the record says, when it says
    lines: list = field(default_factory=list)   # the line each message of `before` starts on
    kept: list = field(default_factory=list)    # the messages it kept word for word
    transcript: str = ""      # the transcript the summary points to, as named ("" none)
    transcript_here: bool = False   # that transcript is this file: `before` is what it holds
    tokens: int | None = None       # the compaction's own token count, from the file
    tokens_from: str = ""           # where that count is written


# -- reading a session's compactions ----------------------------------------------

def probe_view(message: dict) -> dict:
    """A message as the probes read it: a Codex shell output kept as JSON
    (`{"output": ..., "metadata": ...}`) read as its text, so its lines are lines.
    (Other agents' file tools need no view: `compact_course.probes.file_tools` has them.)"""
    content = message.get("content")
    if not isinstance(content, list):
        return message
    return {**message, "content": [_course_block(block) for block in content]}


def _course_block(block):
    if isinstance(block, dict) and block.get("type") == "tool_result" \
            and isinstance(block.get("content"), str) and block["content"].startswith('{"output"'):
        try:
            output = json.loads(block["content"]).get("output")
        except (ValueError, AttributeError):
            output = None
        if isinstance(output, str):
            return {**block, "content": output}
    return block


KIND_NAMES = {"claude-code": "claude-code compact_boundary", "codex": "codex compacted"}


def _kept(compaction: dict, messages: list) -> list:
    """The messages a compaction kept word for word: the importer's `kept` (indices of
    the history's messages), and the messages of a replacement history but the summary."""
    kept = [messages[i] for i in compaction.get("kept") or ()
            if isinstance(i, int) and 0 <= i < len(messages)]
    summary = (compaction.get("summary") or "").strip()
    for item in compaction.get("replacement_history") or []:
        if not (isinstance(item, dict) and item.get("type") == "message"
                and item.get("role") in ("user", "assistant")):
            continue
        text = "\n".join(part["text"] for part in item.get("content") or []
                         if isinstance(part, dict) and isinstance(part.get("text"), str))
        if text.strip() and not (summary and summary in text):
            kept.append({"role": item["role"], "content": text})
    return kept


def raw_records(path) -> list:
    """(line, record) of each line of a JSONL file that is a JSON object; [] when the file
    is not JSONL. Read for what the importers leave out: token counts and session ids."""
    try:
        text = read_text(path)
    except SessionFileError:
        return []
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            record = json.loads(line) if line.strip() else None
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append((number, record))
    return records


def file_names(path, records) -> set:
    """The names this file goes by: its own, `<sessionId>.jsonl` of each session id its
    records carry, and the file a record's transcript_path names."""
    names = {_base(str(path))}
    for _, record in records:
        if isinstance(record.get("sessionId"), str):
            names.add(f"{record['sessionId']}.jsonl")
        names.update(_base(v) for k in PATH_FIELDS if isinstance(v := record.get(k), str))
    return names


def _base(path: str) -> str:
    return PureWindowsPath(path).name if "\\" in path else PurePosixPath(path).name


def named_transcript(summary: str) -> str:
    found = TRANSCRIPT_NAMED.search(summary or "")
    return found["path"].strip() if found else ""


def _usage_tokens(record) -> int | None:
    """The context a model call filled, from its record: Claude Code's `message.usage`
    (input, cache writes and reads, output), the Codex CLI's `token_count` event."""
    message = record.get("message") if isinstance(record.get("message"), dict) else {}
    usage = message.get("usage") if record.get("type") == "assistant" else None
    if isinstance(usage, dict):
        total = sum(v for k in cost.FIELDS if isinstance(v := usage.get(k), int))
        return total or None
    payload = record.get("payload") if isinstance(record.get("payload"), dict) else {}
    if record.get("type") == "event_msg" and payload.get("type") == "token_count":
        info = payload.get("info") if isinstance(payload.get("info"), dict) else {}
        last = info.get("last_token_usage")
        if isinstance(last, dict):
            total = last.get("total_tokens")
            if not isinstance(total, int):
                total = sum(v for k in ("input_tokens", "output_tokens") if isinstance(v := last.get(k), int))
            return total or None
    return None


def compaction_tokens(compaction: dict, records) -> tuple:
    """(the compaction's own token count, where the file writes it) or (None, "")."""
    if isinstance(compaction.get("pre_tokens"), int):
        return compaction["pre_tokens"], "its compactMetadata.preTokens"
    found = [(line, n) for line, record in records if line < compaction["line"]
             and (n := _usage_tokens(record))]
    if found:
        line, n = found[-1]
        return n, f"the usage of the last model call before it, line {line}"
    return None, ""


def read_recorded(path) -> list[Recorded]:
    """Every compaction `path` records, read by the importers (`compact_course.sessions`:
    Claude Code's and Codex's keep them in `compactions`); SessionFileError (or the
    importers' NotRead) naming the file when it is not a session."""
    history = load_session(path)
    records = raw_records(path) if history.get("compactions") else []
    return recorded_of(history, path, records)


def recorded_of(history: dict, path, records=()) -> list[Recorded]:
    """The Recorded of each readable compaction of an imported history; `records`, the
    file's raw (line, record) pairs, give the token counts and the names it goes by."""
    messages = [probe_view(m) for m in history["messages"]]
    compactions = [c for c in history.get("compactions") or [] if not c.get("encrypted")]
    names = file_names(path, records)
    found = []
    for k, compaction in enumerate(compactions):
        at = compaction["at"]
        following = compactions[k + 1]["at"] if k + 1 < len(compactions) else len(messages)
        summary = compaction.get("summary") or ""
        transcript = named_transcript(summary)
        tokens, where = compaction_tokens(compaction, records)
        found.append(Recorded(compaction["line"], KIND_NAMES.get(compaction.get("format"), "compaction"),
                              summary, messages[:at], messages[at:following],
                              str(compaction.get("trigger") or ""), list(history.get("lines") or [])[:at],
                              _kept(compaction, messages), transcript,
                              bool(transcript) and _base(transcript) in names, tokens, where))
    return found


# -- where each probe stands -------------------------------------------------------

def summary_value(probe, summary: str) -> str | None:
    """A latest-value probe: the last value the summary gives its fact (None: none)."""
    runs = value_runs((value, unit) for detail, key, value, unit in facts_in(summary)
                      if (detail, key) == (probe.detail, probe.cue))
    return runs[-1][0] if runs else None


def stale_in_summary(probe, summary: str) -> bool:
    """Whether the summary's last word on a changed fact is an earlier value."""
    return probe.kind == "latest value" and summary_value(probe, summary) not in (None, latest_value(probe))


def latest_value(probe) -> str | None:
    return next((value for detail, key, value, _ in facts_in(probe.expected)
                 if (detail, key) == (probe.detail, probe.cue)), None)


def in_summary(probe, summary: str) -> bool:
    """Whether a recorded summary keeps a probe: another model's prose (see the module's doc)."""
    if probe.unit == "use":
        return any(probe.cue in line for line in summary.splitlines())
    if probe.kind == "latest value":
        return summary_value(probe, summary) == latest_value(probe)
    return summary_says(probe, summary) or probe.expected in readable_units(summary, probe.unit)


def re_read(probe, after: list) -> bool:
    """Whether the agent fetched the probe's text again after the compaction."""
    if probe.unit == "use":
        return any(use.get("name") == probe.tool and probe.cue in files_of(use)
                   for m in after if m.get("role") == "assistant" for use in tool_uses(m))
    wanted = " ".join(probe.expected.split())
    return any(wanted in " ".join(text_of(block.get("content", "")).split())
               for m in after for block in tool_results(m))


def request_before(recorded: Recorded) -> str:
    """The last real prompt before the compaction: the request it interrupted."""
    return last_prompt(recorded.before, skip={recorded.summary.strip()})


def left_context(recorded: Recorded, store: Store) -> list:
    """What the compaction left, as the course's designs leave it: the summary as our
    summary marker (read as a summary, not as the original), naming the transcript when
    the summary points to this file (its messages written to `store`), and the messages kept."""
    path = store.write_transcript(recorded.before) if recorded.transcript_here \
        else "(none: no transcript the audit can read)"
    return [formats.summary_message("Compacted", "", recorded.summary, path), *recorded.kept]


def by_place(probes, places) -> dict:
    return {kind: {where: sum(p.kind == kind and s == where for p, s in zip(probes, places))
                   for where in PLACES} for kind in KINDS}


def audit_one(recorded: Recorded, asker=None) -> dict:
    request = request_before(recorded)
    probes = make_probes(recorded.before, request)
    with tempfile.TemporaryDirectory(prefix="compact-recorded-") as folder:
        store = Store(folder, seeded_ids())
        sent = left_context(recorded, store)
        statuses = Locator(probes, store, says=in_summary).statuses(sent)
        places = [place_of(s, re_read(p, recorded.after)) for p, s in zip(probes, statuses)]
        answers = [asker.ask(sent, folder, p, s) for p, s in zip(probes, statuses)] if asker else None
    row = {"line": recorded.line, "kind": recorded.kind, "trigger": recorded.trigger,
           "messages_before": len(recorded.before), "probes": len(probes),
           **{key(where): places.count(where) for where in PLACES},
           "by_kind": by_place(probes, places),
           "summary_says": sum(in_summary(p, recorded.summary) for p in probes),
           "stale": sum(stale_in_summary(p, recorded.summary) for p in probes),
           "kept": len(recorded.kept), "transcript": recorded.transcript,
           "transcript_here": recorded.transcript_here,
           "tokens": recorded.tokens, "tokens_from": recorded.tokens_from,
           "slice_tokens": estimate_tokens({"messages": recorded.before}),
           "_probes": probes, "_places": places, "_request": request}
    if answers is not None:
        row["answers"] = answers
    return row


def key(place: str) -> str:
    """A place as a row's key: "on disk" -> "on_disk"."""
    return place.replace("-", "_").replace(" ", "_")


def audit(found, asker=None) -> list[dict]:
    return [audit_one(recorded, asker) for recorded in found]


# -- the course's designs at the same point ----------------------------------------

# A probe whose answer is a tool's output: a miss of it costs one re-read of that output.
OUTPUT_DETAILS = ("tool output", "value", "test")


def designs_at(row: dict, recorded: Recorded, designs, model: str | None = None) -> dict:
    """design -> what it would have kept of the same messages at the same point, placed as
    the recorded compaction's probes are (PLACES, "re-read" from the same later messages):
    the count and the count by kind in each place, the bill of its requests (`CostLedger`),
    its misses (a probe of a tool's output not in context) and their price
    (`cost.priced_misses`). "recorded" is the agent's own compaction, by the same rule."""
    probes = row["_probes"]
    out = {"recorded": {**{where: row[key(where)] for where in PLACES},
                        **_priced([needed(p, recorded.before) for p, where in zip(probes, row["_places"])
                                   if p.detail in OUTPUT_DETAILS and where != PLACES[0]], model)}}
    for design in designs:
        ledger = cost.CostLedger(**({"model": model} if model else {}))
        run = walk(recorded.before, row["_request"], design, probes=probes, every_call=False, ledger=ledger)
        places = [place_of(s, re_read(p, recorded.after)) for p, s in zip(probes, run["statuses"])]
        missed = [needed(p, recorded.before) for p, where in zip(probes, places)
                  if p.detail in OUTPUT_DETAILS and where != PLACES[0]]
        out[design] = {**{where: places.count(where) for where in PLACES},
                       "by_kind": by_place(probes, places), "cost": ledger.cost,
                       **_priced(missed, ledger.model)}
        out[design]["total"] = out[design]["cost"] + out[design]["misses_cost"]
    return out


def _priced(missed: list, model: str | None) -> dict:
    return {"misses": len(missed), "misses_cost": cost.priced_misses(missed, *([model] if model else []))}


def needed(probe, messages) -> str:
    """The tool output a probe's answer is in: what a miss of it would re-read."""
    for block in tool_results(messages[probe.source]) if probe.source < len(messages) else []:
        text = text_of(block.get("content", ""))
        if block.get("tool_use_id") == probe.use_id or \
                " ".join(probe.expected.split()) in " ".join(text.split()):
            return text
    return probe.expected


def public(row: dict) -> dict:
    """A row as `--json` prints it: no probes' objects, the answers' scores only."""
    out = {k: v for k, v in row.items() if not k.startswith("_") and k != "answers"}
    if "answers" in row:
        out["answers"] = {s: sum(a["score"] == s for a in row["answers"])
                          for s in ("right", "can't tell", "wrong")}
    return out


def sample_paths() -> dict:
    """The project's made samples with a recorded compaction, by format."""
    folder = Path(__file__).resolve().parents[2] / "data" / "sessions"
    return {"claude-code": folder / "recorded_claude_code.jsonl", "codex": folder / "recorded_codex.jsonl"}
