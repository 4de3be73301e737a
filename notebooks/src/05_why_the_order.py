# %% [markdown] id="title"
# # 05 · Why the order is fixed
#
# Before every model call, `prepare` runs the steps in one order:
#
#     tool_result_budget -> snip_compact -> micro_compact -> compact_history (only if still over)
#
# The article (section 7) gives two reasons. Cost: the summary alone needs the model, so
# it comes last, only when the others were not enough. Loss: **step 1 must run before
# step 3**, so that step 3's line can point at step 1's copy on disk.

# %% [markdown] id="goal"
# **Goal.** You will learn why step 1 must run before step 3 and what "lost for good"
# means (readable nowhere: not in the context, a transcript or a saved file); then you
# will write the test for a lost output, and the order.
# About 30 minutes on your own; in the 90-minute class, 8 (docs/TEACHING.md).

# %% [markdown] id="the-history-and-your-prediction"
# ## Your prediction, and every order
#
# `huge_result` again (notebook 01): a glob, then one batch, the big read first. With the
# seed profile, run step 3 (`micro_compact`) and then step 1 (`tool_result_budget`): how
# many tool outputs are lost for good? Put your number in. `every_order` runs steps 1-3 in
# all six orders, in both profiles (next section), and counts the outputs lost; its table
# and the second chart show once your prediction is in.

# %%
# %matplotlib inline
from IPython.display import display

from context_compact.messages import text_of, tool_results
from compact_course.article import CONTEXT_CHAR_LIMIT, KEEP_RECENT_RESULTS
from compact_course.lessons.charts import before_after
from compact_course.lessons.exercises import check_lost, check_order_loss, hint, revealed
from compact_course.lessons.replay import CHEAP_STEPS, every_order, order_table, results_table
from compact_course.sessions.histories import load_history

history = load_history("huge_result")
print(results_table(history["messages"], KEEP_RECENT_RESULTS))

prediction = None  # a number

result = check_order_loss(prediction)
open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

runs = every_order(history)   # {order: {profile: {"records", "context", "lost"}}}
right, wrong = runs[CHEAP_STEPS]["seed"], runs[CHEAP_STEPS[::-1]]["seed"]
display(before_after(right["records"], limit=CONTEXT_CHAR_LIMIT,
                     title="huge_result: the article's order (seed profile)"))
if revealed("order_loss"):
    print(order_table(runs))
    print(f"\nthe read, step 3 first (seed): {text_of(tool_results(wrong['context'][-1])[0]['content'])}")
    display(before_after(wrong["records"], limit=CONTEXT_CHAR_LIMIT,
                         title="huge_result: step 3 before step 1 (seed profile)"))

# %% [markdown] id="the-flaws-behind-the-loss-and"
# Only whether step 1 comes before step 3 matters, and the charts cannot show the loss:
# both orders end at about the same size.
#
# ## The flaws behind the loss, and the default profile
#
# Two flaws of the article's step 3 ([docs/DESIGN.md](../docs/DESIGN.md)) make the loss
# possible: **flaw 1**, `omitted` keeps no copy; **flaw 3**, the read was in the batch the
# model had not answered yet. The package's default profile fixes both (column
# `lost, default`; lab 01 takes its fixes one by one).
#
# ## Check yourself: what is lost for good?
#
# Write `lost(originals, context, transcripts, saved)`: the ids of the results whose text
# can no longer be read verbatim. `originals`: `{tool_use_id: text}`; `context`: the
# messages after the steps; `transcripts`: one message list per transcript; `saved`:
# `{path: text}`. A result is readable when a `tool_result` with its id, in the context
# or a transcript, holds the original exactly, or is one of our markers whose path
# (`context_compact.formats.persisted_path`, `saved_path`) names a saved file holding it.

# %%
def lost(originals, context, transcripts, saved) -> list:
    raise NotImplementedError  # your code here


result = check_lost(lost)
open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="build-it"
# ## Build it: the order in your own file
#
# In `my_compact.py`, write `cheap_steps`: your three steps in the article's order. Save
# and run the cell.

# %%
from compact_course.lessons.build_track import check

built = check("cheap_steps")

# %% [markdown] id="recap"
# **Recap.**
# - Step 1 before step 3: the huge result is on disk before step 3 turns it into a line
#   that points at the copy.
# - The other way round, the article's step 3 leaves `omitted`: the output is lost for
#   good, and no chart of sizes shows it.
# - The default profile saves before it shrinks, and never shrinks an unread result.
#
# **Next:** notebook 06, `reactive_compact`: when the API refuses anyway.

# %% [markdown] id="references"
# **References.** The article (in Chinese), section 七、为什么顺序必须固定;
# [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md).
