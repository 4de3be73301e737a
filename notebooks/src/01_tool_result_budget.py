# %% [markdown] id="title"
# # 01 · Step 1, `tool_result_budget`: huge results go to disk
#
# A model reply's tool results come back together in the last user message, one *batch*.
# Step 1 looks at that batch only. When its total is over
# `TOOL_RESULT_BATCH_CHAR_LIMIT` it takes the results **largest first**, writes each one
# longer than `LARGE_RESULT_CHAR_LIMIT` to `.task_outputs/tool-results/<tool_use_id>.txt`,
# leaves a `<persisted-output>` block in its place, and stops once the batch is at most
# the limit. No model, and one `read_file` undoes it.

# %% [markdown] id="goal"
# **Goal.** You will learn when step 1 acts, which results it moves to disk and the block
# it leaves; then you will run its rule backwards, and write the step. About 30 minutes
# on your own; in the 90-minute class, 7 (docs/TEACHING.md).

# %% [markdown] id="run-step-1"
# ## Run step 1
#
# The article's second experiment: the agent reads a 288,000-character file and runs
# three small commands in one batch. `replay` runs it through step 1: the block left (its
# preview cut short here), the saved file checked against the result, and the context
# before and after.

# %%
# %matplotlib inline
from IPython.display import display

from context_compact.messages import text_of, tool_results
from compact_course.article import CONTEXT_CHAR_LIMIT, LARGE_RESULT_CHAR_LIMIT, TOOL_RESULT_BATCH_CHAR_LIMIT
from compact_course.lessons.charts import before_after
from compact_course.lessons.exercises import check_largest_large_limit, hint
from compact_course.lessons.replay import batch_table, replay, shortened
from compact_course.lessons.widgets import explore, threshold_explorer
from compact_course.sessions.histories import load_history

history = load_history("huge_result")
batch = tool_results(history["messages"][-1])   # the newest batch: all step 1 looks at
print(batch_table(history["messages"]))
print(f"the batch: {sum(len(text_of(b['content'])) for b in batch):,d} characters; "
      f"TOOL_RESULT_BATCH_CHAR_LIMIT = {TOOL_RESULT_BATCH_CHAR_LIMIT:,d}, "
      f"LARGE_RESULT_CHAR_LIMIT = {LARGE_RESULT_CHAR_LIMIT:,d}\n")
run = replay(history, profile="seed", step="tool_result_budget")
left = text_of(tool_results(run.after[-1])[0]["content"])
print(shortened(left))
saved = (run.root / run.files[0]).read_text(encoding="utf-8")
print(f"{len(left):,d} characters in context (a {run.config.preview_chars:,d}-character preview) "
      f"instead of {len(saved):,d}; "
      f"the file is the result, character for character: {saved == text_of(batch[0]['content'])}")
before_after(run.records, limit=CONTEXT_CHAR_LIMIT,
             title="huge_result: step 1 alone (seed profile)")

# %% [markdown] id="move-the-thresholds"
# Only the read moved: after it, the batch was far under the limit.
#
# ## Move the thresholds
#
# **Try this.** Drag `tool_result_batch_char_limit` to 290,000, above the batch: step 1
# no longer fires, yet the context still falls to about 2,500 characters, with no file
# written. Step 3 did it; what that costs is notebook 05's question. Keep the profile
# switch at seed. Below the widget, the same replay at 290,000.

# %% tags=["nbval-ignore-output"]
threshold_explorer(history, profile="seed")

# %%
display(*explore(history, "seed", tool_result_batch_char_limit=290_000))

# %% [markdown] id="check"
# ## Check yourself: choose the threshold
#
# Run step 1 backwards. Write `largest_large_limit(sizes, batch_limit)`: for one batch
# over `batch_limit` (`sizes`: its results' lengths), return the largest
# `large_result_char_limit` with which step 1 still brings the batch to at most
# `batch_limit`, or `None` when no limit of at least 10,000 does (shorter results are not
# worth a file). Count a moved result as its 2,000-character preview: the header around
# it (103 characters above; it grows with the id) decides no case. On paper first: which
# results must move, and which one decides the limit?

# %%
def largest_large_limit(sizes, batch_limit):
    raise NotImplementedError  # your code here


result = check_largest_large_limit(largest_large_limit)
open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="build-it"
# ## Build it: step 1 in your own file
#
# From here the pipeline is yours: it grows in `my_compact.py`, a step a notebook, until
# notebook 08 makes it `prepare`. Write `tool_result_budget` under
# its docstring, on plain dicts; save (Ctrl-S) and run the cell. The check grades the
# article's rules with its docstring's fixes, on random cases too, so every number must
# come from the parameters; a failing case shows its input, never the expected output.

# %%
from compact_course.lessons.build_track import check

built = check("tool_result_budget")

# %% [markdown] id="recap"
# **Recap.**
# - Step 1 looks only at the newest batch, and only when it is over 200,000 characters.
# - It moves results over 30,000 characters to disk, largest first, until the batch is
#   at most the limit.
# - In their place stays a `<persisted-output>` block: the path on a `Full output:` line
#   and a 2,000-character preview.
#
# **Next:** notebook 02, step 2 `snip_compact`: the middle of a long list goes to a
# transcript.

# %% [markdown] id="references"
# **References.** The article (in Chinese), section 三、第一步：tool_result_budget;
# [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md).
