"""The offline model's replies: a scripted, deterministic policy over one request.

The article runs its agent loop (section 9) and its three experiments
(section 13) against a real model. This module stands in for that model so
the course runs offline: `respond(request) -> response`, pure functions from a
Messages API request dict to a response dict. It reads the request the way a
model would and no other way:
- the active request is the last text the user typed, or the "Current user
  request:" section of a `[Compacted]` / `[Reactive compact]` message;
- what it knows is only what the request holds: whole tool results, persisted
  previews, its own earlier notes, and summary text. It reads one file per
  turn and, in the next turn's text, notes what it learned in one line (a
  README's title, a code file's outline), as a model comments while it works;
  that line survives when the old result is shrunk;
- the final answer is built from that knowledge alone: when a fact is gone
  (`[Earlier tool result omitted.]` and no note), the answer says so, so a
  lossy compaction shows in the answer;
- asked for a summary (system prompt `compact.formats.SUMMARY_SYSTEM`), it
  recovers the whole messages from the JSON it was given (cut in the middle or
  not), answers with `compact.extractive.extractive_summary` of them, and adds
  one line saying so when the middle was cut.

Token estimate (what the server compares with its window, and what
`count_tokens` and `usage.input_tokens` report): take the text
`json.dumps([system, tools, messages], ensure_ascii=False)` of the request;
count its ASCII characters A and its other characters N; tokens =
ceil(A / 4) + N. English runs near four characters a token, Chinese near one
character a token (SPEC 3.13); the estimate is deterministic and cheap.

Left out on purpose: any understanding beyond these scripts, sampling,
`max_tokens` cut-offs, images, and any access to files (the policy never reads
the disk; it asks for tool calls).
"""

import hashlib
import json
import math
import re
from dataclasses import dataclass, field

from . import formats
from .extractive import extractive_summary
from .messages import text_of, tool_results, tool_uses, user_text

MODEL_NAME = "offline-s08"
ASCII_PER_TOKEN = 4
PEEK_CHARS = 8000
NOTE_MAX = 160  # the extractive summary keeps one line of this length per note


# -- the token estimate ------------------------------------------------------------

def prompt_text(request: dict) -> str:
    return json.dumps([request.get("system") or "", request.get("tools") or [],
                       request.get("messages") or []], ensure_ascii=False)


def estimate_text_tokens(text: str) -> int:
    ascii_chars = len(text.encode("ascii", "ignore"))
    return math.ceil(ascii_chars / ASCII_PER_TOKEN) + (len(text) - ascii_chars)


def estimate_tokens(request: dict) -> int:
    """ceil(ASCII characters / 4) + other characters, over the request's JSON."""
    return estimate_text_tokens(prompt_text(request))


# -- reading a request ---------------------------------------------------------------

@dataclass
class Call:
    """One tool call in the request, with what is left of its result."""
    id: str
    name: str
    input: dict
    text: str | None = None      # the result's text; None while unanswered
    fresh: bool = False          # its result is in the last message

    def arg(self, key: str) -> str:
        """A text argument of the call ('' when absent or not a text)."""
        value = self.input.get(key) if isinstance(self.input, dict) else None
        return value if isinstance(value, str) else ""

    @property
    def path(self) -> str:
        return self.arg("path")

    @property
    def command(self) -> str:
        return self.arg("command")

    @property
    def kind(self) -> str:
        return "pending" if self.text is None else formats.kind_of_result(self.text)

    @property
    def saved(self) -> str | None:
        """Where its full text was saved, if a marker says so."""
        if self.text is None:
            return None
        return formats.persisted_path(self.text) or formats.saved_path(self.text)

    @property
    def visible(self) -> str:
        """The part of the result still readable here: whole text or preview."""
        if self.kind == "whole":
            return self.text
        match = formats.PERSISTED_RE.match(self.text or "")
        return match["preview"] if match else ""


def failed(call: Call) -> bool:
    """A tool call whose result is the tools' error text."""
    return call.kind == "whole" and call.text.startswith("Error: ")


