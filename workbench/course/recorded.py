"""The compactions a session file records, audited: what the agent's own summary kept.

    from workbench.course.recorded import read_recorded, audit
    found = read_recorded("session.jsonl")   # one Recorded per compaction, with its line
    rows = audit(found)                       # where each probe stands after each one

A Claude Code session records its own compaction as a `system` record with
`subtype: "compact_boundary"`, then a `user` record marked `isCompactSummary`
holding the summary the model wrote. A Codex CLI rollout records a `compacted`
entry whose `message` is the summary and whose `replacement_history` is what
replaced the context. For each, the probes (`workbench.probes`) are drawn from the
messages before it, and each one stands, after it, in one of three places:
- in summary: the recorded summary (and, for Codex, the replacement history's
  texts) holds its line or sentence, or names its path (an artifact);
- re-read: not in the summary, but the agent fetched it again later in the file:
  a tool result after the compaction holds its text, or a call of the same tool
  on the same path (an artifact);
- gone: neither.
The offline model then answers every probe from the recorded summary alone
(`answer_from_summary`), the way `workbench.bench.probe_ask` asks after a design.

The file is read by the importers (`workbench.importers`), which keep each
compaction with its line, its summary and `at`, the first message after it; the
messages before it are the session's own (the importer reads them again past the
boundary). `probe_view` names another agent's file tools as the course's, so the
artifact probes see them.

Left out: a compaction whose summary only the server can read (`encrypted`), and
whether a model that read the summary would have re-read (the file shows what the
agent did).
"""

import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from compact import formats
from compact.messages import text_of, tool_results, tool_uses, user_text

from ..bench import cost
from ..bench.probe_walk import walk
from ..importers import load_session
from ..probes import KINDS, facts_in, make_probes, readable_units, value_runs
from ..probes.status import summary_says

PLACES = ("in summary", "re-read", "gone")
# Claude Code's file tools -> the course's (what an artifact probe asks about), its
# `file_path` read as the course's `path`.
CLAUDE_FILE_TOOLS = {"Read": "read_file", "Write": "write_file", "Edit": "edit_file",
                     "MultiEdit": "edit_file", "NotebookEdit": "edit_file"}
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (?P<path>.+)$", re.MULTILINE)


@dataclass
class Recorded:
    """One compaction a file records."""
    line: int                 # the line of its record (the boundary, the `compacted` entry)
    kind: str                 # "claude-code compact_boundary" or "codex compacted"
    summary: str              # the text the agent had after it in place of what came before
    before: list              # the messages before it, in the Messages API's blocks
    after: list               # the messages after it, up to the next recorded compaction
    trigger: str = ""         # "auto", "manual": what the record says, when it says
    lines: list = field(default_factory=list)   # the line each message of `before` starts on


# -- reading a session's compactions ----------------------------------------------

def probe_view(message: dict) -> dict:
    """A message as the probes read it: another agent's file tools named as the course's
    (Claude Code's Read, Write, Edit on `file_path`; Codex's `apply_patch` on the file its
    patch names), so an artifact probe asks about them, and a Codex shell output kept as
    JSON (`{"output": ..., "metadata": ...}`) read as its text, so its lines are lines."""
    content = message.get("content")
    if not isinstance(content, list):
        return message
    return {**message, "content": [_course_block(block) for block in content]}


def _course_block(block):
    if not isinstance(block, dict):
        return block
    data = block.get("input") if isinstance(block.get("input"), dict) else None
    if block.get("type") == "tool_use" and data is not None:
        if block.get("name") in CLAUDE_FILE_TOOLS:
            path = data.get("file_path") or data.get("notebook_path")
            return {**block, "name": CLAUDE_FILE_TOOLS[block["name"]], "input": {**data, "path": path}}
        patch = str(data.get("input", "")) if block.get("name") == "apply_patch" else ""
        if patched := _PATCH_FILE.search(patch):
            return {**block, "name": "edit_file", "input": {**data, "path": patched["path"].strip()}}
    if block.get("type") == "tool_result" and isinstance(block.get("content"), str) \
            and block["content"].startswith('{"output"'):
        try:
            output = json.loads(block["content"]).get("output")
        except (ValueError, AttributeError):
            output = None
        if isinstance(output, str):
            return {**block, "content": output}
    return block


KIND_NAMES = {"claude-code": "claude-code compact_boundary", "codex": "codex compacted"}


def _summary_of(compaction: dict) -> str:
    """The text the agent had in place of what came before: the summary, and for Codex
    the texts of the replacement history (the user's messages it kept)."""
    texts = [compaction.get("summary") or ""]
    for item in compaction.get("replacement_history") or []:
        if isinstance(item, dict) and item.get("type") == "message":
            texts += [part["text"] for part in item.get("content") or []
                      if isinstance(part, dict) and isinstance(part.get("text"), str)]
    return "\n\n".join(dict.fromkeys(t for t in texts if t.strip()))


