"""The agent of the article (sections 9 and 10): the loop, the REPL, one-shot runs.

Before every model call the loop runs `ContextCompactor.prepare` with the
request the user typed this turn. When the API still answers "prompt is too
long" (the SDK's `APIStatusError`, recognised in all three spellings by
`context_compact.is_prompt_too_long`) it runs `reactive_compact` once and tries
again; a second refusal in a row goes to the caller. After a successful call
the counter starts over. A tool batch runs whole before anything else; if it
held a `compact` call, `compact_history` runs after the results are appended,
so no result is orphaned and no side effect is forgotten.

    python -m compact_course agent [--workspace DIR] [--profile seed|default] [--window N]
    python -m compact_course run TASK [--workspace DIR] [--profile ...] [--window N]
    (both also take --offline, --thinking, --max-turns N (at least 1) and --env-file PATH)

With no --workspace both work on a fresh copy of data/workspace, removed at
exit; a workspace where the course lives is refused (`workspace.py`), by
`Agent(...)` too. Whatever they print from data (tool input and output, the
model's notes and answer, errors) goes through `compact_course.display.text.shown`.

TASK is a text or a short name from `compact_course.agent.tasks` (titles, docs-json,
compare-code, compact-tool); a single word close to a name (`titels`) is an
error that names the known tasks (exit status 2), anything else is a question.
The run prints what the article's agent prints: tool calls, `[auto compact]`,
`[transcript saved: ...]`, `[reactive compact]`, and the answer; and after each
model call its `usage` (`[usage: input ..., cache write ..., cache read ...,
output ...]`, see `compact_course.agent.usage`). Every request carries the API's
top-level `cache_control`, so each call can read what the one before wrote.

Whatever a tool prints and whatever a file is called, what enters the messages
is text the SDK can send: a byte that is not UTF-8 (a surrogate escape in a
file name, say) is written `\\xNN` (see `safe_text`).

With `thinking=THINKING` (`--thinking` on the command line) every request turns
thinking on, and each reply's `thinking` and `redacted_thinking` blocks are kept
exactly as received, so they go back to the API unmodified and in their order
(preserved thinking binds each to everything before it: docs/DESIGN.md, flaw 19;
the default profile then edits nothing in place). The loop never sets
`tool_choice`: a model with thinking on refuses `any` and `tool` (Claude Opus 5.5
cannot turn thinking off), and `auto`, the API's default, is what it sends.

With `agent.stream = True` each call goes through the SDK's
`messages.stream()` and the loop reads the message it puts back together:
the same reply, sent as server-sent events.

Left out: showing a reply while it streams, hooks, permissions beyond bash's deny list and
confirmation, and memory across sessions (chapter s09).
"""

import argparse
import contextlib
import difflib
import json
import re
import sys

import anthropic

from context_compact import reactive
from context_compact.compactor import ContextCompactor
from context_compact.config import CompactionConfig
from context_compact.formats import AGENT_SYSTEM_RULE
from context_compact.guard import CompactionGuard, NoProgress
from context_compact.messages import text_of, to_plain, tool_uses
from context_compact.reactive import hit_the_window, is_prompt_too_long

from ..display.text import print_shown, shown
from ..offline.tokens import DEFAULT_WINDOW
from . import tasks
from .model import choose_model
from .tools import TOOLS, run_tool
from .usage import usage_line, usage_of
from .workspace import UnsafeWorkspace, check_workspace, default_workspace

SYSTEM = ("You are a coding agent working in a workspace folder. Use the tools to read and "
          "change files, and answer from what you have read. " + AGENT_SYSTEM_RULE)
MAX_TOKENS = 8000
# The API's automatic caching: a breakpoint on the last block of every request, so
# each call reads the prefix the previous call wrote (the usage shows both).
CACHE_CONTROL = {"type": "ephemeral"}
# Thinking on, as current models take it (the SDK's BetaThinkingConfigAdaptiveParam).
THINKING = {"type": "adaptive"}
THINKING_TYPES = ("thinking", "redacted_thinking")
MAX_TURNS = 30
SHOWN = 120  # characters of a tool call or result shown on the terminal


class AgentError(RuntimeError):
    """The loop could not finish: no final answer within the turn limit."""


class UnknownTask(ValueError):
    """A word that looks like a mistyped task name, not a question."""


