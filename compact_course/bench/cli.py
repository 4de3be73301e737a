"""`python -m compact_course bench`: the benchmark from the command line.

    python -m compact_course bench                 # 3 sessions x 120 and 400 turns x every design x 8 seeds,
                                            # billed as Claude Sonnet 5 and Claude Opus 5.5
    python -m compact_course bench --quick         # a smoke run of a few seconds (one seed)
    python -m compact_course bench --models claude-opus-5-5 --chart bench.png
    python -m compact_course bench --ttls 5m 1h adaptive --clocks bench pauses cold
                                            # the cache's lifetime: when each rule wins

It prints the rows of the price table it bills, the first seed's table
(`compact_course.bench.tables`), then each design's mean and worst over the seeds
(cost, and cost with misses priced, over the seed profile's and the oracle's on
the same session, misses: `compact_course.bench.stats`), then one row per model,
clock, design and breakpoint rule over every session (`stats.over_sessions`), and
writes the chart if asked. `--ttls` and `--clocks` run the designs whose breakpoints
are the course's under each rule of `compact_course.agent.breakpoints` on each clock of
`compact_course.bench.simulated.CLOCKS`. It prints figures; whether they meet a target is
for the tests to assert.

Left out: saving the rows (run `compact_course.bench.benchmark.run_bench` from Python for
them) and running seeds in parallel (two cores are shared by a class).
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from ..agent.breakpoints import TTL_RULES
from . import frontier_search
from .benchmark import DESIGN_TABLE, QUICK_TURNS, SEEDS, TTL_DESIGNS, TURNS, run_bench
from .chart import bench_chart, chart_path_problem, save_chart
from .prices import BENCH_MODELS, PRICES, table_lines
from .rounds import rounds_table, session_rounds
from .simulated import CLOCKS, KINDS, make_session, session_messages
from .stats import across_seeds, over_sessions
from .tables import OVER_LEGEND, SEED_LEGEND, format_over, format_seeds, format_table, legend
from .thinking import add_thinking_argument


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not positive")
    return value


def _remove_all(folder: Path) -> None:
    """rmtree that a Ctrl-C cannot cut short: the interrupt is raised once it is done."""
    interrupted = None
    for _ in range(3):
        try:
            shutil.rmtree(folder, ignore_errors=True)
            break
        except KeyboardInterrupt as error:
            interrupted = error
    if interrupted is not None:
        raise interrupted


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m compact_course bench",
        description="The long-session benchmark: what each design costs and loses over hundreds of turns.")
    parser.add_argument("--quick", action="store_true",
                        help=f"short sessions ({QUICK_TURNS[0]} and {QUICK_TURNS[1]} turns)")
    parser.add_argument("--turns", type=positive_int, nargs="+",
                        help=f"session lengths (default {TURNS})")
    parser.add_argument("--sessions", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--designs", nargs="+", choices=DESIGN_TABLE, default=list(DESIGN_TABLE))
    parser.add_argument("--seed", type=int, default=0, help="the first session seed (default 0)")
    parser.add_argument("--seeds", type=positive_int,
                        help=f"how many seeds from --seed on (default {SEEDS}; --quick: 1)")
    parser.add_argument("--models", nargs="+", choices=PRICES, default=list(BENCH_MODELS),
                        help="the models billed, each a row of compact_course.bench.prices "
                             f"(default {' '.join(BENCH_MODELS)})")
    parser.add_argument("--ttls", nargs="+", choices=TTL_RULES, default=["5m"],
                        help="the breakpoint rules (compact_course.agent.breakpoints) the designs "
                             f"{', '.join(TTL_DESIGNS)} each run under (default 5m); the others "
                             "send one 5-minute breakpoint")
    parser.add_argument("--clocks", nargs="+", choices=CLOCKS, default=["bench"],
                        help="when the calls are sent (compact_course.bench.simulated.CLOCKS; default bench)")
    parser.add_argument("--chart", metavar="FILE", help="also write the chart to this PNG")
    add_thinking_argument(parser)
    parser.add_argument("--frontier", action="store_true",
                        help="instead of the tables, search the default's numbers "
                             "(compact_course.bench.frontier_search): the frontier of cost against misses, "
                             "the chosen setting and the default against it")
    parser.add_argument("--workers", type=positive_int, default=2,
                        help="processes for --frontier's runs (default 2; run it under nice -n 19)")
    parser.add_argument("--rounds", action="store_true",
                        help="also each design's first compactions of each session (the longest, "
                             "the first seed): what it still holds and reaches, by kind")
    return parser


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    turns = tuple(args.turns or (QUICK_TURNS if args.quick else TURNS))
    if args.chart and (problem := chart_path_problem(args.chart)):
        parser.error(f"argument --chart: {problem}")
    count = args.seeds or (1 if args.quick else SEEDS)
    if args.frontier:
        return frontier_search.main(args.sessions, turns, range(args.seed, args.seed + count),
                                    quick=args.quick, workers=args.workers)
    # One folder holds every run's scratch folder and goes whatever happens, even when
    # Ctrl-C lands between a folder's creation and its `with`, or inside its removal.
    scratch = Path(tempfile.gettempdir()) / f"compact-bench-{os.getpid()}-{time.time_ns()}"
    try:
        scratch.mkdir()
        # The first seed's runs are probed: its table has the forgotten beside the cost.
        rows = run_bench(turns, args.sessions, args.designs, root=scratch,
                         seeds=range(args.seed, args.seed + count), probe_seeds=(args.seed,),
                         models=tuple(args.models), thinking=args.thinking,
                         ttls=tuple(dict.fromkeys(args.ttls)), clocks=tuple(dict.fromkeys(args.clocks)))
    finally:
        _remove_all(scratch)
    first = [r for r in rows if r["seed"] == args.seed]
    rules = "5m for every design" if args.ttls == ["5m"] else \
        f"{', '.join(args.ttls)} for {', '.join(TTL_DESIGNS)}, 5m for the rest"
    print(f"cache breakpoints (compact_course.agent.breakpoints): {rules}; clocks: {', '.join(args.clocks)}")
    print("billed as (US dollars per million tokens, compact_course.bench.prices):")
    print("\n".join(table_lines(args.models)))
    print(f"\nseed {args.seed}:")
    print(format_table(first))
    print()
    print(legend(args.models))
    print(f"\nover {count} seeds ({args.seed}..{args.seed + count - 1}): mean and worst of each design")
    print(format_seeds(across_seeds(rows)))
    print("\n" + SEED_LEGEND)
    print()
    print(format_over(over_sessions(rows)))
    print("\n" + OVER_LEGEND)
    if args.rounds:
        for kind in args.sessions:
            print(f"\nrounds: {kind}, {max(turns)} turns, seed {args.seed}")
            print(rounds_table(session_rounds(*session_messages(make_session(kind, max(turns), args.seed)),
                                              designs=args.designs)))
    if args.chart:
        figure = bench_chart(rows)
        save_chart(figure, args.chart, dpi=110)
        print(f"\nchart written to {args.chart}")
    return 0
