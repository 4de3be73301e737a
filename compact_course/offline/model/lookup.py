"""Looking a question up with the offered tools: `InFiles`, `Grep` and `Glob`, each
returning the `Evidence` found in the request, or the calls it still needs.

Left out: remembering across requests, and a second search with other words.
"""

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from .view import View

SKIP = "--exclude-dir=.transcripts --exclude-dir=.task_outputs"  # the compactor's own files
MAX_LINES = 100   # a search prints at most this many lines
MAX_FILES = 3     # files read for one question
GREP_LINE_RE = re.compile(r"^(?:\./)?(?P<path>[^:\n]+):(?P<line>\d+):(?P<text>.*)$")
NUMBERED_RE = re.compile(r"^(?P<line>\d+):(?P<text>.*)$")
CUT_RE = re.compile(r"^\.\.\. \((?:\d+ more lines|file cut at \d+ bytes)\)$")


@dataclass
class Evidence:
    """What the lookups found, and whether it is the whole of what they searched."""
    hits: list = field(default_factory=list)      # (path, line number, text)
    counts: dict = field(default_factory=dict)    # path -> its number of lines
    listing: list = field(default_factory=list)   # paths a glob printed
    looked: list = field(default_factory=list)    # the calls read, as an answer names them
    missing: list = field(default_factory=list)   # why a part is not known (a phrase, filled)
    need: list = field(default_factory=list)      # (name, input) still to call
    whole: bool = True                            # nothing searched was a preview or cut

    def lack(self, why: str) -> None:
        self.missing.append(why)
        self.whole = False


def label(view: View, name: str, tool_input: dict) -> str:
    """A call as an answer names it: the offered tool's name, without a search's fixed flags."""
    arg = tool_input.get("path") or tool_input.get("command") or tool_input.get("pattern")
    arg = str(arg).replace(f" {SKIP}", "").replace(f" | head -n {MAX_LINES}", "")
    return f"{view.tools.name(name)}({arg})"


def result(view: View, name: str, tool_input: dict):
    """The latest such call with a result, or None."""
    return next((c for c in reversed(view.calls) if c.name == name and c.input == tool_input
                 and c.text is not None), None)


def fetch(view: View, ev: Evidence, name: str, tool_input: dict) -> str | None:
    """The call's whole text (a saved one read back from its copy), or None: the call is
    noted as needed when the request holds no result for it, else why its text is not whole."""
    call = result(view, name, tool_input)
    if call is None:
        ev.need.append((name, tool_input))
        return None
    called = label(view, name, tool_input)
    ev.looked.append(called)
    if call.kind in ("persisted", "placeholder") and "read_file" in view.offered:
        copy = result(view, "read_file", {"path": call.saved})
        if copy is None or copy.kind == "whole":   # a copy saved again is not chased
            return fetch(view, ev, "read_file", {"path": call.saved})
    if call.kind != "whole":   # a result always has text: no call here is pending
        return ev.lack(("gone", {"call": called}) if call.kind == "omitted"
                       else ("preview", {"call": called, "saved": call.saved}))
    if call.text.startswith("Error: "):
        return ev.lack(("error", {"call": called, "line": call.text.splitlines()[0]}))
    return call.text


def grep(view: View, ev: Evidence, flags: str, pattern: str | None, target: str, path: str | None = None):
    """Add the lines of `target` (a quoted file, or . for the workspace) that match, through bash,
    or its line count (pattern None): grep prints `path:n:line`, or `n:line` for one file, `path`'s.
    A search that printed its most lines may have left some out."""
    command = {"command": f"grep -c '' -- {target}" if pattern is None
               else f"grep {flags} -e {shlex.quote(pattern)} -- {target} | head -n {MAX_LINES}"}
    text = fetch(view, ev, "bash", command)
    if text is None:
        return
    if pattern is None and text.strip().isdigit():
        ev.counts[path] = int(text.strip())
    elif pattern is None:
        ev.lack(("error", {"call": label(view, "bash", command), "line": text.splitlines()[0]}))
    else:
        found = [(path or m["path"], int(m["line"]), m["text"]) for line in text.splitlines()
                 for m in [(NUMBERED_RE if path else GREP_LINE_RE).match(line)] if m]
        ev.hits += found
        if len(found) >= MAX_LINES:
            ev.lack(("cut", {"call": label(view, "bash", command)}))


