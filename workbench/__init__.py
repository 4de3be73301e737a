"""The course's workbench, beside the pipeline: everything that is not `compact/`.

    offline/    the offline model: a deterministic stand-in that speaks the Messages API
    agent/      the article's agent (REPL, tools, sandbox) with `prepare` before every call
    importers/  other agents' session files read as Messages API histories
    display/    the one module that knows the language, the phrasebook, chart text
    course/     the notebooks' helpers: replay, sweep, probe, widgets, the exercises
    bench/      the long-session benchmark and the speed figures
    probes.py, probe_status.py   what a design forgets: probes drawn from a history

It imports `compact`; `compact` never imports it (tests/test_layout.py).
"""
