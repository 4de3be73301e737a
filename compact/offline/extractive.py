"""A deterministic, extractive summarizer: what the offline model answers when
the compactor asks for a summary, and what replays use without any model.

It copies facts, it does not invent them: the requests the user typed, each
tool call with the first line of its result (a README's title survives this
way), the agent's own notes, and earlier summaries it finds. A fact that was
already gone from the messages (an `omitted` placeholder) stays gone, which is
the point: a lossy step shows in every later answer.

Left out: ranking, rewording and anything a model would infer; past
`max_chars` the summary keeps its first quarter and its last three quarters.
"""

from .. import formats
from ..messages import text_of, to_plain, tool_results, tool_uses, user_text

MAX_LINE = 160


def _line(text: str) -> str:
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return first if len(first) <= MAX_LINE else first[:MAX_LINE] + "..."


def _describe_call(use: dict) -> str:
    data = use.get("input")
    data = data if isinstance(data, dict) else {}
    arg = data.get("path") or data.get("command") or data.get("pattern") or ""
    return f"{use.get('name')}({arg})" if arg else str(use.get("name"))


def extractive_summary(messages, max_chars: int = 6000) -> str:
    messages = to_plain(messages)
    requests, calls, notes, earlier = [], [], [], []
    pending = {}
    for message in messages:
        if message.get("role") == "assistant":
            for use in tool_uses(message):
                pending[use["id"]] = _describe_call(use)
            note = _line(text_of(message.get("content")))
            if note:
                notes.append(note)
            continue
        for result in tool_results(message):
            text = text_of(result.get("content", ""))
            call = pending.pop(result["tool_use_id"], result["tool_use_id"])
            shown = (formats.persisted_path(text) and f"saved at {formats.persisted_path(text)}"
                     or formats.saved_path(text) and f"saved at {formats.saved_path(text)}"
                     or _line(text))
            calls.append(f"{call} -> {shown}")
        typed = user_text(message)
        match = formats.SUMMARY_RE.match(typed)
        if match:
            earlier.append(formats.summary_text(match["summary"]))
        elif typed and not formats.kind_of_user_text(typed):
            requests.append(_line(typed))
    parts = []
    if earlier:
        parts.append("Earlier summary:\n" + "\n".join(earlier))
    if requests:
        parts.append("User requests:\n" + "\n".join(f"- {r}" for r in dict.fromkeys(requests)))
    if calls:
        parts.append("Tool calls and first lines of results:\n"
                     + "\n".join(f"- {c}" for c in calls))
    if notes:
        parts.append("Agent notes:\n" + "\n".join(f"- {n}" for n in notes[-10:]))
    summary = "\n\n".join(parts) or "(nothing to summarize)"
    if len(summary) > max_chars:
        summary = summary[: max_chars // 4] + "\n...\n" + summary[-(max_chars * 3 // 4):]
    return summary
