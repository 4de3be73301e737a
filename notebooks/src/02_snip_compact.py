# %% [markdown] id="title"
# # 02 · Step 2, `snip_compact`: archive the middle of a long list
#
# Step 2 counts **messages**. Above `max_messages` (50) it writes the whole list to
# `.transcripts/transcript_<uuid4 hex>.jsonl` and keeps the first 3 messages (the task as
# first given) and the newest 47, with one marker between them:
#
#     [<N> messages archived at <path>]
#
# The cut never parts a `tool_use` from its `tool_result` (the API refuses such a list): a
# head that ends on a `tool_use` takes the result after it, and a tail that would open on
# a `tool_result` opens one message earlier.

# %% [markdown] id="goal"
# **Goal.** You will learn where step 2 cuts, what the transcript holds, and why the
# article's step 2 fires again on the next call; then you will work out how often a snip
# to a target archives, and write the step. About 30 minutes on your own; in the
# 90-minute class, 6 (docs/TEACHING.md).

# %% [markdown] id="where-the-cut-falls"
# ## Where the cut falls
#
# `long_session` has 64 messages. Printed: the kinds either side of each of the article's
# cuts, and where each moves.

# %%
# %matplotlib inline
from context_compact import CompactionConfig, snip
from context_compact.messages import has_tool_use, is_tool_result
from compact_course.article import MAX_MESSAGES
from compact_course.lessons.charts import message_map
from compact_course.lessons.exercises import check_archive_calls, hint
from compact_course.lessons.replay import replay
from compact_course.sessions.histories import load_history

seed = CompactionConfig.seed()
history = load_history("long_session")
messages = history["messages"]
kinds = ["tool_use" if has_tool_use(m) else "tool_result" if is_tool_result(m) else m["role"]
         for m in messages]
plain_head = seed.snip_keep_head
plain_tail = len(messages) - (MAX_MESSAGES - seed.snip_keep_head)
head_end, tail_start = snip.cut_points(messages, seed)
print(f"head: ends before {plain_head}: {kinds[plain_head - 1]} | {kinds[plain_head]}"
      f"  -> ends before {head_end}")
print(f"tail: starts at {plain_tail}: {kinds[plain_tail - 1]} | {kinds[plain_tail]}"
      f"  -> starts at {tail_start}")

# %% [markdown] id="step-2s-run"
# ## Step 2's run
#
# Both cuts would have split a pair, so both moved. Printed: the marker (the uuid4 is
# seeded), the new length, the transcript read back. Grey in the map: archived.

# %%
run = replay(history, profile="seed", step="snip_compact")
transcript = run.files[0]
print(run.after[head_end]["content"])
print(f"{len(run.after)} messages = {head_end} (head) + 1 (marker) + "
      f"{len(run.after) - head_end - 1} (newest)")
print(f"{transcript} holds the whole list before the cut: "
      f"{run.compactor.store.read_transcript(transcript) == messages}")
message_map(run.before, run.after, title="long_session: step 2, seed profile")

# %% [markdown] id="archiving-again-and-again"
# ## Archiving again, and again
#
# The article keeps 3 + 47 + the marker: 51 messages, over 50 before anything new arrives
# (here the pair rule made it 53). Twelve more calls, each adding a reply and a result:

# %%
context = run.after   # call 1: step 2's run above
for call in range(12):
    reply = {"role": "assistant", "content": [{"type": "tool_use", "id": f"more_{call}",
                                               "name": "glob", "input": {"pattern": "*"}}]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"more_{call}",
                                           "content": "README.md"}]}
    context = run.compactor.snip_compact(context + [reply, result], history["active_request"])
print(f"transcripts written in 13 calls: {len(run.compactor.store.written)}")

# %% [markdown] id="check"
# A new transcript on every call, each a full copy of the list: flaws 4 and 5 in
# [docs/DESIGN.md](../docs/DESIGN.md); lab 01 shows the fix.
#
# ## Check yourself: a snip that does not archive on every call
#
# Suppose the cut brings the list down to `target` messages instead (the marker is one of
# them). Write `archive_calls(added, max_messages, target)`: call 1 adds `added[0]`
# messages to an empty list, call 2 adds `added[1]`, and so on; step 2 runs after each.
# Return the numbers of the calls on which step 2 writes a transcript. The checker runs
# the package's own step 2 with your `target`.

# %%
def archive_calls(added, max_messages, target):
    raise NotImplementedError  # your code here


result = check_archive_calls(archive_calls)
open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="build-it"
# ## Build it: step 2 in your own file
#
# In `my_compact.py`, write `snip_compact`, save, and run the cell.

# %%
from compact_course.lessons.build_track import check

built = check("snip_compact")

# %% [markdown] id="recap"
# **Recap.**
# - Above 50 messages step 2 keeps the first 3 and the newest, with a marker between.
# - The whole list goes to a transcript first: nothing is lost.
# - The cut never parts a pair, and leaves 51 messages or more: it archives on every call.
#
# **Next:** notebook 03, step 3 `micro_compact`: old results become one line.

# %% [markdown] id="references"
# **References.** The article (in Chinese), section 四、第二步：snip_compact;
# [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md).
