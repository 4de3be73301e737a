"""From converted messages to a history the course can replay, or an error naming the line.

    history = to_history(path, "openai", [(line, message), ...], title=None)

Each importer hands over Messages API dicts, each with the line of the file it
came from. Here what real files hold and clean ones do not (calls never
answered, results without their call, empty messages: `odd.repair`) is made
into what the pipeline and the API accept and counted; consecutive messages of
one role become one message (the API alternates roles; tool results first in a
user message, as it requires); the whole list is checked by `validate_messages`
(a last guard: the repair leaves it nothing to find); and the history gets what
a canned one has: a title, the active request (the newest text a person typed;
empty, and counted, when no one typed any) and the messages. A file with no
message left is refused, naming what was not read.

The importer's report (what it read and left out, by kind: report.py) goes
into the history as `import_report` and `import_notes`; the compactions the
other agent recorded (its own summaries, where each happened) as `compactions`.

Left out: anything the model did not see (token usage, timings).
"""

import re
from pathlib import Path

from context_compact.formats import kind_of_user_text
from context_compact.messages import MessageFormatError, text_of, tool_results, validate_messages

from .odd import is_marker, repair
from .report import ImportReport
from .source import SessionFileError

_INDEX = re.compile(r"messages\[(\d+)\]")
TITLE_CHARS = 70


def _blocks(content) -> list:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content)


def _results_first(content: list) -> list:
    # The API reads a user message's tool results only before any other block.
    results = [b for b in content if b.get("type") == "tool_result"]
    return results + [b for b in content if b.get("type") != "tool_result"]


def merge_turns(items: list) -> tuple:
    """([message, ...], [first line of each]) with consecutive same-role messages joined."""
    messages, lines = [], []
    for line, message in items:
        if messages and messages[-1]["role"] == message["role"]:
            joined = _blocks(messages[-1]["content"]) + _blocks(message["content"])
            messages[-1] = {**messages[-1], "content": joined}
        else:
            messages.append(dict(message))
            lines.append(line)
    for message in messages:
        if message["role"] == "user" and isinstance(message["content"], list):
            message["content"] = _results_first(message["content"])
    return messages, lines


def typed_text(message) -> str:
    """What a person typed in a user message: its text, if it holds no tool results
    and is none of our own markers."""
    if message.get("role") != "user" or tool_results(message):
        return ""
    content = message.get("content")
    if isinstance(content, list):       # a result kept as marked text is no one's typing
        content = [b for b in content if not (b.get("type") == "text" and is_marker(b["text"]))]
    text = text_of(content).strip()
    return "" if kind_of_user_text(text) else text


def _checked(path, messages: list, lines: list) -> None:
    try:
        validate_messages(messages)
    except MessageFormatError as error:
        text = str(error)
        found = _INDEX.search(text)
        line = lines[int(found[1])] if found and int(found[1]) < len(lines) else None
        raise SessionFileError(path, line, text) from None


def message_index(items: list, count: int) -> int:
    """The index, after merge_turns, of the message that holds items[count]
    (the number of messages when count is past the end)."""
    if count >= len(items):
        return len(merge_turns(items)[0])
    roles = [message["role"] for _, message in items[:count + 1]]
    index = sum(1 for n, role in enumerate(roles) if n == 0 or role != roles[n - 1]) - 1
    # items[count] joins the message before it (two replies in a row once a compaction's
    # summary is set apart): that message holds what came before, so it counts as before.
    return index + 1 if count and roles[-1] == roles[-2] else index


def to_history(path, source_format: str, items: list, title: str | None = None,
               requests: list | None = None, report: ImportReport | None = None,
               compactions: list = ()) -> dict:
    """The history of a converted file; SessionFileError if no message could be built.
    `requests`: what said the task, oldest first, when the importer knows better than
    the typed text of each user message (a slash command's expanded prompt).
    `compactions`: the other agent's own compactions, each with `at` counting the
    items before it; in the history `at` is the index of the first message that
    holds nothing from before it, so `messages[:at]` holds all that came before (and,
    where the compaction falls inside two same-role items joined, the rest of that message)."""
    report = report or ImportReport()
    repaired, where = repair(items, report)
    if not repaired:
        raise SessionFileError(path, None, "no conversation in the file: " + _why_empty(report))
    at_of = where.__getitem__       # a count of `items` -> the count of `repaired` before it
    messages, lines = merge_turns(repaired)
    _checked(path, messages, lines)
    texts = map(typed_text, messages) if requests is None else (t.strip() for t in requests)
    typed = [text for text in texts if text and not kind_of_user_text(text)]
    if not typed:
        report.odd("no typed request", None)
    first = " ".join(typed[0].split()) if typed else Path(path).stem
    shown = first if len(first) <= TITLE_CHARS else first[:TITLE_CHARS - 3] + "..."
    return {"name": Path(path).stem, "title": title or shown, "active_request": typed[-1] if typed else "",
            "format": source_format, "source": str(path), "lines": lines, "messages": messages,
            "compactions": [{**{k: v for k, v in c.items() if k != "kept_items"},
                             "at": message_index(repaired, at_of(c["at"])), **_kept(c, repaired, at_of)}
                            for c in compactions],
            **_reported(report, repaired)}


def _why_empty(report: ImportReport) -> str:
    """What the file held instead of messages: the first problem counted, or that it had none."""
    for kind in ("unreadable record", "not JSON", "unknown record type", "unknown item type"):
        found = report.odd_records.get(kind)
        if found:
            line, detail = found[0]
            where = f"line {line}: " if line else ""
            return f"no message could be read ({len(found)} {kind}; {where}{detail or kind})"
    return "no user or assistant message"


def _kept(compaction: dict, repaired: list, at_of) -> dict:
    """The messages a compaction kept word for word (Claude Code's preserved segment), as
    message indexes of the history, when the importer named them by item count."""
    if "kept_items" not in compaction:
        return {}
    return {"kept": sorted({_holding(repaired, at_of(n)) for n in compaction["kept_items"]})}


def _holding(items: list, count: int) -> int:
    """The index, after merge_turns, of the message that holds items[count]."""
    roles = [message["role"] for _, message in items[:count + 1]]
    return sum(1 for n, role in enumerate(roles) if n == 0 or role != roles[n - 1]) - 1


def _reported(report: ImportReport, items: list) -> dict:
    if not report.kinds_read:       # an importer that keeps every record it reads
        for line, message in items:
            report.read(message["role"], line)
    return {"import_report": report.as_dict(), "import_notes": report.notes()}
