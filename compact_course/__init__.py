"""compact_course: the course beside the pipeline, everything that is not `context_compact/`.

    probes/     what a design forgets: probes drawn from a history, where each one stands
    importers/  other agents' session files read as Messages API histories
    display/    the one module that knows the language, the phrasebook, chart text
    offline/    the offline model: a deterministic stand-in that speaks the Messages API
    agent/      the article's agent (REPL, tools, sandbox) with `prepare` before every call
    bench/      the long-session benchmark and the speed figures
    course/     the notebooks' helpers: replay, sweep, probe, widgets, the exercises

Lowest first: each folder imports only `context_compact` and the folders above it in this list,
and no module imports one that imports it back (tests/test_layout.py). It imports
`context_compact`; `context_compact` never imports it.
"""
