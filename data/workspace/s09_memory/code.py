#!/usr/bin/env python3
"""s09: Memory - what survives a compaction and a new session.

s08 keeps the *current* conversation under the window: it archives, shortens
and summarizes, and it is allowed to drop details that can be recovered from
disk. Some facts must outlive all of that: the user's standing preferences,
decisions about the project, where things are. This lesson gives the agent a
small persistent memory:

    .memory/
        MEMORY.md          the index: one line per note, always in the prompt
        notes/<key>.md     one note per file, read on demand

and three tools to use it: `remember` (write or replace a note), `recall`
(search notes by keyword) and `forget` (delete a note). The index is put into
the system prompt at the start of every session, so the model knows what it
knows without reading every note.

The difference from s08 in one sentence: compaction decides what the model can
stop seeing *now*; memory decides what the model must be able to see *later*.

Run it from the repository root:

    python s09_memory/code.py            # the agent, with memory tools
    python s09_memory/code.py --check    # self-checks on a scratch folder
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

try:
    from anthropic import Anthropic
except ImportError:  # the lesson can be read and checked without the SDK
    Anthropic = None

try:
    from dotenv import load_dotenv
except ImportError:
    def load_dotenv(*_args, **_kwargs):
        return False


# --------------------------------------------------------------------------
# Settings
# --------------------------------------------------------------------------

WORKDIR = Path.cwd()
MEMORY_DIR = WORKDIR / ".memory"
INDEX_NAME = "MEMORY.md"
NOTES_NAME = "notes"

MAX_NOTE_CHARS = 4_000        # a note is a fact, not a document
MAX_INDEX_LINES = 200         # the index rides in every prompt: keep it short
MAX_RECALL_RESULTS = 5
MAX_TURNS = 50
MAX_TOOL_OUTPUT = 50_000
KEY_PATTERN = re.compile(r"\A[a-z0-9][a-z0-9_-]{0,63}\Z")

KINDS = ("preference", "decision", "fact", "location", "todo")

BASE_SYSTEM = (
    f"You are a coding agent working in {WORKDIR.name}. Use the tools to inspect "
    "and change files. You have a persistent memory. Save a note with `remember` "
    "when the user states a lasting preference, when a decision is made that a "
    "later session must respect, or when you find where something important "
    "lives. Do not save what can be read again from the files. Use `recall` "
    "before asking the user something they may have told you already."
)


# --------------------------------------------------------------------------
# A note
# --------------------------------------------------------------------------

@dataclass
class Note:
    key: str
    kind: str
    text: str
    tags: list = field(default_factory=list)
    uses: int = 0             # how often recall returned it
    sessions: int = 1         # in how many sessions it was written or confirmed

    def validate(self) -> None:
        if not KEY_PATTERN.match(self.key):
            raise ValueError(f"note key {self.key!r}: use lowercase letters, digits, "
                             "'-' and '_', at most 64 characters")
        if self.kind not in KINDS:
            raise ValueError(f"note {self.key!r}: kind must be one of {', '.join(KINDS)}")
        if not self.text.strip():
            raise ValueError(f"note {self.key!r} has no text")
        if len(self.text) > MAX_NOTE_CHARS:
            raise ValueError(f"note {self.key!r} is {len(self.text)} characters; "
                             f"the limit is {MAX_NOTE_CHARS}")

    def headline(self) -> str:
        """The note's line in the index: key, kind and the first line of text."""
        first = self.text.strip().splitlines()[0]
        if len(first) > 100:
            first = first[:97] + "..."
        tags = f" [{', '.join(self.tags)}]" if self.tags else ""
        return f"- {self.key} ({self.kind}){tags}: {first}"

    def to_markdown(self) -> str:
        header = {"key": self.key, "kind": self.kind, "tags": self.tags,
                  "uses": self.uses, "sessions": self.sessions}
        return f"<!-- {json.dumps(header, ensure_ascii=False)} -->\n{self.text.strip()}\n"

    @classmethod
    def from_markdown(cls, text: str) -> "Note":
        match = re.match(r"\A<!-- (\{.*?\}) -->\n", text)
        if not match:
            raise ValueError("note file has no header line")
        header = json.loads(match.group(1))
        return cls(key=header["key"], kind=header["kind"], text=text[match.end():].strip(),
                   tags=list(header.get("tags", [])), uses=int(header.get("uses", 0)),
                   sessions=int(header.get("sessions", 1)))


