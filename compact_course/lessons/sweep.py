"""Sweep: one history replayed over a grid of thresholds and both profiles, to choose settings.

    from compact_course.lessons.sweep import sweep, best_row
    result = sweep("data/sessions/claude_code_sample.jsonl", window_tokens=32_000)
    print(result.table()); best_row(result.rows); figure = sweep_chart(result)

    python -m compact_course sweep FILE [--format NAME] [--window TOKENS] [--budget COST]
                                 [--grid NAME=V1,V2 ...] [--chart FILE.png] [--no-progress]

Each row is one replay call by call (`compact_course.lessons.replay.timeline`) with
one setting of the grid, in one profile. The context limit is either in
characters (`context_char_limit`, the article's unit) or in tokens
(`context_token_limit`, measured by the offline model's estimate,
`compact_course.lessons.replay.EstimatedTokens`): the grid's values of the two are alternatives, each
crossed with the other thresholds. What a row measures, per session:
- cost: the session's bill by `compact_course.bench.cost`, in base input tokens: each
  request as the API bills it with a prompt cache (a request that extends the
  previous one reads that one from the cache at 0.1 and writes the rest at
  1.25), each recorded reply as output (5), and each summary call (its input
  and its text);
  (as `compact_course.bench.prices.DEFAULT_MODEL` prices it; the sweep names it);
- repaid: each miss (below) priced as its re-read (`cost.CostLedger.add_miss`): the
  newest earlier output holding each name the call lacked, read back; `+misses` is
  cost + repaid, the bill with misses priced;
- lost: tool outputs no longer readable verbatim anywhere (`cost.lost_outputs`);
- misses: model calls whose reply used a name that only an earlier tool output
  held (an identifier with an underscore, 8 characters or more, in the reply's
  text; names the user typed do not count), when that name was nowhere in what
  the call was sent (not in a result, a preview, a summary or a note). The
  model's replies are the recorded ones, so this counts where a compactor would
  have left the model without what it went on to use; a measure of this course,
  not of the API;
- peak_tokens: the largest request, by the offline model's token estimate;
- forgot (the command, or `probe=True`): probes of the session (`compact_course.probes`)
  gone from the last request: not in it, in no file it names, in no summary.
A row fits a window when its peak is at most the window. The best row: of the
rows that fit, lose nothing and cost at most the budget (if one is set), and,
probed, forget no more probes than the default profile at its default settings
(the command says so), the fewest misses, then the lowest bill with misses priced,
then the first in the grid's order.

Left out: a live model (replies are the recorded ones, so no setting changes
what the model did next), reactive_compact (a row that does not fit shows
where the API would refuse instead), and timing.
"""

import argparse
import itertools
import re
import sys
from dataclasses import dataclass, field

from context_compact.config import CompactionConfig
from context_compact.messages import text_of, tool_results
from context_compact.store import Store
from context_compact.summary import summary_input

from ..bench import cost
from ..bench.prices import DEFAULT_MODEL, price
from ..display.text import fixed_width, plural, print_shown, shown
from ..offline.model.extractive import extractive_summary
from ..offline.tokens import estimate_text_tokens
from ..probes import make_probes
from ..probes.status import Locator
from ..sessions.histories import load_history
from ..sessions.import_report import print_notes
from .replay import one_line, timeline

PROFILES = ("seed", "default")
# The grid: a config field and the values tried, one row an axis. The two
# limits (LIMITS) are alternatives: a row has one or the other.
GRID = {
    "context_char_limit": (25_000, 50_000, 100_000),
    "context_token_limit": (6_000, 12_000),
    "keep_recent_results": (1, 3, 6),
    "snip_target_messages": (20, 30, 40),
}
LIMITS = {"context_char_limit": "ch", "context_token_limit": "tok"}
# The default profile's own settings of the grid's axes: the row a probed sweep ranks against.
DEFAULT_SETTINGS = ("context_char_limit", "keep_recent_results", "snip_target_messages")
SHORT = {"keep_recent_results": "keep", "snip_target_messages": "snip to"}
WINDOW_TOKENS = 32_000
NAME = re.compile(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]{2,}\b")
MIN_NAME = 8


def limit_of(settings: dict) -> str:
    """The row's context limit with its unit: '50,000 ch' or '12,000 tok'."""
    name = next(n for n in LIMITS if n in settings)
    return f"{settings[name]:,} {LIMITS[name]}"


