# %% [markdown]
# # 06 · Reactive compaction: when the API still says "too long"
#
# The pipeline of notebooks 01-04 counts **characters**, because that is cheap and
# deterministic. The API counts **tokens**. The two do not convert at one fixed rate
# (notebook 00 prints the ratio for English, code, JSON and Chinese text), so a request
# the pipeline lets through can still be refused, in the API's words:
#
#     prompt is too long: 210445 tokens > 200000 maximum
#
# The article's answer (section 8) is a safety net, `reactive_compact`:
#
# 1. write the whole list to a transcript in `.transcripts/`;
# 2. summarize everything **before** the newest `KEEP_RECENT_MESSAGES = 5` messages
#    (the cut moves one earlier rather than split a `tool_use` from its `tool_result`);
# 3. send one `[Reactive compact]` message plus those newest messages, and try again.
#
# It may do this **once** per model call (`MAX_REACTIVE_RETRIES = 1`). If the retry
# is refused too, the error goes to the caller instead of looping forever.
#
# This notebook replays the canned history `overflow` against the offline model
# playing a model with a small window, 8,000 tokens, so you can watch one refusal, the
# retry, and then a second refusal. The offline model is a deterministic program that speaks the Messages
# API, not a language model.

# %% [markdown]
# **Goal.** You will learn why a request under the character limit can still be refused,
# how the refusal is recognised, where `reactive_compact` cuts and why only once per
# call; then you will design a kept tail that reads the request once. About 30 minutes
# on your own; in the 90-minute class, 8 (docs/TEACHING.md).

# %%
# %matplotlib inline
import copy
import shutil
import tempfile
from pathlib import Path

import anthropic

import compact
from compact import CompactionConfig, estimate_chars, is_prompt_too_long
from workbench.agent.loop import SYSTEM, Agent
from workbench.course.charts import before_after
from workbench.course.exercises import check_tail_once, hint
from compact.formats import SUMMARY_RE
from workbench.course.histories import load_history
from compact.messages import text_of, tool_results, tool_uses
from workbench.agent.model import offline_client
from workbench.offline import MODEL_NAME
from workbench.course.replay import make_compactor, seeded_ids
from workbench.offline.api.server import start_offline_server
from workbench.offline.tokens import DEFAULT_WINDOW
from workbench.agent.tools import TOOLS

# %% [markdown]
# ## The history: under the character limit, over the window
#
# `overflow` is an investigation of a failing test run: 21 messages, mostly English log
# and code. Its size in characters is under `CONTEXT_CHAR_LIMIT`, so `prepare` has
# nothing to do. We serve it as a model whose window is 8,000 tokens
# (`start_offline_server(window=8_000)`): every refusal below happens at that window,
# counted by the same estimate its `count_tokens` answers. In a 200,000-token window
# this history would be far from any refusal; the cell after next prints its share of
# both.

# %%
history = load_history("overflow")
messages, request = history["messages"], history["active_request"]
window = history["window_tokens"]
config = CompactionConfig()

print(history["title"])
print(f"active request: {request}")
print(f"{len(messages)} messages, {estimate_chars(messages):,d} characters "
      f"(CONTEXT_CHAR_LIMIT = {config.context_char_limit:,d})")
print(f"model window: {window:,d} tokens")

# %% [markdown]
# First the pipeline, as before every model call. Then we ask the offline model's
# `count_tokens` endpoint (the same call exists on the real API) what the request
# costs in tokens.

# %%
scratch = tempfile.TemporaryDirectory(prefix="reactive-")
compactor = make_compactor(scratch.name, profile="default", echo=print)
prepared = compactor.prepare(messages, request)
print("steps that changed something:", [r.step for r in compactor.records if r.fired] or "none")
print(f"after prepare: {len(prepared)} messages, {estimate_chars(prepared):,d} characters")

server = start_offline_server(window=window)
client = offline_client(server.base_url, max_retries=0)
counted = client.messages.count_tokens(model=MODEL_NAME, system=SYSTEM, tools=TOOLS,
                                       messages=prepared)
print(f"count_tokens: {counted.input_tokens:,d} tokens > window {window:,d}")
print(f"share of the window: {counted.input_tokens / window:.0%} of {window:,d}, "
      f"{counted.input_tokens / DEFAULT_WINDOW:.0%} of {DEFAULT_WINDOW:,d}")