@dataclass
class View:
    request: str = ""
    calls: list = field(default_factory=list)
    notes: list = field(default_factory=list)       # the assistant's own text, oldest first
    summaries: list = field(default_factory=list)   # decoded summary texts
    compacted: bool = False

    @property
    def knowledge(self) -> str:
        return "\n".join(self.notes + self.summaries)

    def reads(self, path: str) -> list:
        return [c for c in self.calls if c.name == "read_file" and c.path == path]

    def fresh(self) -> list:
        return [c for c in self.calls if c.fresh and c.kind == "whole"]


def system_text(request: dict) -> str:
    system = request.get("system") or ""
    return system if isinstance(system, str) else text_of(system)


def decode_summary(match) -> str:
    """The summary text: the message holds it as a JSON string."""
    try:
        value = json.loads(match["summary"])
    except ValueError:
        return match["summary"]
    return value if isinstance(value, str) else match["summary"]


def active_request(messages) -> str:
    """The last text the user typed, or the request a summary message carries."""
    for message in reversed(messages):
        text = user_text(message)
        if not text:
            continue
        summary = formats.SUMMARY_RE.match(text)
        if summary:
            return summary["request"]
        if formats.ARCHIVE_RE.match(text):
            head, sep, request = text.partition("\n\nCurrent user request:\n")
            if sep:
                return request
            continue
        return text
    return ""


def read_view(messages) -> View:
    view = View(request=active_request(messages))
    pending = {}
    last = len(messages) - 1
    for i, message in enumerate(messages):
        if message.get("role") == "assistant":
            note = text_of(message.get("content")).strip()
            if note:
                view.notes.append(note)
            for use in tool_uses(message):
                tool_input = use.get("input")
                call = Call(use["id"], str(use.get("name", "")),
                            tool_input if isinstance(tool_input, dict) else {})
                pending[call.id] = call
                view.calls.append(call)
            continue
        for result in tool_results(message):
            call = pending.get(result["tool_use_id"])
            if call:
                call.text, call.fresh = text_of(result.get("content", "")), i == last
        match = formats.SUMMARY_RE.match(user_text(message))
        if match:
            view.summaries.append(decode_summary(match))
            view.compacted = True
    return view


# -- a plan: text and tool calls ------------------------------------------------------

@dataclass
class Plan:
    text: str
    calls: list = field(default_factory=list)   # (name, input) pairs

    @classmethod
    def tool(cls, text: str, name: str, tool_input: dict) -> "Plan":
        return cls(text, [(name, tool_input)])


def lines_note(*lines) -> str:
    return "\n".join(line for line in lines if line)


def short(text: str, limit: int = NOTE_MAX) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def names_fitting(prefix: str, names, limit: int = NOTE_MAX) -> str:
    """`prefix` + as many names as fit in one note line."""
    shown = []
    for name in names:
        if len(prefix + ", ".join(shown + [name])) > limit:
            break
        shown.append(name)
    return prefix + (", ".join(shown) if shown else "none")


# -- lessons and their titles (experiment 1, and the compact-tool task) ----------------

LESSONS_GLOB = "s*/README.md"
LESSON_RE = re.compile(r"^(s\d\d_[A-Za-z0-9_]+)/README\.md$", re.MULTILINE)
LESSONS_NOTE = "Lessons found: "
LESSONS_NOTE_RE = re.compile(r"Lessons found: ([A-Za-z0-9_, ]+)")


def lessons_found(view: View) -> list | None:
    """Lesson folders, from a whole glob result or from my note about one.

    [] when the glob found none; None when nothing here says either way.
    """
    for call in reversed(view.calls):
        if call.name == "glob" and call.arg("pattern") == LESSONS_GLOB and call.kind == "whole":
            return LESSON_RE.findall(call.text)
    match = None
    for match in LESSONS_NOTE_RE.finditer(view.knowledge):
        pass
    if match:
        return [name.strip() for name in match[1].split(",") if name.strip()]
    return None


def lesson_range(request: str) -> range:
    numbers = [int(n) for n in re.findall(r"\bs(\d\d)_\w+", request)]
    if len(numbers) >= 2:
        return range(min(numbers), max(numbers) + 1)
    return range(1, 6)


def title_in(text: str) -> str | None:
    return next((ln.strip() for ln in text.splitlines() if ln.startswith("# ")), None)


def title_note(path: str, title: str) -> str:
    return short(f"{path}: title '{title}'")


