"""The offline model: a scripted, deterministic stand-in for Claude, and its server.

The article runs its agent loop (section 9) and its three experiments
(section 13) against a real model. This package stands in for that model so
the course runs offline: `respond(request) -> response`, pure functions from a
Messages API request dict to a response dict. It reads the request the way a
model would and no other way:
- the active request is the last text the user typed, or the "Current user
  request:" section of a `[Compacted]` / `[Reactive compact]` message;
- what it knows is only what the request holds: whole tool results, persisted
  previews, its own earlier notes, and summary text. It reads one file per
  turn and, in the next turn's text, notes what it learned in one line (a
  README's title, a code file's outline), as a model comments while it works;
  that line survives when the old result is shrunk;
- the final answer is built from that knowledge alone: when a fact is gone
  (`[Earlier tool result omitted.]` and no note), the answer says so, so a
  lossy compaction shows in the answer;
- asked for a summary (system prompt `compact.formats.SUMMARY_SYSTEM`), it
  recovers the whole messages from the JSON it was given (cut in the middle or
  not), answers with `compact.offline.extractive.extractive_summary` of them, and adds
  one line saying so when the middle was cut.

The modules, in the order a request goes through them:

    server.py          a local HTTP server speaking the Messages API, its rules and errors
    tokens.py          the token estimate the server compares with its window, and the window
    extractive.py      a deterministic extractive summary of messages (no model)
    view.py            reading a request: the request, each call, what is left of its result
    plan.py            what a reply is made of, and keeping a note to one line
    notes.py           the one-line note on each fresh result, and reading facts back
    titles.py          experiment 1: the first-level titles of five READMEs
    json_shape.py      the shape of a JSON text, whole or cut off
    docs_json.py       experiment 2: the fields of one record of a large JSON file
    compare_code.py    experiment 3: two code files, current context against memory
    compact_tool.py    the compact tool: a note written and `compact` in one batch
    generic.py         any other request: what the workspace's files begin with
    summary_reply.py   the answer to the compactor's summary request
    reply.py           choosing the task and writing the response: `respond`

Left out on purpose: any understanding beyond these scripts, sampling,
`max_tokens` cut-offs, images, and any access to files (the policy never reads
the disk; it asks for tool calls).
"""

from .reply import MODEL_NAME, respond
from .summary_reply import recover_messages, summarize
from .tokens import estimate_text_tokens, estimate_tokens, prompt_text

__all__ = ["MODEL_NAME", "estimate_text_tokens", "estimate_tokens", "prompt_text",
           "recover_messages", "respond", "summarize"]
