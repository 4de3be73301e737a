"""The last real user prompt: what a person typed, not what the harness put in the user's turn.

    from compact_course.probes.prompts import is_prompt, last_prompt, real_request
    last_prompt(messages)              # the newest text a person typed ("" when none)
    is_prompt("/exit")                 # False: a slash command
    real_request(request, messages)    # the request when it is a prompt, else the last prompt

An agent's harness writes into the user's turn too: a slash command's tags and its local
output, a caveat line, a background task's notification, a system reminder, an
interruption notice, a skill's instructions, the Codex CLI's own context. `HARNESS` has one row per kind (what
it is, how its text starts); a text block that is one of them, or only system reminders,
is not a prompt, and neither is a tool result nor one of the pipeline's own markers.
System reminders around a typed text are taken off it. A custom slash command's expanded
prompt (the text Claude Code sends the model after the command's tags) is what the model
was asked, and counts; a skill's instructions ("Base directory for this skill: ...") are
the harness's, and do not. The texts are the ones real session files hold (Claude Code,
the Codex CLI); the importers (`compact_course.sessions`) leave some of them out already.

Left out: telling a typed `/path/to/file` alone on a line from a command (it reads as one),
and a prompt pasted inside a harness text.
"""

import re

from context_compact.formats import kind_of_user_text
from context_compact.messages import text_of

# (what it is, how its text starts): a user text block that is harness-made, not typed.
HARNESS = (
    ("a slash command", re.compile(r"/[A-Za-z][\w:.-]*(?:[ \t][^\n]*)?\Z")),
    ("a slash command's tags", re.compile(r"<command-(?:name|message|args)>")),
    ("a local command's output", re.compile(r"<local-command-(?:stdout|stderr)>")),
    ("a caveat line", re.compile(r"<local-command-caveat>|Caveat: The messages below were generated")),
    ("a background task's notification", re.compile(r"<task-notification>")),
    ("a skill's instructions", re.compile(r"Base directory for this skill:")),
    ("shell mode's command or output", re.compile(r"<bash-(?:input|stdout|stderr)>")),
    ("an interruption notice", re.compile(r"\[Request interrupted by user")),
    ("another session's message", re.compile(r"<cross-session-message|Another Claude session sent a")),
    ("a compaction's summary", re.compile(r"This session is being continued from a previous conversation")),
    ("the Codex CLI's context", re.compile(r"<environment_context>|<user_instructions>|<user_shell_command>"
                                           r"|<turn_aborted>|# AGENTS\.md instructions")),
)
_REMINDER = re.compile(r"<system-reminder>[\s\S]*?</system-reminder>")


def harness_kind(text: str) -> str | None:
    """What harness text a user text is (a row of HARNESS, or the pipeline's own marker);
    None when a person typed it."""
    text = _REMINDER.sub("", text or "").strip()
    if not text:
        return "only system reminders"
    if kind_of_user_text(text):
        return "the pipeline's own marker"
    return next((what for what, pattern in HARNESS if pattern.match(text)), None)


def prompt_of(text: str) -> str:
    """The prompt a user text block holds, system reminders taken off; "" when it is
    harness-made."""
    return "" if harness_kind(text) else _REMINDER.sub("", text).strip()


def is_prompt(text) -> bool:
    return isinstance(text, str) and bool(prompt_of(text))


def _texts(message) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [text_of([block]) for block in content or [] if isinstance(block, dict)
            and block.get("type") == "text"] if isinstance(content, list) else []


def last_prompt(messages, skip=()) -> str:
    """The newest text block of a user message that a person typed (not in `skip`), "" when none."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        for text in reversed(_texts(message)):
            prompt = prompt_of(text)
            if prompt and prompt not in skip:
                return prompt
    return ""


def real_request(request, messages) -> str:
    """`request` when it is a prompt, else the last prompt of `messages` (else `request`)."""
    if is_prompt(request):
        return request
    return last_prompt(messages) or (request if isinstance(request, str) else "")
