"""The offline server's side of the Messages API: everything that is the API's, not the model's.

    server.py               HTTP only, on aiohttp: the key, the limits of a local server, faults
    answer.py               one request's straight path: parse, rules, edits, model, usage
    rules.py                the Messages API's request rules and texts (the message list's
                            through the shared validator in context_compact/messages.py)
    context_management.py   what a request asks of the API's context management, each piece
    context_edits.py        `clear_tool_uses_20250919`: clearing old tool results
    server_compaction.py    `compact_20260112` and on-demand `compaction`: the summary block
    usage.py                `usage`: billing and the prompt cache

The model it serves (`compact_course.offline.model`) never imports this package: the
layering test (`tests/pipeline/test_layout.py`) holds both sides to it.
"""
