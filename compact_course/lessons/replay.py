"""Replay: a canned history through one step, or through `prepare`, and what each step did.

    from compact_course.lessons.replay import replay, timeline
    r = replay("five_reads", profile="seed")          # prepare, as before the next model call
    r.before, r.after, r.records, r.root, r.compactor
    print(r.table())
    t = timeline("timeline_150")                      # call by call, as the session happened
    t.points[0].chars_before, t.points[0].fired
    call_points(agent.compactor.records)              # the same points from a live run
    wrong_order_loss("huge_result"), outputs_lost("timeline_150", "seed")   # what is lost

    python -m compact_course replay HISTORY [--format NAME] [--profile seed|default] [--step NAME]
                                     [--set NAME=VALUE ...] [--chart FILE.png]

HISTORY is a canned history's name or a path: a canned history, or another
agent's session file (Claude Code JSONL, Messages API, OpenAI chat; see
`compact_course.sessions`), detected unless --format names it.

A replay runs in a scratch folder (a temporary one unless `root` is given), with
the deterministic extractive summarizer instead of a model, and transcript
names drawn from a seeded generator, so the same replay prints the same table
and writes the same file names every time.

Left out on purpose: any model call (the live agent is elsewhere) and any
change to the history itself: `before` is a copy and stays as loaded.
"""

import argparse
import atexit
import copy
import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from context_compact.compactor import ContextCompactor
from context_compact.config import CompactionConfig
from context_compact.formats import COMPACT_TOOL_ACK, OMITTED, kind_of_user_text
from context_compact.messages import estimate_chars, text_of, to_plain, tool_results, tool_uses, user_text
from context_compact.record import StepRecord
from context_compact.steps import NAMES
from context_compact.store import Store, seeded_ids

from ..display.text import fixed_width, plural, print_shown, shown
from ..offline.model.extractive import extractive_summary
from ..offline.tokens import estimate_text_tokens
from ..sessions import CANNED, SESSION_FORMATS
from ..sessions.histories import HistoryError, list_histories, load_history
from ..sessions.import_report import print_notes

# `prepare`, or any one step of the pipeline's list (context_compact/steps.py).
STEPS = ("prepare", *NAMES)


class EstimatedTokens:
    """A token measure with no server: the offline model's estimate of the messages' JSON
    (compact_course.offline.tokens), the same count its count_tokens gives, less system and tools."""

    unit = "tokens"

    def __call__(self, messages) -> int:
        return estimate_text_tokens(json.dumps(to_plain(messages), ensure_ascii=False))


def make_compactor(root, profile: str = "default", overrides: dict | None = None,
                   echo=None, summarizer=None, measure=None) -> ContextCompactor:
    """The compactor every replay uses: extractive summaries (or `summarizer`), seeded names;
    a limit in tokens (context_token_limit) is measured by `measure`, else EstimatedTokens."""
    config = CompactionConfig.named(profile, **(overrides or {}))
    if measure is None and config.unit == "tokens":
        measure = EstimatedTokens()
    return ContextCompactor(root, summarizer=summarizer or extractive_summary, config=config,
                            new_id=seeded_ids(), echo=echo, measure=measure)


class _Scratch:
    """The folder a replay writes into: given, or temporary and removed with the replay."""

    def __init__(self, root):
        self._tmp = None
        if root is None:
            self._tmp = tempfile.TemporaryDirectory(dir=scratch_root())
            root = self._tmp.name
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)


# One scratch root per process, named after the process, holds every temporary
# replay. A replay's folder goes with the replay and the root at exit, but a
# notebook kernel is stopped with SIGKILL and cleans nothing: the next process
# to make a root removes the roots of processes that have ended.
SCRATCH_PREFIX = "compact-replay-"
_scratch = {}


def scratch_root() -> str:
    """This process's scratch root, made (and the stale ones removed) on first use."""
    if _scratch.get("pid") != os.getpid():
        remove_stale_scratch()
        _scratch.update(pid=os.getpid(), root=tempfile.mkdtemp(
            prefix=f"{SCRATCH_PREFIX}{_namespace()}-{os.getpid()}-"))
        atexit.register(_remove_own_root, os.getpid(), _scratch["root"])
    return _scratch["root"]


