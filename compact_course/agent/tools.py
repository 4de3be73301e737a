"""The agent's tools: bash, read_file, write_file, edit_file, glob, and compact.

File tools stay inside the workspace (a path that resolves outside it is an
error, not a read), and write_file / edit_file leave the compactor's own
folders (`.transcripts/`, `.task_outputs/`) alone, so a saved copy cannot be
forged through them. read_file reads regular files only (never a FIFO or a
device), and glob does not descend symbolic links under `**` and caps its hits.

bash runs each command through `sandbox.py`: in a bubblewrap sandbox where one
can start, otherwise plainly with a warning; either way with no secret in its
environment, a time limit on the whole process group and a cap on the output.
Without a sandbox, a plain command could read this process's environment and
its settings files: so while a key is configured (the environment or any
settings file this process was pointed at holds ANTHROPIC_API_KEY or
ANTHROPIC_AUTH_TOKEN), bash refuses to run plainly unless the user opts in with
COMPACT_UNSANDBOXED_BASH=1.
Before that, it refuses a short deny list and asks before destructive-looking
commands (without a person to ask, `confirm=None`, it refuses them). That
filter catches slips, not an attacker: `python3 -c "..."` or `tee` pass it, and
only the sandbox keeps such a command inside the workspace.

Secrets: no `.env` file (`.env.example` aside) is read, written or listed, and
`run_tool` redacts every ANTHROPIC_* value it can know of (the environment's,
the workspace's `.env` files', every settings file this process was pointed at; each
read as `model.read_env_file` reads settings, at most 64 KiB) and anything shaped
like a key (an Anthropic key, the class proxy's: cassette.KEY_SHAPE), before the
text enters the messages. edit_file, like
read_file, refuses a file over MAX_FILE_BYTES or one that is not a regular file.
`compact` has no handler: the agent loop answers it, as the article's harness does.

A command that runs into one of the sandbox's limits (`limits.py`: processes,
memory, CPU time, file size, /tmp) ends with one line that names it.

Left out: hiding files outside the workspace from bash (they stay readable,
read-only, in the sandbox), and a quota on the workspace's disk.
"""

import errno
import fnmatch
import os
import re
import stat
from pathlib import Path

from context_compact.formats import COMPACT_TOOL_ACK

from ..offline.api.cassette import KEY_SHAPE
from . import limits, model, sandbox

# Large enough that experiment 2's JSON (over 200,000 characters) arrives whole
# and step 1 of the pipeline, not the tool, decides what stays in context.
MAX_OUTPUT = 500_000
DENIED = ("sudo ", "shutdown", "reboot", "mkfs", ":(){", "> /dev/sd", "dd if=")
# A command word anywhere in the line (after a separator, a subshell or a
# newline), so `ls; rm x`, `(rm x)`, `x && rm y` and `find . -delete` all ask,
# and so does `> file`, which empties a file. Erring towards asking is safe.
DESTRUCTIVE = re.compile(
    r"(^|[\s;&|(`$])(rm|rmdir|mv|chmod|chown|shred|truncate|git\s+(reset|clean|push|checkout))\b"
    r"|\s-delete\b|(^|[^>&0-9])>\s*(?!/dev/null\b)[^\s&>]")
PROTECTED = (".transcripts", ".task_outputs")  # the compactor's folders
TIMEOUT = 120             # seconds a bash command may run
MAX_FILE_BYTES = 16_000_000   # read_file reads at most this much of a file
MAX_GLOB_HITS = 1000      # paths one glob lists
MAX_GLOB_SCAN = 200_000   # folder entries one glob looks at
MAX_GLOB_PARTS = 64       # folder levels in one glob pattern
REDACTED = "[redacted]"
OPT_IN = "COMPACT_UNSANDBOXED_BASH"   # =1: run bash plainly even while a key is configured
SECRET_NAMES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
# NAME=value, NAME: value, "NAME": "value" for any ANTHROPIC_* name; the value is group 2.
ASSIGNED = re.compile(r"""([A-Z0-9_]*ANTHROPIC_[A-Z0-9_]*["']?[ \t]*[=:][ \t]*)"""
                      r"""("[^"\n]*"|'[^'\n]*'|[^\s"',;]+)""")