def find_title(view: View, path: str) -> tuple:
    """(title, where it came from) or (None, why it is missing)."""
    calls = view.reads(path)
    for call in reversed(calls):
        title = title_in(call.visible)
        if title:
            return title, "read" if call.kind == "whole" else "preview"
        if call.kind == "whole":
            return None, "error" if failed(call) else "untitled"
    copies = {c.saved for c in calls if c.saved}
    for call in view.calls:
        if call.name == "read_file" and call.path in copies and title_in(call.visible):
            return title_in(call.visible), "saved copy"
    note = re.search(re.escape(path) + r": title '([^\n]*)'", view.knowledge)
    if note:
        return note[1], "note"
    summary = re.search(r"read_file\(" + re.escape(path) + r"\) -> (# [^\n]*)", view.knowledge)
    if summary:
        return summary[1], "summary"
    if copies:
        return None, "saved:" + sorted(copies)[0]
    if calls:
        return None, "omitted"
    return None, "unread"


def notes_on_fresh(view: View) -> list:
    """One line per result I have just received: what I learned from it."""
    lines = []
    for call in view.fresh():
        if call.name == "glob" and LESSON_RE.search(call.text):
            lines.append(short(LESSONS_NOTE + ", ".join(LESSON_RE.findall(call.text))))
        elif call.name == "read_file" and call.path.endswith(".py"):
            lines.append(code_note(call.path, code_facts(call.text)))
        elif call.name == "read_file" and title_in(call.text):
            original = original_path(view, call)
            lines.append(title_note(original, title_in(call.text)))
        elif call.name == "bash" and call.command.startswith("grep -nE"):
            target = call.command.rsplit(" ", 1)[-1]
            lines.append(code_note(target, code_facts(call.text, outline=True)))
        elif call.name == "read_file":
            lines.append(short(f"{call.path}: first line '{first_line(call.text)}'"))
    return lines


def original_path(view: View, call: Call) -> str:
    """The file a saved copy was saved from, when `call` read a saved copy."""
    for other in view.calls:
        if other.saved == call.path and other.path:
            return other.path
    return call.path


def plan_titles(view: View) -> Plan:
    learned = notes_on_fresh(view)
    folders = lessons_found(view)
    if folders is None:
        return Plan.tool(lines_note(*learned, "I'll find the lesson folders first."),
                         "glob", {"pattern": LESSONS_GLOB})
    wanted = lesson_range(view.request)
    readmes = [f"{name}/README.md" for name in folders if int(name[1:3]) in wanted]
    if not readmes:
        return Plan(lines_note(*learned, f"I found no lesson README in this workspace for "
                                         f"s{wanted.start:02d} to s{wanted.stop - 1:02d} (glob "
                                         f"{LESSONS_GLOB}), so there are no titles to compare."))
    for path in readmes:
        title, why = find_title(view, path)
        if title or why in ("omitted", "untitled", "error"):
            continue
        target = why[len("saved:"):] if why.startswith("saved:") else path
        return Plan.tool(lines_note(*learned, f"Next I read {target}."),
                         "read_file", {"path": target})
    return Plan(lines_note(*learned, titles_answer(view, readmes)))


def titles_answer(view: View, readmes: list) -> str:
    found, missing, sources = [], [], {}
    for path in readmes:
        title, why = find_title(view, path)
        if title:
            found.append((path.split("/")[0], title))
            sources.setdefault(why, []).append(path.split("/")[0][:3])
        else:
            missing.append((path.split("/")[0], MISSING_WORDS[why]))
    lines = [f"The first-level titles of the {len(readmes)} lessons:"]
    lines += [f"- {folder}: {title}" for folder, title in found]
    lines += [f"- {folder}: title not available - {why}." for folder, why in missing]
    lines += ["", "How they are named: " + naming_pattern(found)]
    lines += ["", "Where this comes from: " + "; ".join(
        f"{', '.join(codes)} {SOURCE_WORDS[why]}" for why, codes in sources.items()) + "."]
    return "\n".join(lines)


MISSING_WORDS = {
    "omitted": f"its tool result was shrunk to {formats.OMITTED} and nothing left in this "
               f"context records it",
    "untitled": "its README has no first-level ('# ') heading",
    "error": "reading it failed",
}
SOURCE_WORDS = {
    "read": "from the files as read in this context",
    "preview": "from the persisted previews",
    "saved copy": "from the saved copies I re-read",
    "note": "from my own notes (their results are no longer in context)",
    "summary": "from the conversation summary",
}