# --------------------------------------------------------------------------
# The store: one file per note, and an index rebuilt from the notes
# --------------------------------------------------------------------------

def write_whole(path: Path, text: str) -> None:
    """Temporary name, then rename: a crash never leaves half a note."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class MemoryStore:
    """Notes on disk. The files are the truth; the index is derived from them."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.notes_dir = self.root / NOTES_NAME
        self.index_path = self.root / INDEX_NAME

    # -- reading ------------------------------------------------------------
    def path_of(self, key: str) -> Path:
        if not KEY_PATTERN.match(key):
            raise ValueError(f"bad note key {key!r}")
        return self.notes_dir / f"{key}.md"

    def get(self, key: str) -> Note | None:
        path = self.path_of(key)
        if not path.is_file():
            return None
        return Note.from_markdown(path.read_text(encoding="utf-8"))

    def all(self) -> list:
        if not self.notes_dir.is_dir():
            return []
        notes = []
        for path in sorted(self.notes_dir.glob("*.md")):
            try:
                notes.append(Note.from_markdown(path.read_text(encoding="utf-8")))
            except (ValueError, KeyError, json.JSONDecodeError) as error:
                # A hand-edited note that no longer parses is reported, not lost.
                print(f"[memory: skipped {path.name}: {error}]")
        return notes

    # -- writing ------------------------------------------------------------
    def put(self, note: Note) -> str:
        note.validate()
        old = self.get(note.key)
        if old is not None:
            note.uses = max(note.uses, old.uses)
            note.sessions = old.sessions + 1
        write_whole(self.path_of(note.key), note.to_markdown())
        self.rebuild_index()
        return "replaced" if old else "saved"

    def delete(self, key: str) -> bool:
        path = self.path_of(key)
        if not path.is_file():
            return False
        path.unlink()
        self.rebuild_index()
        return True

    def touch(self, note: Note) -> None:
        """Count a use without rebuilding the index (uses are not in it)."""
        note.uses += 1
        write_whole(self.path_of(note.key), note.to_markdown())

    # -- the index ----------------------------------------------------------
    def rebuild_index(self) -> str:
        notes = sorted(self.all(), key=lambda n: (KINDS.index(n.kind), n.key))
        lines = ["# Memory index", "",
                 "One line per note. Read a note with recall when you need its detail.", ""]
        for kind in KINDS:
            group = [n for n in notes if n.kind == kind]
            if group:
                lines.append(f"## {kind}")
                lines += [n.headline() for n in group]
                lines.append("")
        if len(lines) > MAX_INDEX_LINES:
            dropped = len(lines) - MAX_INDEX_LINES
            lines = lines[:MAX_INDEX_LINES] + [f"... ({dropped} more lines; use recall)"]
        text = "\n".join(lines).rstrip() + "\n"
        write_whole(self.index_path, text)
        return text

    def index_text(self) -> str:
        if not self.index_path.is_file():
            return ""
        return self.index_path.read_text(encoding="utf-8")


# --------------------------------------------------------------------------
# Recall: a keyword search that a learner can follow by hand
# --------------------------------------------------------------------------

WORD = re.compile(r"[a-z0-9_]+")
STOP_WORDS = frozenset("a an and are as at be by for from how in is it of on or the "
                       "this to was we what when where which with you".split())


def words(text: str) -> list:
    return [w for w in WORD.findall(text.lower()) if w not in STOP_WORDS]


def score(note: Note, query_words: list) -> float:
    """Matches in key and tags count more than matches in the text.

    No embeddings on purpose: a learner can see exactly why a note came back,
    and a miss is easy to explain (the word was not there).
    """
    if not query_words:
        return 0.0
    key_words = set(words(note.key.replace("-", " ")))
    tag_words = set(words(" ".join(note.tags)))
    text_words = words(note.text)
    total = 0.0
    for word in query_words:
        if word in key_words:
            total += 3.0
        if word in tag_words:
            total += 2.0
        total += min(3, text_words.count(word)) * 1.0
    # Well-used notes win ties; a little, not enough to drown a real match.
    return total + min(note.uses, 10) * 0.05


def recall(store: MemoryStore, query: str, limit: int = MAX_RECALL_RESULTS) -> list:
    query_words = words(query)
    ranked = sorted(((score(n, query_words), n.key, n) for n in store.all()),
                    key=lambda row: (-row[0], row[1]))
    hits = [n for s, _, n in ranked if s >= 1.0][:limit]
    for note in hits:
        store.touch(note)
    return hits


