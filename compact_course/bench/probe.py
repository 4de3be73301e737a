"""`python -m compact_course probe FILE`: what each design forgets of a session, probe by probe.

    python -m compact_course probe long_session               # a canned history, by name or path
    python -m compact_course probe data/sessions/claude_code_sample.jsonl   # an imported session
    python -m compact_course probe long_session --json        # {design: {kind: {status: count}}}
    python -m compact_course probe --bench tool-heavy --turns 400 --no-ask   # a bench session, with rounds
    python -m compact_course probe data/sessions/recorded_claude_code.jsonl --recorded [--json]

For each design of the benchmark (`compact_course.bench.benchmark.DESIGN_TABLE`) the
session is replayed call by call (`compact_course.bench.probe_walk`) and every probe
(`compact_course.probes`) is located at every call (`--end`: at the end only): in
context, on disk, in a summary only, or gone (`compact_course.probes.status`). The table
gives, per design and kind, where the probes stand at the end, and how many the
model answered right when asked there (`compact_course.bench.probe_ask`: the offline
model, or Claude with ANTHROPIC_API_KEY and MODEL_ID set, `--repeats N` times
each, the spread printed). Below it: the most probes gone at any one call, and
the time the replay takes with and without the probes.

With `--thinking` every assistant turn gets a thinking block first
(`compact_course.bench.thinking`), and each design's line says how many of them it sent
back behind a changed prefix (the API's 400 on a current model, or the reasoning
dropped), beside what it forgot.

With `--bench`, below the table: the rounds (`compact_course.bench.rounds`), each design's
first compactions and, at each, the share of the probes made so far it still holds
and can still reach, by kind.

`--recorded` audits instead the compactions the file itself records (Claude Code's
`compact_boundary` and its summary, Codex's `compacted`; `compact_course.bench.recorded`): per
compaction, the probes of the messages before it, by kind, in the places the designs are
counted in (`compact_course.probes.status.PLACES`: in context, what it kept word for word; on
disk, the transcript its summary points to; summary only; re-read later in the file;
gone), what the summary itself says, the compaction's own token count beside this
file's slice, and the offline model's answers from what the compaction left; then one
table of places for the compaction and each design of the course at the same point,
with each design's bill and its misses (a probe of a tool's output not in context)
priced at one re-read each (`compact_course.bench.cost.priced_misses`), and the time it all took.

The request a session is replayed and probed for is its last real prompt
(`compact_course.probes.prompts`): not a slash command, a task notification or other text
the harness wrote in the user's turn.

Exit status 2, with one line naming the file and what is wrong, for a file that is
not a session; `--json` prints only the statuses (no asking, no times). `--offline`
(or the variable CI or COMPACT_OFFLINE) keeps to the offline model whatever keys
are set: Claude is never asked in CI.

Left out: charts (lab 05 draws them) and asking at every call.
"""

import argparse
import json
import os
import sys
import time

from ..display.text import fixed_width, shown
from ..probes import KINDS, SCORES, STATUSES, count_by_kind, make_probes
from ..probes.prompts import real_request
from ..sessions import SESSION_FORMATS, SessionFileError
from ..sessions.histories import CANNED, HistoryError, list_histories, load_history
from .benchmark import DESIGN_TABLE, ORACLE
from .probe_walk import forgotten, session_messages, walk
from .rounds import ROUNDS, rounds_table
from .simulated import KINDS as SESSION_KINDS
from .simulated import make_session
from .thinking import add_thinking_argument, with_thinking

DESIGNS = tuple(name for name in DESIGN_TABLE if name != ORACLE)   # a history has no future