def remove_stale_scratch(folder=None) -> list:
    """Remove the scratch roots, in `folder` (the temporary one), of ended processes
    of this user and pid namespace; return their paths."""
    folder = Path(folder or tempfile.gettempdir())
    pattern = re.compile(re.escape(SCRATCH_PREFIX) + rf"{_namespace()}-(\d+)-")
    removed = []
    for path in folder.glob(SCRATCH_PREFIX + "*"):
        found = pattern.match(path.name)
        if found and path.is_dir() and not path.is_symlink() \
                and path.stat().st_uid == os.getuid() and not _alive(int(found[1])):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _namespace() -> int:
    # A pid means one process only within one pid namespace (containers share /tmp).
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:    # a zombie has ended: only its exit status waits to be collected
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _remove_own_root(pid: int, root: str) -> None:
    if os.getpid() == pid:      # not in a forked child, whose parent still uses it
        shutil.rmtree(root, ignore_errors=True)


def run_step(compactor: ContextCompactor, step: str, messages, active_request: str):
    """`prepare`, or one step of the list by name (the request goes to the steps that need it)."""
    if step == "prepare":
        return compactor.prepare(messages, active_request)
    if step not in STEPS:
        raise ValueError(f"unknown step {step!r}: use one of {', '.join(STEPS)}")
    return compactor.run_step(step, messages, active_request)


@dataclass
class Replay:
    """One replay: the messages before and after, the records, and the compactor that ran.

    A temporary scratch folder lives as long as this object: keep the Replay,
    not only its `root`, while you read the files it wrote.
    """
    history: dict
    profile: str
    step: str
    before: list
    after: list
    records: list
    compactor: ContextCompactor
    echo: list = field(default_factory=list)
    scratch: _Scratch | None = field(default=None, repr=False)

    @property
    def root(self) -> Path:
        return self.compactor.store.root

    @property
    def config(self) -> CompactionConfig:
        return self.compactor.config

    @property
    def files(self) -> list:
        return list(self.compactor.store.written)

    def fired(self) -> list:
        return [r.step for r in self.records if r.fired]

    def table(self) -> str:
        return shown(format_table(self.records))    # file names come from the data


def replay(history, profile: str = "default", step: str | None = None,
           overrides: dict | None = None, root=None) -> Replay:
    """Run a history (name, path or dict) through `prepare` or one step; keep the record."""
    history = load_history(history)
    step = step or "prepare"
    if step not in STEPS:
        raise ValueError(f"unknown step {step!r}: use one of {', '.join(STEPS)}")
    scratch = _Scratch(root)
    lines: list[str] = []
    compactor = make_compactor(scratch.root, profile, overrides, echo=lines.append)
    before = copy.deepcopy(history["messages"])
    after = run_step(compactor, step, history["messages"], history["active_request"])
    return Replay(history=history, profile=compactor.config.profile, step=step, before=before,
                  after=after, records=list(compactor.records), compactor=compactor,
                  echo=lines, scratch=scratch)


# --------------------------------------------------------------------------
# The timeline: a long session replayed call by call
# --------------------------------------------------------------------------

@dataclass
class CallPoint:
    """What `prepare` did before one model call."""
    call: int                 # 1-based
    request: str              # the active request of that call
    messages_before: int
    messages_after: int
    chars_before: int         # the context as it arrived: last context + new messages
    chars_after: int          # what was sent to the model
    fired: list               # names of the steps that changed something, in order
    files: list               # relative paths written during this call
    model_calls: int          # summaries paid for during this call
    records: list = field(repr=False, default_factory=list)


@dataclass
class Timeline:
    history: dict
    points: list
    compactor: ContextCompactor
    scratch: _Scratch | None = field(default=None, repr=False)

    @property
    def config(self) -> CompactionConfig:
        return self.compactor.config

    @property
    def profile(self) -> str:
        return self.config.profile

    @property
    def limit(self) -> int:
        return self.config.context_char_limit

    @property
    def root(self) -> Path:
        return self.compactor.store.root

    @property
    def records(self) -> list:
        return list(self.compactor.records)

    def calls_where(self, step: str) -> list:
        """The calls (1-based) at which `step` fired."""
        return [p.call for p in self.points if step in p.fired]

    def summary(self) -> dict:
        return {"calls": len(self.points),
                "files": sum(len(p.files) for p in self.points),
                "model_calls": sum(p.model_calls for p in self.points),
                "max_sent": max((p.chars_after for p in self.points), default=0)}


