# %% [markdown] id="title"
# # 03 · Step 3, `micro_compact`: old results become placeholders
#
# On every call, step 3 turns **each** tool result into one line, except the newest
# `KEEP_RECENT_RESULTS = 3` and any of at most 120 characters. A result step 1 saved keeps
# its path, read from the `Full output: <path>` line of step 1's block:
#
#     [Earlier tool result saved at <path>]
#
# otherwise:
#
#     [Earlier tool result omitted.]

# %% [markdown] id="goal"
# **Goal.** You will learn which results step 3 shrinks and what "omitted" costs; then
# you will write the step's core, and the step. About 30 minutes on your own; in the
# 90-minute class, 12 (docs/TEACHING.md).

# %% [markdown] id="predict-first"
# ## Predict first
#
# `five_reads`, the article's first experiment: a glob, then five README reads. Run the
# cell for the results' sizes. How many become placeholders under the article's step 3,
# and how many of those say "omitted"? Fill in both and run it again for each result's
# characters before and after step 3.

# %%
# %matplotlib inline
from IPython.display import display

from compact_course.article import KEEP_RECENT_RESULTS
from compact_course.lessons.charts import result_bars
from compact_course.lessons.exercises import check_older_result, check_placeholders, hint, revealed
from compact_course.lessons.replay import replay, result_changes, results_table
from compact_course.lessons.widgets import explore, threshold_explorer
from compact_course.sessions.histories import load_history

history = load_history("five_reads")
print(results_table(history["messages"], KEEP_RECENT_RESULTS))

prediction = None  # (placeholders, omitted), e.g. (4, 1)

result = check_placeholders(prediction)
run = replay(history, profile="seed", step="micro_compact")
if revealed("placeholders"):
    labels, before, after, kinds = result_changes(run.before, run.after)
    for number, (size, text) in enumerate(zip(before, after), start=1):
        print(f"{number}  {size:>5,d} -> {len(text):>5,d}  {text.splitlines()[0][:45]}")
    print(f"files written: {run.files or 'none'}")
    display(result_bars(labels, before, [len(text) for text in after], kinds,
                        title="five_reads: step 3, seed profile"))

# %% [markdown] id="move-the-thresholds"
# ## Move the thresholds
#
# **Try this.** Set `keep_recent_results` to 1, then 5: which become
# placeholders, and is a file written? Back at 3, raise `micro_min_chars` above 3,471, the
# table's largest older result: all stay whole. Below the widget: the replay at 1.

# %% tags=["nbval-ignore-output"]
threshold_explorer(history, profile="seed")

# %%
display(*explore(history, "seed", keep_recent_results=1))

# %% [markdown] id="check"
# ## Check yourself: write step 3's core
#
# Write `older_result(text)`: what step 3 leaves in place of a result **not** among the
# newest 3, from the rules above and step 1's `<persisted-output>` block
# (`context_compact.formats` holds its format and `OMITTED`). No table links the two
# steps: the text is the link. Careful: a file the agent read can *contain* a
# `Full output: ` line without being step 1's block (flaw 6 in
# [docs/DESIGN.md](../docs/DESIGN.md)).

# %%
def older_result(text: str) -> str:
    raise NotImplementedError  # your code here


result = check_older_result(older_result)
open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="build-it"
# ## Build it: step 3 in your own file
#
# In `my_compact.py`, write `micro_compact` around the exercise's core, save, and run the
# cell. Trust a path only when it is step 1's own block and its file is in
# `root/.task_outputs/tool-results/` (flaw 6).

# %%
from compact_course.lessons.build_track import check

built = check("micro_compact")

# %% [markdown] id="recap"
# **Recap.**
# - Step 3 keeps the newest 3 results and any of at most 120 characters; the rest become
#   one line, on every call.
# - It finds step 1's saved copy through the `Full output:` line of step 1's own block.
# - Otherwise it says `omitted`, and no copy is kept (flaw 1).
#
# **Next:** notebook 04, step 4 `compact_history`: the one step that pays for a model call.

# %% [markdown] id="references"
# **References.** The article (in Chinese), section 五、第三步：micro_compact;
# [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md).