TOOLS = [
    {"name": "bash", "description": "Run a shell command in the workspace.",
     "input_schema": {"type": "object", "properties": {"command": {"type": "string"}},
                      "required": ["command"]}},
    {"name": "read_file", "description": "Read a file in the workspace.",
     "input_schema": {"type": "object", "properties": {
         "path": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["path"]}},
    {"name": "write_file", "description": "Write a file in the workspace.",
     "input_schema": {"type": "object", "properties": {
         "path": {"type": "string"}, "content": {"type": "string"}},
         "required": ["path", "content"]}},
    {"name": "edit_file", "description": "Replace one exact text in a file.",
     "input_schema": {"type": "object", "properties": {
         "path": {"type": "string"}, "old_text": {"type": "string"},
         "new_text": {"type": "string"}}, "required": ["path", "old_text", "new_text"]}},
    {"name": "glob", "description": "List workspace files matching a pattern.",
     "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}},
                      "required": ["pattern"]}},
    {"name": "compact", "description": "Summarize earlier conversation to free context space.",
     "input_schema": {"type": "object", "properties": {}}},
]


class ToolError(Exception):
    """A tool call that cannot run; its text goes back to the model."""


def resolve(path: Path) -> Path | None:
    """The path with every link followed, or None for a link that loops."""
    try:
        resolved = path.resolve()
    except RuntimeError:    # pathlib's "Symlink loop", up to Python 3.12
        return None
    # Python 3.13 resolves a loop to the link itself, without an error: ask the file system.
    try:
        os.stat(resolved)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return None
    return resolved


def safe_path(workspace, path: str) -> Path:
    if not isinstance(path, str) or not path or "\x00" in path:
        raise ToolError(f"invalid path: {path!r}")
    root = Path(workspace).resolve()
    target = resolve(root / path)
    if target is None:
        raise ToolError(f"{path} is a symbolic link that loops")
    if target != root and root not in target.parents:
        raise ToolError(f"path escapes the workspace: {path}")
    return target


def writable_path(workspace, path: str) -> Path:
    target = safe_path(workspace, path)
    relative = target.relative_to(Path(workspace).resolve()).parts
    if relative and relative[0] in PROTECTED:
        raise ToolError(f"{path} is in the compactor's folder {relative[0]}/; "
                        f"read it, but do not write there")
    return target


def is_secret_file(name: str) -> bool:
    """`.env` and `.env.*` hold keys; `.env.example` shows only which settings exist."""
    return name == ".env" or (name.startswith(".env.") and name != ".env.example")


def refuse_secrets(path: str, target: Path) -> None:
    if is_secret_file(Path(path).name) or is_secret_file(target.name):
        raise ToolError(f"{path} holds secrets: the tools do not read, write or list .env "
                        f"files; .env.example shows which settings exist")


def bash(workspace, command: str, confirm=None) -> str:
    if not isinstance(command, str) or not command.strip():
        raise ToolError(f"invalid command: {command!r}")
    if any(bad in command for bad in DENIED):
        return "Error: command refused (deny list)"
    if DESTRUCTIVE.search(command) and not (confirm and confirm(command)):
        return "Error: destructive command refused (not confirmed)"
    if sandbox.mode() != "bubblewrap" and key_configured() and os.environ.get(OPT_IN) != "1":
        return (f"Error: bash refused: there is no sandbox here and a key is configured, which "
                f"a plain command could read; install bubblewrap, or set {OPT_IN}=1 to run "
                f"commands with your rights anyway")
    root = Path(workspace).resolve()
    # The compactor's folders, when they are real folders: read-only to the command.
    frozen = [root / name for name in PROTECTED if os.path.isdir(root / name)
              and not os.path.islink(root / name)]
    output, cut, timed_out, limit = sandbox.run_command(
        root, command, TIMEOUT, max_bytes=MAX_OUTPUT, hidden=secret_files(workspace),
        read_only=frozen)
    if timed_out:
        return f"Error: timed out after {TIMEOUT} s"
    output = output.strip()
    if cut:
        output += f"\n[output cut: {cut} more bytes]"
    if limit:
        output = (output + "\n" if output else "") + limits.note(limit)
    return output or "(no output)"


FILE_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
              (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
              (stat.S_ISSOCK, "a socket"))


def read_file(workspace, path: str, limit: int | None = None) -> str:
    target = safe_path(workspace, path)
    refuse_secrets(path, target)
    data = read_regular(path, target)
    cut = len(data) > MAX_FILE_BYTES
    # Cut, the last character may be split: only then are bad bytes replaced.
    lines = data[:MAX_FILE_BYTES].decode("utf-8", "replace" if cut else "strict").splitlines()
    if limit and limit < len(lines):
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    elif cut:
        lines.append(f"... (file cut at {MAX_FILE_BYTES} bytes)")
    return "\n".join(lines)[:MAX_OUTPUT]