def call_points(records) -> list:
    """One CallPoint per `prepare` call, rebuilt from a compactor's records.

    For a run that was not replayed here (a live agent's, say), so that
    `charts.timeline_chart` can draw it. Records of call 0 (steps run on their
    own before any `prepare`) are left out; the request is not recorded, so
    it is left empty.
    """
    points = []
    for call in sorted({r.call for r in records if r.call > 0}):
        steps = [r for r in records if r.call == call]
        points.append(CallPoint(
            call=call, request="", messages_before=steps[0].messages_before,
            messages_after=steps[-1].messages_after, chars_before=steps[0].chars_before,
            chars_after=steps[-1].chars_after, fired=[r.step for r in steps if r.fired],
            files=[f for r in steps for f in r.files],
            model_calls=sum(r.model_calls for r in steps), records=steps))
    return points


def _compact_requested(messages) -> bool:
    """The model called the compact tool in the batch these results answer."""
    return any(text_of(b.get("content", "")) == COMPACT_TOOL_ACK
               for m in messages for b in tool_results(m))


def _typed(message) -> str:
    """The text a person typed, or '' for tool results and our own markers."""
    text = user_text(message)
    return "" if not text or kind_of_user_text(text) else text


def timeline(history, profile: str = "default", overrides: dict | None = None,
             root=None, observe=None, summarizer=None, measure=None) -> Timeline:
    """Replay a session call by call: before each model call, the context so far
    (already compacted) plus the messages new since the last call goes through
    `prepare`; then that call's assistant message is appended. A trailing user
    turn (results the model has not answered yet) makes one last call.

    The active request of each call is the newest text a user typed before it.
    When the model called the compact tool, the harness compacts after the
    batch, before `prepare`, as the agent does. `observe(point, sent)`, if
    given, sees each call's point and the messages sent; `summarizer`, if
    given, writes the summaries instead of the extractive one; `measure` is the
    compactor's (by default EstimatedTokens when `overrides` set context_token_limit).
    """
    history = load_history(history)
    scratch = _Scratch(root)
    compactor = make_compactor(scratch.root, profile, overrides, summarizer=summarizer, measure=measure)
    points, context, pending = [], [], []
    request = ""
    for message in [*history["messages"], None]:
        if message is not None and message.get("role") != "assistant":
            pending.append(message)
            request = _typed(message) or request
            continue
        if message is None and not pending:
            break
        arriving = context + pending
        start, files = len(compactor.records), len(compactor.store.written)
        sent = arriving
        if _compact_requested(pending):
            sent = compactor.compact_history(sent, request)
        sent = compactor.prepare(sent, request)
        new = compactor.records[start:]
        points.append(CallPoint(
            call=len(points) + 1, request=request,
            messages_before=len(arriving), messages_after=len(sent),
            chars_before=estimate_chars(arriving), chars_after=estimate_chars(sent),
            fired=[r.step for r in new if r.fired],
            files=compactor.store.written[files:],
            model_calls=sum(r.model_calls for r in new), records=new))
        if observe:
            observe(points[-1], sent)
        if message is None:
            break
        context, pending = sent + [copy.deepcopy(message)], []
    return Timeline(history=history, points=points, compactor=compactor, scratch=scratch)


# --------------------------------------------------------------------------
# What is lost for good
# --------------------------------------------------------------------------

def _omitted_ids(messages) -> set:
    return {b["tool_use_id"] for m in messages for b in tool_results(m)
            if text_of(b.get("content", "")) == OMITTED}


def wrong_order_loss(history, profile: str = "seed") -> int:
    """Tool outputs lost for good when step 3 runs before step 1 on the history's last batch.

    In the article's order step 1 saves a huge result first and step 3 can
    point at the copy; the other way round step 3 sees it first and, in the
    seed profile, leaves '[Earlier tool result omitted.]' with no copy.
    """
    history = load_history(history)
    scratch = _Scratch(None)
    compactor = make_compactor(scratch.root, profile)
    messages = compactor.micro_compact(history["messages"])
    messages = compactor.tool_result_budget(messages)
    return len(_omitted_ids(messages) - _omitted_ids(history["messages"]))


