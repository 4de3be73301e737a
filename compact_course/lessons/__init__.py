"""What the notebooks import: replays, charts, widgets, sweeps and the checkers.

    replay.py      a history through one step or `prepare`, as a table (`replay`), call by call
    sweep.py       a history over a grid of thresholds and both profiles (`sweep`); sweep_chart.py draws it
    charts.py      matplotlib figures of what the steps did
    widgets.py     sliders and a profile switch over the charts
    pipeline_picture.py   notebook 00: the four steps drawn, triggers, what stays, what goes to disk
    injection.py   notebook 04: the planted instruction, and what the agent does next
    live_run.py    notebook 09: your own run of the live agent
    article_tests.py  the article's own tool-pair tests, on either profile (docs/ARTICLE_MAP.md)
    prefix.py      lab 01: how much of each request a prompt cache could reuse
    claims.py      lab 02: what it claims of the default, checked on the benchmark's rows
    server_replay.py  lab 03: the designs side by side on a canned history
    forgets.py     lab 05's figures (what each step and design keeps where); forgets_chart.py draws them
    thinking_lab.py   lab 06: a session with thinking on, through the designs
    lab_contents.py   the course's JupyterLab contents manager (scripts/course.sh, the hub)
    exercises/     the check-yourself checkers, one module a notebook (check.py: diffs and hints)
    build_track/   the learner's own pipeline in notebooks/my_compact.py, graded step by step (issue 52)

The top room: it uses the pipeline, the article, the sessions (the canned histories),
the probes, the offline model, the agent and the benchmark; none of them imports it.
"""
