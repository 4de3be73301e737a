"""The offline model's answer to a probe question (`compact_course.probes`): quoted, re-read, or
"I can't tell"; docs/DESIGN.md gives the order it looks in and why it is never wrong.

Left out: the workspace's own files (it follows only our markers' names), tools other
than read_file, and more than MAX_READS re-reads for one question.
"""

import json

from context_compact.messages import tool_uses, user_text
from context_compact.store import TRANSCRIPTS

from ...display.lang import language_of
from ...display.phrases import say
from ...probes import describe_use, facts_in, read_question, sentences, value_runs
from ...probes.file_tools import action_words
from ...probes.status import Readable, read_message, read_request
from .summary_reply import whole_messages
from .view import Plan, View, read_view

MAX_READS = 8


def _read_files(view: View) -> tuple[dict, list]:
    """(path -> Readable) of the files re-read in this request, and the calls of the
    transcripts among them (each read as the JSON lines it is)."""
    read, inner = {}, []
    for call in view.calls:
        if call.name == "read_file" and call.path and call.kind == "whole" and not call.failed:
            messages = whole_messages(call.text)
            read[call.path] = read_request(messages) if messages else Readable(texts=[call.text])
            inner += read_view(messages).calls
    return read, inner


def _from_summary(summaries, unit: str, cue: str) -> set:
    """The texts a summary's lines give for the cue, a line cut short left out."""
    found = set()
    for summary in summaries:
        lines = summary.splitlines()
        for line, following in zip(lines, lines[1:] + [""]):
            at = line.find(cue)
            rest = line[at:].strip()
            if at >= 0 and not rest.endswith("...") and following.strip() != "...":
                found.add(sentences(rest)[0] if unit == "sentence" else rest)
    return found


def _summary_shows(summaries, tool: str, path: str) -> str | None:
    """The first summary line that names the call, or says what it did to the file (the
    words of the tool's action, `compact_course.probes.file_tools`, in parentheses)."""
    did = [f"({word})" for word in action_words(tool)]
    return next((line.strip() for summary in summaries for line in summary.splitlines()
                 if path in line and (f"{tool}({path}" in line or any(d in line for d in did))), None)


def _next_file(messages, view: View, here: Readable, read: dict, inner: list,
               call: str = "") -> str | None:
    """The next file to re-read: a saved copy of the call the question names (in this
    context, then in the transcripts read), else the newest transcript not read yet.
    Another call's saved output cannot hold the answer, so it is never read."""
    # read_file calls made since the question (the last text the user typed)
    asked_at = max((i for i, m in enumerate(messages) if read_question(user_text(m))), default=len(messages))
    reads = [use for m in messages[asked_at:] for use in tool_uses(m) if use.get("name") == "read_file"]
    if len(reads) >= MAX_READS or "read_file" not in view.offered:
        return None
    named = list(here.files) + [p for r in read.values() for p in r.files]
    asked = {c.path for c in view.calls if c.name == "read_file"}
    own = [c.saved for c in view.calls + inner
           if c.saved and call and describe_use({"name": c.name, "input": c.input}) == call]
    transcripts = [p for p in reversed(named) if p.startswith(TRANSCRIPTS + "/")]
    return next((p for p in [*own, *transcripts] if p not in asked), None)


def _quote(found: set, where: str, lang: str, shown: str) -> Plan | None:
    """The one text found, quoted; "I can't tell" when there are more; None when none."""
    if len(found) > 1:
        return Plan(say("cannot", lang, why=say("why probe many", lang, n=len(found), cue=shown)))
    return Plan(say("probe quote", lang, where=where, text=next(iter(found)))) if found else None


def latest_in(messages, detail: str, name: str) -> list[list]:
    """The runs of a fact's values (`compact_course.probes.value_runs`) in what a list of
    messages lets one read, in its order: in each message its summary (older) first."""
    stated = []
    for message in messages:
        readable = read_message(message)
        for text in (*readable.summaries, *readable.texts):
            stated += [(value, unit) for d, key, value, unit in facts_in(text) if (d, key) == (detail, name)]
    return value_runs(stated)


def _plan_latest(messages, view: View, name: str, detail: str, values: int, lang: str) -> Plan:
    """The latest value, quoted only from a place that shows every value the question
    counts: each place (this context, each file re-read) keeps the order it was written
    in, so one that shows them all ends on the latest. Seeing fewer, the latest may be
    among the missing: re-read, or say so."""
    places = [(say("probe in context", lang), messages)] + \
        [(say("probe in file", lang, path=call.path),
          whole_messages(call.text) or [{"role": "user", "content": call.text}])
         for call in view.calls if call.name == "read_file" and call.path and call.kind == "whole"
         and not call.failed]
    seen = 0
    for where, source in places:
        runs = latest_in(source, detail, name)
        if len(runs) == values:
            return Plan(say("probe quote", lang, where=where, text=runs[-1][1]))
        seen = max(seen, len(runs))
    here = read_request(messages)
    read, inner = _read_files(view)
    if path := _next_file(messages, view, here, read, inner):
        return Plan(say("probe reading", lang, path=path), [("read_file", {"path": path})])
    return Plan(say("cannot", lang, why=say("why probe latest", lang, seen=seen, values=values,
                                            name=json.dumps(name, ensure_ascii=False))))


def plan_probe(messages, view: View) -> Plan | None:
    """The reply to a probe question, or None when the request is not one."""
    asked = read_question(view.request)
    if asked is None:
        return None
    unit, cue, tool = asked
    lang = language_of(view.request)
    if unit == "latest":
        return _plan_latest(messages, view, cue, *tool, lang)
    here = read_request(messages)
    read, inner = _read_files(view)
    shown = json.dumps(cue, ensure_ascii=False)
    places = [(say("probe in context", lang), here)] + \
        [(say("probe in file", lang, path=path), r) for path, r in read.items()]
    for where, readable in places:
        if unit == "use" and (tool, cue) in readable.uses:
            return Plan(say("probe yes", lang, where=where, tool=tool, path=cue))
        found = set() if unit == "use" else {u for u in readable.units(unit) if u.startswith(cue)}
        if plan := _quote(found, where, lang, shown):
            return plan
    if path := _next_file(messages, view, here, read, inner, tool if unit == "line" else ""):
        return Plan(say("probe reading", lang, path=path), [("read_file", {"path": path})])
    summaries = here.summaries + [s for r in read.values() for s in r.summaries]
    if unit == "use":
        if line := _summary_shows(summaries, tool, cue):
            return Plan(say("probe yes", lang, where=say("probe in summary", lang), tool=tool, path=cue)
                        + f" ({line})")
        return Plan(say("cannot", lang, why=say("why probe no use", lang, tool=tool, path=cue)))
    return _quote(_from_summary(summaries, unit, cue), say("probe in summary", lang), lang, shown) \
        or Plan(say("cannot", lang, why=say("why probe none", lang, cue=shown)))