def outputs_lost(history, profile: str = "seed", overrides: dict | None = None) -> int:
    """Tool outputs that a session, replayed call by call, loses for good.

    A result is lost when step 3 replaced it by '[Earlier tool result
    omitted.]' at some call and its full text is in no transcript and no saved
    file. The default profile saves before it shrinks, so it loses none.
    """
    from ..bench.cost import readable_outputs  # here: the benchmark's costs load with it

    history = load_history(history)
    originals = {b["tool_use_id"]: text_of(b.get("content", ""))
                 for m in history["messages"] for b in tool_results(m)}
    omitted: set = set()
    calls = timeline(history, profile=profile, overrides=overrides,
                     observe=lambda _point, sent: omitted.update(_omitted_ids(sent)))
    omitted -= _omitted_ids(history["messages"])
    # What the archives hold: every transcript, and the saved copies they point at.
    readable = readable_outputs([], Store(calls.root))
    return len({i for i in omitted if originals[i] not in readable.get(i, ())})


def _calls(messages) -> dict:
    """Each tool_use block of the list by its id: the call a result answers."""
    return {use["id"]: use for m in messages for use in tool_uses(m)}


def batch_table(messages) -> str:
    """The newest batch (the last message's tool results), one line a result: the tool, the
    result's characters, and the path or command it was called with (notebook 01)."""
    asked = _calls(messages)
    lines = []
    for block in tool_results(messages[-1]) if messages else []:
        use = asked.get(block["tool_use_id"], {"name": "?", "input": {}})
        called = use["input"].get("path") or use["input"].get("command") or ""
        lines.append(f"{use['name']:<9} {len(text_of(block['content'])):>8,d}  {called}")
    return "\n".join(lines)


def results_table(messages, keep_recent: int) -> str:
    """Every tool result in the list, oldest first, one line each: its number, the tool that
    made it and its characters, the newest `keep_recent` marked (notebooks 03 and 05)."""
    tools = {tid: use["name"] for tid, use in _calls(messages).items()}
    results = [block for m in messages for block in tool_results(m)]
    sizes = [f"{len(text_of(block['content'])):,d}" for block in results]
    width = max([5, *map(len, sizes)])
    lines = ["#  tool      characters"]
    for number, (block, size) in enumerate(zip(results, sizes), start=1):
        newest = f"  newest {keep_recent}" if number > len(results) - keep_recent else ""
        lines.append(f"{number}  {tools.get(block['tool_use_id'], '?'):<9} {size:>{width}}{newest}")
    return "\n".join(lines)


def result_changes(before, after) -> tuple[list, list, list, list]:
    """Each tool result of `before` and what a step left of it in `after`, in order:
    (labels "N tool", characters before, texts after, kinds), where a kind is "omitted",
    "placeholder" (a line naming a saved file) or "whole" (notebook 03's bars)."""
    tools = {tid: use["name"] for tid, use in _calls(before).items()}
    results = [block for m in before for block in tool_results(m)]
    texts = [text_of(block["content"]) for m in after for block in tool_results(m)]
    kinds = ["omitted" if text == OMITTED else "placeholder" if text.startswith("[Earlier")
             else "whole" for text in texts]
    labels = [f"{n} {tools.get(b['tool_use_id'], '?')}" for n, b in enumerate(results, 1)]
    return labels, [len(text_of(b["content"])) for b in results], texts, kinds


def shortened(text: str, head: int = 4) -> str:
    """A long block's first `head` lines, a line saying it goes on, and its last line."""
    lines = text.splitlines()
    if len(lines) <= head + 1:
        return text
    return "\n".join([*lines[:head], "    ... preview continues ...", lines[-1]])


CHEAP_STEPS = ("tool_result_budget", "snip_compact", "micro_compact")