def read_regular(path: str, target) -> bytes:
    """Up to MAX_FILE_BYTES + 1 bytes of a regular file, never a FIFO, device or link."""
    regular_only(path, os.stat(target).st_mode)
    # O_NONBLOCK: should a FIFO be swapped in after the check, opening it does not
    # wait for a writer, and the kind is checked again on what was opened.
    with os.fdopen(os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW), "rb") as file:
        regular_only(path, os.fstat(file.fileno()).st_mode)
        return file.read(MAX_FILE_BYTES + 1)


def regular_only(path: str, mode: int) -> None:
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in FILE_KINDS if test(mode)), "not a file")
        raise ToolError(f"{path} is not a regular file ({kind}); read_file reads files only")


def key_configured() -> bool:
    """Whether this process holds a key a plain command could read: in its environment, or
    in any settings file it was pointed at (`model.settings_files`)."""
    sources = [model.read_env_file(path, private=False) for path in model.settings_files()]
    return any(source.get(name) for source in [*sources, os.environ] for name in SECRET_NAMES)


def write_file(workspace, path: str, content: str) -> str:
    if not isinstance(content, str):
        raise ToolError(f"content must be a text, got {type(content).__name__}")
    target = writable_path(workspace, path)
    refuse_secrets(path, target)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return f"Wrote {len(content)} characters to {path}"


def edit_file(workspace, path: str, old_text: str, new_text: str) -> str:
    if not isinstance(old_text, str) or not old_text or not isinstance(new_text, str):
        raise ToolError("old_text must be a non-empty text and new_text a text")
    target = writable_path(workspace, path)
    refuse_secrets(path, target)
    data = read_regular(path, target)
    if len(data) > MAX_FILE_BYTES:
        raise ToolError(f"{path} is over {MAX_FILE_BYTES} bytes; edit_file edits smaller files")
    text = data.decode("utf-8")
    if old_text not in text:
        return f"Error: text not found in {path}"
    target.write_text(text.replace(old_text, new_text, 1), encoding="utf-8")
    return f"Edited {path}"


def glob(workspace, pattern: str) -> str:
    if not isinstance(pattern, str) or not pattern:
        raise ToolError(f"invalid pattern: {pattern!r}")
    if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
        raise ToolError(f"pattern escapes the workspace: {pattern}")
    parts = pattern.split("/")
    if len(parts) > MAX_GLOB_PARTS:
        raise ToolError(f"pattern has {len(parts)} parts; at most {MAX_GLOB_PARTS}")
    root = Path(workspace).resolve()
    walk = _GlobWalk(root, MAX_GLOB_SCAN)
    walk.visit("", parts)
    hits, secrets = set(), set()
    for found, linked in walk.hits:
        # Only a link can lead out (the walk sees no ".."): resolve the hits that passed
        # one. A link that loops on itself resolves to nothing, and stays where it is.
        resolved = (resolve(root / found) or root) if linked else root
        if (resolved != root and root not in resolved.parents) or found in ("", "."):
            continue
        relative = Path(os.path.normpath(found)).as_posix()
        (secrets if is_secret_file(Path(relative).name) else hits).add(relative)
    hits = sorted(hits)
    lines = hits[:MAX_GLOB_HITS] or ["(no match)"]
    if len(hits) > MAX_GLOB_HITS:
        lines.append(f"... ({len(hits) - MAX_GLOB_HITS} more matches not shown; narrow the pattern)")
    if secrets:
        lines.append(f"({len(secrets)} .env file{'s' if len(secrets) > 1 else ''} not listed: "
                     f"{'they hold' if len(secrets) > 1 else 'it holds'} secrets)")
    if walk.stopped:
        lines.append(f"... (stopped after looking at {walk.limit} entries; narrow the pattern)")
    return "\n".join(lines)