@dataclass
class SweepRow:
    profile: str
    settings: dict
    cost: float
    lost: int
    misses: int
    summaries: int
    peak_tokens: int
    calls: int
    forgotten: int | None = None   # probes gone at the end (compact_course.probes), when probed
    repaid: float = 0              # the misses, each priced as its re-read

    @property
    def cost_repaid(self) -> float:
        return self.cost + self.repaid

    def fits(self, window_tokens: int) -> bool:
        return self.peak_tokens <= window_tokens

    def settings_text(self) -> str:
        """'limit 50,000 ch, keep 3, snip to 30': the settings as the chart labels the best row
        (the chart asks the row, so that sweep_chart.py never imports this module)."""
        return ", ".join([f"limit {limit_of(self.settings)}",
                          *(f"{SHORT[k]} {v:,}" for k, v in self.settings.items() if k in SHORT)])


@dataclass
class Sweep:
    history: dict
    window_tokens: int
    rows: list
    baseline: dict = field(default_factory=dict)    # the session with no compaction
    budget: float | None = None
    reference: "SweepRow | None" = None            # probed: the default profile at its defaults

    @property
    def most_forgotten(self) -> int | None:
        """Probed: the most a row may forget to be ranked (the default's count)."""
        return None if self.reference is None else self.reference.forgotten

    @property
    def best(self) -> "SweepRow | None":
        return best_row(self.rows, self.window_tokens, self.budget, self.most_forgotten)

    def table(self) -> str:
        return format_table(self.rows, self.window_tokens, self.budget, self.most_forgotten)


def best_row(rows: list, window_tokens: int, budget: float | None = None,
             most_forgotten: int | None = None) -> "SweepRow | None":
    """Fits the window, loses nothing, within budget (and, probed, forgets no more than
    `most_forgotten`); then fewest misses, lowest bill with misses priced, first."""
    fitting = [r for r in rows if r.fits(window_tokens) and r.lost == 0
               and (budget is None or r.cost <= budget) and ranked(r, most_forgotten)]
    return min(fitting, key=lambda r: (r.misses, r.cost_repaid), default=None)


def ranked(row: "SweepRow", most_forgotten: int | None) -> bool:
    """Whether a row takes part in the ranking: unprobed, or forgets no more than allowed."""
    return most_forgotten is None or row.forgotten is None or row.forgotten <= most_forgotten


# -- what a reply used ----------------------------------------------------------------

def _names(text: str) -> set:
    return {n for n in NAME.findall(text) if len(n) >= MIN_NAME}


def needs(messages) -> dict:
    """{index of an assistant message: names it uses that only earlier tool outputs held}."""
    typed, outputs, found = set(), [], {}
    for i, message in enumerate(messages):
        if message["role"] == "user":
            results = tool_results(message)
            outputs += [_names(text_of(b.get("content", ""))) for b in results]
            if not results:
                typed |= _names(text_of(message.get("content")))
            continue
        seen = set().union(*outputs) - typed if outputs else set()
        used = _names(text_of(message["content"])) & seen
        if used:
            found[i] = used
    return found


def _holders(messages, names: set) -> list:
    """The outputs a model would read back for `names`: for each, the newest tool output
    that holds it, each output once."""
    found = []
    for message in reversed(messages):
        for block in tool_results(message) if message["role"] == "user" else ():
            text = text_of(block.get("content", ""))
            held = _names(text) & names
            if held:
                names = names - held
                found.append(text)
    return found


def _request_tokens(texts: list) -> int:
    """The offline estimate of a request given the JSON of its messages."""
    return estimate_text_tokens("[" + ", ".join(texts) + "]")


# -- one row ------------------------------------------------------------------------

def run_row(history: dict, profile: str, settings: dict, probes=None) -> SweepRow:
    """One replay of `history` with `settings` in `profile`, measured as the docstring says;
    with `probes`, also the probes gone from the last request (`compact_course.probes.status`)."""
    ledger = cost.CostLedger()
    limit = CompactionConfig.named(profile, **settings).summary_input_char_limit
    needed = needs(history["messages"])
    replies = [i for i, m in enumerate(history["messages"]) if m["role"] == "assistant"]
    state = {"misses": 0, "peak": 0, "sent": []}

    def summarizer(messages):
        summary = extractive_summary(messages)
        ledger.add_summary(summary_input(messages, limit), summary)
        return summary

    def observe(point, sent):
        texts = [cost.message_json(m) for m in sent]
        reply = replies[point.call - 1] if point.call <= len(replies) else None
        answer = None if reply is None else cost.message_json(history["messages"][reply])
        usage = ledger.add_request(texts, answer)
        state["peak"] = max(state["peak"], _request_tokens(texts))
        state["sent"] = sent
        # The JSON escapes nothing a name is made of: a name in it is a name in the context.
        if reply in needed and not needed[reply] <= _names(" ".join(texts)):
            state["misses"] += 1
            lacking = needed[reply] - _names(" ".join(texts))
            for text in _holders(history["messages"][:reply], lacking):
                ledger.add_miss(cost.prompt_tokens(usage), text)

    run = timeline(history, profile=profile, overrides=settings, observe=observe, summarizer=summarizer)
    originals = {b["tool_use_id"]: text_of(b.get("content", ""))
                 for m in history["messages"] for b in tool_results(m)}
    lost = cost.lost_outputs(originals, state["sent"], Store(run.root))
    forgotten = None if probes is None else \
        Locator(probes, Store(run.root)).statuses(state["sent"]).count("gone")
    return SweepRow(profile=profile, settings=dict(settings), cost=round(ledger.cost),
                    lost=len(lost), misses=state["misses"], summaries=ledger.summary_calls,
                    peak_tokens=state["peak"], calls=len(run.points), forgotten=forgotten,
                    repaid=round(ledger.repaid))