def every_order(history, profiles=("seed", "default")) -> dict:
    """Notebook 05's runs: the cheap steps in every order, in each profile.

    `{order: {profile: {"records", "context", "lost"}}}`, where `lost` is the ids of the
    history's tool outputs no longer readable verbatim (`bench.cost.lost_outputs`: not in
    the context, a transcript or a saved file). Each run has its own scratch folder.
    """
    import itertools

    from ..bench.cost import lost_outputs  # here: the benchmark's costs load with it

    history = load_history(history)
    originals = {b["tool_use_id"]: text_of(b["content"])
                 for m in history["messages"] for b in tool_results(m)}
    runs: dict = {}
    for order in itertools.permutations(CHEAP_STEPS):
        for profile in profiles:
            with tempfile.TemporaryDirectory() as folder:
                compactor = make_compactor(folder, profile)
                context = history["messages"]
                for step in order:
                    context = run_step(compactor, step, context, history["active_request"])
                runs.setdefault(order, {})[profile] = {
                    "records": list(compactor.records), "context": context,
                    "lost": lost_outputs(originals, context, compactor.store)}
    return runs


def order_table(runs: dict) -> str:
    """`every_order`'s runs, one line an order: steps by number, outputs lost in each profile,
    and the seed's characters after."""
    lines = [f"{'order':<12}{'lost, seed':>11}{'lost, default':>15}{'characters after, seed':>24}"]
    for order, run in runs.items():
        numbers = " -> ".join(str(CHEAP_STEPS.index(step) + 1) for step in order)
        lines.append(f"{numbers:<12}{len(run['seed']['lost']):>11}{len(run['default']['lost']):>15}"
                     f"{run['seed']['records'][-1].chars_after:>24,d}")
    return "\n".join(lines)


@dataclass
class Growth:
    """Notebook 00's chart data: a session's context at each model call."""
    grown: list          # characters before each call with no compaction (the whole list so far)
    sent: list           # characters `prepare` sent at each call
    chars_per_token: float   # the offline model's token estimate of the whole session
    refused_at: int      # the call where the uncompacted list would pass the window, projected

    def window_chars(self, window_tokens: int) -> float:
        return window_tokens * self.chars_per_token


