"""compact-course COMMAND ... (or python -P -m compact_course): one entry for every part of the course.

    agent         the REPL of the article (each line is the active request; q quits)
    run           one task, non-interactive
    record        one task, each API exchange kept in a cassette file (to replay for a class)
    serve         the offline model alone, for any Anthropic client
    replay        a canned history or a session file through the pipeline, as a table (and a chart)
    sweep         a history over a grid of thresholds and both profiles: a table, the best marked
    bench         the long-session benchmark: the article's designs and the API's own
    bench-server  requests per second of the offline model through the SDK
    bench-prepare ms per prepare call against one json.dumps of the list
    probe         what each design forgets of a session: probes in context, on disk, summary only, gone

Ctrl-C ends any of them with one line, `interrupted`, and exit status 130
(each command cleans up as its stack unwinds: scratch folders, the offline model).

The agent's folder may be the current one (`--workspace .`), and its bash can
write there: so nothing is imported from the current folder. The `compact-course` script (pyproject's
`[project.scripts]`) and `python -P` never put it on `sys.path`; for a plain
`python -m compact_course`, this module takes it off before importing anything else
of the course (a planted `dotenv.py` or `anthropic.py` is never loaded). It names
each command's module as a string, imported when asked for: the pipeline (`context_compact/`)
knows no command.
"""

import os
import sys


def _current_folder() -> str | None:
    try:
        return os.getcwd()
    except OSError:     # a folder removed under us is no folder to import from
        return None


# `python -m` put the current folder first (as '' or its path): take it off.
if sys.path and sys.path[0] in ("", _current_folder()) and not sys.flags.safe_path:
    del sys.path[0]

import importlib  # noqa: E402 - after the current folder left sys.path
import signal  # noqa: E402
import threading  # noqa: E402

# Each command's module is imported only when it is asked for, so `serve` or
# `run` never pays for loading matplotlib (replay, bench).
COMMANDS = {
    "agent": "compact_course.agent.loop:main_agent",
    "run": "compact_course.agent.loop:main_run",
    "record": "compact_course.agent.recording:main_record",
    "serve": "compact_course.offline.api.server:main_serve",
    "replay": "compact_course.lessons.replay:main",
    "sweep": "compact_course.lessons.sweep:main",
    "bench": "compact_course.bench.cli:main",
    "bench-server": "compact_course.bench.server_rate:main",
    "bench-prepare": "compact_course.bench.prepare_bench:main",
    "probe": "compact_course.bench.probe:main",
}
# The libraries an extra of pyproject.toml brings: the base install is the pipeline alone,
# so a command that needs one of these says which extra to install, in one line.
EXTRAS = {"aiohttp": "offline", "anthropic": "offline", "dotenv": "offline",
          "matplotlib": "course", "ipywidgets": "course"}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        print(__doc__.strip())
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    module, function = COMMANDS[argv[0]].split(":")
    try:
        command = getattr(importlib.import_module(module), function)
    except ModuleNotFoundError as error:
        library = (error.name or "").partition(".")[0]
        if library not in EXTRAS:
            raise
        print(f"compact-course {argv[0]}: needs {library}, which the base install leaves out: "
              f"pip install 'compact-course[{EXTRAS[library]}]'", file=sys.stderr)
        return 2
    previous = _once_on_ctrl_c()
    try:
        return command(argv[1:]) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130   # 128 + SIGINT, as a shell reports it
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _once_on_ctrl_c():
    """The first Ctrl-C raises KeyboardInterrupt; later ones are ignored, so that a
    second press cannot cut short the clean-up the first one started."""
    def interrupt(signum, frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGINT, interrupt)


if __name__ == "__main__":
    sys.exit(main())
