"""The long-session benchmark: what each design costs and loses over a whole session.

    sessions.py    long generated sessions, deterministic from a seed
    cost.py        the cache-adjusted cost of each request, and the outputs lost
    benchmark.py   four designs over those sessions, as a table and a chart (`bench`)

The benchmark uses the pipeline and the offline model's token estimate; the
pipeline imports nothing from here.
"""