class UsageError(Exception):
    """A bad command line; shown as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def one_line(text: str, limit: int = 70) -> str:
    """Text from a session as one printable line: control characters made visible
    (`compact_course.display.text.shown`), whitespace runs made one space, cut at `limit`."""
    text = shown(" ".join(str(text).split()))
    return text if len(text) <= limit else text[:limit - 3] + "..."


def probe_designs(messages, active_request: str, designs=DESIGNS, asker=None,
                  every_call: bool = True, rounds: int = 0) -> dict:
    """design -> its walk (`compact_course.bench.probe_walk.walk`), the same probes for all;
    `rounds`: the first compactions located too (`compact_course.bench.rounds`)."""
    probes = make_probes(messages, active_request)
    return {design: walk(messages, active_request, design, probes=probes, every_call=every_call,
                         ask=asker, rounds=rounds) for design in designs}


def answered(run: dict, kind: str | None = None) -> dict:
    """{score: count} over the probes of `kind` (all when None), first repeat of each."""
    counts = dict.fromkeys(SCORES, 0)
    for probe, tries in zip(run["probes"], run["answers"] or []):
        if kind is None or probe.kind == kind:
            counts[tries[0]["score"]] += 1
    return counts


def spread(run: dict) -> tuple[int, int]:
    """The fewest and the most probes answered right over the repeats."""
    repeats = len(run["answers"][0]) if run["answers"] else 0
    rights = [sum(tries[k]["score"] == "right" for tries in run["answers"]) for k in range(repeats)]
    return (min(rights), max(rights)) if rights else (0, 0)


def worst_call(run: dict) -> tuple[int, int]:
    """(most probes gone at one call, that call's number), 1-based; (0, 0) without calls."""
    gone = [call["gone"] for call in run["calls"]]
    if not gone:
        return 0, 0
    most = max(gone)
    return most, gone.index(most) + 1


def table(runs: dict) -> str:
    """One row per design and kind, and one per design for all kinds."""
    asked = any(run["answers"] for run in runs.values())
    header = ("design", "kind", *STATUSES, *(("right", "can't tell", "wrong") if asked else ()))
    rows = [header]
    for design, run in runs.items():
        for kind in (*KINDS, None):
            counts = run["end"][kind] if kind else {s: sum(run["end"][k][s] for k in KINDS) for s in STATUSES}
            scores = answered(run, kind) if asked else {}
            rows.append((design if kind in (KINDS[0],) else "", kind or "all",
                         *(counts[s] for s in STATUSES), *(scores[s] for s in SCORES if scores)))
        rows.append("")
    widths = [max(len(str(r[k])) for r in rows if not isinstance(r, str)) for k in range(len(header))]
    lines = fixed_width(rows, widths, ">", "  ")
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines).rstrip()


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m compact_course probe",
                     description="What each design forgets of a session, probe by probe.")
    parser.add_argument("history", nargs="?",
                        help=f"a name ({', '.join(list_histories())}) or a path: a canned history "
                             "or a session file")
    parser.add_argument("--format", default="auto", choices=("auto", CANNED, *SESSION_FORMATS))
    parser.add_argument("--bench", choices=SESSION_KINDS, help="a bench session instead of a file")
    parser.add_argument("--turns", type=int, default=400, help="the bench session's turns (default 400)")
    parser.add_argument("--seed", type=int, default=0, help="the bench session's seed (default 0)")
    parser.add_argument("--designs", nargs="+", choices=DESIGNS, default=list(DESIGNS))
    parser.add_argument("--end", action="store_true", help="locate the probes at the end only")
    parser.add_argument("--no-ask", action="store_true", help="locate only; ask no model")
    parser.add_argument("--repeats", type=int, default=1,
                        help="with Claude: ask each probe this many times (default 1)")
    parser.add_argument("--offline", action="store_true",
                        help="ask the offline model even when a key and MODEL_ID are set "
                             "(also when CI or COMPACT_OFFLINE is set)")
    parser.add_argument("--json", action="store_true", help="print {design: {kind: {status: count}}}")
    add_thinking_argument(parser)
    parser.add_argument("--recorded", action="store_true",
                        help="audit the compactions the file records (Claude Code compact_boundary, "
                             "Codex compacted), and the designs at the same point")
    return parser