def _settings(grid: dict) -> list:
    """Each limit of either unit, crossed with every value of the other axes."""
    limits = [{name: value} for name in LIMITS for value in grid.get(name, ())]
    others = [name for name in grid if name not in LIMITS]
    return [{**limit, **dict(zip(others, values))}
            for limit in limits for values in itertools.product(*(grid[n] for n in others))]


def _baseline(history: dict) -> dict:
    """The session as recorded, sent whole before each call: what no compaction costs."""
    ledger, peak, context = cost.CostLedger(), 0, []
    for message in [*history["messages"], None]:
        if message is not None and message["role"] != "assistant":
            context.append(message)
            continue
        texts = [cost.message_json(m) for m in context]
        ledger.add_request(texts, None if message is None else cost.message_json(message))
        peak = max(peak, _request_tokens(texts))
        if message is None:
            break
        context.append(message)
    return {"cost": round(ledger.cost), "peak_tokens": peak}


def sweep(history, grid: dict | None = None, profiles=PROFILES, window_tokens: int = WINDOW_TOKENS,
          budget: float | None = None, progress=None, probe: bool = False) -> Sweep:
    """Every setting of `grid` in every profile; `progress(done, total)` after each row.

    `probe`: each row also counts the probes it forgets (`compact_course.probes`), and only the
    rows that forget no more than the default profile at its default settings are ranked.
    """
    history = load_history(history)
    runs = [(profile, settings) for profile in profiles for settings in _settings(grid or GRID)]
    probes = make_probes(history["messages"], history["active_request"]) if probe else None
    rows = []
    for done, (profile, settings) in enumerate(runs, start=1):
        rows.append(run_row(history, profile, settings, probes))
        if progress:
            progress(done, len(runs))
    reference = None
    if probe:
        defaults = {name: getattr(CompactionConfig(), name) for name in DEFAULT_SETTINGS}
        reference = next((r for r in rows if r.profile == "default" and r.settings == defaults), None) \
            or run_row(history, "default", defaults, probes)
    return Sweep(history=history, window_tokens=window_tokens, rows=rows, baseline=_baseline(history),
                 budget=budget, reference=reference)


