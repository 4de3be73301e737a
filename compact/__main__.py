"""python -m compact COMMAND ...: one entry for every part of the course.

    agent         the REPL of the article (each line is the active request; q quits)
    run           one task, non-interactive
    serve         the offline model alone, for any Anthropic client
    replay        a canned history through the pipeline, as a table (and a chart)
    bench         the long-session benchmark: the article's designs and the API's own
    bench-server  requests per second of the offline model through the SDK
    bench-prepare ms per prepare call against one json.dumps of the list

Ctrl-C ends any of them with one line, `interrupted`, and exit status 130
(each command cleans up as its stack unwinds: scratch folders, the offline model).
"""

import importlib
import signal
import sys
import threading

# Each command's module is imported only when it is asked for, so `serve` or
# `run` never pays for loading matplotlib (replay, bench).
COMMANDS = {
    "agent": "compact.agent.loop:main_agent",
    "run": "compact.agent.loop:main_run",
    "serve": "compact.offline.server:main_serve",
    "replay": "compact.course.replay:main",
    "bench": "compact.bench.benchmark:main",
    "bench-server": "compact.bench.server_rate:main",
    "bench-prepare": "compact.bench.prepare_bench:main",
}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        print(__doc__.strip())
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    module, function = COMMANDS[argv[0]].split(":")
    previous = _once_on_ctrl_c()
    try:
        return getattr(importlib.import_module(module), function)(argv[1:]) or 0
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
