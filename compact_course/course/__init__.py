"""What the notebooks use: canned histories, replays, charts, widgets and checkers.

    histories.py   loading the canned histories in data/histories/
    replay.py      a history through one step or `prepare`, as a table (`replay`)
    sessions.py    lab 04's session: your own file, or the sample
    sweep.py       a history over a grid of thresholds and both profiles (`sweep`); sweep_chart.py draws it
    charts.py      matplotlib figures of what the steps did
    widgets.py     sliders and a profile switch over the charts
    pipeline_picture.py   the four steps drawn: triggers, what stays in context, what goes to disk
    claims.py      what lab 02 claims of the default, checked on the benchmark's rows
    probe.py       `python -m compact_course probe FILE`: what each design forgets, probe by probe
    forgets.py     lab 05's figures (what each step and design keeps where); forgets_chart.py draws them
    exercises/     the check-yourself checkers, one module a notebook (check.py: diffs and hints)

The course uses the pipeline, the importers (other agents' session files),
compact_course.display (the palette, the table, the notebook's language, chart words
and fonts), the offline model, the agent and the benchmark (its cost); none of
them imports the course.
"""