def naming_pattern(found: list) -> str:
    if not found:
        return "I have no titles left to compare."
    parsed = [re.match(r"#\s+(s\d\d):\s+(.+?)(?:\s+-\s+(.+))?$", title) for _, title in found]
    if not all(parsed):
        return "the titles do not share one pattern."
    codes_match = all(p[1] == folder[:3] for p, (folder, _) in zip(parsed, found))
    echoes = all(all(word in p[2].lower() for word in folder[4:].split("_"))
                 for p, (folder, _) in zip(parsed, found))
    subtitles = all(p[3] for p in parsed)
    parts = ["every title opens with the lesson's code and a colon ("
             + ", ".join(p[1] for p in parsed) + ")"
             + (", the same code as its folder" if codes_match else "")]
    parts.append("then a short topic name" + (
        " that spells out the folder name (" + found[0][0][4:] + " -> " + parsed[0][2] + ")"
        if echoes else ""))
    if subtitles:
        parts.append("then ' - ' and a subtitle saying what the lesson adds ("
                     + "; ".join(f"'{p[3]}'" for p in parsed[:2]) + ", ...)")
    return ", ".join(parts) + "."


# -- a JSON file's structure (experiment 2) ---------------------------------------------

JSON_TYPES = {'"': "string", "{": "object", "[": "list", "t": "boolean", "f": "boolean",
              "n": "null"}


NON_SPACE = re.compile(r"\S")


def value_type(char: str) -> str:
    return JSON_TYPES.get(char, "number")


@dataclass
class Frame:
    kind: str                    # "{" or "["
    key: str | None = None       # the key this container sits under
    keys: list = field(default_factory=list)
    types: dict = field(default_factory=dict)
    children: list = field(default_factory=list)
    expect_key: bool = True
    complete: bool = False


def json_outline(text: str) -> dict:
    """The shape of a JSON text, even a cut one: top-level fields and the first record.

    The record is the first object inside a list; its nested lists of objects
    are described by the fields of their first element.
    """
    stack, root, record, key, i = [], None, None, None, 0
    while i < len(text):
        char = text[i]
        top = stack[-1] if stack else None
        if char == '"':
            end = _string_end(text, i)
            if end is None:
                break
            if top and top.kind == "{" and top.expect_key:
                key = _string_value(text[i:end])
                top.keys.append(key)
                top.expect_key = False
            i = end
            continue
        if char == ":" and top and top.kind == "{":
            top.types[key] = value_type(_next_char(text, i + 1))
        elif char in "{[":
            frame = Frame(char, key=key if top and top.kind == "{" else None)
            if top is None:
                root = frame
            else:
                top.children.append(frame)
            if char == "{" and top and top.kind == "[" and record is None:
                record = (frame, top.key)
            stack.append(frame)
        elif char in "}]" and stack:
            stack.pop().complete = True
        elif char == "," and top and top.kind == "{":
            top.expect_key = True
        i += 1
    return _outline_dict(root, record)


def _string_end(text: str, start: int) -> int | None:
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return None


def _string_value(literal: str) -> str:
    try:
        return json.loads(literal)
    except ValueError:
        return literal[1:-1]


def _next_char(text: str, start: int) -> str:
    match = NON_SPACE.search(text, start)
    return match.group() if match else ""


def _outline_dict(root, record) -> dict:
    outline = {"root": {"{": "object", "[": "list"}.get(root.kind) if root else None,
               "top": [], "record_in": None, "record": [], "complete": False, "nested": {}}
    if root and root.kind == "{":
        outline["top"] = [(k, root.types.get(k, "?")) for k in root.keys]
    if record:
        frame, where = record
        outline.update(record_in=where, complete=frame.complete,
                       record=[(k, frame.types.get(k, "?")) for k in frame.keys])
        outline["nested"] = {child.key: child.children[0].keys for child in frame.children
                             if child.kind == "[" and child.children
                             and child.children[0].kind == "{"}
    return outline


