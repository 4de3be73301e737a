"""What the notebooks use: canned histories, replays, charts, widgets and checkers.

    histories.py   loading the canned histories in data/histories/
    replay.py      a history through one step or `prepare`, as a table (`replay`)
    charts.py      matplotlib figures of what the steps did
    widgets.py     sliders and a profile switch over the charts
    pipeline_picture.py   the four steps drawn: triggers, what stays in context, what goes to disk
    exercises/     the check-yourself checkers, one module a notebook (check.py: diffs and hints)

The course uses the pipeline, compact.display (the palette, the table, the
notebook's language, chart words and fonts), the offline model, the agent and
the benchmark (its cost); none of them imports the course.
"""