# %% [markdown]
# ## The refusal
#
# The SDK turns the API's HTTP 400 into `anthropic.BadRequestError`. Look at its
# message: that is the real API's wording.

# %%
def ask_model(context):
    return client.messages.create(model=MODEL_NAME, system=SYSTEM, tools=TOOLS,
                                  messages=context, max_tokens=8000)


try:
    ask_model(prepared)
except anthropic.BadRequestError as error:
    refusal = error
    print(type(error).__name__, error.status_code)
    print("message:", error.body["error"]["message"])

# %% [markdown]
# The article's loop recognised the refusal with two spellings, `prompt_too_long` and
# `too many tokens`. Neither appears in the real text, so the article's check would let
# this error through and the agent would stop (flaw 9 in
# [docs/DESIGN.md](../docs/DESIGN.md)). The package's `is_prompt_too_long` checks the
# SDK's error type and all three spellings.

# %%
def article_check(error) -> bool:
    text = str(error).lower()
    return "prompt_too_long" in text or "too many tokens" in text


print("the article's check:  ", article_check(refusal))
print("is_prompt_too_long:   ", is_prompt_too_long(refusal))

# %% [markdown]
# ## reactive_compact, then the retry
#
# The newest 5 messages stay verbatim; everything before them becomes one summary. The
# article's `reactive_compact` summarizes only `messages[:tail_start]`, the part it
# drops, never the tail it keeps.

# %%
compacted = compactor.reactive_compact(prepared, request)
summary_text = compacted[0]["content"]
print(summary_text[:700])
print("...")
print(f"\n{len(prepared)} messages -> {len(compacted)}: the summary message + "
      f"{len(compacted) - 1} kept verbatim")
print(f"{estimate_chars(prepared):,d} characters -> {estimate_chars(compacted):,d}")

# %% [markdown]
# Why 6 kept and not 5? The fifth-newest message is a `tool_result`, and its `tool_use`
# is the message just before it. Cutting there would send an orphan result, which the
# API refuses, so the cut moves one earlier. Here is what was kept:

# %%
def describe(message) -> str:
    if tool_uses(message):
        return "assistant: " + ", ".join(f"tool_use {u['name']}" for u in tool_uses(message))
    if tool_results(message):
        return "user: " + ", ".join(f"tool_result ({len(text_of(b['content'])):,d} chars)"
                                    for b in tool_results(message))
    kind = "[Reactive compact] summary" if SUMMARY_RE.match(text_of(message["content"])) else "text"
    return f"{message['role']}: {kind}"


for index, message in enumerate(compacted):
    print(index, describe(message))

# %% [markdown]
# Nothing is lost for good: the transcript holds every message of the list as it was.

# %%
transcript = compactor.records[-1].files[0]
saved = compactor.store.read_transcript(transcript)
print(transcript)
print(f"{len(saved)} messages in the transcript; identical to the list before: {saved == prepared}")

# %%
answer = ask_model(compacted)
print("the retry:", answer.stop_reason)
for block in answer.content:
    if block.type == "text":
        print("  text:", block.text)
    elif block.type == "tool_use":
        print(f"  tool_use: {block.name} {block.input}")

# %% [markdown]
# The retry went through, and the model wants to read the whole test log next.
#
# ## The second refusal, inside the agent loop
#
# `workbench.agent.loop.Agent` is the article's loop: `prepare` before each call, one
# `reactive_compact` on a refusal, the counter reset after each successful call. We give
# it the same history and the same window and let it carry on.
#
# One change of scale: the summary request goes to the same small model, so the text it
# is sent must fit the window too. The article caps it at `SUMMARY_INPUT_CHAR_LIMIT =
# 80,000` characters: by the offline estimate, never more than one token a character,
# that is at most 80,000 tokens, safe in a 200,000-token window. In 8,000 tokens we cap
# it at 20,000, which is not that bound: a text of one token a character would need a
# cap under 8,000. It holds for this history, English and JSON in ASCII, which the
# offline estimate counts at four characters a token (notebook 00): about 5,000 tokens.
#
# And one setting, `persist_oversized=False`: step 1 then acts only on a batch over
# 200,000 characters, as in the article, so you can see what reactive compaction does
# about one large fresh result. (The default profile's other switches are lab 01's
# subject.)

# %%
workspace_copy = tempfile.TemporaryDirectory(prefix="reactive-ws-")
workspace = Path(workspace_copy.name) / "workspace"
sample = Path(compact.__file__).resolve().parent.parent / "data" / "workspace"
shutil.copytree(sample, workspace)