def progress_bar(stream=None, width: int = 30):
    """A progress(done, total) that redraws one line on `stream` (stderr), for the command line."""
    stream = stream or sys.stderr

    def show(done: int, total: int) -> None:
        filled = width * done // total
        stream.write(f"\rsweep [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done == total:
            stream.write("\n")
        stream.flush()
    return show


# -- the table ----------------------------------------------------------------------

def format_table(rows: list, window_tokens: int, budget: float | None = None,
                 most_forgotten: int | None = None) -> str:
    """One line a row; the best marked with '*', rows over the window with '!', and
    (probed) rows that forget more than the default with '-': they are not ranked."""
    best = best_row(rows, window_tokens, budget, most_forgotten)
    axes = [a for a in (rows[0].settings if rows else {}) if a not in LIMITS]
    probed = any(row.forgotten is not None for row in rows)
    header = ("", "profile", "limit", *(SHORT.get(a, a) for a in axes), "cost", "+misses",
              *(("forgot",) if probed else ()), "lost", "misses", "summaries", "peak tokens")
    widths = (2, 9, 12, *(9 for _ in axes), 10, 10, *((8,) if probed else ()), 6, 8, 11, 0)
    lines = [header]
    for row in rows:
        mark = "*" if row is best else ("!" if not row.fits(window_tokens)
                                        else "-" if not ranked(row, most_forgotten) else "")
        lines.append((mark, row.profile, limit_of(row.settings), *(f"{row.settings[a]:,}" for a in axes),
                      f"{row.cost:,}", f"{row.cost_repaid:,}", *((str(row.forgotten),) if probed else ()),
                      str(row.lost),
                      str(row.misses), str(row.summaries), f"{row.peak_tokens:,}"))
    return "\n".join(fixed_width(lines, widths))


# -- python -m compact_course sweep --------------------------------------------------------

class UsageError(Exception):
    """A bad command line; one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parse_grid(pairs) -> dict:
    """NAME=V1,V2,... into a grid: each NAME a threshold of the grid, each value a positive integer;
    NAME= (no values) leaves a limit's unit out."""
    grid = dict(GRID)
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or name not in GRID:
            raise UsageError(f"--grid {pair}: expected NAME=V1,V2 with NAME one of {', '.join(GRID)}")
        if not raw and name in LIMITS:
            grid[name] = ()
            continue
        try:
            values = tuple(int(v) for v in raw.split(","))
        except ValueError:
            raise UsageError(f"--grid {pair}: {raw!r} is not a list of whole numbers") from None
        if min(values) < (0 if name == "keep_recent_results" else 1):
            raise UsageError(f"--grid {pair}: values must be positive")
        grid[name] = values
    if not any(grid[name] for name in LIMITS):
        raise UsageError("--grid: at least one context limit (characters or tokens) is needed")
    return grid


def _parser():
    parser = _Parser(prog="python -m compact_course sweep",
                     description="Replay one history over a grid of thresholds and both profiles.")
    parser.add_argument("history", help="a canned history's name, or a session file (any format)")
    parser.add_argument("--format", default="auto", help="the file's format (default: detected)")
    parser.add_argument("--window", type=int, default=WINDOW_TOKENS,
                        help="the model's window in tokens (default %(default)s)")
    parser.add_argument("--budget", type=int, default=None,
                        help="the most a row may cost to be chosen (default: no limit)")
    parser.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2")
    parser.add_argument("--chart", metavar="FILE.png", help="also save the chart to this file")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    return parser


def main(argv=None) -> int:
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
        if args.window < 1:
            raise UsageError("--window must be a positive number of tokens")
        if args.budget is not None and args.budget < 1:
            raise UsageError("--budget must be a positive cost")
        grid = parse_grid(args.grid)
        if args.chart:
            from ..bench.chart import chart_path_problem
            if problem := chart_path_problem(args.chart):
                raise UsageError(f"--chart {args.chart}: {problem}")
        history = load_history(args.history, args.format)
        print_notes("sweep", history)        # what an import read and left out, on stderr
        result = sweep(history, grid, window_tokens=args.window, budget=args.budget,
                       progress=None if args.no_progress else progress_bar(), probe=True)
        print(describe(result))
        if args.chart:
            from .sweep_chart import save_sweep_chart
            save_sweep_chart(result, args.chart)
            print_shown(f"chart saved to {args.chart}")
    except (UsageError, ValueError, OSError) as error:
        print_shown(f"sweep: error: {one_line(error)}", file=sys.stderr)
        return 2
    return 0


def describe(result: Sweep) -> str:
    """The sweep as printed: the history, the baseline, the table and the best row."""
    base, best = result.baseline, result.best
    lines = [f"{result.history['name']}: {len(result.history['messages'])} messages, "
             f"window {result.window_tokens:,} tokens",
             f"billed as {price(DEFAULT_MODEL).name}, in its base input tokens "
             f"(compact_course.bench.prices); +misses: the bill with each miss priced as its re-read",
             f"no compaction: cost {base['cost']:,}, peak {base['peak_tokens']:,} tokens", "",
             result.table(), ""]
    if result.reference is not None:
        left_out = sum(1 for row in result.rows if not ranked(row, result.most_forgotten))
        lines.append(f"forgot: probes gone at the end (compact_course.probes); ranked: only the rows that "
                     f"forget no more than the default profile at its defaults "
                     f"({result.most_forgotten}); {plural(left_out, 'row')} left out (-)")
    if best is None:
        within = " within the budget" if result.budget is not None else ""
        lines.append(f"no row fits the window{within} and loses nothing: widen the grid, "
                     f"the window or the budget")
    else:
        chosen = ", ".join(f"{name}={value:,}" for name, value in best.settings.items())
        misses = plural(best.misses, "miss", "misses")
        lines.append(f"best (*): {best.profile} profile, {chosen}: cost {best.cost:,} "
                     f"({best.cost / base['cost']:.2f} of no compaction), {misses} "
                     f"(+misses {best.cost_repaid:,})")
    return shown("\n".join(lines))     # the history's name comes from the file