def growth(history, window_tokens: int, profile: str = "seed") -> Growth:
    """The context before each model call with no compaction, what `prepare` sent, and the call
    from which the API would refuse, projecting the session's average growth a call."""
    history = load_history(history)
    everything = history["messages"]
    starts = [i for i, m in enumerate(everything) if m["role"] == "assistant"]
    if everything[-1]["role"] == "user":
        starts.append(len(everything))  # results the model has not answered yet
    grown = [estimate_chars(everything[:i]) for i in starts]
    tokens = estimate_text_tokens(json.dumps(everything[:starts[-1]], ensure_ascii=False))
    sent = [point.chars_after for point in timeline(history, profile=profile).points]
    refused_at = len(grown) + int((window_tokens - tokens) // (tokens / len(grown))) + 1
    return Growth(grown=grown, sent=sent, chars_per_token=grown[-1] / tokens, refused_at=refused_at)


# --------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------

HEADER = ("step", "messages before -> after", "characters before -> after", "files written")
RULE = ("-" * 18, "-" * 24, "-" * 26, "-" * 13)
WIDTHS = (20, 28, 32, 0)


def _pair(before: int, after: int, width: int) -> str:
    # The numbers line up under the words "before" and "after" of the header.
    return f"{before:>{width},d} -> {after:,d}"


def _step_rows(record: StepRecord) -> list:
    files = record.files or ["-"]
    rows = [(record.step, _pair(record.messages_before, record.messages_after, 15),
             _pair(record.chars_before, record.chars_after, 17), files[0])]
    rows += [("", "", "", extra) for extra in files[1:]]
    if record.error:
        rows.append(f"{'':<{WIDTHS[0]}}error: {record.error}")
    return rows


def format_table(records: list[StepRecord]) -> str:
    """A fixed-width table, one row per step, and a total row when there are several."""
    if not records:
        return "\n".join(fixed_width([HEADER, "(no steps ran)"], WIDTHS))
    rows = [HEADER, RULE, *(row for record in records for row in _step_rows(record))]
    if len(records) > 1:
        first, last = records[0], records[-1]
        rows.append(("all steps", _pair(first.messages_before, last.messages_after, 15),
                     _pair(first.chars_before, last.chars_after, 17),
                     plural(sum(len(r.files) for r in records), "file")))
    return "\n".join(fixed_width(rows, WIDTHS))


# --------------------------------------------------------------------------
# python -m compact_course replay
# --------------------------------------------------------------------------

class UsageError(Exception):
    """A bad command line; shown as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m compact_course replay",
        description="Replay a canned history through the pipeline and print what each step did.")
    parser.add_argument("history", help=f"a name ({', '.join(list_histories())}) or a path: "
                                        f"a canned history or a session file")
    parser.add_argument("--format", default="auto", choices=("auto", CANNED, *SESSION_FORMATS),
                        help="the file's format (default: detected from the file)")
    parser.add_argument("--profile", choices=("seed", "default"), default="default")
    parser.add_argument("--step", choices=STEPS, default="prepare",
                        help="one step instead of the whole prepare")
    parser.add_argument("--set", dest="overrides", action="append", default=[],
                        metavar="NAME=VALUE", help="a threshold, e.g. context_char_limit=20000")
    parser.add_argument("--chart", metavar="FILE.png",
                        help="also save the before/after chart to this file")
    return parser


def parse_overrides(pairs) -> dict:
    """NAME=VALUE strings into config overrides: ints, floats, true/false, none."""
    fields = CompactionConfig().as_dict()
    overrides = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or name not in fields or name == "profile":
            raise UsageError(f"--set {pair}: expected NAME=VALUE with NAME a threshold "
                             f"(e.g. context_char_limit)")
        lowered = raw.strip().lower()
        if lowered in ("none", "null"):
            overrides[name] = None
        elif lowered in ("true", "false"):
            overrides[name] = lowered == "true"
        else:
            try:
                overrides[name] = float(raw) if name == "target_fraction" else int(raw)
            except ValueError:
                raise UsageError(f"--set {pair}: {raw!r} is not a number") from None
    return overrides


def _save_chart(result: Replay, path: str) -> None:
    from ..bench.chart import save_chart
    from . import charts
    figure = charts.before_after(result.records, limit=result.config.context_char_limit,
                                 title=f"{result.history['name']}: {result.step} "
                                       f"({result.profile} profile)")
    try:
        save_chart(figure, path, dpi=120)
    finally:
        charts.close(figure)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser().parse_args(argv)
        overrides = parse_overrides(args.overrides)
        if args.chart:
            from ..bench.chart import chart_path_problem
            if problem := chart_path_problem(args.chart):
                raise UsageError(f"--chart {args.chart}: {problem}")
        history = load_history(args.history, args.format)
        print_notes("replay", history)       # what an import read and left out, on stderr
        result = replay(history, profile=args.profile, step=args.step, overrides=overrides)
        # The name, title, request and file names come from the file: shown, never obeyed.
        print_shown(f"{result.history['name']}: {result.history['title']}")
        request = result.history["active_request"]
        cut = request if len(request) <= 70 else request[:67] + "..."
        print_shown(f"profile {result.profile}, step {result.step}, active request: {cut}")
        for line in recorded_compactions(result.history):
            print_shown(line)
        print()
        print_shown(result.table())
        for line in result.echo:
            print_shown(line)
        if args.chart:
            _save_chart(result, args.chart)
            print_shown(f"chart saved to {args.chart}")
    except (UsageError, HistoryError, ValueError, OSError) as error:
        print_shown(f"replay: error: {one_line(error)}", file=sys.stderr)
        return 2
    return 0


def recorded_compactions(history: dict) -> list:
    """A line for each compaction the other agent recorded in its file (importers:
    `history["compactions"]`): where, and the start of the summary its model wrote."""
    lines = []
    for c in history.get("compactions", ()):
        how = ", ".join(str(part) for part in (c["format"], f"line {c['line']}", c.get("trigger"),
                                               c.get("pre_tokens") and f"{c['pre_tokens']:,} tokens before")
                        if part)
        summary = " ".join(c["summary"].split())
        summary = summary if len(summary) <= 70 else summary[:67] + "..."
        lines.append(f"recorded compaction ({how}): after message {c['at']} of "
                     f"{len(history['messages'])}: {summary}")
    return lines


def one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