loop_server = start_offline_server(window=window)
loop_client = offline_client(loop_server.base_url, max_retries=0)
agent = Agent(workspace, loop_client, MODEL_NAME, new_id=seeded_ids(),
              config=CompactionConfig(summary_input_char_limit=20_000, persist_oversized=False))
agent.messages = copy.deepcopy(messages)
try:
    agent.loop(request)
except anthropic.BadRequestError as error:
    print(f"\nraised to the caller: {error.body['error']['message']}")

# %% [markdown]
# Read the lines from the top:
#
# 1. the first call is refused, `[reactive compact]` runs, and the retry succeeds;
# 2. the model reads `logs/test_run.log`, a result of over 40,000 characters. The
#    context is still under 50,000 characters, so `prepare` leaves it alone, but it is
#    over 8,000 tokens: the next call is refused;
# 3. the counter was reset by the successful call, so a second `[reactive compact]` is
#    allowed. But the big result is among the 5 newest messages, which are kept
#    verbatim: the retry is just as long, and this second refusal in a row is raised.
#
# Reactive compaction protects against a history that grew too long, not against one
# fresh result that is too long on its own; that is step 1's job.

# %%
print(f"model calls: {agent.model_calls}, reactive compactions: {agent.reactive_compactions}")
print("what the offline model answered, in order (summary requests included):",
      [r["status"] for r in loop_server.requests])
for record in agent.compactor.records:
    if record.fired:
        print(f"call {record.call}: {record.step}, {record.messages_before} -> "
              f"{record.messages_after} messages, {record.chars_before:,d} -> "
              f"{record.chars_after:,d} characters, {record.model_calls} summary call")

# %% [markdown]
# Call 1 is the `reactive_compact` of the section above, on the same list, yet it ends
# at 2,621 characters, not 3,034. The summary is the difference: above it came from the
# course's extractive summarizer (`make_compactor`, no model call); inside the loop the
# agent asks the offline model for it through the SDK (the 200s between the 400s), with
# its input capped at 20,000 characters, and that summary is shorter.
#
# ## Characters before and after
#
# Each bar pair is one step on one model call: the three cheap steps change nothing
# here, and each `reactive_compact` is the only step that moves.

# %%
before_after(agent.compactor.records, limit=config.context_char_limit,
             title="The overflow history in the agent loop (window 8,000 tokens)")

# %% [markdown]
# ## Check yourself: a tail that reads the request once
#
# The article keeps exactly the newest 5 messages, and its summary message carries the
# request too: when the request's own message is among those 5, the model reads it twice.
# Write `tail_once(kinds, keep, request_at)`: the index of the first message kept
# verbatim. `kinds` lists the messages as `"user"`, `"assistant"`, `"tool_use"` (an
# assistant message with a call) or `"tool_result"` (a user message answering the call
# just before it); the request is the user message at `request_at`. Keep the newest
# `keep` messages, never part a `tool_use` from its `tool_result`, and let the model read
# the request once, in the summary message.
#
# Predict one case on paper first: `["user", "assistant", "user", "assistant", "user",
# "tool_use", "tool_result", "assistant"]`, `keep=5`, the request at 4. Where does the
# article's tail start, and where must yours?
#
# The checker builds real messages of those kinds and compares with the package's
# `compact.reactive.tail_start` in the default profile, on canned and random histories.
# `hint()` names the mistake it recognised.

# %%
def tail_once(kinds, keep, request_at):
    raise NotImplementedError  # your code here


result = check_tail_once(tail_once)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown]
# **Recap.**
# - The pipeline counts characters, the API tokens: a request under the character limit
#   can still be refused, with `prompt is too long: N tokens > M maximum`.
# - `reactive_compact` writes a transcript, summarizes everything before the newest 5
#   messages (one earlier rather than split a pair) and the call is tried again.
# - It runs once per model call: a second refusal in a row goes to the caller, as it did
#   here when one fresh result was too long on its own.
#
# **Next:** notebook 07, the `compact` tool: the model asks for a summary itself.

# %% [markdown]
# **References.**
# - The article (learn-claude-code s08, in Chinese), section 八、API 拒绝后的补救：reactive_compact;
#   [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md) maps its sections to the code.

# %%
server.stop()
loop_server.stop()
scratch.cleanup()
workspace_copy.cleanup()
