"""Looking things up with the agent's tools, and reading back what came of it.

The general policy never reads the disk. It names the calls it needs (a glob,
a grep through bash, a `read_file` with a limit), and `fetch` says, for each,
what the request holds of its result:
- the whole text: use it;
- a persisted preview: use the preview (the head of the text, said to be partial);
- a saved placeholder: read the saved copy back (one more call), then use that;
- `[Earlier tool result omitted.]`: the text is gone, and the answer says so;
- no such call yet: make it.
So the same question asked again after a compaction costs new calls, or ends
in "that text is gone", never in a guess.

Left out: remembering across requests; each request is read afresh.
"""

import re
import shlex
from dataclasses import dataclass, field

from .view import View

SKIP = "--exclude-dir=.transcripts --exclude-dir=.task_outputs"  # the compactor's own files
MAX_LINES = 100   # a search prints at most this many lines
GREP_LINE_RE = re.compile(r"^(?:\./)?(?P<path>[^:\n]+):(?P<line>\d+):(?P<text>.*)$")


@dataclass
class Got:
    """What the request holds of a list of calls."""
    texts: list = field(default_factory=list)   # (call, text), text whole or a preview
    need: list = field(default_factory=list)    # (name, input) still to call
    gone: list = field(default_factory=list)    # calls whose text is gone
    partial: list = field(default_factory=list)  # calls of which only a preview is left

    def text(self) -> str:
        return "\n".join(text for _, text in self.texts)


def describe(name: str, tool_input: dict) -> str:
    """A call as an answer names it; a search without its fixed flags and cut-off."""
    arg = tool_input.get("path") or tool_input.get("command") or tool_input.get("pattern")
    arg = str(arg).replace(f" {SKIP}", "").replace(f" | head -n {MAX_LINES}", "")
    limit = f", limit {tool_input['limit']}" if "limit" in tool_input else ""
    return f"{name}({arg}{limit})"


def latest(view: View, name: str, tool_input: dict):
    return next((c for c in reversed(view.calls) if c.name == name and c.input == tool_input
                 and c.text is not None), None)


def fetch(view: View, calls: list) -> Got:
    got = Got()
    for name, tool_input in calls:
        call, label = latest(view, name, tool_input), describe(name, tool_input)
        if call is None:
            got.need.append((name, tool_input))
        elif call.kind == "whole":
            got.texts.append((label, call.text))
        elif call.kind == "persisted":
            got.texts.append((label, call.visible))
            got.partial.append(label)
        elif call.kind == "placeholder":
            copy = latest(view, "read_file", {"path": call.saved})
            if copy is None:
                got.need.append(("read_file", {"path": call.saved}))
            elif copy.kind == "whole":
                got.texts.append((label, copy.text))
            else:
                got.gone.append(label)
        else:
            got.gone.append(label)
    return got


# -- the commands ------------------------------------------------------------------

def scope(paths: list) -> str:
    return " ".join(shlex.quote(p.rstrip("/") or ".") for p in paths) if paths else "."


def term_pattern(term: str) -> str:
    """A term as an extended regular expression: a stem matches its longer forms."""
    if not term.isascii() or not term.isalpha():
        return re.escape(term)
    return re.escape(term) + "[a-z]*"


def grep(terms: list, paths: list, *, exact: bool, words: bool = False) -> dict:
    """A grep of the workspace (or of `paths`) for any of `terms`, file and line named."""
    flags = "-rnHI" + ("" if exact else "i") + ("w" if words else "") + ("F" if exact else "E")
    # A stem matches its longer forms (fail: failed, failing); a Chinese word only itself.
    patterns = " ".join(f"-e {shlex.quote(t if exact or not t.isascii() else re.escape(t) + '[a-z]*')}"
                        for t in terms)
    return {"command": f"grep {flags} {SKIP} {patterns} -- {scope(paths)} | head -n {MAX_LINES}"}


def grep_pattern(pattern: str, paths: list, ignore_case: bool = True) -> dict:
    flags = "-rnHIE" + ("i" if ignore_case else "")
    return {"command": f"grep {flags} {SKIP} -e {shlex.quote(pattern)} -- {scope(paths)} "
                       f"| head -n {MAX_LINES}"}


def grep_lines(text: str) -> list:
    """(path, line number, text) of each line of a grep's output."""
    found = []
    for line in text.splitlines():
        match = GREP_LINE_RE.match(line)
        if match:
            found.append((match["path"], int(match["line"]), match["text"]))
    return found


def listing(text: str) -> list:
    """The paths a glob printed ([] for no match or an error)."""
    if text.startswith("Error: ") or text.strip() == "(no match)":
        return []
    return [line for line in text.splitlines() if line.strip()]

