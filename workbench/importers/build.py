"""From converted messages to a history the course can replay, or an error naming the line.

    history = to_history(path, "openai", [(line, message), ...], title=None)

Each importer hands over Messages API dicts, each with the line of the file it
came from. Here consecutive messages of one role become one message (the API
alternates roles; tool results first in a user message, as it requires), the
whole list is checked by `validate_messages`, and the history gets what a
canned one has: a title, the active request (the newest text a person typed)
and the messages. A check that fails names the file and the line of the
message it is about; nothing is returned half-converted.

The importer's report (what it read and left out, by kind: report.py) goes
into the history as `import_report` and `import_notes`; the compactions the
other agent recorded (its own summaries, where each happened) as `compactions`.

Left out: repairing a broken pair (an orphaned tool_result is an error, never
dropped in silence) and anything the model did not see (token usage, timings).
"""

import re
from pathlib import Path

from compact.formats import kind_of_user_text
from compact.messages import MessageFormatError, text_of, tool_results, validate_messages

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
    text = text_of(message.get("content")).strip()
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
    """The history of a converted file; SessionFileError if it is not one the API would take.
    `requests`: what said the task, oldest first, when the importer knows better than
    the typed text of each user message (a slash command's expanded prompt).
    `compactions`: the other agent's own compactions, each with `at` counting the
    items before it; in the history `at` is the index of the first message that
    holds nothing from before it, so `messages[:at]` holds all that came before (and,
    where the compaction falls inside two same-role items joined, the rest of that message)."""
    if not items:
        raise SessionFileError(path, None, "no messages in the file")
    messages, lines = merge_turns(items)
    _checked(path, messages, lines)
    texts = map(typed_text, messages) if requests is None else (t.strip() for t in requests)
    typed = [text for text in texts if text and not kind_of_user_text(text)]
    if not typed:
        raise SessionFileError(path, None, "no user message with text: nothing says what the task is")
    first = " ".join(typed[0].split())
    shown = first if len(first) <= TITLE_CHARS else first[:TITLE_CHARS - 3] + "..."
    return {"name": Path(path).stem, "title": title or shown, "active_request": typed[-1],
            "format": source_format, "source": str(path), "lines": lines, "messages": messages,
            "compactions": [{**c, "at": message_index(items, c["at"])} for c in compactions],
            **_reported(report or ImportReport(), items)}


def _reported(report: ImportReport, items: list) -> dict:
    if not report.kinds_read:       # an importer that keeps every record it reads
        for line, message in items:
            report.read(message["role"], line)
    return {"import_report": report.as_dict(), "import_notes": report.notes()}


def unanswered(items: list, report: ImportReport) -> list:
    """The items with every call that no result answers taken out, each named in a warning:
    a session stopped mid-call (for the formats that keep calls and results apart)."""
    answered = {b["tool_use_id"] for _, m in items if m["role"] == "user" and isinstance(m["content"], list)
                for b in m["content"] if b.get("type") == "tool_result"}
    kept = []
    for line, message in items:
        if message["role"] != "assistant" or not isinstance(message["content"], list):
            kept.append((line, message))
            continue
        open_calls = [b for b in message["content"] if isinstance(b, dict) and b.get("type") == "tool_use"
                      and b["id"] not in answered]
        for block in open_calls:
            report.leave_out("call never answered", line)
            report.warn("call never answered", line, f"line {line}: call {block['id']!r} "
                                                     f"({block['name']}) has no output in the file "
                                                     f"and is left out")
        content = [b for b in message["content"] if not any(b is c for c in open_calls)]
        if content:
            kept.append((line, {**message, "content": content}))
    return kept
