"""The article's scripted experiments (section 13) and the compact tool (section 10).

The general policy (compact/offline/model/kinds.py) would not take the article's
steps, so each experiment keeps its own plan; route.py's ROUTES picks one by
what the request names and asks.

    titles.py          experiment 1: the first-level titles of five READMEs
    json_shape.py      the shape of a JSON text, whole or cut off
    docs_json.py       experiment 2: the fields of one record of a large JSON file
    compare_code.py    experiment 3: two code files, current context against memory
    compact_tool.py    the compact tool: a note written and `compact` in one batch
    notes.py           the one-line note on each fresh result, and reading facts back
"""
