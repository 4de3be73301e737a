"""The offline server's side of the Messages API: everything that is the API's, not the model's.

    server.py               HTTP: parse, answer, the limits of a local server
    context_management.py   the API's own context management, in the order the API applies it
    context_edits.py        `clear_tool_uses_20250919`: clearing old tool results
    server_compaction.py    `compact_20260112` and on-demand `compaction`: the summary block
    usage.py                `usage`: billing and the prompt cache

The model it serves (`compact.offline.model`) never imports this package: the
layering test (`tests/test_layout.py`) holds both sides to it.
"""
