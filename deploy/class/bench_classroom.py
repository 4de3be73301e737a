"""The classroom benchmark: N students on the course's JupyterHub, on this machine.

    sudo .venv/bin/python deploy/class/bench_classroom.py [--students 8] [--runs 1] [NOTEBOOK ...]

As root (it makes local users, removed at the end; deploy/class/classroom.py), each run
starts deploy/hub/'s hub afresh, starts every student's server at once, then runs each
NOTEBOOK (default: 09_live_agent.ipynb) in every server at once through the kernel
websocket, and prints: how long the servers took to be ready, how long the notebook took,
failed kernel starts and cells that raised, and the RSS of each server (idle, then with
the notebook's kernel open) and kernel, with the hub and its proxy. Last, the memory rule
those figures give: per student, per open notebook, per class of 30. Exits 1 when any
kernel failed to start or any cell raised.

The figures depend on the machine and what else runs on it: printed, never asserted.
"""

import argparse
import statistics
import sys

import classroom
import psutil

MB = classroom.MB


def rss_of(pid) -> float:
    try:
        return psutil.Process(pid).memory_info().rss / MB
    except (psutil.Error, TypeError):
        return 0.0


def spread(values: list) -> str:
    return f"median {statistics.median(values):,.0f}, max {max(values):,.0f}" if values else "none"


def one_run(course, students: list, notebooks: list) -> dict:
    """One hub, every server at once, each notebook everywhere at once; the figures."""
    figures = {"failed_starts": 0, "cell_errors": 0, "servers": [], "kernels": []}
    with classroom.state_folder() as state, classroom.running_hub(course, students, state) as hub:
        ready = hub.spawn_all()
        seconds = sorted(ready.values())
        print(f"  servers ready: all {seconds[-1]:.1f} s (first {seconds[0]:.1f} s, "
              f"median {statistics.median(seconds):.1f} s)")
        figures["servers"] = [classroom.memory_of(s)["server"] for s in students]
        for notebook in notebooks:
            runs = classroom.run_everywhere(hub, notebook)
            memory = [classroom.memory_of(s) for s in students]
            classroom.close_sessions(hub, runs)
            failed = sum(not r.kernel_started for r in runs)
            errors = sum(len(r.errors) for r in runs if r.kernel_started)
            figures["failed_starts"] += failed
            figures["cell_errors"] += errors
            kernels = [k for m in memory for k in m["kernels"]]
            figures["kernels"] += kernels
            times = [r.seconds for r in runs]
            print(f"  {notebook}: all done in {max(times):.1f} s (median {statistics.median(times):.1f} s), "
                  f"failed kernel starts {failed}, cells that raised {errors}")
            for run in runs:
                for error in run.errors[:2]:
                    print(f"    {run.student}: {error[:200]}")
            servers = [m["server"] for m in memory]
            print(f"    RSS MB: kernel {spread(kernels)}; server with it {spread(servers)}; "
                  f"all servers and kernels {sum(m['server'] + sum(m['kernels']) for m in memory):,.0f}")
        hub_rss = rss_of(hub.process.pid) + rss_of(hub.proxy_pid())
        print(f"  RSS MB: idle server {spread(figures['servers'])}; hub and proxy {hub_rss:,.0f}")
        figures["hub"] = hub_rss
    return figures


def memory_rule(all_runs: list) -> None:
    server = statistics.median(v for f in all_runs for v in f["servers"])
    kernel = statistics.median(v for f in all_runs for v in f["kernels"]) if all_runs[0]["kernels"] else 0
    hub = max(f["hub"] for f in all_runs)
    print(f"memory rule: {server:,.0f} MB per student (their server), {kernel:,.0f} MB per open notebook "
          f"(its kernel), {hub:,.0f} MB for the hub and proxy; a class of 30 with one notebook open each: "
          f"{(30 * (server + kernel) + hub) / 1024:.1f} GB")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=8)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("notebooks", nargs="*", default=["09_live_agent.ipynb"])
    args = parser.parse_args(argv)
    if args.students < 1 or args.runs < 1:
        parser.error("--students and --runs must be at least 1")
    reason = classroom.why_not_here()
    if reason:
        print(f"bench_classroom: {reason}", file=sys.stderr)
        return 2
    course = classroom.students_course()
    missing = [n for n in args.notebooks if not (course / "notebooks" / n).is_file()]
    if missing:
        parser.error(f"no such notebook in notebooks/: {', '.join(missing)}")
    print(f"{args.students} students, {args.runs} run(s), {psutil.cpu_count()} cores, "
          f"{psutil.virtual_memory().total / 1024**3:.0f} GB: {', '.join(args.notebooks)}")
    all_runs = []
    with classroom.local_students(args.students) as students:
        for number in range(1, args.runs + 1):
            print(f"run {number}:")
            all_runs.append(one_run(course, students, args.notebooks))
    failed = sum(f["failed_starts"] for f in all_runs)
    errors = sum(f["cell_errors"] for f in all_runs)
    print(f"over {args.runs} run(s): failed kernel starts {failed}, cells that raised {errors}")
    memory_rule(all_runs)
    return 1 if failed or errors else 0


if __name__ == "__main__":
    sys.exit(main())
