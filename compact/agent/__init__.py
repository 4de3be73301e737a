"""The article's agent: its loop, its six tools, and the choice of model.

    loop.py    the agent loop with `prepare` before every call, the REPL and `run`
    tools.py   bash, read_file, write_file, edit_file, glob and compact
    tasks.py   the course's named tasks: the article's three experiments and the compact tool
    model.py   the real API with a key and MODEL_ID, else the offline model

The agent uses the pipeline (`compact.compactor`) and, without a key, the
offline model (`compact.offline`); the pipeline imports nothing from here.
"""