def json_outline_full(text: str) -> dict | None:
    """The same outline from a whole, valid JSON text (None if it does not parse)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    kind = lambda v: {dict: "object", list: "list", str: "string", bool: "boolean",
                      type(None): "null"}.get(type(v), "number")
    outline = {"root": kind(data), "top": [], "record_in": None, "record": [],
               "complete": True, "nested": {}}
    items = data
    if isinstance(data, dict):
        outline["top"] = [(k, kind(v)) for k, v in data.items()]
        where = next((k for k, v in data.items()
                      if isinstance(v, list) and v and isinstance(v[0], dict)), None)
        outline["record_in"], items = where, data.get(where, [])
    if isinstance(items, list) and items and isinstance(items[0], dict):
        first = items[0]
        outline["record"] = [(k, kind(v)) for k, v in first.items()]
        outline["nested"] = {k: list(v[0]) for k, v in first.items()
                             if isinstance(v, list) and v and isinstance(v[0], dict)}
    return outline


JSON_PATH_RE = re.compile(r"[\w./-]+\.json\b")


def plan_json(view: View, path: str) -> Plan:
    calls = view.reads(path)
    if not calls:
        return Plan.tool(f"I'll read {path} first.", "read_file", {"path": path})
    call = calls[-1]
    if failed(call):
        return Plan(f"I could not read {path}: {first_line(call.text)}")
    if call.kind == "whole":
        outline = json_outline_full(call.text) or json_outline(call.text)
        return Plan(json_answer(path, outline, "the whole file, as read in this context"))
    saved = call.saved
    peek = next((c for c in reversed(view.calls) if c.kind == "whole" and saved
                 and c.name == "bash" and saved in c.command), None)
    if peek:
        return Plan(json_answer(path, json_outline(peek.text),
                                f"the first {PEEK_CHARS} characters of the saved copy {saved}"))
    if call.kind == "persisted":
        outline = json_outline(call.visible)
        if outline["complete"]:
            return Plan(json_answer(path, outline, f"the persisted preview (full text: {saved})"))
    if saved:
        return Plan.tool(
            f"The result was saved to {saved}; what is left in context stops before the first "
            f"record ends, so I'll look at the first {PEEK_CHARS} characters of the saved copy.",
            "bash", {"command": f"head -c {PEEK_CHARS} {saved}"})
    return Plan(f"I can't describe {path}: its tool result was shrunk to {formats.OMITTED} "
                f"and nothing left in this context records its structure.")


def json_answer(path: str, outline: dict, source: str) -> str:
    top = ", ".join(k for k, _ in outline["top"])
    lines = [short(f"{path}: a JSON {outline['root'] or 'text'}"
                   + (f" with fields {top}" if top else "")), ""]
    if outline["top"]:
        lines.append("Top level: " + ", ".join(f"{k} ({t})" for k, t in outline["top"]) + ".")
    if outline["record"]:
        where = f" (the first element of '{outline['record_in']}')" if outline["record_in"] else ""
        lines.append(f"One record{where} has {len(outline['record'])} main fields:")
        for key, kind in outline["record"]:
            nested = outline["nested"].get(key)
            lines.append(f"- {key} ({kind})" + (
                f": a list of objects with {', '.join(nested)}" if nested else ""))
        if not outline["complete"]:
            lines.append("The record goes on past the text I have seen; these are its fields "
                         "up to that point.")
    else:
        lines.append("No complete record is visible in the text I have.")
    lines.append(f"Source: {source}.")
    return "\n".join(lines)


# -- two code files (experiment 3) ---------------------------------------------------------

PY_PATH_RE = re.compile(r"[\w./-]+\.py\b")
DEF_RE = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", re.MULTILINE)
OUTLINE_RE = re.compile(r"^\d+:\s*(?:async\s+)?(?:def|class)\s+(\w+)", re.MULTILINE)
# Most telling first: a note has room for a few names only.
CONTEXT_WORDS = ("budget", "snip", "micro", "compact", "summar", "reactive", "prepare",
                 "transcript", "context", "estimate", "persist_large", "window", "token")
MEMORY_WORDS = ("memor", "remember", "recall", "forget", "fact")


def outline_command(path: str) -> str:
    return f"grep -nE '^[[:space:]]*(async +)?(class|def) ' {path}"


def code_facts(text: str, outline: bool = False) -> dict:
    names = list(dict.fromkeys((OUTLINE_RE if outline else DEF_RE).findall(text)))

    def pick(words):
        rank = {n: next((i for i, w in enumerate(words) if w in n.lower()), None) for n in names}
        return sorted((n for n in names if rank[n] is not None), key=lambda n: rank[n])
    return {"lines": None if outline else len(text.splitlines()),
            "context": pick(CONTEXT_WORDS), "memory": pick(MEMORY_WORDS)}


def code_note(path: str, facts: dict) -> str:
    size = f"{facts['lines']} lines" if facts["lines"] else "outline"
    head = names_fitting(f"{path}: {size}; context: ", facts["context"], NOTE_MAX - 30)
    return names_fitting(f"{head}; memory: ", facts["memory"])


def parse_code_note(path: str, text: str) -> dict | None:
    match = None
    for match in re.finditer(re.escape(path) + r": (?:(\d+) lines|outline); context: "
                             r"([^;\n]*); memory: ([^\n]*)", text):
        pass
    if not match:
        return None
    names = lambda s: [] if s.strip() in ("none", "") else [
        n.strip() for n in s.rstrip(".").split(",") if n.strip()]
    return {"lines": int(match[1]) if match[1] else None,
            "context": names(match[2]), "memory": names(match[3])}


def find_code_facts(view: View, path: str) -> tuple:
    """(facts, where they came from) or (None, 'unread' / 'gone')."""
    for call in reversed(view.reads(path)):
        if failed(call):
            return None, "error"
        if call.kind == "whole":
            return code_facts(call.text), "read"
    for source, text in (("note", "\n".join(view.notes)), ("summary", "\n".join(view.summaries))):
        facts = parse_code_note(path, text)
        if facts:
            return facts, source
    for call in reversed(view.calls):
        if call.name == "bash" and call.command == outline_command(path) \
                and call.kind == "whole":
            return code_facts(call.text, outline=True), "outline"
    seen = view.reads(path) or f"read_file({path})" in view.knowledge
    return None, "gone" if seen else "unread"


def plan_code(view: View, paths: list) -> Plan:
    learned = notes_on_fresh(view)
    for path in paths:
        facts, why = find_code_facts(view, path)
        if facts:
            continue
        if why == "unread":
            return Plan.tool(lines_note(*learned, f"Next I read {path}."),
                             "read_file", {"path": path})
        if why == "error":
            continue
        tried = any(c.command == outline_command(path) for c in view.calls)
        if not tried:
            return Plan.tool(lines_note(
                *learned, f"I read {path} before, but its text is no longer in context; "
                          f"its outline is enough for the comparison."),
                "bash", {"command": outline_command(path)})
    return Plan(lines_note(*learned, code_answer(view, paths)))


CODE_SOURCES = {
    "read": "the file as read in this context",
    "note": "my own note, taken when I read it",
    "summary": "the conversation summary",
    "outline": "an outline of its class and def lines, taken after its text left the context",
}


def code_answer(view: View, paths: list) -> str:
    lines, known = ["Comparing " + " and ".join(paths) + ":", ""], {}
    for path in paths:
        facts, why = find_code_facts(view, path)
        if why == "error":
            lines.append(f"- {path}: I could not read it, so I can't say how it works.")
            continue
        if not facts:
            lines.append(f"- {path}: no longer in this context (its result was shrunk and I "
                         f"kept no note), so I can't say how it works.")
            continue
        known[path] = facts
        size = f" ({facts['lines']} lines)" if facts["lines"] else ""
        lines.append(f"- {path}{size}: current context through "
                     f"{', '.join(facts['context']) or 'nothing named for it'}; persistent "
                     f"memory through {', '.join(facts['memory']) or 'nothing named for it'}. "
                     f"(From {CODE_SOURCES[why]}.)")
    if len(known) >= 2:
        context_side = max(known, key=lambda p: len(known[p]["context"]))
        memory_side = max(known, key=lambda p: len(known[p]["memory"]))
        lines += ["", f"In short: {context_side} manages the current context, keeping the "
                      f"messages list under the window within one session; "
                      + (f"{memory_side} keeps persistent memory that outlives a compaction "
                         f"or a new session." if known[memory_side]["memory"]
                         else "neither names a persistent memory.")]
    return "\n".join(lines)


# -- the compact tool (a write and a compact in one batch) ----------------------------

def plan_compact_tool(view: View, note_path: str) -> Plan:
    learned = notes_on_fresh(view)
    written = written_result(view, note_path)
    if written and written.startswith("Error: "):
        return Plan(lines_note(*learned, f"I could not write {note_path}: {written}"))
    if written:
        return Plan(lines_note(*learned, compact_tool_answer(view, note_path, written)))
    folders = lessons_found(view)
    if folders is None:
        return Plan.tool(lines_note(*learned, "I'll list the lessons first."),
                         "glob", {"pattern": LESSONS_GLOB})
    content = ("# Progress\n\nLessons in this workspace: " + (", ".join(folders) or "none found")
               + ".\nNext: read each lesson's README.\n")
    return Plan(lines_note(*learned, f"Writing {note_path}, then compacting in the same "
                                     f"batch: this stage is done."),
                [("write_file", {"path": note_path, "content": content}), ("compact", {})])


def written_result(view: View, path: str) -> str | None:
    """The result of my write of `path` ('Wrote ...' or 'Error: ...'), if I made one."""
    for call in reversed(view.calls):
        if call.name == "write_file" and call.path == path and call.kind == "whole" \
                and call.text.startswith(("Wrote", "Error: ")):
            return first_line(call.text)
    match = re.search(r"write_file\(" + re.escape(path) + r"\) -> ((?:Wrote|Error: )[^\n]*)",
                      view.knowledge)
    return match[1] if match else None


def compact_tool_answer(view: View, path: str, written: str) -> str:
    folders = lessons_found(view) or []
    lines = [f"Done: {written}."]
    if folders:
        lines.append(f"The note lists the {len(folders)} lessons: {', '.join(folders)}.")
    if view.compacted:
        lines.append("The compact tool ran after that batch, so the earlier conversation is "
                     "now a summary and the write is recorded in it; nothing needs redoing.")
    else:
        lines.append("I asked for a compaction in the same batch.")
    return "\n".join(lines)


# -- anything else --------------------------------------------------------------------

FILE_RE = re.compile(r"(?:[\w.-]+/)*[\w-]+\.(?:md|py|json|txt|log|toml|ya?ml|cfg|ini|js|ts|"
                     r"html|css|sh|csv)\b")
FILES_NOTE = "Files found: "


def plan_generic(view: View) -> Plan:
    learned = notes_on_fresh_generic(view)
    paths = list(dict.fromkeys(FILE_RE.findall(view.request)))
    listing = None
    if not paths:
        listing = files_found(view)
        if listing is None:
            return Plan.tool(lines_note(*learned, "I'll look at what the workspace holds."),
                             "glob", {"pattern": "*"})
        paths = [p for p in listing if p.lower() == "readme.md"] or \
                [p for p in listing if FILE_RE.fullmatch(p)][:2]
    for path in paths[:3]:
        if first_line_of(view, path) is None and not view.reads(path):
            return Plan.tool(lines_note(*learned, f"Next I read {path}."),
                             "read_file", {"path": path})
    return Plan(lines_note(*learned, generic_answer(view, paths[:3], listing)))


def notes_on_fresh_generic(view: View) -> list:
    lines = []
    for call in view.fresh():
        if call.name == "glob":
            lines.append(short(FILES_NOTE + ", ".join(call.text.splitlines())))
        elif call.name == "read_file":
            lines.append(short(f"{call.path}: first line '{first_line(call.text)}'"))
    return lines


def files_found(view: View) -> list | None:
    for call in reversed(view.calls):
        if call.name == "glob" and call.arg("pattern") == "*" and call.kind == "whole":
            return [ln for ln in call.text.splitlines() if ln and ln != "(no match)"]
    match = None
    for match in re.finditer(re.escape(FILES_NOTE) + r"([^\n]*)", view.knowledge):
        pass
    return [p.strip() for p in match[1].rstrip(".").split(",")] if match else None


def first_line_of(view: View, path: str) -> str | None:
    for call in reversed(view.reads(path)):
        if call.visible:
            return first_line(call.visible)
    match = re.search(re.escape(path) + r": first line '([^\n]*)'", view.knowledge) or \
        re.search(r"read_file\(" + re.escape(path) + r"\) -> ([^\n]*)", view.knowledge)
    return match[1] if match else None


def generic_answer(view: View, paths: list, listing) -> str:
    lines = []
    if listing:
        lines.append(f"The workspace holds {len(listing)} entries at the top: "
                     f"{', '.join(listing)}.")
    elif listing is not None:
        lines.append("The workspace is empty: a glob for * matched nothing.")
    for path in paths:
        line = first_line_of(view, path)
        if line is None:
            lines.append(f"- {path}: its text is no longer in this context.")
        elif line.startswith("Error: "):
            lines.append(f"- {path}: I could not read it ({line}).")
        else:
            lines.append(f"- {path} begins: {line!r}")
    lines.append("That is what I could read for this request; ask about a file to go further.")
    return "\n".join(lines)


# -- the summary the compactor asks for --------------------------------------------------

MESSAGE_START = re.compile(r'\{"(?:role|content)": ')


def recover_messages(text: str) -> tuple[list, bool]:
    """The messages in a summary input, and whether its middle was cut out."""
    try:
        data = json.loads(text)
        if isinstance(data, list):
            return [m for m in data if isinstance(m, dict) and m.get("role")], False
    except ValueError:
        pass
    head, sep, tail = text.partition(formats.MIDDLE_OMITTED)
    found = _whole_messages(head) + (_whole_messages(tail) if sep else [])
    if not found and text.strip():
        found = [{"role": "user", "content": text}]
    return found, bool(sep)


def _whole_messages(fragment: str) -> list:
    """Every message object that survives whole in a piece of a JSON list."""
    decoder, found, pos = json.JSONDecoder(), [], 0
    while True:
        match = MESSAGE_START.search(fragment, pos)
        if not match:
            return found
        try:
            value, end = decoder.raw_decode(fragment, match.start())
        except ValueError:
            pos = match.end()
            continue
        if isinstance(value, dict) and value.get("role") in ("user", "assistant"):
            found.append(value)
            pos = end
        else:
            pos = match.end()


def summarize(request: dict) -> str:
    messages = request.get("messages") or []
    text = user_text(messages[-1]) if messages else ""
    recovered, cut = recover_messages(text)
    summary = extractive_summary(recovered)
    if cut:
        summary += ("\n\n(The middle of the conversation was not in my input; the full "
                    "transcript is on disk.)")
    return summary


# -- choosing and answering ------------------------------------------------------------------

def choose_plan(view: View) -> Plan:
    request = view.request
    lower = request.lower()
    notes_md = re.findall(r"[\w./-]+\.md\b", request)
    if "compact" in lower and "write" in lower and notes_md:
        return plan_compact_tool(view, notes_md[0])
    if "readme" in lower and "title" in lower:
        return plan_titles(view)
    json_paths = JSON_PATH_RE.findall(request)
    if json_paths:
        return plan_json(view, json_paths[0])
    code_paths = list(dict.fromkeys(PY_PATH_RE.findall(request)))
    if len(code_paths) >= 2:
        return plan_code(view, code_paths)
    return plan_generic(view)


def digest(request: dict) -> str:
    seed = f"{request.get('model')}\n{prompt_text(request)}"
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def content_of(plan: Plan, request: dict, key: str) -> tuple[list, str]:
    offered = {t.get("name") for t in request.get("tools") or [] if isinstance(t, dict)}
    missing = [name for name, _ in plan.calls if name not in offered]
    if missing:
        text = (f"{plan.text}\n(I would call {missing[0]} next, but this request offers no "
                f"such tool.)")
        return [{"type": "text", "text": text}], "end_turn"
    content = [{"type": "text", "text": plan.text}]
    for i, (name, tool_input) in enumerate(plan.calls):
        tool_id = "toolu_" + hashlib.sha256(f"{key}:{i}".encode()).hexdigest()[:24]
        content.append({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
    return content, "tool_use" if plan.calls else "end_turn"


def respond(request: dict) -> dict:
    """The assistant message the offline model answers `request` with."""
    key = digest(request)
    if formats.SUMMARY_SYSTEM in system_text(request):
        content, stop = [{"type": "text", "text": summarize(request)}], "end_turn"
    else:
        plan = choose_plan(read_view(request["messages"]))
        content, stop = content_of(plan, request, key)
    return {
        "id": "msg_" + key[:24], "type": "message", "role": "assistant",
        "model": request.get("model", MODEL_NAME), "content": content,
        "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": estimate_tokens(request),
                  "output_tokens": estimate_text_tokens(json.dumps(content, ensure_ascii=False))},
    }
