# %% [markdown] id="title"
# # 08 · Build your own prepare
#
# You have met the four steps one at a time, and in notebook 05 why their order is
# fixed. Now you put them together: `prepare`, the function the agent runs before every
# model call, is the whole article in a few lines:
#
#     tool_result_budget -> snip_compact -> micro_compact -> compact_history (only if still over the limit)

# %% [markdown] id="goal"
# **Goal.** You will write `prepare` yourself from the package's four steps, check it
# against the package's own `ContextCompactor.prepare` on canned and random histories,
# and then run the live agent of notebook 09 with it. About 15 minutes on your own; in
# the 90-minute class, 12 (docs/TEACHING.md).

# %% [markdown] id="the-four-steps-as-methods"
# ## The four steps, as methods
#
# A compactor (`make_compactor(folder, "seed")`: the article's profile, writing into
# `folder`) has one method per step. Each takes the list and returns a new one; steps 2
# and 4 also take the request the user typed this turn:
#
# | step | call |
# |---|---|
# | 1 | `compactor.tool_result_budget(messages)` |
# | 2 | `compactor.snip_compact(messages, active_request)` |
# | 3 | `compactor.micro_compact(messages)` |
# | 4 | `compactor.compact_history(messages, active_request)` |
#
# Steps 1-3 decide for themselves whether they have work to do. Step 4 does not: it
# always pays for a summary, so `prepare` calls it only if `compactor.size(messages)`
# is over `compactor.config.context_limit` (50,000 characters here). The package's own
# `prepare` on two histories, and a chart of the first:

# %%
# %matplotlib inline
import tempfile

from IPython.display import display

from compact_course.lessons.charts import before_after
from compact_course.lessons.exercises import check_my_prepare, hint
from compact_course.lessons.replay import format_table, make_compactor
from compact_course.sessions.histories import load_history

runs = {}
for name in ("huge_result", "two_code_files"):
    history = load_history(name)
    with tempfile.TemporaryDirectory() as folder:
        compactor = make_compactor(folder, "seed")
        compactor.prepare(history["messages"], history["active_request"])
        runs[name] = compactor.records
        print(f"== {name}\n{format_table(compactor.records)}\n")
display(before_after(runs["huge_result"], limit=50_000,
                     title="huge_result: prepare, seed profile"))

# %% [markdown] id="huge-result-comes"
# `huge_result` comes in at over 300,000 characters, and step 4 does not run: step 1 saved
# the huge read to disk and steps 1-3 left about 2,500 characters. `two_code_files` is
# 65,000 characters that no cheap step shrinks (its batch is under 200,000 and its 3
# results are the newest 3), so it is still over the limit and step 4 summarizes it.
# The bars are each step's size before (grey) and after (blue).

# %% [markdown] id="check"
# ## Check yourself: write prepare
#
# Write `my_prepare(compactor, messages, active_request)`: run the four steps in the
# article's order, each on the list the one before returned, step 4 only if the list
# is still over the limit, and return the list to send. The checker runs it and the
# package's `prepare` on the six canned histories and eight seeded random ones, each in
# a scratch folder of its own, and compares the lists and the files written. When all
# 14 cases pass, take your function to notebook 09: its last cell, "Your turn", runs the
# article's agent with `prepare=my_prepare`, before every model call of a live run.

# %%
def my_prepare(compactor, messages, active_request):
    raise NotImplementedError  # your code here


result = check_my_prepare(my_prepare)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="build-it"
# ## Build it: prepare in your own file
#
# In `my_compact.py`, write `prepare` from your own steps: steps 1-3, then step 4 only if the
# list is still over the limit given. The checker draws the limit around the size your steps
# leave, so a number of your own decides some cases wrongly; it also runs the article's own
# `prepare` cases where a flaw makes it wrong.

# %%
from compact_course.lessons.build_track import check

built = check("prepare")

# %% [markdown] id="recap"
# **Recap.**
# - `prepare` is steps 1, 2, 3, each on the list the one before returned, then step 4
#   only if the list is still over the limit.
# - The limit is measured after steps 1-3: they often bring the list under it, and then
#   no summary is paid for.
# - Step 1 before step 3 (notebook 05): otherwise a huge result is shrunk before it is
#   saved.
#
# **Next:** notebook 09, the live agent run, with your `prepare` in it.

# %% [markdown] id="references"
# **References.**
# - The article, sections 7 (the order) and 9 (the agent loop, which runs `prepare` before
#   every model call): https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.en.md
