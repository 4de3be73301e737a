# %% [markdown] id="title"
# # 06 · Reactive compaction: when the API still says "too long"
#
# The pipeline of notebooks 01-04 counts **characters**; the API counts **tokens**. So a
# request the pipeline lets through can still be refused. The article's safety net
# (section 8) is `reactive_compact`: write the whole list to a transcript, summarize
# everything **before** the newest `KEEP_RECENT_MESSAGES = 5` messages (one earlier
# rather than part a `tool_use` from its `tool_result`), and try again with one
# `[Reactive compact]` message plus those newest messages. It does this **once** per
# model call (`MAX_REACTIVE_RETRIES = 1`): if the retry is refused too, the error goes to
# the caller instead of looping forever.
#
# The canned history `overflow` is served by the offline model (a deterministic program
# that speaks the Messages API, not a language model) playing a model with a window of
# 8,000 tokens: you will see a refusal and a retry that goes through, then a refusal
# whose retry is refused too.

# %% [markdown] id="goal"
# **Goal.** You will learn why a request under the character limit can still be refused,
# how the refusal is recognised, where `reactive_compact` cuts and why only once per
# call; then you will design a kept tail that reads the request once. About 25 minutes
# on your own; in the 90-minute class, 8 (docs/TEACHING.md).

# %% [markdown] id="under-the-character-limit-over"
# ## Under the character limit, over the window
#
# `overflow` investigates a failing test run. `prepare` runs first, as before every model
# call.

# %%
# %matplotlib inline
import copy
import shutil
import tempfile
from pathlib import Path

import anthropic

import context_compact
from context_compact import CompactionConfig, estimate_chars, is_prompt_too_long
from compact_course.agent.loop import SYSTEM, Agent
from compact_course.agent.model import offline_client
from compact_course.agent.tools import TOOLS
from compact_course.lessons.charts import before_after
from compact_course.lessons.exercises import check_tail_once, hint
from compact_course.lessons.replay import make_compactor, seeded_ids
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.server import start_offline_server
from compact_course.sessions.histories import load_history

history = load_history("overflow")
messages, request, window = history["messages"], history["active_request"], history["window_tokens"]
config = CompactionConfig()
scratch = tempfile.TemporaryDirectory(prefix="reactive-")
compactor = make_compactor(scratch.name, profile="default", echo=print)
prepared = compactor.prepare(messages, request)
print(f"{len(prepared)} messages, {estimate_chars(prepared):,d} characters, under "
      f"CONTEXT_CHAR_LIMIT = {config.context_char_limit:,d}; steps of prepare that acted: "
      f"{[r.step for r in compactor.records if r.fired] or 'none'}")

server = start_offline_server(window=window)
client = offline_client(server.base_url, max_retries=0)
counted = client.messages.count_tokens(model=MODEL_NAME, system=SYSTEM, tools=TOOLS, messages=prepared)
print(f"count_tokens: {counted.input_tokens:,d} tokens; the window: {window:,d}")

# %% [markdown] id="the-refusal"
# ## The refusal
#
# The SDK turns the API's HTTP 400 into `anthropic.BadRequestError`. Its message is the
# real API's wording. Next to it, the article's test for a refusal, and the package's:

# %%
def ask_model(context):
    return client.messages.create(model=MODEL_NAME, system=SYSTEM, tools=TOOLS,
                                  messages=context, max_tokens=8000)


def article_check(error) -> bool:
    text = str(error).lower()
    return "prompt_too_long" in text or "too many tokens" in text


try:
    ask_model(prepared)
except anthropic.BadRequestError as error:
    print(f"{type(error).__name__} {error.status_code}: {error.body['error']['message']}")
    print(f"the article's check: {article_check(error)}; is_prompt_too_long: {is_prompt_too_long(error)}")

# %% [markdown] id="reactive-compact-then-the-retry"
# Neither of the article's two spellings is in the real text, so its loop would let this
# error through and the agent would stop (flaw 9 in [docs/DESIGN.md](../docs/DESIGN.md)).
# `is_prompt_too_long` checks the SDK's error type and all three spellings.
#
# ## `reactive_compact`, then the retry

# %%
compacted = compactor.reactive_compact(prepared, request)
kept = compacted[1:]
print(f"{len(prepared)} messages -> {len(compacted)}: the summary + {len(kept)} kept verbatim, "
      f"the first two kept: {[[block['type'] for block in message['content']] for message in kept[:2]]}")
