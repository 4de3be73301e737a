"""python -m compact COMMAND ...: one entry for every part of the course.

    agent         the REPL of the article (each line is the active request; q quits)
    run           one task, non-interactive
    serve         the offline model alone, for any Anthropic client
    replay        a canned history through the pipeline, as a table (and a chart)
    bench         the long-session benchmark of the four designs
    bench-server  requests per second of the offline model through the SDK
"""

import importlib
import sys

# Each command's module is imported only when it is asked for, so `serve` or
# `run` never pays for loading matplotlib (replay, bench).
COMMANDS = {
    "agent": "compact.agent.loop:main_agent",
    "run": "compact.agent.loop:main_run",
    "serve": "compact.offline.server:main_serve",
    "replay": "compact.course.replay:main",
    "bench": "compact.bench.benchmark:main",
    "bench-server": "compact.bench.server_rate:main",
}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        print(__doc__.strip())
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    module, function = COMMANDS[argv[0]].split(":")
    return getattr(importlib.import_module(module), function)(argv[1:]) or 0


if __name__ == "__main__":
    sys.exit(main())