def render_hits(hits: list) -> str:
    if not hits:
        return "(no note matches)"
    parts = []
    for note in hits:
        tags = f" tags: {', '.join(note.tags)}" if note.tags else ""
        parts.append(f"## {note.key} ({note.kind}){tags}\n{note.text}")
    return "\n\n".join(parts)


# --------------------------------------------------------------------------
# Consolidation: keep the memory small as it grows
# --------------------------------------------------------------------------

def similar(a: Note, b: Note) -> float:
    """Share of words two notes have in common (Jaccard), 0..1."""
    wa, wb = set(words(a.text)), set(words(b.text))
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def find_duplicates(notes: list, threshold: float = 0.7) -> list:
    """Pairs of notes of the same kind that say nearly the same thing."""
    pairs = []
    for i, a in enumerate(notes):
        for b in notes[i + 1:]:
            if a.kind == b.kind and similar(a, b) >= threshold:
                pairs.append((a.key, b.key))
    return pairs


def merge_notes(store: MemoryStore, keep: str, drop: str) -> str:
    """Fold one note into another: texts joined, tags united, counts added."""
    a, b = store.get(keep), store.get(drop)
    if a is None or b is None:
        missing = keep if a is None else drop
        return f"Error: no note {missing!r}"
    extra = [line for line in b.text.splitlines() if line.strip() and line not in a.text]
    a.text = "\n".join([a.text.strip(), *extra])[:MAX_NOTE_CHARS]
    a.tags = sorted(set(a.tags) | set(b.tags))
    a.uses += b.uses
    store.put(a)
    store.delete(drop)
    return f"merged {drop} into {keep}"


def stale_notes(notes: list, min_sessions: int = 1) -> list:
    """Notes never recalled and never confirmed: candidates to forget."""
    return [n.key for n in notes if n.uses == 0 and n.sessions <= min_sessions
            and n.kind == "todo"]


def consolidate(store: MemoryStore) -> list:
    """Merge duplicates; report (do not delete) stale todo notes."""
    report = []
    for keep, drop in find_duplicates(store.all()):
        if store.get(keep) and store.get(drop):
            report.append(merge_notes(store, keep, drop))
    for key in stale_notes(store.all()):
        report.append(f"stale: {key} (never recalled; forget it if it is done)")
    return report


# --------------------------------------------------------------------------
# Memory and compaction: what to save before a summary throws details away
# --------------------------------------------------------------------------

PREFERENCE_HINTS = re.compile(
    r"\b(always|never|prefer|please use|do not|don't|from now on)\b", re.IGNORECASE)


def user_texts(messages) -> list:
    """What the user typed, tool results left out (they are user messages too)."""
    texts = []
    for message in messages:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            if not content.startswith(("[Compacted]", "[Reactive compact]")):
                texts.append(content)
        elif isinstance(content, list):
            texts += [b.get("text", "") for b in content if b.get("type") == "text"]
    return texts


def candidate_preferences(messages) -> list:
    """Sentences that sound like standing instructions; a hint for the model.

    The harness does not save them by itself: it shows them to the model before
    a compaction, and the model decides with `remember`. Saving every sentence
    with "always" in it would fill the memory with noise.
    """
    found = []
    for text in user_texts(messages):
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            if PREFERENCE_HINTS.search(sentence) and len(sentence) < 300:
                found.append(sentence.strip())
    return list(dict.fromkeys(found))


def before_compaction_reminder(messages) -> str | None:
    """A user message the harness may add before s08's summary step."""
    hints = candidate_preferences(messages)
    if not hints:
        return None
    lines = "\n".join(f"- {h}" for h in hints[:10])
    return ("[memory check] The conversation is about to be summarized. If any of "
            "these are lasting preferences or decisions, save them with remember:\n"
            + lines)


# --------------------------------------------------------------------------
# Tools: the five file tools of s02, plus remember, recall, forget
# --------------------------------------------------------------------------

DENY = ("sudo ", "shutdown", "reboot", "mkfs", "> /dev/sd")


def inside_workdir(path: str) -> Path:
    root = WORKDIR.resolve()
    target = (root / path).resolve()
    if target != root and root not in target.parents:
        raise ValueError(f"path escapes the workspace: {path}")
    if MEMORY_DIR.resolve() in target.parents:
        # Notes change only through the memory tools, so the index stays right.
        raise ValueError("use remember/forget to change the memory folder")
    return target


