"""The long-session benchmark: what each design costs and loses over a whole session.

    sessions.py    long generated sessions, deterministic from a seed
    cost.py        what each request is billed in tokens (input, cache, output), and the outputs lost
    benchmark.py   the driver: the designs table replayed over those sessions, one row of figures a run
    stats.py       each design's mean and worst across seeds
    tables.py      the rows as fixed-width tables, with their legends
    chart.py       the rows as a chart, and a PNG written whole (also for `replay` and `sweep`)
    cli.py         `python -m compact_course bench`: the tables, and the chart if asked
    server_designs.py the API's own context management as designs, and a call-by-call replay
    server_rate.py requests per second of the offline model through the SDK (`bench-server`)
    prepare_bench.py ms per prepare call against one json.dumps of the list (`bench-prepare`)
    classroom.py   local students on deploy/hub/'s JupyterHub, measured (scripts/bench_classroom.py)
    classroom_kernels.py notebooks run through each student's kernel websocket, and memory
    probe_walk.py  a history through a design call by call, every probe (compact_course.probes) located
    probe_ask.py   each probe asked through the SDK with read_file, and scored

The benchmark uses the pipeline, the offline model's token estimate, the
agent's client and compact_course.display (palette, table, chart words); the
pipeline imports nothing from here. The course imports the cost from here, so
nothing here imports the course.
"""