def _session(args) -> tuple[list, str, str]:
    if args.bench:
        if args.history:
            raise UsageError("give a FILE or --bench, not both")
        if args.turns < 1:
            raise UsageError(f"--turns {args.turns}: at least 1")
        messages, request = session_messages(make_session(args.bench, args.turns, args.seed))
        return messages, request, f"bench session {args.bench}, {args.turns} turns, seed {args.seed}"
    if not args.history:
        raise UsageError("give a FILE (a canned history's name or a path) or --bench KIND")
    history = load_history(args.history, args.format)
    return history["messages"], real_request(history["active_request"], history["messages"]), \
        f"{one_line(history.get('name', args.history), 40)}: {one_line(history.get('title', ''))}"


def _timed(messages, request, designs, every_call: bool, runs: dict) -> tuple[float, float]:
    """Seconds to replay the session through every design, without and with the probes:
    the probed runs' own time (and making the probes) when they asked no model, else a
    run again without asking."""
    start = time.perf_counter()
    for design in designs:
        walk(messages, request, design, probes=[], locate=False)
    replayed = time.perf_counter() - start
    start = time.perf_counter()
    probes = make_probes(messages, request)
    if not any(run["answers"] for run in runs.values()):
        return replayed, time.perf_counter() - start + sum(run["seconds"] for run in runs.values())
    for design in designs:
        walk(messages, request, design, probes=probes, every_call=every_call)
    return replayed, time.perf_counter() - start


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser().parse_args(argv)
        if args.repeats < 1:
            raise UsageError(f"--repeats {args.repeats}: at least 1")
        if args.recorded:
            return _recorded(args)
        messages, request, title = _session(args)
        if args.thinking:
            messages, title = with_thinking(messages), title + " (thinking on)"
        if args.json:
            runs = probe_designs(messages, request, args.designs, every_call=not args.end)
            print(json.dumps({d: run["end"] for d, run in runs.items()}, ensure_ascii=False, indent=1))
            return 0
        print(title)
        rounds = ROUNDS if args.bench else 0
        if args.no_ask:
            runs = probe_designs(messages, request, args.designs, every_call=not args.end, rounds=rounds)
        else:
            from .probe_ask import Asker
            offline = args.offline or any(os.environ.get(name) for name in ("CI", "COMPACT_OFFLINE"))
            with (Asker.offline() if offline else Asker.configured(args.repeats)) as asker:
                if asker.offline_model:
                    print(f"asked: the offline model {asker.choice.model} (a program; no key, no network)")
                runs = probe_designs(messages, request, args.designs, asker, not args.end, rounds)
        _report(runs, messages, request, args)
    except (UsageError, HistoryError, SessionFileError, ValueError, OSError) as error:
        print(f"probe: error: {one_line(error, 10_000) or type(error).__name__}", file=sys.stderr)
        return 2
    return 0


def _recorded(args) -> int:
    """`--recorded`: each compaction the file records, audited (`compact_course.bench.recorded`)."""
    from . import recorded

    if args.bench or not args.history:
        raise UsageError("--recorded reads a session FILE (Claude Code or Codex), not --bench")
    started = time.perf_counter()
    found = recorded.read_recorded(args.history)
    if args.json:
        rows = recorded.audit(found)
        print(json.dumps({"recorded": [recorded.public(row) for row in rows]}, ensure_ascii=False, indent=1))
        return 0
    from .probe_ask import Asker
    with Asker.offline() as asker:
        rows = recorded.audit(found, asker)
    print(f"{one_line(args.history, 80)}: {len(found)} compaction{'s' * (len(found) != 1)} recorded")
    for row, where in zip(rows, found):
        print()
        print(recorded_report(row, recorded.designs_at(row, where, args.designs)))
    print(f"\ntime: {time.perf_counter() - started:.2f} s")
    return 0


