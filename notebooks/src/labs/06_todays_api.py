# %% [markdown] id="title"
# # Lab 06 · Today's API: compaction that keeps thinking valid
#
# The API moved under the article's design. The preserved-thinking page
# (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking, read
# 2026-12-01) says: "Starting with Claude Fable 5.1, when a `thinking` or
# `redacted_thinking` block comes back in a request, the API checks the block's
# `signature`": that the current model can read it, and that "nothing before the
# thinking block has changed. The top-level `system` prompt, `tools`, and `messages`
# before the block are its prefix. If the prefix differs from what you sent when the
# block was produced, that block and every later thinking block are invalid, and the API
# rejects the request with a 400 error or drops the invalid blocks, whichever you
# choose." The same page: the API enforces the prefix check by default for accounts
# created on or after August 31, 2026; make your integration append-only now.
#
# The pinned SDK (`anthropic` 2.17.0) has the types: `BetaThinkingBlockBindingParam`
# (`prefix_mismatch_behavior`: "error", the default, or "drop_block"), and the top-level
# `input_transformations` of a response, which "Requires `anthropic-beta:
# thinking-binding-controls-2026-08-01`" and, when streaming, "is final in
# `message_start`".
#
# The article's steps 2 and 3 rewrite messages the model has already read. This lab runs
# them with thinking on against the **offline server**, which plays that check. What is
# the API's: the rule, the 400's text, `drop_block`, `input_transformations`, the beta
# header. What is the offline server's own: how a signature binds its prefix (an HMAC of
# the prefix, with a secret each server makes when it starts; `compact_course/offline/api/binding.py`)
# and its thinking blocks, which stand in for reasoning: it is a program, not a language
# model.

# %% [markdown] id="goal"
# **Goal.** You will learn to see which edits of the past a model with preserved thinking
# refuses, to read what `drop_block` drops, and to weigh an in-place edit against a
# whole compaction on the bill; you will predict which blocks an edit drops. About 30
# minutes on your own; not part of the 90-minute class (docs/TEACHING.md).

# %%
# %matplotlib inline
import tempfile
from pathlib import Path

import anthropic

from compact_course.agent.model import offline_client
from compact_course.agent.tools import TOOLS
from compact_course.bench import tables
from compact_course.lessons import thinking_lab as lab
from compact_course.lessons.exercises import check_dropped_paths, hint
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.binding import BETA
from compact_course.offline.api.server import start_offline_server

server = start_offline_server()
client = offline_client(server.base_url)
scratch = Path(tempfile.mkdtemp(prefix="lab06-"))
print(f"model: the offline server ({MODEL_NAME}), on 127.0.0.1; thinking: {lab.THINKING}")

# %% [markdown] id="the-articles-step-3-refused"
# ## The article's step 3, refused
#
# The course's agent runs the article's first experiment (read five READMEs, compare the
# titles) with thinking on: every reply starts with a signed thinking block, and each
# assistant turn goes back exactly as received. In the seed profile, step 3 runs before
# every call and turns results older than the newest three into
# `[Earlier tool result omitted.]`, in place.

# %%
agent, refusal = lab.agent_session(client, lab.fresh_workspace(scratch / "seed"), "seed")
print(f"model calls before the refusal: {agent.model_calls}")
print(f"the API's answer (offline): 400 {refusal}")
for record in agent.compactor.records:
    if record.fired:
        print(f"call {record.call}: {record.step} changed message {record.cache_restart_at}; "
              f"thinking blocks left behind the edit: {record.thinking_invalidated}")

# %% [markdown] id="the-same-session-through-the"
# Step 3 shrank an old result in place, in the message printed above. Every thinking
# block after it now has a prefix it was not made with, and the first of them is the
# block the 400 names. Sending the same request again cannot help: the history still
# holds the edit.
#
# ## The same session through the default profile
#
# The default profile knows this (docs/DESIGN.md, flaw 19, `append_only_thinking`):
# while the list holds a thinking block, no step edits the past in place. Step 1 may
# still shrink the newest batch, which the model has not read yet. Over the limit, step 4
# compacts whole: one user message with the summary and the request, which is the
# preserved-thinking page's "simple compaction". Here the limit is 12,000 characters, so
# that it fires in this short session.

# %%
agent, refusal = lab.agent_session(client, lab.fresh_workspace(scratch / "default"), "default",
                                   context_char_limit=12_000)
print(f"refused: {refusal}; model calls: {agent.model_calls}")
for record in agent.compactor.records:
    if record.fired:
        print(f"call {record.call}: {record.step}: {record.chars_before:,} -> {record.chars_after:,} "
              f"characters; thinking blocks dropped {record.thinking_dropped}, left invalid "
              f"{record.thinking_invalidated}; the cache restarts at message {record.cache_restart_at}")
print(agent.answer.splitlines()[0])

# %% [markdown] id="drop-block-and-what-it-drops"
# The compaction cost something, and its record counts it: the reasoning of the earlier
# turns is gone (removing thinking blocks with everything before them is allowed), and
# the prompt cache restarts at message 0. Nothing was sent back invalid.
#
# ## `drop_block`, and what it drops
#
# A raw SDK loop of three tool calls with thinking on; then step 3's edit of the first
# result (message 2), sent with `thinking.block_binding.prefix_mismatch_behavior:
# "drop_block"` and the beta header. The request succeeds, and `input_transformations`
# lists each block the server dropped. Streamed, the list comes on `message_start`.

