# %% [markdown] id="title"
# # Lab 06 · Today's API: compaction that keeps thinking valid
#
# **The question.** The article's steps 2 and 3 rewrite messages the model has already
# read. With thinking on, which of those edits does the API refuse, and what does the
# fix cost?
#
# The rule, from the preserved-thinking page
# (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking, read
# 2026-12-01): from Claude Fable 5.1 on, a `thinking` block sent back is checked against
# its **prefix**: the top-level `system`, `tools`, and every message before the block.
# - If the prefix changed, that block **and every later thinking block** are invalid: a
#   400, or, with `thinking.block_binding.prefix_mismatch_behavior: "drop_block"` and the
#   beta header `thinking-binding-controls-2026-08-01`, the request goes through without
#   them, each listed in `input_transformations` by its path (`messages.5.content.0`).
# - Removing thinking blocks **from the front**, oldest first, is allowed: no later block
#   fails. Removing one from the middle invalidates those after it.
#
# The **offline server** plays this rule; how its signatures bind a prefix is its own,
# and its thinking blocks are a program's stand-ins, not a model's reasoning.

# %% [markdown] id="goal"
# **Goal.** You will see step 3 refused, predict what `drop_block` drops after three
# edits, and weigh an edit in place against a whole compaction on the bill.
# About 20 minutes on your own; not part of the 90-minute class (docs/TEACHING.md).

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
# The course's agent reads five READMEs with thinking on, each assistant turn sent back
# as received. In the seed profile, step 3 replaces older results in place.

# %%
agent, refusal = lab.agent_session(client, lab.fresh_workspace(scratch / "seed"), "seed")
print(f"model calls before the refusal: {agent.model_calls}")
print(f"the API's answer (offline): 400 {refusal}")
for record in agent.compactor.records:
    if record.fired:
        print(f"call {record.call}: {record.step} changed message {record.cache_restart_at}; "
              f"thinking blocks left behind the edit: {record.thinking_invalidated}")

# %% [markdown] id="the-same-session-through-the"
# Every thinking block after the edited message lost its prefix; the 400 names the first.
# A retry cannot help: the history still holds the edit.
#
# ## The same session through the default profile
#
# While the list holds a thinking block, the default profile edits no past message
# (docs/DESIGN.md, flaw 19, `append_only_thinking`). Over the limit (12,000 characters
# here, so that it fires), step 4 compacts whole: one user message with the summary and
# the request, the page's "simple compaction".

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
# Its record counts the cost: the earlier turns' reasoning is gone (removed with all
# before it, which is allowed) and the prompt cache restarts at message 0.
# Nothing was sent back invalid.
#
# ## `drop_block`, and what it drops
#
# A plain SDK loop of three tool calls with thinking on; then step 3's edit of the first
# result (message 2), sent with `drop_block` and the header. Streamed, the list comes on
# `message_start`.

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
# **Predict.** A five-turn loop: message 0 is the request; each assistant message (1, 3,
# 5, 7, 9) holds a thinking block at `content.0` and a tool call, and the user message
# after it the call's result. Three edits: step 3 shrinks the result in messages.4; the
# `system` prompt changes; the two oldest thinking blocks are removed. For each, which
# paths does `drop_block` list, in order? Use the rule at the top (`[]` for none).

# %%
prediction = None  # e.g. {"shrink messages.4": ["messages.5.content.0", ...],
#                          "change the system": [...], "remove the two oldest thinking blocks": [...]}
result = check_dropped_paths(prediction)

open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="the-servers-answer"
# **The server's answer** opens once you have checked a full prediction: its own check
# (`binding.check`) on the checker's session.

# %%
from compact_course.lessons.exercises import revealed
from compact_course.lessons.exercises.dropped import expected as dropped_by_the_server

if revealed("dropped_paths"):
    for edit, paths in dropped_by_the_server().items():
        print(f"{edit}: {paths}")

# %% [markdown] id="an-in-place-edit-beside-a"
# ## An edit in place beside a compaction, on the bill
#
# The benchmark's tool-heavy session: 60 turns, each reply opening with a thinking block
# (`calls` adds summary calls), priced as lab 02 prices (`compact_course/bench/prices.py`).
# Three designs: the seed; the default with `append_only_thinking` off; the default as it
# ships. `thinking` counts the blocks, of those 60, each sent back behind a changed prefix:
# each one a 400, or with `drop_block` reasoning lost.

# %%
rows = lab.in_place_or_whole(turns=60)
print(f"priced as {lab.priced_as()}")
print(tables.format_table(rows, columns=("design", "calls", "summ", "read", "cost k", "thinking")))
lab.cost_chart(rows)

# %% [markdown] id="a-practitioners-checklist"
# The edits in place are cheaper on this bill (`cost k`): they keep more of the prompt
# cached (`read`). But each invalidates the reasoning after it: on a current model, a
# refused request. The default pays for whole compactions (`summ`)
# and sends nothing back invalid. The token counts are the offline estimate.
#
# ## A practitioner's checklist
#
# - **Shrink before the first send** (step 1): nothing has read the newest result yet.
# - **Compact whole**; never cut turns out of the middle or edit old results in place.
# - **Send thinking back as received**; add reminders as new messages.
# - **In CI, expect `input_transformations` empty**: fail the build on any
#   `thinking_dropped` entry.

# %% [markdown] id="recap"
# **Recap.**
# - A thinking block is bound to everything before it; the article's steps 2 and 3 edit
#   that past, and the next request is a 400 (or, with `drop_block`, reasoning lost).
# - The default profile is append-only while thinking is live: step 1 before the first
#   send, a whole compaction over the limit.
# - `drop_block` drops the first failing block and every later one, and lists them in
#   `input_transformations`.
#
# **Next:** this is the last lab. To put the pipeline in your own agent, follow
# docs/RECIPE.md (`examples/own_loop.py`).

# %% [markdown] id="references"
# **References.**
# - Preserved thinking: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking
# - Fixing a block bound to a different conversation:
#   https://platform.claude.com/docs/build-with-claude/preserved-thinking/fix-bound-to-a-different-conversation
# - The pinned SDK's types (`anthropic` 2.17.0, `anthropic/types/beta/`):
#   `beta_thinking_block_binding_param.py`, `beta_message.py` (`input_transformations`)
# - Prompt caching: https://platform.claude.com/docs/en/build-with-claude/prompt-caching
#
# **For discussion.** Your agent must drop a secret it read three turns ago. What does
# that cost under preserved thinking, and how would you keep the cost small?

# %%
client.close()
server.stop()