def run_bash(command: str) -> str:
    if any(bad in command for bad in DENY):
        return "Error: command refused"
    try:
        done = subprocess.run(command, shell=True, cwd=WORKDIR, capture_output=True,
                              text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "Error: timed out after 120 s"
    return (done.stdout + done.stderr).strip()[:MAX_TOOL_OUTPUT] or "(no output)"


def run_read(path: str, limit: int | None = None) -> str:
    lines = inside_workdir(path).read_text(encoding="utf-8").splitlines()
    if limit and limit < len(lines):
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join(lines)[:MAX_TOOL_OUTPUT]


def run_write(path: str, content: str) -> str:
    target = inside_workdir(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return f"Wrote {len(content)} characters to {path}"


def run_edit(path: str, old_text: str, new_text: str) -> str:
    target = inside_workdir(path)
    text = target.read_text(encoding="utf-8")
    if old_text not in text:
        return f"Error: text not found in {path}"
    target.write_text(text.replace(old_text, new_text, 1), encoding="utf-8")
    return f"Edited {path}"


def run_glob(pattern: str) -> str:
    root = WORKDIR.resolve()
    hits = sorted(p.relative_to(root).as_posix() for p in root.glob(pattern))
    return "\n".join(hits) or "(no match)"


def memory_tools(store: MemoryStore) -> dict:
    def remember(key: str, kind: str, text: str, tags: list | None = None) -> str:
        outcome = store.put(Note(key=key, kind=kind, text=text, tags=sorted(tags or [])))
        return f"Memory {outcome}: {key}"

    def recall_tool(query: str) -> str:
        return render_hits(recall(store, query))

    def forget(key: str) -> str:
        return f"Forgot {key}" if store.delete(key) else f"Error: no note {key!r}"

    return {"remember": remember, "recall": recall_tool, "forget": forget}


def schema(name, description, properties, required):
    return {"name": name, "description": description,
            "input_schema": {"type": "object", "properties": properties,
                             "required": list(required)}}


STRING = {"type": "string"}
TOOLS = [
    schema("bash", "Run a shell command.", {"command": STRING}, ["command"]),
    schema("read_file", "Read a file.", {"path": STRING, "limit": {"type": "integer"}},
           ["path"]),
    schema("write_file", "Write a file.", {"path": STRING, "content": STRING},
           ["path", "content"]),
    schema("edit_file", "Replace one exact text in a file.",
           {"path": STRING, "old_text": STRING, "new_text": STRING},
           ["path", "old_text", "new_text"]),
    schema("glob", "List files matching a pattern.", {"pattern": STRING}, ["pattern"]),
    schema("remember", "Save or replace a note in persistent memory.",
           {"key": STRING, "kind": {"type": "string", "enum": list(KINDS)},
            "text": STRING, "tags": {"type": "array", "items": STRING}},
           ["key", "kind", "text"]),
    schema("recall", "Search persistent memory by keywords.", {"query": STRING}, ["query"]),
    schema("forget", "Delete a note from persistent memory.", {"key": STRING}, ["key"]),
]


def make_handlers(store: MemoryStore) -> dict:
    handlers = {"bash": run_bash, "read_file": run_read, "write_file": run_write,
                "edit_file": run_edit, "glob": run_glob}
    handlers.update(memory_tools(store))
    return handlers


def run_tool(handlers: dict, name: str, tool_input: dict) -> str:
    handler = handlers.get(name)
    if handler is None:
        return f"Error: unknown tool {name}"
    try:
        return handler(**tool_input)
    except Exception as error:  # errors go back to the model as text
        return f"Error: {error}"


# --------------------------------------------------------------------------
# The system prompt: the base rules, then the memory index
# --------------------------------------------------------------------------

def system_prompt(store: MemoryStore) -> str:
    """The index goes in every prompt; the notes themselves only when recalled.

    This keeps the fixed cost of memory to the size of the index (a few
    thousand characters at most), however many notes there are.
    """
    index = store.index_text().strip()
    if not index:
        return BASE_SYSTEM + "\n\nYour memory is empty."
    return f"{BASE_SYSTEM}\n\n<memory-index>\n{index}\n</memory-index>"


# --------------------------------------------------------------------------
# The loop (compaction from s08 is left out here to keep the lesson short;
# the two combine by calling before_compaction_reminder before step 4)
# --------------------------------------------------------------------------

def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(exclude_none=True))
    return value


@dataclass
class Session:
    client: object
    model: str
    store: MemoryStore
    messages: list = field(default_factory=list)

    def turn(self, request: str) -> str:
        handlers = make_handlers(self.store)
        self.messages.append({"role": "user", "content": request})
        for _ in range(MAX_TURNS):
            reply = self.client.messages.create(
                model=self.model, system=system_prompt(self.store),
                messages=self.messages, tools=TOOLS, max_tokens=8000)
            self.messages.append({"role": "assistant", "content": plain(reply.content)})
            if reply.stop_reason != "tool_use":
                return "".join(b.text for b in reply.content if b.type == "text")
            results = []
            for block in reply.content:
                if block.type == "tool_use":
                    output = run_tool(handlers, block.name, block.input)
                    print(f"> {block.name}: {output.splitlines()[0][:100] if output else ''}")
                    results.append({"type": "tool_result", "tool_use_id": block.id,
                                    "content": output})
            self.messages.append({"role": "user", "content": results})
        return "(stopped: too many turns for one request)"


# --------------------------------------------------------------------------
# Moving memory between machines, and seeing what it holds
# --------------------------------------------------------------------------

def export_memory(store: MemoryStore) -> str:
    """All notes as one JSON document, sorted by key, for backup or review."""
    notes = sorted(store.all(), key=lambda n: n.key)
    rows = [{"key": n.key, "kind": n.kind, "text": n.text, "tags": n.tags,
             "uses": n.uses, "sessions": n.sessions} for n in notes]
    return json.dumps({"version": 1, "notes": rows}, indent=2, ensure_ascii=False) + "\n"


def import_memory(store: MemoryStore, document: str, replace: bool = False) -> list:
    """Load notes from an export. Existing keys are kept unless replace is True.

    Every note is validated before any is written, so a bad document changes
    nothing: the report names the first bad note and why.
    """
    data = json.loads(document)
    if not isinstance(data, dict) or data.get("version") != 1:
        raise ValueError("not a memory export (expected version 1)")
    incoming = []
    for i, row in enumerate(data.get("notes", [])):
        try:
            note = Note(key=row["key"], kind=row["kind"], text=row["text"],
                        tags=list(row.get("tags", [])))
            note.validate()
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"notes[{i}]: {error}") from None
        incoming.append(note)
    report = []
    for note in incoming:
        if store.get(note.key) is not None and not replace:
            report.append(f"kept existing {note.key}")
            continue
        report.append(f"{store.put(note)} {note.key}")
    return report