def in_file(view: View, ev: Evidence, path: str, pattern: str | None) -> None:
    """Add a file's matching lines (or its line count, pattern None) to the evidence. A read held
    as a preview is searched in its saved copy: read back whole, it would only be saved again."""
    read = result(view, "read_file", {"path": path})
    saved = read and read.saved   # a saved copy's path: the read is a preview or a placeholder
    if (saved and "bash" in view.offered) or (read is None and "read_file" not in view.offered):
        if saved:   # grep the saved copy; its lines are the file's
            ev.looked.append(label(view, "read_file", {"path": path}))
        if "bash" not in view.offered:
            return ev.lack(("no reader", {"path": path}))
        return grep(view, ev, "-nE", pattern, shlex.quote(saved or path), path)
    text = fetch(view, ev, "read_file", {"path": path})
    if text is None:
        return
    lines = text.splitlines()
    if lines and CUT_RE.match(lines[-1]):
        ev.lack(("cut", {"call": label(view, "read_file", {"path": path})}))
        lines = lines[:-1]
    if pattern is None:
        ev.counts[path] = len(lines)
    else:
        found = re.compile(pattern)
        ev.hits += [(path, n, line) for n, line in enumerate(lines, 1) if found.search(line)]


@dataclass(frozen=True)
class InFiles:
    """The lines matching `pattern(q)` (None: the line count) of the files the question means."""
    pattern: Callable | None   # (Question) -> extended regular expression, or None to count
    glob: str | None = None    # the files to look in when the question names none
    name: str = "*"            # in a folder the question names: the files to look in
    anywhere: bool = False     # with neither, grep the whole workspace

    def gather(self, view: View, q) -> Evidence:
        ev, files = Evidence(), q.files
        where = f"{folder_pattern(q.folder)}/{self.name}" if q.folder else self.glob   # a glob, or None
        if not files and where is None and self.anywhere and "bash" in view.offered:
            return Grep(self.pattern).gather(view, q)
        if not files and where is None:
            ev.lack(("no file", {}))
            return ev
        if not files:
            found = listing(view, ev, where)   # the files in it: names with an extension
            files = None if found is None else [p for p in found if "." in p.rsplit("/", 1)[-1]]
        pattern = self.pattern(q) if self.pattern else None
        for path in (files or [])[:MAX_FILES]:
            in_file(view, ev, path, pattern)
        if files == []:
            ev.lack(("no match", {"pattern": where}))
        return ev


def folder_pattern(folder: str) -> str:
    """A folder the question names, as a glob: a lesson's code is its folder's start."""
    if re.fullmatch(r"s\d\d", folder):
        return f"{folder}_*"
    return folder if "/" in folder else f"**/{folder}"


def listing(view: View, ev: Evidence, pattern: str) -> list | None:
    """The paths a glob printed ([] for no match), or None while it is still to run."""
    if "glob" not in view.offered:
        return ev.lack(("no search", {"path": pattern}))
    text = fetch(view, ev, "glob", {"pattern": pattern})
    if text is None:
        return None
    if "\n... (" in text:   # the glob stopped or left matches out
        ev.lack(("cut", {"call": label(view, "glob", {"pattern": pattern})}))
    return [line for line in text.splitlines()
            if line.strip() and not line.startswith(("...", "("))]   # "(no match)" too


@dataclass(frozen=True)
class Grep:
    """The workspace's lines that match `pattern(q)`, through bash."""
    pattern: Callable          # (Question) -> extended regular expression (or None)
    fixed: bool = False        # the pattern is a fixed string, matched exactly
    ignore_case: bool = False  # words of the question match in any case; names exactly

    def gather(self, view: View, q) -> Evidence:
        ev, pattern = Evidence(), self.pattern(q)
        if not pattern:
            ev.lack(("no words", {}))
        elif "bash" not in view.offered:
            ev.lack(("no shell", {}))
        else:
            flags = "-rnHI" + ("i" if self.ignore_case else "") + ("F" if self.fixed else "E")
            grep(view, ev, f"{flags} {SKIP}", pattern, ".")
        return ev


@dataclass(frozen=True)
class Glob:
    """The paths the globs `patterns(q)` list."""
    patterns: Callable         # (Question) -> list of glob patterns

    def gather(self, view: View, q) -> Evidence:
        ev, patterns = Evidence(), self.patterns(q)
        if not patterns:
            ev.lack(("no words", {}))
        for pattern in patterns:
            ev.listing += [p for p in listing(view, ev, pattern) or [] if p not in ev.listing]
        return ev