saved = compactor.store.read_transcript(compactor.records[-1].files[0])
print(f"the transcript holds the list as it was: {saved == prepared}")
answer = ask_model(compacted)
print(f"the retry: {answer.stop_reason}, " + "; ".join(
    f"{block.name} {block.input}" for block in answer.content if block.type == "tool_use"))

# %% [markdown] id="the-second-refusal-inside-the"
# Six kept, not five: the fifth-newest message is a `tool_result`, and cutting there would
# send it without its `tool_use`, which the API refuses; so the cut moved one earlier. The
# retry went through, and the model wants the whole test log next.
#
# ## The second refusal, inside the agent loop
#
# `compact_course.agent.loop.Agent` is the article's loop: `prepare` before each call, one
# `reactive_compact` on a refusal, the counter reset after each call that goes through.
# It gets the same history and window, with two settings: the summarizer's input capped
# at 20,000 characters, since the summary request goes to the same small model; and
# `persist_oversized=False`, so step 1 acts only on a batch over 200,000 characters, as in
# the article.

# %%
workspace_copy = tempfile.TemporaryDirectory(prefix="reactive-ws-")
workspace = Path(workspace_copy.name) / "workspace"
shutil.copytree(Path(context_compact.__file__).resolve().parent.parent / "data" / "workspace", workspace)
agent = Agent(workspace, client, MODEL_NAME, new_id=seeded_ids(),
              config=CompactionConfig(summary_input_char_limit=20_000, persist_oversized=False))
agent.messages = copy.deepcopy(messages)
start = len(server.requests)
try:
    agent.loop(request)
except anthropic.BadRequestError as error:
    print(f"\nraised to the caller: {error.body['error']['message']}")
print(f"model calls: {agent.model_calls}; the offline model's answers, summary requests included: "
      f"{[r['status'] for r in list(server.requests)[start:]]}")
for r in agent.compactor.records:
    if r.step == "reactive_compact":
        print(f"call {r.call}: reactive_compact, {r.chars_before:,d} -> {r.chars_after:,d} characters")
before_after(agent.compactor.records, limit=config.context_char_limit,
             title="The overflow history in the agent loop (window 8,000 tokens)")

# %% [markdown] id="check"
# The first call is refused, `[reactive compact]` runs and the retry goes through (the
# 200s). The model reads `logs/test_run.log`, a result of over 40,000 characters: the list
# stays under 50,000 characters, so `prepare` leaves it, but over 8,000 tokens. The next
# call is refused; the counter was reset, so a second `reactive_compact` runs (call 3),
# but the big result is among the newest messages it keeps verbatim: the retry is as long,
# and this second refusal in a row is raised. Reactive compaction helps against a history that grew
# too long, not against one fresh result too long on its own: that is step 1's job.
#
# ## Check yourself: a tail that reads the request once
#
# The article keeps the newest 5 messages, and its summary message carries the request
# too: when the request's own message is among those 5, the model reads it twice. Write
# `tail_once(kinds, keep, request_at)`: the index of the first message kept verbatim.
# `kinds` lists the messages as `"user"`, `"assistant"`, `"tool_use"` (an assistant
# message with a call) or `"tool_result"` (the user message answering the call just
# before it); the request is the user message at `request_at`. Keep the newest `keep`
# messages, never part a `tool_use` from its `tool_result`, and let the model read the
# request once, in the summary message.
#
# The checker compares with the package's `context_compact.reactive.tail_start` (default
# profile) on canned and random histories.

# %%
def tail_once(kinds, keep, request_at):
    raise NotImplementedError  # your code here


result = check_tail_once(tail_once)
open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="build-it"
# ## Build it: the safety net in your own file
#
# In `my_compact.py`, write `is_prompt_too_long` and `reactive_compact`, save, and run the cell.

# %%
from compact_course.lessons.build_track import check

built = [check("is_prompt_too_long"), check("reactive_compact")]

# %% [markdown] id="recap"
# **Recap.**
# - The pipeline counts characters, the API tokens: a request under the character limit
#   can still be refused, with `prompt is too long: N tokens > M maximum`.
# - `reactive_compact` writes a transcript, summarizes everything before the newest 5
#   messages (one earlier rather than part a pair), and the call is tried again.
# - It runs once per model call: a second refusal in a row goes to the caller, as it did
#   here when one fresh result was too long on its own.
#
# **Next:** notebook 07, the `compact` tool: the model asks for a summary itself.

# %% [markdown] id="references"
# **References.**
# - The article (learn-claude-code s08, in Chinese), section 八、API 拒绝后的补救：reactive_compact;
#   [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md) maps its sections to the code.
