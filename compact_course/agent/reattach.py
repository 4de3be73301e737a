"""What an agent re-attaches after a compaction: the files it was working on.

A summary keeps what the model wrote down, not the files it read. Claude Code
answers that after each compaction by reading some things back from disk: its
instructions (CLAUDE.md) and the files read or edited most recently, up to
five, each under a size cap; a larger file comes back as its path only
(code.claude.com/docs/en/context-window, "What survives compaction"). This
module builds that message for our agent, in characters, the compactor's
measure:

    reattach(workspace, transcript)  ->  a user message, or None

`files_worked_on(transcript)` lists the paths of the `read_file`, `write_file`
and `edit_file` calls in the list that was summarized, newest first, each
once. `reattach` reads each one again from the workspace, as it is now on
disk, and attaches it whole when it is at most `max_chars_per_file`, else as
its path and size, so the model knows to read it again. Our agent's
instructions need no such step: they are its system prompt, which `prepare`
never touches.

Left out: wiring it into `Agent` (the notebook shows it beside a live run,
the agent itself does not send it), a budget across files, and re-attaching
plans or memory (chapter s09).
"""

from .tools import ToolError, safe_path

WORKED_ON = ("read_file", "write_file", "edit_file")
MAX_FILES = 5
MAX_CHARS_PER_FILE = 20_000


def files_worked_on(messages) -> list[str]:
    """Paths the model read or changed in `messages`, newest first, each once."""
    paths = []
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") != "assistant" or not isinstance(content, list):
            continue
        for block in reversed(content):
            path = (block.get("input") or {}).get("path") if block.get("type") == "tool_use" else None
            if block.get("name") in WORKED_ON and isinstance(path, str) and path not in paths:
                paths.append(path)
    return paths


def reattach(workspace, transcript, *, max_files: int = MAX_FILES,
             max_chars_per_file: int = MAX_CHARS_PER_FILE) -> dict | None:
    """The user message that gives the files back after a summary, or None if there are none."""
    parts = []
    for path in files_worked_on(transcript)[:max_files]:
        try:
            text = safe_path(workspace, path).read_text(encoding="utf-8", errors="replace")
        except (ToolError, OSError) as error:
            parts.append(f"{path}: not attached ({error})")
            continue
        if len(text) <= max_chars_per_file:
            body = text.rstrip("\n")
            parts.append(f'<file path="{path}">\n{body}\n</file>')
        else:
            parts.append(f"{path}: {len(text):,d} characters, over the {max_chars_per_file:,d} "
                         f"attached per file; read it again with read_file if you need it")
    if not parts:
        return None
    head = "The files you were working on before the summary, as they are on disk now:"
    return {"role": "user", "content": "\n\n".join([head, *parts])}