def memory_stats(store: MemoryStore) -> dict:
    """Counts a learner can compare with s08's context size."""
    notes = store.all()
    by_kind = {kind: sum(1 for n in notes if n.kind == kind) for kind in KINDS}
    return {
        "notes": len(notes),
        "by_kind": by_kind,
        "note_chars": sum(len(n.text) for n in notes),
        "index_chars": len(store.index_text()),
        "never_recalled": sum(1 for n in notes if n.uses == 0),
    }


def render_stats(stats: dict) -> str:
    kinds = ", ".join(f"{k}: {v}" for k, v in stats["by_kind"].items() if v)
    return (f"{stats['notes']} notes ({kinds or 'none'}); "
            f"{stats['note_chars']:,d} characters in notes, "
            f"{stats['index_chars']:,d} in the index that rides in every prompt; "
            f"{stats['never_recalled']} never recalled")


# --------------------------------------------------------------------------
# Self-checks on a scratch folder: python code.py --check
# --------------------------------------------------------------------------

def check_roundtrip(store: MemoryStore) -> None:
    note = Note("test-command", "fact", "Run the tests with: python -m pytest -q",
                tags=["tests"])
    assert store.put(note) == "saved"
    back = store.get("test-command")
    assert back.text == note.text and back.tags == ["tests"]
    assert store.put(Note("test-command", "fact", "python -m pytest -q tests/")) == "replaced"
    assert store.get("test-command").sessions == 2
    print("roundtrip: saved, read back, replaced")


def check_index(store: MemoryStore) -> None:
    store.put(Note("indent", "preference", "Use four spaces, never tabs.", tags=["style"]))
    store.put(Note("db-choice", "decision", "SQLite for the course; no server database."))
    index = store.index_text()
    assert "## preference" in index and "- indent (preference) [style]" in index
    assert index.index("## preference") < index.index("## decision")
    print(f"index: {len(index.splitlines())} lines")


