"""Where a probe stands in what the model is sent: in context, on disk, in a summary only, or gone.

    from compact_course.probes.status import Locator
    locator = Locator(probes, store)
    locator.statuses(sent)      # one of STATUSES per probe, structurally, no model

- in context: the probe's line or sentence is readable verbatim in the request (an
  artifact: a call of its tool naming its file is there, `compact_course.probes.file_tools`).
  Readable means what the model can read as it is: a whole tool result, the preview
  of a persisted one but its last line (a preview may cut it), the user's and the
  assistant's text, the current request a marker carries. A summary's text is not: it
  is model-written;
- on disk: the request names a file (a saved output, an archive's or a summary's
  transcript) that holds it verbatim, or names a file that names one that does:
  the names are followed from file to file, as a model re-reading them would. Only
  our own markers name a file, and only a file the store can read back (its own
  folder, a regular file) counts;
- summary only: neither, but a summary the request holds (or a file it reaches)
  still says it: the probe's text appears in the summary, or, for an artifact,
  one line of it names the path and what the tool did to it;
- gone: none of these.

`PLACES` is the one table of these places, with what each means, shared by the course's
designs and the compactions a session file records (`compact_course.bench.recorded`): there
"on disk" is the transcript the recorded summary points to, and one more place sits
before "gone", "re-read" (the agent fetched it again later in the file), for a design
at the same point too (`place_of`).

A summary's text is read by `summary_says` (the pipeline's summaries, which write
"path (read)"); `Locator(..., says=...)` takes another reading, for a summary another
model wrote (`compact_course.bench.recorded.in_summary`).

`read_request(messages)` gives what a request holds for this (`Readable`); the offline
model answers a probe from the same reading (`compact_course.offline.model.probe_reply`).
The Locator remembers each message it has read (by object), each text and
each file, so locating at every call of a long replay costs about what the replay
does.

Left out: files the agent wrote with its own tools (a file named in context by a
path only, not by our marker: its text may have changed since), and whether a model
would think of following a name (the offline model follows them; Claude may not).
"""

from dataclasses import dataclass, field

from context_compact import formats
from context_compact.messages import text_of, tool_results, tool_uses, user_text

from .file_tools import action_words, files_of
from .questions import STATUSES, readable_units

# Where a probe stands: one row a place, in the order a probe is placed (the first that holds it).
PLACE_TABLE = (
    ("in context", "readable as it is in what the model is sent (after a recorded compaction: a "
                   "message it kept word for word)"),
    ("on disk", "in a file the request names, followed from file to file (a design's saved output "
                "or transcript; the transcript a recorded summary points to)"),
    ("summary only", "neither, but a summary the model is sent still says it"),
    ("re-read", "none of these, but the agent fetched it again later in the session file"),
    ("gone", "none of these"),
)
PLACES = tuple(name for name, _ in PLACE_TABLE)
RE_READ = "re-read"


def place_of(status: str, fetched_again: bool) -> str:
    """A status (STATUSES) as a place: "gone" is "re-read" when the session fetched it again."""
    return RE_READ if status == STATUSES[-1] and fetched_again else status


@dataclass
class Readable:
    """What one request (or one file) holds for the probes."""
    texts: list = field(default_factory=list)       # read as they are
    summaries: list = field(default_factory=list)   # model-written summary texts
    uses: set = field(default_factory=set)          # (tool, path) of each tool_use
    files: list = field(default_factory=list)       # the files our markers name, in order

    def units(self, unit: str) -> set:
        return {u for text in self.texts for u in readable_units(text, unit)}


def _persisted_parts(text: str) -> tuple[str, str]:
    """(the preview without its last line, the saved path) of a persisted result."""
    match = formats.PERSISTED_RE.match(text)
    preview = match["preview"]
    return preview.rpartition("\n")[0], match["path"]


def _user_parts(text: str, out: Readable) -> None:
    summary = formats.SUMMARY_RE.match(text)
    if summary:
        out.texts.append(summary["request"])
        out.summaries.append(formats.summary_text(summary["summary"]))
        out.files.append(summary["path"])
        return
    archive = formats.ARCHIVE_RE.match(text)
    if archive:
        out.files.append(archive["path"])
        out.texts.append(text.partition("\n\nCurrent user request:\n")[2])
        return
    out.texts.append(text)


def _result_parts(text: str, out: Readable) -> None:
    kind = formats.kind_of_result(text)
    if kind == "whole":
        out.texts.append(text)
    elif kind == "persisted":
        preview, path = _persisted_parts(text)
        out.texts.append(preview)
        out.files.append(path)
    elif kind == "placeholder":
        out.files.append(formats.saved_path(text))


def read_message(message, out: Readable | None = None) -> Readable:
    out = out if out is not None else Readable()
    if message.get("role") == "assistant":
        out.texts.append(text_of(message.get("content")))
        for use in tool_uses(message):
            out.uses.update((use.get("name"), path) for path in files_of(use))
        return out
    _user_parts(user_text(message), out)
    for block in tool_results(message):
        _result_parts(text_of(block.get("content", "")), out)
    return out


def read_request(messages) -> Readable:
    out = Readable()
    for message in messages:
        read_message(message, out)
    return out


