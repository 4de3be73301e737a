"""The recipe: the compaction pipeline inside a plain `anthropic` SDK tool loop.

    .venv/bin/python examples/own_loop.py "List the lesson folders." --workspace data/workspace

Four lines of `compact` make an ordinary tool loop compact its own context
(docs/RECIPE.md explains each one):
1. `prepare(messages, request)` before every model call;
2. `reactive_compact(messages, request)` once when the API still answers
   "prompt is too long", or its reply stops at the window (`stop_reason`
   "model_context_window_exceeded": a cut reply, not an answer), then the
   same call again; on a refusal, `smaller_or_raise` first checks that the
   retry is smaller than what was refused (at a tiny window a summary can
   outgrow the head it replaces, and the same call would only be refused
   again), and raises the refusal, saying so, when it is not;
3. the `compact` tool: run the WHOLE batch, append every result, and only
   then `compact_history`, so no tool_use loses its result;
4. the current request passed to each of them, so that what the user asked
   for this turn is never summarized away.
And `prepare` goes through a `CompactionGuard` (context_compact/guard.py): when
summaries come too close together (a limit below what one turn brings back),
the loop stops with `NoProgress`, whose text names the limit setting, what
fills the context and what to raise.
Everything else is the loop you already have. The tools here are the
course's (compact_course.agent.tools), only because they come ready to run; put your
own in TOOLS and run_tool. The offline model uses any tools by what their
`input_schema` and `description` say they do (a file reader, a shell, a file
search; docs/RECIPE.md, "Your own tools and the offline model").
tests/agent/test_recipe.py runs this file against the offline model, so the recipe
cannot go stale.

A streamed loop (`messages.stream()`) needs nothing more: the SDK's final
message is what `create` returns (`ask(..., stream=True)`).

With thinking on (`ask(..., thinking={"type": "adaptive"})`) each assistant turn
goes back as received, thinking blocks included, and `tool_choice` is never set
(a model with thinking on refuses `any` and `tool`). The API binds each thinking
block to everything before it, so the compactor's default profile then edits
nothing in place and compacts whole (docs/RECIPE.md, "Thinking on").

Left out: the system prompt's wording, retries of other errors
(raised as they are), and anything the package's Agent adds for the course
(echoing, turn limits per task, destructive-command confirmation).
"""

import argparse
import sys

import anthropic

from compact_course.agent.tools import TOOLS, run_tool
from context_compact import CompactionConfig, ContextCompactor, hit_the_window, is_prompt_too_long
from context_compact.guard import CompactionGuard
from context_compact.reactive import smaller_or_raise

SYSTEM = "You are a coding agent. Use the tools to read files; answer from what you read."


def ask(client, model: str, compactor: ContextCompactor, messages: list, request: str,
        workspace, max_calls: int = 20, stream: bool = False, thinking: dict | None = None) -> str:
    """One user turn of a tool loop, with the pipeline wired in; returns the final text.
    `stream`: each reply comes as events through `messages.stream()`; nothing else changes.
    `thinking`: the request's thinking setting (None: not sent)."""
    extra = {} if thinking is None else {"thinking": thinking}
    messages.append({"role": "user", "content": request})
    refused = False
    guard = CompactionGuard(compactor)   # 3 summaries within 5 calls: NoProgress, not 20 calls
    for _ in range(max_calls):
        messages[:] = guard.prepare(messages, request)                          # 1
        try:
            response = call(client, stream, model=model, max_tokens=4000, system=SYSTEM,
                            tools=TOOLS, messages=messages, **extra)
        except anthropic.APIStatusError as error:
            if refused or not is_prompt_too_long(error):
                raise                           # a second refusal in a row is the caller's
            refused = True
            # A retry no smaller than the refused list is refused again: raise instead.
            messages[:] = smaller_or_raise(error, messages,
                                           compactor.reactive_compact(messages, request))  # 2
            continue
        if hit_the_window(response):            # the reply was cut at the window: not final
            if refused:
                raise RuntimeError("the reply hit the window again after reactive_compact")
            refused = True
            messages[:] = compactor.reactive_compact(messages, request)         # 2
            continue
        refused = False
        # As received, thinking blocks too: each one's signature covers its text and its place.
        content = [block.model_dump(mode="json", exclude_none=True) for block in response.content]
        messages.append({"role": "assistant", "content": content})
        calls = [block for block in content if block["type"] == "tool_use"]
        if not calls:
            return "".join(block.get("text", "") for block in content).strip()
        results = [{"type": "tool_result", "tool_use_id": call["id"],
                    "content": run_tool(workspace, call["name"], call["input"])} for call in calls]
        messages.append({"role": "user", "content": results})                  # the whole batch
        if any(call["name"] == "compact" for call in calls):
            messages[:] = compactor.compact_history(messages, request)          # 3
    raise RuntimeError(f"no final answer after {max_calls} model calls")


def call(client, stream: bool, **request):
    """One model call; streamed, the SDK puts the events back into the same message."""
    if not stream:
        return client.messages.create(**request)
    with client.messages.stream(**request) as events:
        return events.get_final_message()


def make_compactor(workspace, client, model: str, config: CompactionConfig | None = None, new_id=None):
    """Transcripts and saved results go under the workspace; summaries come from the same model."""
    return ContextCompactor(workspace, client=client, model=model, config=config, new_id=new_id)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="A plain SDK tool loop with the compaction pipeline.")
    parser.add_argument("request")
    parser.add_argument("--workspace", default=".")
    parser.add_argument("--model", default=None, help="a model id (default: the offline model)")
    args = parser.parse_args(argv)
    if args.model:   # the real API: the key comes from the environment, never from here
        with anthropic.Anthropic() as client:
            print(ask(client, args.model, make_compactor(args.workspace, client, args.model), [],
                      args.request, args.workspace))
        return 0
    from compact_course.agent.model import offline_client
    from compact_course.offline import MODEL_NAME
    from compact_course.offline.api.server import start_offline_server
    with start_offline_server() as server, offline_client(server.base_url) as client:
        print(ask(client, MODEL_NAME, make_compactor(args.workspace, client, MODEL_NAME), [],
                  args.request, args.workspace))
    return 0


if __name__ == "__main__":
    sys.exit(main())