# %%
messages = lab.tool_loop(client, turns=3)
print("thinking blocks:", lab.thinking_paths(messages))
edited = lab.shrink_result(messages, 2)
drop = {**lab.THINKING, "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
request = dict(model=MODEL_NAME, max_tokens=4000, system=lab.SYSTEM, tools=TOOLS,
               messages=edited, thinking=drop, betas=[BETA])
reply = client.beta.messages.create(**request)
for entry in reply.input_transformations:
    print(f"  {entry.type}  {entry.path}  {entry.reason}")
with client.beta.messages.stream(**request) as events:
    start = next(iter(events))
    print(f"streamed: {start.type} carries {len(start.message.input_transformations)} entries")
    events.get_final_message()
print("unchanged history, same header:", client.beta.messages.create(
    **{**request, "messages": messages}).input_transformations)
plain = {k: v for k, v in request.items() if k not in ("betas", "thinking")}
for name, thinking in (("block_binding without the header", drop), ("the edit, no drop_block", lab.THINKING)):
    try:
        client.messages.create(**plain, thinking=thinking)
    except anthropic.BadRequestError as error:
        print(f"{name}: 400 {error.body['error']['message'][:110]}...")

# %% [markdown] id="predict"
# **Predict.** The same five-turn loop (thinking blocks at messages 1, 3, 5, 7 and 9), and
# three edits: step 3 shrinks the tool result of messages.4; the `system` prompt changes;
# the two oldest thinking blocks are removed. For each, which paths does `drop_block`
# list? Write the lists (`[]` when nothing is dropped).

# %%
prediction = None  # e.g. {"shrink messages.4": ["messages.5.content.0", ...],
#                          "change the system": [...], "remove the two oldest thinking blocks": [...]}
result = check_dropped_paths(prediction)

open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="the-servers-answer"
# **The server's answer** opens once you have checked a full prediction: the offline
# server's own check (`binding.check`, which its HTTP handler runs on each request) on
# the checker's five-turn session, for each of the three edits.

# %%
from compact_course.lessons.exercises import revealed
from compact_course.lessons.exercises.dropped import expected as dropped_by_the_server

if revealed("dropped_paths"):
    for edit, paths in dropped_by_the_server().items():
        print(f"{edit}: {paths}")

# %% [markdown] id="an-in-place-edit-beside-a"
# ## An in-place edit beside a compaction, on the bill
#
# The benchmark's tool-heavy session, 60 turns, with thinking on (each canned reply
# thinks first; `compact_course/bench/thinking.py`), priced as the benchmark prices: the
# cache's rules and the model's rates in `compact_course/bench/prices.py`. Three designs: the
# seed; the default with `append_only_thinking` off, which keeps its in-place edits; the
# default as it ships. `thinking` counts the blocks each sent back behind a changed
# prefix: on a current model, each one a 400, or with `drop_block` its reasoning lost.

# %%
rows = lab.in_place_or_whole(turns=60)
print(f"priced as {lab.priced_as()}")
print(tables.format_table(rows, columns=("design", "calls", "summ", "read", "cost k", "+misses k", "lost",
                                         "missed", "thinking")))
lab.cost_chart(rows)

# %% [markdown] id="a-practitioners-checklist"
# The edits in place are cheaper on this bill: they keep most of the prompt cached. But
# every one of them invalidates the reasoning after it, and on a current model the
# cheaper bill is a refused request. The default pays for whole compactions instead and
# sends nothing back invalid. Which model the bill prices is printed above; the token
# counts are the offline estimate.
#
# ## A practitioner's checklist
#
# From the preserved-thinking page and the course's runs above:
# - **Shrink before the first send.** Cut or save a big tool result while it is the
#   newest message (step 1): nothing has read it yet, so no prefix changes.
# - **Compact whole.** When the past must shrink, replace it all: one user message with
#   the summary and the next instruction (the page's "simple compaction"; the article's
#   `compact_history`). Never cut turns out of the middle, or edit old results in place.
# - **Reminders as new messages.** Change instructions with a mid-conversation `system`
#   message appended, not by editing the top-level `system` or an old message.
# - **Send thinking back as received**, and never force `tool_choice` (`any`, `tool`):
#   a model with thinking on refuses it.
# - **In CI, `input_transformations` empty.** Send the beta header and fail the build on
#   any `thinking_dropped` entry: each one is a prefix your code changed.

# %% [markdown] id="recap"
# **Recap.**
# - A thinking block is bound to everything before it; the article's steps 2 and 3 edit
#   that past, and the next request is a 400 (or, with `drop_block`, the reasoning goes).
# - The default profile is append-only while thinking is live: step 1 before the first
#   send, a whole compaction over the limit, its cost counted in the step records.
# - `drop_block` drops the first failing block and every later one, and says so in
#   `input_transformations`; an empty list is what CI should see.
#
# **Next:** the last lab; docs/TEACHING.md has the paths through the course.

# %% [markdown] id="references"
# **References.**
# - Preserved thinking: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking
# - Fixing a block bound to a different conversation:
#   https://platform.claude.com/docs/build-with-claude/preserved-thinking/fix-bound-to-a-different-conversation
# - The SDK's types, in `anthropic/types/beta/`: `beta_thinking_block_binding_param.py`,
#   `beta_thinking_dropped_input_transformation.py`, `beta_message.py` (`input_transformations`)
# - Prompt caching, which the bill follows: https://platform.claude.com/docs/en/build-with-claude/prompt-caching
#
# **For discussion.**
# - Your agent must drop a secret it read three turns ago. What does that cost under
#   preserved thinking, and how would you keep the cost small?
# - When is a whole compaction worth its cache restart, and when would you rather wait?

# %%
client.close()
server.stop()
