"""The extractive state summary of messages (docs/DESIGN.md, "Summaries"): the offline
model's summary, and what replays use without any model.

Left out: ranking, rewording, the user's constraints, anything a model would infer, and
the facts of a call to a tool not named like the course's (a summary request carries no
tool list); past `max_chars` it keeps its first quarter and its last three quarters.
"""

from context_compact import formats
from context_compact.messages import has_tool_use, text_of, to_plain, tool_results, tool_uses, user_text

from ...display.lang import language_of
from ...display.phrases import BY_LANG, say
from .facts import MAX_LINE, file_facts, first_line, fitting, line_count, short
from .view import active_request

SECTIONS = ("files", "decisions", "done", "pending")
MAX_DECISIONS = 12


def describe_call(use: dict) -> str:
    data = use.get("input") if isinstance(use.get("input"), dict) else {}
    arg = str(data.get("path") or data.get("command") or data.get("pattern") or "")
    return f"{use.get('name')}({short(' '.join(arg.split()), 100)})" if arg else str(use.get("name"))


def outcome(name: str, text: str) -> str:
    """What a tool call came to, in a few words."""
    if saved := formats.persisted_path(text) or formats.saved_path(text):
        return f"saved at {saved}"
    if text == formats.OMITTED or not text.strip():
        return text.strip() or "(no output)"
    if text.startswith("Error: ") or name not in ("read_file", "glob", "bash"):
        return first_line(text)
    if name == "read_file":
        return f"{line_count(text)} lines"
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if name == "glob" and lines != ["(no match)"]:
        return fitting(f"{len(lines)} matches: ", lines, MAX_LINE - 40)
    more = f" (+{len(lines) - 1} more lines)" if len(lines) > 1 else ""
    return short(first_line(text), MAX_LINE - 40) + more


def file_entry(use: dict, text: str) -> tuple | None:
    """(path, how, facts line) for a call that read or changed a file."""
    data = use.get("input") if isinstance(use.get("input"), dict) else {}
    path, name = data.get("path"), use.get("name")
    if not isinstance(path, str) or not path or name not in ("read_file", "write_file", "edit_file"):
        return None
    if name != "read_file":
        return path, "written" if name == "write_file" else "edited", first_line(text)
    if saved := formats.persisted_path(text) or formats.saved_path(text):
        return path, "read", f"full text saved at {saved}"
    if text == formats.OMITTED:
        return path, "read", f"result shrunk to {formats.OMITTED}"
    return path, "read", file_facts(path, text)


def read_messages(messages) -> tuple:
    """What the messages record, section by section (an earlier summary's, in either language,
    taken in), and the calls still without a result."""
    files, decisions, done, earlier, pending = {}, [], [], {}, {}   # files: path -> (how, facts)
    headings = {BY_LANG[lang][key]: key for lang in BY_LANG for key in ("goal", *SECTIONS)}
    for message in messages:
        if message.get("role") == "assistant":
            uses = tool_uses(message)
            pending.update((use.get("id"), use) for use in uses)
            text = text_of(message.get("content")).strip()
            if text and uses:
                decisions += [short(ln.strip()) for ln in text.splitlines() if ln.strip()]
            elif text:
                done.append(("answered", first_line(text)))
            continue
        for result in tool_results(message):
            use = pending.pop(result.get("tool_use_id"), None) or {"name": "?"}
            text = text_of(result.get("content", ""))
            done.append(("call", f"{describe_call(use)} -> {outcome(use.get('name'), text)}"))
            if entry := file_entry(use, text):
                files[entry[0]] = entry[1:]
        if summary := formats.SUMMARY_RE.match(user_text(message)):
            section = "done"   # the lines before the earlier summary's first heading
            for line in formats.summary_text(summary["summary"]).splitlines():
                if line.strip() in headings:
                    section = headings[line.strip()]
                elif line.strip() and line.strip() not in (BY_LANG["en"]["none"], BY_LANG["zh"]["none"]):
                    earlier.setdefault(section, []).append(line)
    return files, decisions, done, earlier, list(pending.values())


def extractive_summary(messages, max_chars: int = 6000) -> str:
    """The state summary of `messages`, headed in the language of their goal."""
    messages = to_plain(messages)
    files, decisions, done, earlier, waiting = read_messages(messages)
    goal = active_request(messages)
    lang = language_of(goal)
    answered = bool(messages) and messages[-1].get("role") == "assistant" and not has_tool_use(messages[-1])
    sections = {
        "files": [f"- {path} ({how}): {facts}" for path, (how, facts) in files.items()],
        "decisions": [f"- {line}" for line in dict.fromkeys(decisions)][-MAX_DECISIONS:],
        "done": [f"- {say('answered', lang, line=text) if kind == 'answered' else text}"
                 for kind, text in done],
        "pending": [f"- {say('no_result', lang, call=describe_call(use))}" for use in waiting]
                   + ([] if answered or not goal else [f"- {say('answer_goal', lang)}"]),
    }
    goal = short(" ".join(goal.split()), 2 * MAX_LINE) if goal else say("no_goal", lang)
    parts = [f"{say('goal', lang)}\n{goal}"]
    for key in SECTIONS:
        lines = earlier.get(key, []) + sections[key]
        parts.append(say(key, lang) + "\n" + ("\n".join(lines) or say("none", lang)))
    summary = "\n\n".join(parts)
    if len(summary) > max_chars:
        summary = summary[: max_chars // 4] + "\n...\n" + summary[-(max_chars * 3 // 4):]
    return summary