# Lone surrogates: Python's stand-in for bytes that were not UTF-8 (os.listdir,
# glob and surrogateescape decoding make them). The SDK's JSON encoder cannot
# send them: one in a tool result raised UnicodeEncodeError out of the REPL.
SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    # U+DC80..U+DCFF hold one undecodable byte each: show that byte.
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """`text` with each lone surrogate written out (`\\xff`), so it encodes as UTF-8."""
    return SURROGATE.sub(_escape, text)


def safe_value(value):
    """A plain dict, list or text with every text in it made safe (see `safe_text`)."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, list):
        return [safe_value(item) for item in value]
    if isinstance(value, dict):
        return {safe_text(key) if isinstance(key, str) else key: safe_value(item)
                for key, item in value.items()}
    return value


class Agent:
    stream = False    # True: each model call through messages.stream() (see the docstring)

    def __init__(self, workspace, client, model: str, *, config: CompactionConfig | None = None,
                 echo=print, confirm=None, new_id=None, max_turns: int = MAX_TURNS,
                 max_tokens: int = MAX_TOKENS, show_usage: bool = False, measure=None,
                 thinking: dict | None = None, prepare=None):
        # Never where the course lives: its code and settings run outside the sandbox.
        self.workspace = check_workspace(workspace)
        if not self.workspace.is_dir():
            raise ValueError(f"workspace is not a folder: {workspace}")
        self.client, self.model = client, model
        self.config = config or CompactionConfig()
        # Every line the agent echoes holds data (a tool's input and output, the model's
        # notes, a file name): shown, never obeyed by the terminal.
        self.echo = (lambda line: echo(shown(line))) if echo else (lambda line: None)
        self.confirm = confirm          # None: destructive bash commands are refused
        if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
            raise ValueError(f"max_turns must be a whole number of at least 1, got {max_turns!r}")
        self.max_turns, self.max_tokens = max_turns, max_tokens
        self.thinking = thinking        # None: the API's default, thinking off where it can be
        # measure: the compactor's (context_compact.tokens.TokenMeasure for a limit in tokens).
        self.compactor = ContextCompactor(self.workspace, client=client, model=model,
                                          config=self.config, echo=self.echo, new_id=new_id,
                                          measure=measure)
        # Summaries too close together stop the loop with NoProgress (context_compact/guard.py).
        self.guard = CompactionGuard(self.compactor)
        # prepare(compactor, messages, active_request): a learner's own (notebook 08), run
        # in place of ContextCompactor.prepare before every model call; None: the package's.
        self.own_prepare = prepare
        self.messages: list = []
        self.answer: str | None = None   # the last final answer
        self.model_calls = 0
        self.reactive_compactions = 0
        self.usage: list[dict] = []      # one per answered call (compact_course.agent.usage)
        self.show_usage = show_usage

    # -- the loop --------------------------------------------------------------
    def ask(self, request: str) -> str:
        """One user turn: the request is the active request until the answer."""
        if not isinstance(request, str) or not request.strip():
            raise ValueError("the request must be a non-empty text")
        request = safe_text(request)
        self.messages.append({"role": "user", "content": request})
        self.answer = self.loop(request)
        return self.answer

    def prepare(self, request: str) -> list:
        """The list to send: ContextCompactor.prepare, or the learner's own prepare."""
        if self.own_prepare is None:
            prepared = self.compactor.prepare(self.messages, request)
        else:
            self.compactor.calls += 1   # as prepare counts them: the step records carry the call
            prepared = list(self.own_prepare(self.compactor, list(self.messages), request))
        self.guard.check(self.messages)   # summaries too close together: NoProgress
        return prepared

    def loop(self, request: str) -> str:
        retries = 0
        for _ in range(self.max_turns):
            self.messages[:] = self.prepare(request)
            try:
                response = self.call_model()
            except anthropic.APIStatusError as error:
                if not is_prompt_too_long(error) or retries >= self.config.max_reactive_retries:
                    raise
                retries += 1
                self.reactive_compactions += 1
                self.echo("[reactive compact]")
                # A retry no smaller than the refused list is refused again: raise instead.
                self.messages[:] = reactive.smaller_or_raise(
                    error, self.messages, self.compactor.reactive_compact(self.messages, request))
                continue
            if hit_the_window(response) and retries < self.config.max_reactive_retries:
                # The reply was cut where the window ended: not an answer. Compact, ask again.
                retries += 1
                self.reactive_compactions += 1
                self.echo("[reactive compact: the reply hit the window]")
                self.messages[:] = self.compactor.reactive_compact(self.messages, request)
                continue
            retries = 0
            self.usage.append(usage_of(response))
            if self.show_usage:
                self.echo(usage_line(self.usage[-1]))
            # A model may send back what it was given; keep the history sendable. Thinking
            # blocks go back as received: their signature covers their text.
            content = [block if block.get("type") in THINKING_TYPES else safe_value(block)
                       for block in to_plain(response.content)]
            self.messages.append({"role": "assistant", "content": content})
            if not tool_uses(self.messages[-1]):
                return text_of(content).strip()
            self.show_notes(content)
            self.run_batch(content, request)
        raise AgentError(f"no final answer after {self.max_turns} model calls")

    def call_model(self):
        self.model_calls += 1
        request = dict(model=self.model, system=SYSTEM, tools=TOOLS, messages=self.messages,
                       max_tokens=self.max_tokens, cache_control=CACHE_CONTROL)
        if self.thinking is not None:   # never with tool_choice (see the module's docstring)
            request["thinking"] = self.thinking
        if self.stream:   # the same reply as server-sent events, put back together by the SDK
            with self.client.messages.stream(**request) as events:
                return events.get_final_message()
        return self.client.messages.create(**request)

    def run_batch(self, content: list, request: str) -> None:
        """Run every call of the batch, append all results, then compact if asked."""
        results, compact_requested = [], False
        for use in tool_uses({"role": "assistant", "content": content}):
            tool_input = use.get("input") if isinstance(use.get("input"), dict) else {}
            self.echo(f"> {use['name']} {shorten(json.dumps(tool_input, ensure_ascii=False))}")
            # Made safe before it is shown or kept: a file name need not be UTF-8.
            output = safe_text(str(run_tool(self.workspace, use["name"], tool_input,
                                            confirm=self.confirm)))
            self.echo(f"  {shorten(output)} ({len(output)} chars)")
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output})
            compact_requested |= use["name"] == "compact"
        self.messages.append({"role": "user", "content": results})
        if compact_requested:
            self.echo("[compact tool]")
            self.messages[:] = self.compactor.compact_history(self.messages, request)

    def show_notes(self, content: list) -> None:
        for line in text_of(content).splitlines():
            if line.strip():
                self.echo(f"  ({shorten(line)})")


