# %% [markdown]
# # 02 · Step 2, `snip_compact`: archive the middle of a long list
#
# Step 1 looked at sizes; step 2 looks at the **number** of messages. Above
# `max_messages` (50) it writes the whole list to
#
#     .transcripts/transcript_<uuid4 hex>.jsonl      (one JSON message a line)
#
# and keeps only the first 3 messages (the task as it was first given) and the newest
# 47, with one user message in between saying what happened:
#
#     [<N> messages archived at <path>]
#
# The cut has one hard rule. An assistant `tool_use` and the user `tool_result` that
# answers it must stay together: a result without its call, or a call without its
# result, and the API refuses the next request. So:
#
# - if the head ends on an assistant message with `tool_use`, the head grows to take
#   the `tool_result` message after it;
# - if the tail would start on a `tool_result` whose `tool_use` is just before it, the
#   tail starts one earlier.

# %% [markdown]
# **Goal.** You will learn when step 2 acts (a count of messages, not characters), where
# it cuts and why the cut moves around tool pairs, what the transcript holds, and why the
# article's step 2 fires again on the very next call; then you will work out how often a
# snip that cuts to a target archives. About 25 minutes on your own; in the 90-minute
# class, 7 (docs/TEACHING.md).

# %%
# %matplotlib inline
import tempfile

from compact import CompactionConfig, snip
from workbench.course.charts import before_after, message_map
from workbench.course.exercises import check_archive_calls, hint
from workbench.course.histories import load_history
from compact.messages import has_tool_use, is_tool_result
from workbench.course.replay import make_compactor, replay

seed = CompactionConfig.seed()
print(f"max_messages = {seed.snip_max_messages}, head = {seed.snip_keep_head}, "
      f"newest = {seed.snip_max_messages - seed.snip_keep_head}")

# %% [markdown]
# ## A long session, and where the cut falls
#
# `long_session` has 64 messages over three requests. Each message below is shown by
# its kind; look at the two places where the article's cut would fall.

# %%
history = load_history("long_session")
messages = history["messages"]


def kind(message) -> str:
    if has_tool_use(message):
        return "tool_use"
    if is_tool_result(message):
        return "tool_result"
    return message["role"]


kinds = [kind(m) for m in messages]
plain_head = seed.snip_keep_head
plain_tail = len(messages) - (seed.snip_max_messages - seed.snip_keep_head)
head_end, tail_start = snip.cut_points(messages, seed)
print(f"{len(messages)} messages")
print(f"head: ends before {plain_head}: {kinds[plain_head - 1]} | {kinds[plain_head]}"
      f"  -> grows to end before {head_end}")
print(f"tail: starts at {plain_tail}: {kinds[plain_tail - 1]} | {kinds[plain_tail]}"
      f"  -> starts at {tail_start}")

# %% [markdown]
# Both cuts would have split a pair, so both moved. Now run step 2.

# %%
run = replay(history, profile="seed", step="snip_compact")
print(run.table())

# %% [markdown]
# ## The exact text left behind
#
# The list now reads: the head, the marker, the newest messages. This is the marker,
# word for word (the transcript name is a random uuid4 in the article; replays draw it
# from a seeded generator so this page is the same every time):

# %%
marker_at = head_end
print(run.after[marker_at]["content"])
print(f"\n{len(run.after)} messages = {head_end} (head) + 1 (marker) + "
      f"{len(run.after) - head_end - 1} (newest)")

# %% [markdown]
# ## Where the full text went
#
# The transcript holds the **whole** list as it was before the cut, one message a line,
# not only the archived middle.

# %%
transcript_path = run.files[0]
lines = (run.root / transcript_path).read_text(encoding="utf-8").splitlines()
print(transcript_path)
print(f"{len(lines)} lines; the first: {lines[0][:90]}...")
print(f"read back, identical to the list before the cut: "
      f"{run.compactor.store.read_transcript(transcript_path) == messages}")

# %% [markdown]
# ## Characters before and after
#
# Step 2 counts messages, not characters: it fires on 64 short messages and would
# ignore 10 huge ones. The message map shows which ones were archived (grey).

# %%
before_after(run.records, limit=seed.context_char_limit,
             title="long_session: step 2 alone (seed profile)")

# %%
message_map(run.before, run.after, title="long_session: step 2, seed profile")

# %% [markdown]
# ## Archiving again, and again
#
# The article keeps 3 + 47 newest + the marker: 51 messages, already over 50 before
# anything new arrives (here the pair rules made it 53). So the next call archives
# again, and the next. We play twelve more calls, each adding one reply and one result,
# and count the transcripts:

# %%
def twelve_more_calls(profile: str, scratch) -> int:
    compactor = make_compactor(scratch, profile)
    context = compactor.snip_compact(messages, history["active_request"])
    for call in range(12):
        reply = {"role": "assistant", "content": [{"type": "tool_use", "id": f"more_{call}",
                                                   "name": "glob", "input": {"pattern": "*"}}]}
        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"more_{call}",
                                               "content": "README.md"}]}
        context = compactor.snip_compact(context + [reply, result], history["active_request"])
    return len(compactor.store.written)


with tempfile.TemporaryDirectory() as scratch:
    print(f"transcripts written in 13 calls: {twelve_more_calls('seed', scratch)}")

# %% [markdown]
# A new transcript on every call, each one a full copy of the list. Keep this in mind:
# these are flaws 4 and 5 of the article's step 2 ([docs/DESIGN.md](../docs/DESIGN.md)),
# and lab 01 shows the fix.

# %% [markdown]
# ## Check yourself: a snip that does not archive on every call
#
# The article's cut leaves 51 messages, one over its trigger, so every later call
# archives again. Suppose instead the cut brings the list down to `target` messages (the
# marker is one of them). Write
# `archive_calls(added, max_messages, target)`: call 1 adds `added[0]` messages to an
# empty list, call 2 adds `added[1]`, and so on, and step 2 runs after each addition.
# Return the numbers of the calls on which step 2 writes a transcript. Then try a few
# targets by hand: how many calls apart are two archives?
#
# The checker runs the package's own step 2, cutting to your `target` (its
# `snip_target_messages`, lab 01), call after call on a growing list of plain turns,
# on canned sessions and eight random ones (seeded). `hint()` names the mistake it
# recognised.

# %%
def archive_calls(added, max_messages, target):
    raise NotImplementedError  # your code here


result = check_archive_calls(archive_calls)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown]
# **Recap.**
# - Step 2 counts messages: above 50 it keeps the first 3 and the newest, with one
#   `[N messages archived at <path>]` marker between them.
# - The whole list goes to a `.transcripts/` file first, so nothing is lost.
# - The cut never parts a `tool_use` from its `tool_result`; and the article's cut
#   leaves 51 messages or more, so it archives again on every call.
#
# **Next:** notebook 03, step 3 `micro_compact`: old results become one line.

# %% [markdown]
# **References.**
# - The article (learn-claude-code s08, in Chinese), section 四、第二步：snip_compact;
#   [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md) maps its sections to the code.
