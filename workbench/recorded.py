"""The compactions a session file records, audited: what the agent's own summary kept.

    from workbench.recorded import read_recorded, audit
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

Each file is read here, record by record, for this audit only: the main thread in
file order (Claude Code's sidechains left out), each message in the Messages API's
blocks (a Codex `function_call` a tool_use, its output a tool_result, `apply_patch`
an edit_file on the path the patch names). The importers (`workbench.importers`)
read a session for replaying it; this reads what they leave out.

Left out: Claude Code's `parentUuid` chain (a rewound branch is read as if kept),
the other records (titles, snapshots, events), and whether a model that read the
summary would have re-read (that is what the file shows the agent did).
"""

import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from compact import formats
from compact.messages import text_of, tool_results, tool_uses, user_text

from .importers.source import SessionFileError, json_lines, read_text
from .probe_status import summary_says
from .probes import KINDS, facts_in, make_probes, readable_units, value_runs

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


# -- reading the two formats -------------------------------------------------------

def _claude_message(record, messages: list, lines: list, line: int) -> None:
    message = record["message"]
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else \
        [_course_tool(b) for b in content or []]
    last = messages[-1] if messages else None
    # One assistant reply written as several records, one block each, under one message.id.
    if message.get("role") == "assistant" and last and last.get("role") == "assistant" \
            and message.get("id") and last.get("_id") == message.get("id"):
        last["content"].extend(blocks)
        return
    messages.append({"role": message.get("role"), "content": blocks, "_id": message.get("id")})
    lines.append(line)


def _course_tool(block):
    if not (isinstance(block, dict) and block.get("type") == "tool_use"
            and block.get("name") in CLAUDE_FILE_TOOLS and isinstance(block.get("input"), dict)):
        return block
    data = dict(block["input"])
    data.setdefault("path", data.get("file_path") or data.get("notebook_path"))
    return {**block, "name": CLAUDE_FILE_TOOLS[block["name"]], "input": data}


def _claude(path, records) -> list[Recorded]:
    found, messages, lines, boundary = [], [], [], None
    for line, record in records:
        if record.get("isSidechain"):
            continue
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary":
            trigger = str((record.get("compactMetadata") or {}).get("trigger", ""))
            boundary = Recorded(line, "claude-code compact_boundary", "", list(messages), [],
                                trigger, list(lines))
            found.append(boundary)
            messages, lines = [], []
        elif record.get("type") in ("user", "assistant") and isinstance(record.get("message"), dict):
            if record.get("isCompactSummary") and boundary is not None and not boundary.summary:
                boundary.summary = text_of(record["message"].get("content"))
                continue
            _claude_message(record, messages, lines, line)
    return _with_after(found, messages)


def _codex_item(item: dict, messages: list) -> dict | None:
    """A Responses API item as a Messages API message (None: not one the model read)."""
    kind = item.get("type")
    if kind == "message" and item.get("role") in ("user", "assistant"):
        text = "\n".join(part.get("text", "") for part in item.get("content") or []
                         if isinstance(part, dict) and isinstance(part.get("text"), str))
        return {"role": item["role"], "content": [{"type": "text", "text": text}]}
    if kind in ("function_call", "custom_tool_call"):
        raw = item.get("arguments", item.get("input", ""))
        try:
            data = json.loads(raw) if kind == "function_call" else {"input": raw}
        except ValueError:
            data = {"arguments": raw}
        name = item.get("name", "")
        patched = _PATCH_FILE.search(str(raw)) if name == "apply_patch" else None
        use = {"type": "tool_use", "id": item.get("call_id", ""), "name": "edit_file" if patched else name,
               "input": {"path": patched["path"].strip()} if patched else
               (data if isinstance(data, dict) else {"arguments": raw})}
        return {"role": "assistant", "content": [use]}
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output", "")
        if isinstance(output, str) and output.startswith("{"):
            # Older rollouts keep a shell call's output as JSON: {"output": ..., "metadata": ...}.
            try:
                output = json.loads(output).get("output", output)
            except (ValueError, AttributeError):
                pass
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": item.get("call_id", ""),
                                             "content": text}]}
    return None


def _codex(path, records) -> list[Recorded]:
    found, messages, lines = [], [], []
    for line, record in records:
        payload = record.get("payload") if isinstance(record.get("payload"), dict) else {}
        if record.get("type") == "compacted":
            history = [m for item in payload.get("replacement_history") or []
                       if isinstance(item, dict) and (m := _codex_item(item, []))]
            texts = [str(payload.get("message") or "")] + [text_of(m["content"]) for m in history]
            found.append(Recorded(line, "codex compacted", "\n\n".join(t for t in texts if t.strip()),
                                  list(messages), [], "", list(lines)))
            messages, lines = [], []
        elif record.get("type") == "response_item" and (message := _codex_item(payload, messages)):
            messages.append(message)
            lines.append(line)
    return _with_after(found, messages)


def _with_after(found: list, tail: list) -> list:
    """Each compaction's `after`: the messages up to the next one (the last: to the end);
    each `before` the whole session up to it, earlier compactions' summaries in place."""
    for k, recorded in enumerate(found):
        recorded.after = found[k + 1].before if k + 1 < len(found) else tail
    whole = []
    for recorded in found:
        whole = [*whole, *recorded.before]
        recorded.before = whole
        whole = [*whole, {"role": "user", "content": [{"type": "text", "text": recorded.summary}]}]
    for recorded in found:
        recorded.before, recorded.after = joined(recorded.before), joined(recorded.after)
    return found


def joined(messages: list) -> list:
    """Messages of one role in a row joined into one (a batch's calls, written a record
    each, are one reply; their results one user turn, results first), as the API reads them."""
    out = []
    for message in messages:
        message = {"role": message["role"], "content": list(message["content"])}
        if out and out[-1]["role"] == message["role"]:
            out[-1]["content"] += message["content"]
            if message["role"] == "user":
                out[-1]["content"].sort(key=lambda block: block.get("type") != "tool_result")
        else:
            out.append(message)
    return out


FORMATS = (("claude-code", lambda r: "message" in r or r.get("type") in ("summary", "system"), _claude),
           ("codex", lambda r: "payload" in r, _codex))


def read_recorded(path) -> list[Recorded]:
    """Every compaction `path` records; SessionFileError when the file is not a session."""
    records = [(line, r) for line, r in json_lines(path, read_text(path)) if isinstance(r, dict)]
    if not records:
        raise SessionFileError(path, None, "no JSON object on any line: not a session file")
    for _, looks, read in FORMATS:
        if sum(looks(r) for _, r in records) * 2 >= len(records):
            return read(path, records)
    raise SessionFileError(path, records[0][0], "neither a Claude Code session nor a Codex rollout")


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
    from .bench import cost
    from .bench.probe_walk import walk

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
    from .bench import cost
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
    folder = Path(__file__).resolve().parent.parent / "data" / "sessions"
    return {"claude-code": folder / "recorded_claude_code.jsonl", "codex": folder / "recorded_codex.jsonl"}