def shorten(text: str, limit: int = SHOWN) -> str:
    line = " ".join(safe_text(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def run_task(task: str, workspace, *, profile: str = "default", window: int = DEFAULT_WINDOW,
             client=None, model: str | None = None, echo=print, new_id=None,
             max_turns: int = MAX_TURNS, thinking: dict | None = None) -> Agent:
    """Run one task to its answer (`agent.answer`); offline unless a client is given."""
    choice = None
    if client is None:
        choice = choose_model(offline=True, window=window, echo=echo)
        client, model = choice.client, choice.model
    try:
        agent = Agent(workspace, client, model, config=CompactionConfig.named(profile),
                      echo=echo, new_id=new_id, max_turns=max_turns, thinking=thinking)
        agent.ask(resolve_task(task))
        return agent
    finally:
        if choice is not None:
            choice.close()


def resolve_task(text: str) -> str:
    """The task's text for a short name, `text` itself for a question.

    A single lowercase word (hyphens allowed) that is close to a name but is
    not one raises `UnknownTask` naming the known tasks, so `titels` is not
    quietly answered as a question about the workspace.
    """
    word = text.strip()
    if word in tasks.BY_NAME or not re.fullmatch(r"[a-z0-9]+([-_][a-z0-9]+)*", word):
        return tasks.task_text(text)
    close = difflib.get_close_matches(word.replace("_", "-"), tasks.BY_NAME, n=1, cutoff=0.6)
    if close:
        raise UnknownTask(f"unknown task {word!r}; did you mean {close[0]!r}? "
                          f"(known: {', '.join(tasks.BY_NAME)}; any other text is a question)")
    return text


# -- command lines ---------------------------------------------------------------

def _parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--workspace", metavar="DIR",
                        help="the agent's folder, never the course's own (default: a fresh "
                             "copy of data/workspace, removed at exit)")
    parser.add_argument("--profile", choices=("seed", "default"), default="default",
                        help="seed: the article exactly; default: its flaws fixed")
    parser.add_argument("--window", type=int, default=DEFAULT_WINDOW,
                        help="the offline model's window in tokens (default %(default)s)")
    parser.add_argument("--offline", action="store_true",
                        help="use the offline model even if a key and MODEL_ID are set")
    parser.add_argument("--thinking", action="store_true",
                        help="turn thinking on; its blocks go back as received")
    parser.add_argument("--max-turns", type=_at_least_one, default=MAX_TURNS,
                        help="model calls per request, at least 1 (default %(default)s)")
    parser.add_argument("--env-file", metavar="PATH",
                        help="the settings file to read (default: the course's own .env)")
    return parser


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a whole number of at least 1")
    return value


def _start(args, echo=print_shown):    # a base URL from a settings file is data too
    if args.window < 1:
        raise SystemExit("--window must be a positive number of tokens")
    choice = choose_model(offline=args.offline, window=args.window, echo=echo,
                          env_file=args.env_file or True)
    return choice


def main_run(argv=None) -> int:
    parser = _parser("python -m compact_course run", "Run one task to its answer, non-interactive.")
    parser.add_argument("task", help="the task text, or one of: " + ", ".join(tasks.BY_NAME))
    args = parser.parse_args(argv)
    try:
        request = resolve_task(args.task)
    except UnknownTask as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
        choice, agent = _agent(args, stack, show_usage=True)
        if agent is None:
            return choice
        try:
            answer = agent.ask(request)
        except (anthropic.APIError, AgentError, NoProgress, ValueError) as error:
            print(f"error: {shown(str(error))}", file=sys.stderr)
            return 1
        print()
        print(shown(answer))
    return 0


def _agent(args, stack, **options):
    """(the model choice, the Agent) for a command, or (its exit status, None) after saying why."""
    choice = stack.enter_context(_start(args))
    workspace = _workspace(args, stack)
    if workspace is None:
        return 2, None
    try:
        return choice, Agent(workspace, choice.client, choice.model, echo=print_shown,
                             config=CompactionConfig.named(args.profile),
                             max_turns=args.max_turns,
                             thinking=THINKING if args.thinking else None, **options)
    except ValueError as error:
        print(f"error: {shown(str(error))}", file=sys.stderr)
        return 1, None


def _workspace(args, stack):
    """The folder the command works in (None after saying why it cannot be used)."""
    try:
        if args.workspace is None:
            return stack.enter_context(default_workspace(echo=print_shown))
        return check_workspace(args.workspace, [args.env_file] if args.env_file else ())
    except UnsafeWorkspace as error:
        print(f"error: {shown(str(error))}", file=sys.stderr)
        return None


def ask_person(command: str) -> bool:
    try:
        reply = input(f"Run this destructive command? {command!r} [y/N] ")
    except EOFError:
        return False
    return reply.strip().lower() in ("y", "yes")


def main_agent(argv=None) -> int:
    parser = _parser("python -m compact_course agent",
                     "The article's REPL: each line is the active request; q quits.")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        choice, agent = _agent(args, stack, confirm=ask_person)
        if agent is None:
            return choice
        print(banner(choice.offline), flush=True)
        while True:
            try:
                query = input("s08 >> ").strip()
            except (EOFError, KeyboardInterrupt):
                print()
                break
            except UnicodeDecodeError as error:
                print(f"error: the line is not valid text in {error.encoding}; type it again")
                continue
            if query.lower() in ("q", "exit"):
                break
            if not query:
                continue
            try:
                print(shown(agent.ask(resolve_task(query))))
            except (anthropic.APIError, AgentError, NoProgress, UnknownTask) as error:
                print(f"error: {shown(str(error))}")
    return 0


def banner(offline: bool) -> str:
    """The REPL's first lines after the model's own (which names the model, never the key)."""
    lines = []
    if offline:
        lines.append("This is the offline model: a deterministic program, not a language "
                     "model. It answers only from what is in its context.")
    lines.append(f"Each line is one request; tasks by name: {', '.join(tasks.BY_NAME)}; "
                 f"q quits.")
    return "\n".join(lines)
