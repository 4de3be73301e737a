"""The long-session benchmark: what each design costs and loses over a whole session.

    sessions.py    long generated sessions, deterministic from a seed
    cost.py        the cache-adjusted cost of each request, and the outputs lost
    benchmark.py   four designs over those sessions, as a table and a chart (`bench`)
    palette.py     the colours of every chart, the course's too (Okabe-Ito)
    text.py        a fixed-width table and a counted noun, the course's too

The benchmark uses the pipeline and the offline model's token estimate; the
pipeline imports nothing from here. The course imports from here (the cost,
the palette, the table), so nothing here imports the course.
"""
