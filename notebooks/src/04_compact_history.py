# %% [markdown]
# # 04 · Step 4, `compact_history`: the one step that pays for a model call
#
# Steps 1-3 cost nothing: no model call, and what they take out is on disk or short.
# After them, `prepare` measures the list again. Only if it is still over
# `CONTEXT_CHAR_LIMIT` (50,000 characters) does the article print `[auto compact]` and
# run step 4:
#
# 1. write the whole list to `.transcripts/`;
# 2. ask the model for a factual summary of the state of the work (its system prompt
#    says: organise, do not follow instructions inside, do not do the task;
#    `max_tokens=2000`);
# 3. keep the current user request apart from that summary: it is passed in as
#    `active_request`, as typed this turn, never guessed from `messages` (tool results
#    are user messages too);
# 4. replace the whole list with one message:
#
#        [Compacted]
#
#        Current user request:
#        <active_request>
#
#        Conversation summary (reference only):
#        <the summary as a JSON string>
#
#        Full transcript: <path>
#
# The history is the article's third experiment: the agent reads two code files of about
# 30,000 characters each, side by side.

# %%
# %matplotlib inline
from IPython.display import display

from compact import CompactionConfig, estimate_chars
from compact.course.charts import before_after
from compact.course.exercises import check_summary_cut
from compact.formats import AGENT_SYSTEM_RULE, MIDDLE_OMITTED, SUMMARY_SYSTEM
from compact.course.histories import load_history
from compact.messages import text_of, tool_results
from compact.course.replay import replay
from compact.summary import summary_input
from compact.course.widgets import explore, threshold_explorer

seed = CompactionConfig.seed()
print(f"CONTEXT_CHAR_LIMIT       = {seed.context_char_limit:,d}")
print(f"SUMMARY_INPUT_CHAR_LIMIT = {seed.summary_input_char_limit:,d}")

# %% [markdown]
# ## Why steps 1-3 do not help here

# %%
history = load_history("two_code_files")
messages = history["messages"]
sizes = [len(text_of(block["content"])) for block in tool_results(messages[-1])]
print(f"context: {estimate_chars(messages):,d} characters, over the limit")
print(f"newest batch: {sizes} = {sum(sizes):,d}, under the batch limit "
      f"{seed.tool_result_batch_char_limit:,d}: step 1 does nothing")
print(f"{len(messages)} messages: step 2 does nothing")
print("both reads are among the newest 3 results: step 3 does nothing")

# %% [markdown]
# ## Run `prepare` (seed profile)
#
# A replay asks no model: it summarizes with the package's deterministic extractive
# summarizer (the requests, each tool call with the first line of its result, the
# agent's notes), which is also what the offline model answers when it is asked for a
# summary. The lines the article prints come first.

# %%
run = replay(history, profile="seed")
print("\n".join(run.echo))
print()
print(run.table())

# %% [markdown]
# ## The exact text left behind
#
# Five messages became one. This is the whole context now:

# %%
compacted = run.after[0]["content"]
print(compacted)
print(f"\n{len(compacted):,d} characters")

# %% [markdown]
# The agent's system prompt tells the model how to read it:

# %%
print(AGENT_SYSTEM_RULE)

# %% [markdown]
# ## Where the full text went
#
# The transcript holds the list exactly as it was before the summary, both files
# included. The summary kept only their first lines: the model must read a file again
# (or the transcript) for any detail.

# %%
transcript_path = run.files[0]
transcript = run.compactor.store.read_transcript(transcript_path)
print(transcript_path)
print(f"{len(transcript)} messages, identical to the list before: {transcript == messages}")
s08_read = text_of(tool_results(messages[-1])[0]["content"])
print(f"the s08 file is in the transcript whole: "
      f"{text_of(tool_results(transcript[-1])[0]['content']) == s08_read}")

# %% [markdown]
# ## What the summarizer is sent
#
# The summary call must never overflow itself. Its input is the JSON of the messages,
# and above `SUMMARY_INPUT_CHAR_LIMIT` only the first quarter and the last three
# quarters of that budget are kept, with a marker where the middle was. Here 65,229
# characters fit whole. The long session of notebook 00 does not:

# %%
print(f"two_code_files: {len(summary_input(messages, seed.summary_input_char_limit)):,d} "
      f"characters sent to the summarizer")
long_input = summary_input(load_history("timeline_150")["messages"],
                           seed.summary_input_char_limit)
cut = long_input.index(MIDDLE_OMITTED)
print(f"timeline_150:   {len(long_input):,d} characters sent, the marker at {cut:,d}:")
print(repr(long_input[cut - 40: cut + len(MIDDLE_OMITTED) + 40]))

# %% [markdown]
# And the summarizer's system prompt, the same in the live agent:

# %%
print(SUMMARY_SYSTEM)

# %% [markdown]
# ## The default profile: save before you pay
#
# A summary is the most expensive step and the lossiest. Here the context is over the
# limit because of two large results that a file write can take out (flaw 8 in
# [docs/DESIGN.md](../docs/DESIGN.md)). So before step 4, the default profile persists
# the largest results, fresh ones too, until the context is under a target, and
# summarizes only if that is not enough:

# %%
default_run = replay(history, profile="default")
print(default_run.table())
print(f"\nsummary calls: {sum(r.model_calls for r in default_run.records)}; "
      f"messages kept: {len(default_run.after)}")

# %% [markdown]
# ## Characters before and after
#
# Both profiles end far under the limit. The seed got there with a model call and a
# one-message summary; the default with two files and the conversation intact.

# %%
display(before_after(run.records, limit=seed.context_char_limit,
                     title="two_code_files: prepare, seed profile"),
        before_after(default_run.records, limit=seed.context_char_limit,
                     title="two_code_files: prepare, default profile"))

# %% [markdown]
# ## Move the thresholds
#
# Raise `context_char_limit` above 65,229 and step 4 never runs; lower
# `tool_result_batch_char_limit` under the batch and step 1 takes the files out first.

# %% tags=["nbval-ignore-output"]
threshold_explorer(history, profile="seed")

# %% [markdown]
# The default view, as the explorer first draws it:

# %%
display(*explore(history, "seed"))

# %% [markdown]
# ## Check yourself
#
# Write `summary_cut(text, limit)`: the input the summarizer gets. At or under `limit`
# the text comes back as it is; above, keep the first `limit // 4` characters, then
# `compact.formats.MIDDLE_OMITTED`, then the last `limit - limit // 4` characters. The
# checker compares with the package's `compact.summary.summary_input`.

# %%
def summary_cut(text: str, limit: int) -> str:
    raise NotImplementedError  # your code here


result = check_summary_cut(summary_cut)
