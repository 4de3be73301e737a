"""The agent's tools: bash, read_file, write_file, edit_file, glob, and compact.

File tools stay inside the workspace (a path that resolves outside it is an
error, not a read), and write_file / edit_file leave the compactor's own
folders (`.transcripts/`, `.task_outputs/`) alone, so a saved copy cannot be
forged through them. bash refuses a short deny list outright and asks before
destructive commands; without a person to ask (`confirm=None`) it refuses them.
`compact` has no handler: the agent loop answers it, as the article's harness does.

Left out: a sandbox for bash (it runs in the workspace with the user's rights).
"""

import glob as globlib
import os
import re
import subprocess
from pathlib import Path

from ..formats import COMPACT_TOOL_ACK

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


def safe_path(workspace, path: str) -> Path:
    if not isinstance(path, str) or not path or "\x00" in path:
        raise ToolError(f"invalid path: {path!r}")
    root = Path(workspace).resolve()
    target = (root / path).resolve()
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


def bash(workspace, command: str, confirm=None) -> str:
    if any(bad in command for bad in DENIED):
        return "Error: command refused (deny list)"
    if DESTRUCTIVE.search(command) and not (confirm and confirm(command)):
        return "Error: destructive command refused (not confirmed)"
    try:
        done = subprocess.run(command, shell=True, cwd=workspace, capture_output=True,
                              text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "Error: timed out after 120 s"
    output = (done.stdout + done.stderr).strip()
    return output[:MAX_OUTPUT] if output else "(no output)"


def read_file(workspace, path: str, limit: int | None = None) -> str:
    lines = safe_path(workspace, path).read_text(encoding="utf-8").splitlines()
    if limit and limit < len(lines):
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join(lines)[:MAX_OUTPUT]


def write_file(workspace, path: str, content: str) -> str:
    if not isinstance(content, str):
        raise ToolError(f"content must be a text, got {type(content).__name__}")
    target = writable_path(workspace, path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return f"Wrote {len(content)} characters to {path}"


def edit_file(workspace, path: str, old_text: str, new_text: str) -> str:
    if not isinstance(old_text, str) or not old_text or not isinstance(new_text, str):
        raise ToolError("old_text must be a non-empty text and new_text a text")
    target = writable_path(workspace, path)
    text = target.read_text(encoding="utf-8")
    if old_text not in text:
        return f"Error: text not found in {path}"
    target.write_text(text.replace(old_text, new_text, 1), encoding="utf-8")
    return f"Edited {path}"


def glob(workspace, pattern: str) -> str:
    if not isinstance(pattern, str) or not pattern:
        raise ToolError(f"invalid pattern: {pattern!r}")
    if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
        raise ToolError(f"pattern escapes the workspace: {pattern}")
    root = Path(workspace).resolve()
    hits = []
    for found in globlib.glob(str(root / pattern), recursive=True):
        # A character class such as [.][.] can still climb out: check each hit.
        resolved = Path(found).resolve()
        if resolved == root or root in resolved.parents:
            hits.append(Path(os.path.normpath(found)).relative_to(root).as_posix())
    hits = sorted(set(hits))
    return "\n".join(hits) if hits else "(no match)"


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
            return bash(workspace, tool_input["command"], confirm=confirm)
        return handler(workspace, **tool_input)
    except (ToolError, OSError, UnicodeDecodeError, KeyError, TypeError, ValueError) as error:
        return f"Error: {error}"
