# %% [markdown] id="title"
# # 08 · Build your own prepare
#
# You have built the four steps one at a time in `my_compact.py`, and in notebook 05 their
# order. Now you put them together: `prepare`, the function the agent runs before every model
# call, is the whole article in a few lines.

# %% [markdown] id="goal"
# **Goal.** You will write `prepare` in your own file from your own steps, check it on hidden
# cases drawn at random, and then run it live in notebook 09. About 20 minutes on your own; in
# the 90-minute class, 12 (docs/TEACHING.md).

# %% [markdown] id="what-prepare-does"
# ## What prepare does
#
# Steps 1, 2 and 3 run in the article's order, each on the list the one before returned. Then
# one decision: step 4 costs a model call, so it runs only if the list those three left is
# still over the limit. The package's `prepare` (seed profile: the article's design) on two
# canned histories, the first charted:

# %%
# %matplotlib inline
from IPython.display import display

from context_compact import estimate_chars
from compact_course.lessons.charts import before_after
from compact_course.lessons.replay import replay

runs = {name: replay(name, profile="seed") for name in ("huge_result", "two_code_files")}
for name, run in runs.items():
    print(f"{name}: {estimate_chars(run.before):,} characters in, {estimate_chars(run.after):,} sent; "
          f"steps that fired: {', '.join(run.fired())}")
display(before_after(runs["huge_result"].records, limit=50_000,
                     title="huge_result: prepare, seed profile"))

# %% [markdown] id="huge-result-comes"
# `huge_result` comes in far over the 50,000-character limit, yet step 4 does not run:
# step 1 saved the huge read to disk, and what steps 1-3 left is under the limit. Step 3
# fired too: the saved block is older than the newest 3 results, so step 3 shrank it to a
# "saved at" placeholder before the model saw even its preview (flaw 3, docs/DESIGN.md).
# `two_code_files` is one batch under 200,000 characters whose results are the newest 3,
# so no cheap step shrinks it and step 4 summarizes it. The bars are each step's size
# before (grey) and after (blue).

# %% [markdown] id="build-it"
# ## Build it: prepare in your own file
#
# In `my_compact.py`, write `prepare(messages, root, active_request, summarize, limit)` from
# your own functions. Say it in your own words first: which step runs first and why (notebook
# 05), what you measure, when, and against which number. The checker draws the limit around
# the size your steps leave, so a number of your own decides some cases wrongly. It also
# rejects a `prepare` that calls the package's, step 3 before step 1, and the article's own
# `prepare` where a numbered flaw makes it wrong (the failure names the flaw). `hint()` gives
# the next idea, never code.

# %%
from compact_course.lessons.build_track import check

built = check("prepare")

# %% [markdown] id="recap"
# **Recap.**
# - `prepare` is steps 1, 2, 3, each on the list the one before returned, then step 4 only
#   if the list is still over the limit given.
# - The limit is measured after steps 1-3: they often bring the list under it, and then no
#   summary is paid for.
# - Step 1 before step 3 (notebook 05): otherwise a huge result is shrunk before it is saved.
#
# **Next:** notebook 09, where your `prepare` runs before every call of a live agent.

# %% [markdown] id="references"
# **References.**
# - The article, sections 7 (the order) and 9 (the agent loop, which runs `prepare` before
#   every model call): https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.en.md
#   (the chapter's English page upstream; where its code differs from the article:
#   docs/AFTER_THE_ARTICLE.md)
