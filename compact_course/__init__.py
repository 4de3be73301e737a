"""compact_course: the course beside the pipeline, everything that is not `context_compact/`.
One room a product, lowest first:

    display/     the phrasebook and the one module that knows the language; palette, fonts, chart words
    article.py   the article's pipeline, flat: its names, its numbers, its steps
    sessions/    conversations from files: the canned histories and other agents' session files
    probes/      what a probe is (a question a session answers) and where it stands
    offline/     the offline model: a deterministic stand-in that speaks the Messages API
    agent/       the article's agent (REPL, tools, sandbox) with `prepare` before every call
    bench/       the long-session benchmark, the speed figures, the probe drivers and `probe`
    lessons/     what the notebooks import: replays, charts, widgets, sweeps, the exercises
    __main__.py  the command table: one row a command, its module imported when asked for

A room imports only `context_compact` and the rooms above it in this list, and no
module imports one that imports it back (tests/pipeline/test_layout.py).
`context_compact` never imports this package.
"""
