"""`compact-course record CASSETTE TASK ...`: one `compact-course run`, each API exchange kept in a cassette.

    python -m compact_course record run.cassette.json compare-code --workspace data/workspace --profile seed

A teacher with `ANTHROPIC_API_KEY` and `MODEL_ID` set records a run of the
real model once; the cassette (compact_course/offline/api/cassette.py) holds each
request and response, dated and labelled with the model that answered, and
no key, header or base URL: an exchange that holds a key-shaped string or the
run's own key stops the run with one line naming the entry (cassette.py). The
class replays it without a key:
`compact-course serve --cassette run.cassette.json`, or the live notebook with
`COMPACT_CASSETTE` naming the file. Without a key it records the offline
model, which is how the tests check the round trip.

This is `compact-course run` with `COMPACT_RECORD` set for its length: every run
that chooses its model through `choose_model` records when that variable
names a file, so `COMPACT_RECORD=FILE compact-course run ...` does the same.

Left out: recording the interactive REPL (a cassette is one run of one task).
"""

import os
import sys

from ..offline.api.cassette import Cassette, CassetteError
from .loop import main_run
from .model import RECORD

USAGE = "usage: python -m compact_course record CASSETTE TASK [the options of compact-course run]"


def main_record(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip() if argv else USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    cassette, rest = argv[0], argv[1:]
    previous = os.environ.get(RECORD)
    os.environ[RECORD] = cassette
    try:
        code = main_run(rest)
    finally:
        if previous is None:
            os.environ.pop(RECORD, None)
        else:
            os.environ[RECORD] = previous
    try:
        print(f"cassette: {cassette} ({Cassette.load(cassette).describe()})", file=sys.stderr)
    except CassetteError:
        print(f"cassette: nothing recorded in {cassette}", file=sys.stderr)
    return code