def recorded_report(row: dict, designs: dict) -> str:
    """One recorded compaction: its probes by kind and place, the summary's own keep, the
    token counts, the offline model's answers from what the compaction left, and one table
    of places for the compaction and each design at the same point."""
    from .recorded import PLACES, key

    answers = row.get("answers") or []
    lines = [f"line {row['line']}: {row['kind']}" + (f" ({row['trigger']})" if row["trigger"] else "")
             + f", after {row['messages_before']} messages; {row['probes']} probes: "
             + ", ".join(f"{where} {row[key(where)]}" for where in PLACES)]
    lines.append(f"  the summary itself says {row['summary_says']} of them; a stale value in it: "
                 f"{row['stale']}; messages it kept word for word: {row['kept']}")
    lines.append("  " + transcript_line(row))
    lines.append("  " + tokens_line(row))
    rows = [("kind", *PLACES, *(SCORES if answers else ()))]
    for kind in KINDS:
        scores = [sum(a["score"] == s for p, a in zip(row["_probes"], answers) if p.kind == kind)
                  for s in SCORES]
        rows.append((kind, *(row["by_kind"][kind][w] for w in PLACES), *(scores if answers else ())))
    widths = [max(len(str(r[k])) for r in rows) for k in range(len(rows[0]))]
    lines += ["  " + line for line in fixed_width(rows, widths, ">", "  ")]
    if answers:
        lines.append("  answers: the offline model, from what the compaction left (its summary, the "
                     "messages it kept, the transcript it names)")
    lines.append("  one table of places: the recorded compaction and the course's designs at the same point")
    lines.append("  (cost in base input tokens; a miss: a tool's output not in context, priced as "
                 "one re-read)")
    table_rows = [("design", *PLACES, "cost", "misses", "misses cost", "total")]
    for design, d in designs.items():
        bill = ("-", "-") if design == "recorded" else (f"{d['cost']:,.0f}", f"{d['total']:,.0f}")
        table_rows.append((design, *(d[w] for w in PLACES), bill[0], d["misses"], f"{d['misses_cost']:,.0f}",
                           bill[1]))
    widths = [max(len(str(r[k])) for r in table_rows) for k in range(len(table_rows[0]))]
    lines += ["  " + line for line in fixed_width(table_rows, widths, ">", "  ")]
    return "\n".join(lines)


def transcript_line(row: dict) -> str:
    """What the summary says of a transcript on disk, and whether the audit read it."""
    if not row["transcript"]:
        return "the summary names no transcript: nothing of it stands on disk"
    where = one_line(row["transcript"], 100)
    if row["transcript_here"]:
        return f"the summary points to the full transcript, {where}: this file, read as on disk"
    return f"the summary points to a transcript that is not this file, {where}: not read"


def tokens_line(row: dict) -> str:
    """This file's slice beside the compaction's own token count."""
    line = (f"tokens: this file's slice before it is {row['slice_tokens']:,} (the offline model's "
            f"estimate of its messages; no system prompt, no tools)")
    if row["tokens"] is None:
        return line + "; the file records no token count for the compaction"
    return line + f"; the compaction was made at {row['tokens']:,} ({row['tokens_from']})"


def _report(runs: dict, messages, request: str, args) -> None:
    probes = next(iter(runs.values()))["probes"]
    counts = count_by_kind(probes)
    print(f"{len(probes)} probes: " + ", ".join(f"{kind} {n}" for kind, n in counts.items()))
    print(f"located at {'the end' if args.end else 'every call and at the end'}; "
          "the table: where each stands at the end" + ("" if args.no_ask else ", and the answers there"))
    print()
    print(table(runs))
    print()
    for design, run in runs.items():
        most, call = worst_call(run)
        line = f"{design}: {forgotten(run['end'])} gone at the end"
        if run["calls"]:
            line += f"; most gone at one call: {most} (call {call} of {len(run['calls'])})"
        if run["thinking_invalid"] is not None:
            line += f"; thinking blocks sent back invalid: {run['thinking_invalid']}"
        if run["answers"] and len(run["answers"][0]) > 1:
            low, high = spread(run)
            line += f"; right over {len(run['answers'][0])} repeats: {low} to {high}"
        print(line)
    if args.bench:
        print(f"\nrounds: the probes at each of the first {ROUNDS} compactions of each design")
        print(rounds_table(runs))
    replayed, probed = _timed(messages, request, args.designs, not args.end, runs)
    ratio = probed / replayed if replayed else float("nan")
    print(f"\ntime: replaying {replayed:.2f} s, replaying with the probes {probed:.2f} s "
          f"({ratio:.1f}x; asking not included)")