def check_recall(store: MemoryStore) -> None:
    hits = recall(store, "which database do we use?")
    assert hits and hits[0].key == "db-choice", [h.key for h in hits]
    assert recall(store, "kubernetes") == []
    assert store.get("db-choice").uses == 1
    print(f"recall: {hits[0].key} for 'which database do we use?'")


def check_bad_input(store: MemoryStore) -> None:
    for bad in (Note("Bad Key", "fact", "x"), Note("ok", "rumour", "x"),
                Note("ok", "fact", "   "), Note("ok", "fact", "x" * (MAX_NOTE_CHARS + 1))):
        try:
            store.put(bad)
        except ValueError as error:
            assert bad.key in str(error) or "key" in str(error)
        else:
            raise AssertionError(f"accepted a bad note: {bad}")
    print("bad input: four bad notes refused with a reason")


def check_consolidate(store: MemoryStore) -> None:
    store.put(Note("style-a", "preference", "Use four spaces for indentation in Python files."))
    store.put(Note("style-b", "preference", "Use four spaces for indentation in Python files!"))
    report = consolidate(store)
    assert any("merged" in line for line in report), report
    assert (store.get("style-a") is None) != (store.get("style-b") is None)
    print("consolidate: " + "; ".join(report))


def check_preferences() -> None:
    messages = [
        {"role": "user", "content": "Please fix the parser. Always run the tests before you "
                                    "commit. The file is long."},
        {"role": "assistant", "content": [{"type": "text", "text": "Sure."}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "never mind this, it is file text"}]},
    ]
    hints = candidate_preferences(messages)
    assert hints == ["Always run the tests before you commit."], hints
    assert "remember" in before_compaction_reminder(messages)
    print("preferences: one standing instruction found, tool text ignored")


def check_export_import(store: MemoryStore) -> None:
    document = export_memory(store)
    with tempfile.TemporaryDirectory() as other:
        copy = MemoryStore(Path(other) / ".memory")
        report = import_memory(copy, document)
        assert all(line.startswith("saved") for line in report), report
        assert export_memory(copy).count('"key"') == document.count('"key"')
    bad = json.dumps({"version": 1, "notes": [{"key": "x y", "kind": "fact", "text": "t"}]})
    try:
        import_memory(store, bad)
    except ValueError as error:
        assert str(error).startswith("notes[0]"), error
    else:
        raise AssertionError("a bad export was accepted")
    copied = len(json.loads(document)["notes"])
    print(f"export/import: {copied} notes copied; bad export refused")
    print("stats: " + render_stats(memory_stats(store)))


def run_checks() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        store = MemoryStore(Path(scratch) / ".memory")
        check_roundtrip(store)
        check_index(store)
        check_recall(store)
        check_bad_input(store)
        check_consolidate(store)
        check_preferences()
        check_export_import(store)
    print("all checks passed")


# --------------------------------------------------------------------------
# The REPL
# --------------------------------------------------------------------------

def make_client():
    load_dotenv(override=True)
    if Anthropic is None:
        sys.exit("the anthropic package is not installed")
    model = os.environ.get("MODEL_ID")
    if not model:
        sys.exit("set MODEL_ID (and ANTHROPIC_API_KEY) in the environment or .env")
    base_url = os.environ.get("ANTHROPIC_BASE_URL")
    return (Anthropic(base_url=base_url) if base_url else Anthropic()), model


def repl() -> None:
    client, model = make_client()
    store = MemoryStore(MEMORY_DIR)
    store.rebuild_index()
    session = Session(client, model, store)
    print(f"[memory: {len(store.all())} notes]")
    while True:
        try:
            query = input("\033[36ms09 >> \033[0m")
        except (EOFError, KeyboardInterrupt):
            break
        if query.strip().lower() in ("q", "exit", ""):
            break
        if query.strip() == "/memory":
            print(store.index_text() or "(empty)")
            continue
        if query.strip() == "/stats":
            print(render_stats(memory_stats(store)))
            continue
        if query.strip() == "/consolidate":
            print("\n".join(consolidate(store)) or "(nothing to do)")
            continue
        print(session.turn(query))


if __name__ == "__main__":
    if "--check" in sys.argv:
        run_checks()
    else:
        repl()