def read_recorded(path) -> list[Recorded]:
    """Every compaction `path` records, read by the importers (`workbench.importers`:
    Claude Code's and Codex's keep them in `compactions`); SessionFileError (or the
    importers' NotRead) naming the file when it is not a session."""
    history = load_session(path)
    messages = [probe_view(m) for m in history["messages"]]
    compactions = [c for c in history.get("compactions") or [] if not c.get("encrypted")]
    found = []
    for k, compaction in enumerate(compactions):
        at = compaction["at"]
        following = compactions[k + 1]["at"] if k + 1 < len(compactions) else len(messages)
        found.append(Recorded(compaction["line"], KIND_NAMES.get(compaction.get("format"), "compaction"),
                              _summary_of(compaction), messages[:at], messages[at:following],
                              str(compaction.get("trigger") or ""), list(history.get("lines") or [])[:at]))
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
    if probe.unit == "use":
        return any(probe.cue in line for line in summary.splitlines())
    if probe.kind == "latest value":
        return summary_value(probe, summary) == latest_value(probe)
    return summary_says(probe, summary) or probe.expected in readable_units(summary, probe.unit)


def re_read(probe, after: list) -> bool:
    """Whether the agent fetched the probe's text again after the compaction."""
    if probe.unit == "use":
        return any(use.get("name") == probe.tool and (use.get("input") or {}).get("path") == probe.cue
                   for m in after if m.get("role") == "assistant" for use in tool_uses(m))
    wanted = " ".join(probe.expected.split())
    return any(wanted in " ".join(text_of(block.get("content", "")).split())
               for m in after for block in tool_results(m))


def place(probe, recorded: Recorded) -> str:
    return PLACES[0] if in_summary(probe, recorded.summary) else \
        PLACES[1] if re_read(probe, recorded.after) else PLACES[2]


def request_before(recorded: Recorded) -> str:
    """The last text the user typed before the compaction: the request it interrupted."""
    for message in reversed(recorded.before):
        text = user_text(message) if message.get("role") == "user" else ""
        if text.strip() and text != recorded.summary:
            return text
    return ""


def summary_context(recorded: Recorded) -> list:
    """The recorded summary alone, as our summary marker (so it is read as a summary, not
    as the original): no request beside it, no transcript behind it."""
    return [formats.summary_message("Compacted", "", recorded.summary, "(none: the recorded summary alone)")]


def audit_one(recorded: Recorded, asker=None) -> dict:
    request = request_before(recorded)
    probes = make_probes(recorded.before, request)
    places = [place(p, recorded) for p in probes]
    by_kind = {kind: {where: sum(p.kind == kind and s == where for p, s in zip(probes, places))
                      for where in PLACES} for kind in KINDS}
    row = {"line": recorded.line, "kind": recorded.kind, "trigger": recorded.trigger,
           "messages_before": len(recorded.before), "probes": len(probes),
           "in_summary": places.count(PLACES[0]), "re_read": places.count(PLACES[1]),
           "gone": places.count(PLACES[2]), "by_kind": by_kind,
           "stale": sum(stale_in_summary(p, recorded.summary) for p in probes),
           "_probes": probes, "_places": places, "_request": request}
    if asker is not None:
        row["answers"] = answer_from_summary(recorded, probes, places, asker)
    return row


def answer_from_summary(recorded, probes, places, asker) -> list:
    """The model's answer to each probe with only the recorded summary to read."""
    sent = summary_context(recorded)
    with tempfile.TemporaryDirectory(prefix="compact-recorded-") as folder:
        return [asker.ask(sent, folder, probe, "summary only" if where == PLACES[0] else "gone")
                for probe, where in zip(probes, places)]


def audit(found, asker=None) -> list[dict]:
    return [audit_one(recorded, asker) for recorded in found]


# -- the course's designs at the same point ----------------------------------------

# A probe whose answer is a tool's output: a miss of it costs one re-read of that output.
OUTPUT_DETAILS = ("tool output", "value", "test")


def designs_at(row: dict, recorded: Recorded, designs, model: str | None = None) -> dict:
    """design -> what it would have kept of the same messages at the same point: the
    probes gone by kind, the bill of its requests (`CostLedger`), its misses (a probe of a
    tool's output not whole in what it sends) and their price (`cost.priced_misses`)."""
    probes = row["_probes"]
    out = {"recorded": _priced([needed(p, recorded.before) for p, where in zip(probes, row["_places"])
                                if p.detail in OUTPUT_DETAILS and where != PLACES[0]], model)}
    for design in designs:
        ledger = cost.CostLedger(**({"model": model} if model else {}))
        run = walk(recorded.before, row["_request"], design, probes=probes, every_call=False, ledger=ledger)
        statuses = run["statuses"]
        missed = [needed(p, recorded.before) for p, status in zip(probes, statuses)
                  if p.detail in OUTPUT_DETAILS and status != "in context"]
        out[design] = {"gone": statuses.count("gone"),
                       "by_kind": {kind: sum(p.kind == kind and s == "gone" for p, s in zip(probes, statuses))
                                   for kind in KINDS},
                       "cost": ledger.cost, **_priced(missed, ledger.model)}
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
