# %% [markdown] id="title"
# # 07 · The compact tool: the model asks for a summary
#
# The threshold knows how *big* the context is; only the model knows when a stage of the
# work is *finished*. So the article (section 10) adds a tool, `compact`, with no input
# and no handler. The harness (the agent's loop) does the work:
#
# 1. run the **whole** tool batch first: one reply may write a file and call `compact`;
# 2. answer `compact` with a fixed text and append every result, so each `tool_use` has
#    its `tool_result`;
# 3. only then run `compact_history` on the closed turn.
#
# The made history `compact_tool` stops just before such a batch: a write, then `compact`.

# %% [markdown] id="goal"
# **Goal.** You will learn why the harness runs the whole batch before it compacts, and
# what goes wrong otherwise; then you will write a batch runner that survives a failing
# tool, and the step. About 30 minutes on your own; in the 90-minute class, 7
# (docs/TEACHING.md).

# %% [markdown] id="the-articles-harness"
# ## The article's harness
#
# `Agent.run_batch` does the three steps in a copy of the sample workspace, so the write
# really happens; the offline model (a deterministic program, not a language model) writes
# the summary, and the agent carries on without writing the note again. The closed turn of
# 7 messages became 1, though under the limit: the model asked, not the threshold.

# %%
# %matplotlib inline
from IPython.display import display

from context_compact import estimate_chars, validate_messages
from context_compact.messages import tool_results, tool_uses
from compact_course.agent.tools import TOOLS, run_tool
from compact_course.lessons.charts import before_after
from compact_course.lessons.exercises import check_run_batch_safely, hint
from compact_course.lessons.offline_room import OfflineRoom
from compact_course.sessions.histories import load_history

history = load_history("compact_tool")
request = history["active_request"]
before_batch = history["messages"][:-1]   # stop before the batch is answered
batch = tool_uses(before_batch[-1])
print(f"{len(before_batch)} messages, {estimate_chars(before_batch):,d} characters; the last reply calls "
      f"{[use['name'] for use in batch]}")
print("the tool:", [t for t in TOOLS if t["name"] == "compact"][0], "\n")

calls_and_compactions = lambda line: print(line[:60]) if line.startswith(("[compact", ">")) else None  # noqa: E731
room = OfflineRoom(echo=calls_and_compactions)   # the offline server, a copy of the sample workspace
agent = room.agent(before_batch)
agent.run_batch(before_batch[-1]["content"], request)

saved = agent.compactor.store.read_transcript(agent.compactor.records[-1].files[0])
validate_messages(saved)   # raises if a tool_use in the transcript has no tool_result
print("\nnotes/lessons.md on disk:", (room.workspace / "notes" / "lessons.md").is_file())
print(f"the transcript: {len(saved)} messages, the last answering",
      [b["tool_use_id"] for b in tool_results(saved[-1])])
print(f"the context now: {len(agent.messages)} message; the summary records the write:",
      "- notes/lessons.md (written)" in agent.messages[0]["content"])
answer = agent.loop(request)
print("the agent goes on:", answer.splitlines()[0])
print("write_file calls after the summary:",
      sum(use["name"] == "write_file" for m in agent.messages for use in tool_uses(m)))
display(before_after(agent.compactor.records, limit=agent.config.context_char_limit,
                     title="The compact tool: the batch, then compact_history, then the next call"))

# %% [markdown] id="two-harnesses-that-get-it-wrong"
# ## Two harnesses that get it wrong
#
# **Wrong 1: compact as soon as `compact` is seen**, then append the results: the
# summary replaced the message holding the `tool_use` blocks, so the results answer
# nothing and the API refuses. **Wrong 2: compact before the batch and drop it**: the
# request is valid, but the summary predates the write, so the agent starts the stage
# over and writes the note again: a repeated side effect.

# %%
results = [{"type": "tool_result", "tool_use_id": use["id"],
            "content": run_tool(room.workspace, use["name"], use["input"])} for use in batch]
early = room.compactor()
wrong_1 = early.compact_history(before_batch, request) + [{"role": "user", "content": results}]
print("wrong 1:", room.send(wrong_1))

wrong_2 = early.compact_history(before_batch, request)
print("wrong 2: the summary records the write:", "- notes/lessons.md (written)" in wrong_2[0]["content"])
note = room.workspace / "notes" / "lessons.md"
written = len(note.read_text(encoding="utf-8"))
room.agent(wrong_2).loop(request)
print(f"notes/lessons.md: {written} characters, now {len(note.read_text(encoding='utf-8'))}: "
      "written again")
room.close()   # the replays are over: the exercise needs no model

# %% [markdown] id="check"
# ## Check yourself: a batch runner that survives a failing tool
#
# A harness that lets a tool's exception escape stops half-way: the calls made get no
# results. Write `run_batch_safely(messages, tool_uses, run, compact)`: `run(tool_use)`
# returns a tool's text and may raise; the `compact` tool's answer is
# `context_compact.formats.COMPACT_TOOL_ACK`, and `compact(the list)` returns the
# compacted list. Return the list the package's harness leaves: a failed call's result
# says `Error: <the exception's message>`, every later call still runs, and a requested
# `compact` still runs after the results.

# %%
def run_batch_safely(messages, tool_uses, run, compact):
    raise NotImplementedError  # your code here


result = check_run_batch_safely(run_batch_safely)
open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="build-it"
# ## Build it: the compact tool's batch in your own file
#
# In `my_compact.py`, write `run_tool_batch`: every call answered in order, the ones after
# `compact` too, `compact` with its fixed sentence. Save and run the cell.

# %%
from compact_course.lessons.build_track import check

built = check("run_tool_batch")

# %% [markdown] id="recap"
# **Recap.**
# - The `compact` tool has no input and no handler: the model asks, the harness acts.
# - The harness runs the whole batch, appends every result, then compacts the closed turn.
# - Compacting earlier orphans the results (the API refuses) or forgets what the batch
#   did (the model repeats a side effect).
#
# **Next:** notebook 08, the capstone: you build `prepare` from the four steps.

# %% [markdown] id="references"
# **References.**
# - The article, sections 9 (the agent loop) and 10 (the compact tool); the chapter's
#   English page upstream: https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.en.md
#   (one stored version of it compacts before the results are appended: Wrong 1;
#   docs/AFTER_THE_ARTICLE.md)
