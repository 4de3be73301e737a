"""The long-session benchmark: what each design costs and loses over a whole session.

    simulated.py   long generated sessions, deterministic from a seed, and their clocks
    cost.py        what each request is billed in tokens (input, cache, output), and the outputs lost
    prices.py      the API's prices, one row a model, with where each row comes from
    benchmark.py   the driver: the designs table replayed over those sessions, one row of figures a run
    stats.py       each design's mean and worst across seeds
    tables.py      the rows as fixed-width tables, with their legends
    chart.py       the rows as a chart, and a PNG written whole (also for `replay` and `sweep`)
    cli.py         `python -m compact_course bench`: the tables, and the chart if asked
    server_designs.py the API's own context management as designs, and a call-by-call replay
    thinking.py    the sessions with thinking on (`--thinking`)
    server_rate.py requests per second of the offline model through the SDK (`bench-server`)
    prepare_bench.py ms per prepare call against one json.dumps of the list (`bench-prepare`)
    probe_walk.py  a history through a design call by call, every probe (compact_course.probes) located
    probe_ask.py   each probe asked through the SDK with read_file, and scored
    rounds.py      what each design still holds at each of its first compactions
    recorded.py    the compactions a session file records, audited in the designs' places
    probe.py       `python -m compact_course probe FILE`: what each design forgets, probe by probe

The benchmark uses the pipeline, the sessions, the probes, the offline model's token
estimate, the agent's client and compact_course.display (palette, table, chart
words); the lessons import the cost and the rounds from here, so nothing here
imports the lessons.
"""