class _GlobWalk:
    """Python's glob rules (`*` skips hidden names, `**` spans folders), walked by hand
    so that `**` never descends a symbolic link (a link loop is listed, not followed)
    and the walk stops after `limit` folder entries. Each hit is (path, whether a
    link was on its way): only those need resolving to check where they lead."""

    def __init__(self, root: Path, limit: int):
        self.root, self.limit = root, limit
        self.hits, self.seen, self.stopped = [], 0, False

    def visit(self, rel: str, parts: list, linked: bool = False) -> None:
        if self.stopped:
            return
        if not parts:
            self.hits.append((rel, linked))
            return
        part, rest = parts[0], parts[1:]
        if part == "":       # a trailing slash: folders only
            if (self.root / rel).is_dir() and not rest:
                self.hits.append((rel, linked))
            return
        if part == "**":
            for below, is_link in [(rel, False), *self.below(rel, folders_only=bool(rest))]:
                self.visit(below, rest, linked or is_link)
            return
        if not glob_magic(part):
            child = os.path.join(rel, part)
            if (os.path.lexists(self.root / child) if not rest else (self.root / child).is_dir()):
                self.visit(child, rest, linked or os.path.islink(self.root / child))
            return
        for name, is_dir, is_link in self.entries(rel):
            if fnmatch.fnmatchcase(name, part) and (is_dir or not rest) \
                    and (part.startswith(".") or not name.startswith(".")):
                self.visit(os.path.join(rel, name), rest, linked or is_link)

    def below(self, rel: str, folders_only: bool) -> list:
        """(path, is a link) for everything under `rel` that is not hidden, links not entered."""
        found, pending = [], [rel]
        while pending:     # a loop, not recursion: a folder may nest thousands deep
            folder = pending.pop()
            for name, is_dir, is_link in self.entries(folder):
                if name.startswith("."):
                    continue
                path = os.path.join(folder, name)
                if not (folders_only and (is_link or not is_dir)):
                    found.append((path, is_link))
                if is_dir and not is_link:
                    pending.append(path)
        return found

    def entries(self, rel: str) -> list:
        """(name, is a folder (links followed), is a link) for each entry of `rel`."""
        try:
            with os.scandir(self.root / rel) as listing:
                found = []
                for entry in listing:
                    self.seen += 1
                    if self.seen > self.limit:
                        self.stopped = True
                        break
                    try:
                        is_dir = entry.is_dir()
                    except OSError:     # a link that loops: listed, as a file
                        is_dir = False
                    found.append((entry.name, is_dir, entry.is_symlink()))
                return sorted(found)
        except OSError:
            return []


def glob_magic(part: str) -> bool:
    return any(char in part for char in "*?[")


HANDLERS = {"bash": bash, "read_file": read_file, "write_file": write_file,
            "edit_file": edit_file, "glob": glob}


def run_tool(workspace, name: str, tool_input: dict, confirm=None) -> str:
    """Run one tool call and return its text; errors come back as text too."""
    if name == "compact":
        return COMPACT_TOOL_ACK
    handler = HANDLERS.get(name)
    if handler is None:
        return f"Error: unknown tool {name!r}"
    try:
        if name == "bash":
            output = bash(workspace, tool_input["command"], confirm=confirm)
        else:
            output = handler(workspace, **tool_input)
    except (ToolError, OSError, UnicodeDecodeError, KeyError, TypeError, ValueError) as error:
        output = f"Error: {error}"
    return redact(output, secret_values(workspace))


# -- secrets ---------------------------------------------------------------------------------

def secret_files(workspace) -> list:
    """The files whose keys a tool could show: the workspace's own `.env` files (top
    level) and every settings file this process was pointed at, however it was named
    (`model.settings_files`: the checkout's `.env`, COMPACT_ENV_FILE's, `--env-file`'s),
    links followed.

    Regular files only, and none under the folders the sandbox makes anew: a
    `.env.local` that links to /proc/self/status is neither read nor masked (a
    mask over a /proc path stopped bwrap from starting, and so every command)."""
    found = []
    try:
        with os.scandir(workspace) as listing:
            found = [Path(e.path) for e in listing if is_secret_file(e.name)]
    except OSError:
        pass
    found += model.settings_files()
    resolved = [resolve(path) for path in found]
    return list(dict.fromkeys(path for path in resolved if path is not None and _maskable(path)))


def _maskable(path: Path) -> bool:
    if any(path.is_relative_to(folder) for folder in ("/proc", "/sys", "/dev")):
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def secret_values(workspace) -> set:
    """Every ANTHROPIC_* value (bar the base URL) of the environment and of those files."""
    sources = [dict(os.environ)]
    # Read whatever their permissions: a refused file's key must still be redacted.
    sources += [model.read_env_file(path, private=False) for path in secret_files(workspace)]
    return {value for source in sources for name, value in source.items()
            if "ANTHROPIC_" in name and name != "ANTHROPIC_BASE_URL" and value
            and len(value) >= 8}


def redact(text: str, values=()) -> str:
    """`text` with each known value, each NAME=value of an ANTHROPIC_* name and
    anything shaped like a key replaced by [redacted]."""
    for value in sorted(values, key=len, reverse=True):   # longest first: no half-redacted key
        text = text.replace(value, REDACTED)
    text = KEY_SHAPE.sub(REDACTED, text)
    return ASSIGNED.sub(lambda match: match[1] + REDACTED, text)
