"""The article's agent: its loop, its six tools, and the choice of model.

    loop.py    the agent loop with `prepare` before every call, the REPL and `run`
    tools.py   bash, read_file, write_file, edit_file, glob and compact
    sandbox.py where bash runs: bubblewrap when it can start
    limits.py  the limits of one bash call: processes, memory, CPU time, file size, /tmp
    workspace.py  where the agent may work: never where the course lives
    tasks.py   the course's named tasks: the article's three experiments and the compact tool
    model.py   the real API with a key and MODEL_ID, else the offline model; the settings
    usage.py   each call's usage, as `run` prints it
    breakpoints.py  where a request's cache breakpoints go and how long each lives
    recording.py  `compact-course record`: one run, each API exchange kept in a cassette

The agent uses the pipeline (`context_compact.compactor`) and, without a key, the
offline model (`compact_course.offline`); the pipeline imports nothing from here.
"""
