"""`compact record CASSETTE TASK`: one run of `compact run`, each API exchange kept in a cassette.

    python -m compact record run.cassette.json compare-code --workspace data/workspace --profile seed

A teacher with `ANTHROPIC_API_KEY` and `MODEL_ID` set records a run of the
real model once; the cassette (compact/offline/api/cassette.py) holds each
request and response, dated and labelled with the model that answered, and
no key, header or base URL. The class replays it without a key:
`compact serve --cassette run.cassette.json`, or notebook 12 with
`COMPACT_CASSETTE` naming the file. Without a key it records the offline
model, which is how the tests check the round trip.

Left out: recording the interactive REPL (a cassette is one run of one task).
"""

import sys

import anthropic

from ..config import CompactionConfig
from ..offline.api.cassette import recording_client
from . import tasks
from .loop import Agent, AgentError, UnknownTask, _parser, _start, resolve_task, safe_text


def main_record(argv=None) -> int:
    parser = _parser("python -m compact record",
                     "Run one task to its answer and keep every API exchange in a cassette file.")
    parser.add_argument("cassette", help="the cassette file to write (JSON)")
    parser.add_argument("task", help="the task text, or one of: " + ", ".join(tasks.BY_NAME))
    args = parser.parse_args(argv)
    try:
        request = resolve_task(args.task)
    except UnknownTask as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    with _start(args) as choice:
        client, recorder = recording_client(choice.client, args.cassette)
        try:
            agent = Agent(args.workspace, client, choice.model, show_usage=True,
                          config=CompactionConfig.named(args.profile), max_turns=args.max_turns,
                          stream=args.stream)
            answer = agent.ask(request)
        except (anthropic.APIError, AgentError, ValueError) as error:
            print(f"error: {safe_text(str(error))}", file=sys.stderr)
            return 1
        finally:
            client.close()
            print(f"cassette: {args.cassette} ({len(recorder.exchanges)} exchanges, "
                  f"recorded {recorder.recorded}, answered by {', '.join(recorder.models()) or 'nobody'})",
                  file=sys.stderr)
    print()
    print(answer)
    return 0
