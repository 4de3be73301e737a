"""The offline model: a deterministic stand-in for Claude that reads only its context, and its server.

It is a program, not a language model. The article runs its agent loop
(section 9) and its three experiments (section 13) against a real model; this
package stands in for that model so the course runs offline:
`respond(request) -> response`, pure functions from a Messages API request
dict to a response dict. It reads the request the way a model would and no
other way:
- the active request is the last text the user typed, or the "Current user
  request:" section of a `[Compacted]` / `[Reactive compact]` message;
- any question about the workspace, in English or in Chinese, goes to the
  general policy (kinds.py): one table of question kinds, each with its cues,
  its lookup and its answer. It finds what the question names with the tools
  the request offers (glob, grep through bash, read_file), then answers from
  what those calls returned, quoting lines with file and line number, or says
  it cannot tell, why, and where it looked. It never states a negative from a
  preview or a placeholder: it searches the saved copy first;
- the article's experiments keep scripted plans (experiments/, route.py says why);
- what it knows is only what the request holds: whole tool results, persisted
  previews, its own earlier notes, and summary text. A saved placeholder is
  read back from its saved copy; a result shrunk to `[Earlier tool result
  omitted.]` with no note left is gone, and the answer says so, so a lossy
  compaction shows in the answer;
- asked for a summary (system prompt `context_compact.formats.SUMMARY_SYSTEM`), it
  recovers the whole messages from the JSON it was given (cut in the middle or
  not) and answers with the state summary of
  `compact_course.offline.model.extractive.extractive_summary`: goal, files and their key
  facts, decisions, done, pending, in the request's language.

Two jobs, two folders. `api/` plays the Messages API around the model (HTTP,
the request rules, context management, usage); `model/` is the model. The
model never imports the API (tests/pipeline/test_layout.py). The modules, in the order
a request goes through them:

    api/server.py             a local HTTP server speaking the Messages API (aiohttp)
    api/answer.py             one request's path: the API's rules, its context edits, the model, usage
    api/rules.py              the Messages API's request rules and its error texts
    api/context_management.py the API's context edits and server compaction, around the model
    tokens.py                 the token estimate both sides use, and the window
    model/reply.py            choosing the task and writing the response: `respond`
    model/view.py             reading a request: the request, each call, what is left of its result; a Plan
    model/tools.py            which offered tool does each job the model knows, read from its schema
    model/probe_reply.py      a probe question (compact_course.probes): quoted, re-read, or from a summary
    model/route.py            choosing the plan: an experiment of the article, or the general policy
    model/experiments/        the article's scripted experiments and the compact tool
    model/kinds.py            the general policy: the one table of question kinds, `plan_question`
    model/question.py         reading a question: its language, the paths, folder, names and words in it
    model/lookup.py           the lookups a kind names, run with the offered tools, and their evidence
    model/answers.py          each kind's answer, quoted from that evidence, or "I can't tell"
    model/facts.py            the key facts of a file's text, in one line
    model/summary_reply.py    the answer to the compactor's summary request
    model/extractive.py       a deterministic extractive summary of messages (no model)

Its words, in both languages, are in compact_course/display/phrases.py; the request's
language is `compact_course.display.lang.language_of`.

Left out on purpose: any understanding beyond these scripts, sampling,
`max_tokens` cut-offs, images, and any access to files (the policy never reads
the disk; it asks for tool calls).

The model's names are imported when asked for (PEP 562's module `__getattr__`): a
lesson that imports `estimate_text_tokens`, or a module of `model/`, does not load the
whole policy with this package.
"""

import importlib

from .tokens import estimate_text_tokens, estimate_tokens, prompt_text

# name -> the module of model/ that defines it
LAZY = {"MODEL_NAME": "reply", "respond": "reply",
        "recover_messages": "summary_reply", "summarize": "summary_reply"}

__all__ = ["MODEL_NAME", "estimate_text_tokens", "estimate_tokens", "prompt_text",
           "recover_messages", "respond", "summarize"]


def __getattr__(name: str):
    if name in LAZY:
        return getattr(importlib.import_module(f".model.{LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
