"""The files a tool call names: one table for the course's agent and for other agents' tools.

    from compact_course.probes.file_tools import files_of, action_words
    files_of({"name": "Read", "input": {"file_path": "cart/settings.ini"}})      # ["cart/settings.ini"]
    files_of({"name": "shell", "input": {"command": ["bash", "-lc", "sed -n '1,80p' a.py"]}})  # ["a.py"]
    action_words("Edit")                                                         # ("edited", "edit")

`FILE_TOOLS` has one row per tool name, in the agent's own spelling: what the call does
to a file, and where its input names the file:
- arguments: the first that is a text is the file (`path`; Claude Code's `file_path` and
  `notebook_path`; the Codex CLI's `file_path` and `dir_path`);
- a shell command (`command`, `cmd`: a text, or the Codex CLI's list `["bash", "-lc", TEXT]`):
  the files a command that only shows them is given (`cat`, `head`, `tail`, `nl`, `less`,
  `more`, `bat`, `sed -n`), each command of a pipeline, a `&&`/`;` chain or a line read alone;
- a patch (the Codex CLI's `apply_patch`, its free text in `input`): the file of each
  `*** Update File:`, `*** Add File:` and `*** Delete File:` line.

The rows: the course's read_file, write_file and edit_file (`compact_course/agent/tools.py`);
Claude Code's Read, Write, Edit, MultiEdit, NotebookEdit, Glob and Grep (their `path`, the
folder or file searched, when the call gives one), Bash, and LS and NotebookRead of older
versions; the Codex CLI's shell, shell_command, exec_command, apply_patch, read_file,
list_dir, grep_files and view_image (codex-rs `core/src/tools/spec.rs`). An artifact probe
(`compact_course.probes.questions`) is drawn from each (tool, file) of a call, and a request
holds it where a call of that tool names that file (`compact_course.probes.status`).

Left out: the course's own `bash` and `glob` (the course's probes ask about its three file
tools, and its histories and lab figures are counted so), what a command writes (`>`,
`tee`, `sed -i`), commands that search (`grep`, `rg`, `find`: a pattern is not a file), a
`cd` before a command (a path is taken as written), and MCP servers' tools.
"""

import re
import shlex

# What a call does to a file -> the words a summary says it with ("cart/a.py (edited)").
ACTIONS = {"read": ("read",), "write": ("written", "write", "created"),
           "edit": ("edited", "edit", "modified", "patched"), "search": ("searched", "search"),
           "list": ("listed", "list"), "run": ("ran", "run", "read")}
COMMAND, PATCH = "<command>", "<patch>"

# tool name -> (action, where its input names the file: argument names, COMMAND or PATCH)
FILE_TOOLS = {
    # the course's agent, and the Codex CLI's read_file (file_path)
    "read_file": ("read", ("path", "file_path")),
    "write_file": ("write", ("path",)),
    "edit_file": ("edit", ("path",)),
    # Claude Code
    "Read": ("read", ("file_path",)),
    "Write": ("write", ("file_path",)),
    "Edit": ("edit", ("file_path",)),
    "MultiEdit": ("edit", ("file_path",)),
    "NotebookEdit": ("edit", ("notebook_path",)),
    "NotebookRead": ("read", ("notebook_path",)),
    "Glob": ("search", ("path",)),
    "Grep": ("search", ("path",)),
    "LS": ("list", ("path",)),
    "Bash": ("run", COMMAND),
    # the Codex CLI
    "shell": ("run", COMMAND),
    "shell_command": ("run", COMMAND),
    "exec_command": ("run", COMMAND),
    "apply_patch": ("edit", PATCH),
    "list_dir": ("list", ("dir_path",)),
    "grep_files": ("search", ("path",)),
    "view_image": ("read", ("path",)),
}

# Commands that only show the files they are given, and the options of theirs that take a value.
SHOWS = {"cat": (), "nl": ("-v", "-i", "-w", "-s"), "less": (), "more": (), "bat": ("-r", "--line-range"),
         "head": ("-n", "-c"), "tail": ("-n", "-c"), "sed": ("-e", "-f")}
SHELLS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"}
# The lexer's runs of operator characters: a run with < or > redirects, any other one
# ends a command (`|`, `&&`, `;`, a new line, and runs of them such as `;\n`).
OPERATORS, REDIRECTING = set("();<>|&\n"), set("<>")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (?P<path>.+)$", re.MULTILINE)


def action_words(tool: str) -> tuple:
    """The words a summary says a tool's action with; () for a tool not in the table."""
    row = FILE_TOOLS.get(tool)
    return ACTIONS[row[0]] if row else ()


def files_of(use: dict) -> list[str]:
    """The files a tool_use names, in order, each once; [] for a tool not in the table."""
    row = FILE_TOOLS.get(use.get("name")) if isinstance(use, dict) else None
    data = use.get("input") if row else None
    if not isinstance(data, dict):
        return []
    where = row[1]
    if where == COMMAND:
        found = command_files(data.get("command", data.get("cmd")))
    elif where == PATCH:
        found = [m["path"].strip() for m in _PATCH_FILE.finditer(str(data.get("input", "")))]
    else:
        found = [next((v for k in where if isinstance(v := data.get(k), str) and v.strip()), "")]
    return list(dict.fromkeys(f for f in found if f))


def command_files(command) -> list[str]:
    """The files the commands of a shell command line show (see the module's doc)."""
    if isinstance(command, list) and all(isinstance(w, str) for w in command):
        if len(command) >= 3 and command[0] in SHELLS and command[1] in ("-c", "-lc", "-ic"):
            command = command[2]
        else:
            return [f for words in _commands(command) for f in _shown(words)]
    if not isinstance(command, str):
        return []
    try:
        # A new line ends a command as `;` does (a multi-line Bash call is several commands).
        lexer = shlex.shlex(command, posix=True, punctuation_chars="".join(sorted(OPERATORS)))
        lexer.whitespace, lexer.whitespace_split = " \t\r", True
        tokens = list(lexer)
    except ValueError:          # an unclosed quote: not a command this reads
        return []
    return [f for words in _commands(tokens) for f in _shown(words)]


def _commands(tokens: list) -> list[list]:
    """The words of each simple command, redirections and their targets left out."""
    commands, words, skip = [], [], False
    for token in tokens:
        operator = bool(token) and set(token) <= OPERATORS
        if skip and not operator:
            skip = False
        elif operator and REDIRECTING & set(token):
            if words and words[-1].isdigit():
                words.pop()       # `2>/dev/null`: the 2 is the redirection's, not a file
            skip = True
        elif operator:
            commands.append(words)
            words, skip = [], False
        else:
            words.append(token)
    return [w for w in [*commands, words] if w]


def _shown(words: list) -> list[str]:
    name = words[0].rsplit("/", 1)[-1]
    if name not in SHOWS or (name == "sed" and "-n" not in words):
        return []
    takes_value, files, script_given = SHOWS[name], [], name != "sed"
    args = iter(words[1:])
    for word in args:
        if word in takes_value:
            next(args, None)
            script_given = script_given or word in ("-e", "-f")
        elif word.startswith("-") and word != "-":
            continue
        elif not script_given:
            script_given = True    # sed's first operand is its script
        else:
            files.append(word)
    return files