def summary_says(probe, summary: str) -> bool:
    """Whether a summary text keeps the probe (see the module's doc)."""
    if probe.unit == "use":
        words = action_words(probe.tool)
        return any(probe.cue in line and (probe.tool in line or any(f"({w})" in line for w in words))
                   for line in summary.splitlines())
    return " ".join(probe.expected.split()) in " ".join(summary.split())


@dataclass(frozen=True)
class Held:
    """The probes one piece (a message or a file) holds verbatim and in a summary."""
    verbatim: frozenset
    summarized: frozenset
    files: tuple


def merged(parts) -> Held:
    verbatim, summarized, files = set(), set(), []
    for held in parts:
        verbatim |= held.verbatim
        summarized |= held.summarized
        files.extend(held.files)
    return Held(frozenset(verbatim), frozenset(summarized - verbatim), tuple(dict.fromkeys(files)))


class Locator:
    """The status of every probe in any request, with what it has read remembered.

    Each message is read once (remembered by object), each text and each file
    once, and what a file reaches (it and the files it names, and theirs) once:
    files never change once written, so neither does what they reach.
    """

    def __init__(self, probes, store=None, says=summary_says):
        self.probes = list(probes)
        self.store = store
        self.says = says    # whether a summary text keeps a probe: `summary_says`, or another reading
        self._by_object: dict[int, tuple] = {}   # id(message) -> (message, Held): the message pinned
        self._texts: dict[str, frozenset] = {}
        self._summaries: dict[str, frozenset] = {}
        self._files: dict[str, Held | None] = {}
        self._reach: dict[str, tuple] = {}       # path -> (verbatim, summarized) of all it reaches
        # What each probe looks for -> the probes that look for it: a piece is read once.
        self._wanted: dict[str, dict] = {"line": {}, "sentence": {}, "use": {}}
        for k, probe in enumerate(self.probes):
            key = (probe.tool, probe.cue) if probe.unit == "use" else probe.expected
            self._wanted[probe.unit].setdefault(key, set()).add(k)

    def _in_text(self, text: str) -> frozenset:
        """The probes whose line or sentence a text holds (each text read once: the
        compactor's copies of a message share its strings, whose hashes Python keeps)."""
        found = self._texts.get(text)
        if found is None:
            hits = set()
            for unit in ("line", "sentence"):
                wanted = self._wanted[unit]
                for piece in readable_units(text, unit):
                    hits |= wanted.get(piece, set())
            found = self._texts[text] = frozenset(hits)
        return found

    def _in_summary(self, summary: str) -> frozenset:
        found = self._summaries.get(summary)
        if found is None:
            found = self._summaries[summary] = frozenset(
                k for k, probe in enumerate(self.probes) if self.says(probe, summary))
        return found

    def held(self, readable: Readable) -> Held:
        found = set().union(*map(self._in_text, readable.texts))
        for use in readable.uses:
            found |= self._wanted["use"].get(use, set())
        said = set().union(*map(self._in_summary, readable.summaries)) - found
        return Held(frozenset(found), frozenset(said), tuple(readable.files))

    def message(self, message) -> Held:
        known = self._by_object.get(id(message))
        if known is not None and known[0] is message:
            return known[1]
        held = self.held(read_message(message))
        self._by_object[id(message)] = (message, held)
        return held

    def file(self, path: str) -> Held | None:
        """What a file our marker names holds; None when it is not one the store can read."""
        if path not in self._files:
            self._files[path] = None
            if self.store is not None:
                messages = self.store.read_transcript(path)
                if messages is not None:
                    self._files[path] = merged(self.message(m) for m in messages)
                else:
                    text = self.store.saved_text(path)
                    if text is not None:
                        self._files[path] = self.held(Readable(texts=[text]))
        return self._files[path]

    def reach(self, path: str) -> tuple:
        """(verbatim, summarized): the probes a file and every file it reaches hold."""
        # Depth first, children before their parent, without recursion: a chain of
        # transcripts can be hundreds long. A name met again while open adds nothing.
        stack = [(path, False)]
        opened = set()
        while stack:
            current, children_done = stack.pop()
            if current in self._reach:
                continue
            held = self.file(current)
            if held is None:
                self._reach[current] = (frozenset(), frozenset())
            elif not children_done:
                if current in opened:
                    continue
                opened.add(current)
                stack.append((current, True))
                stack.extend((child, False) for child in held.files
                             if child not in self._reach and child not in opened)
            else:
                verbatim, summarized = set(held.verbatim), set(held.summarized)
                for child in held.files:
                    v, s = self._reach.get(child, (frozenset(), frozenset()))
                    verbatim |= v
                    summarized |= s
                self._reach[current] = (frozenset(verbatim), frozenset(summarized))
        return self._reach[path]

    def statuses(self, messages) -> list[str]:
        """One of STATUSES per probe, for the request `messages`."""
        here = merged(self.message(m) for m in messages)
        on_disk, summarized = set(), set(here.summarized)
        for path in here.files:
            v, s = self.reach(path)
            on_disk |= v
            summarized |= s
        return [STATUSES[0] if k in here.verbatim else STATUSES[1] if k in on_disk
                else STATUSES[2] if k in summarized else STATUSES[3]
                for k in range(len(self.probes))]
