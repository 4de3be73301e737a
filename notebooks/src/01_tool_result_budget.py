# %% [markdown] id="title"
# # 01 · Step 1, `tool_result_budget`: huge results go to disk
#
# One model reply can ask for several tools at once; their results come back together
# in the last user message, one *batch*. Step 1 looks at that batch only. When its total
# is over `TOOL_RESULT_BATCH_CHAR_LIMIT` it takes the results **largest first**, writes
# each one longer than `LARGE_RESULT_CHAR_LIMIT` whole to
# `.task_outputs/tool-results/<tool_use_id>.txt`, leaves a short `<persisted-output>`
# block in its place, and stops as soon as the batch is at most the limit. It runs first:
# cheap, no model, and one `read_file` undoes it. The history is the article's second
# experiment: the agent reads a 288,000-character file, `docs.json`, and runs three small
# commands in the same batch.

# %% [markdown] id="goal"
# **Goal.** You will learn when step 1 acts (one batch over its limit), which results it
# moves to disk, and the exact block it leaves in their place; then you will run its
# rule backwards and choose a threshold yourself. About 25 minutes on your own; in the
# 90-minute class, 8 (docs/TEACHING.md).

# %%
# %matplotlib inline
from IPython.display import display

from context_compact import CompactionConfig
from context_compact.messages import text_of, tool_results, tool_uses
from compact_course.article import CONTEXT_CHAR_LIMIT, LARGE_RESULT_CHAR_LIMIT, TOOL_RESULT_BATCH_CHAR_LIMIT
from compact_course.lessons.charts import before_after
from compact_course.lessons.exercises import check_largest_large_limit, hint
from compact_course.lessons.replay import replay
from compact_course.lessons.widgets import explore, threshold_explorer
from compact_course.sessions.histories import load_history

config = CompactionConfig.seed()
history = load_history("huge_result")
messages = history["messages"]
asked = {use["id"]: use for use in tool_uses(messages[-2])}
batch = tool_results(messages[-1])
for block in batch:
    use = asked[block["tool_use_id"]]
    print(f"{use['name']:<9} {len(text_of(block['content'])):>8,d}  "
          f"{use['input'].get('path') or use['input'].get('command')}")
print(f"the batch: {sum(len(text_of(b['content'])) for b in batch):,d} characters; "
      f"TOOL_RESULT_BATCH_CHAR_LIMIT = {TOOL_RESULT_BATCH_CHAR_LIMIT:,d}, "
      f"LARGE_RESULT_CHAR_LIMIT = {LARGE_RESULT_CHAR_LIMIT:,d}")

# %% [markdown] id="run-step-1"
# ## Run step 1
#
# `replay` runs the history through one step in a scratch folder. Below: the block left
# in the context (its 2,000-character preview cut short here), a check that the file
# behind its `Full output:` line holds the result, and the whole context before and after
# (dashed: the article's context limit).

# %%
run = replay(history, profile="seed", step="tool_result_budget")
left = text_of(tool_results(run.after[-1])[0]["content"])
lines = left.splitlines()
print("\n".join(lines[:4]), "    ... preview continues ...", lines[-1], sep="\n")
saved = (run.root / run.files[0]).read_text(encoding="utf-8")
print(f"{len(left):,d} characters in context (a {config.preview_chars:,d}-character preview) "
      f"instead of {len(saved):,d}; "
      f"the file is the result, character for character: {saved == text_of(batch[0]['content'])}")
before_after(run.records, limit=CONTEXT_CHAR_LIMIT,
             title="huge_result: step 1 alone (seed profile)")

# %% [markdown] id="move-the-thresholds"
# Only the read moved: after it, the batch was far under the limit.
#
# ## Move the thresholds
#
# **Try this.** Drag `tool_result_batch_char_limit` to 290,000, above the batch, and look
# at the bottom chart: step 1 no longer fires, yet the context still falls to about 2,500
# characters, with no file written. Step 3 did it; what that costs is notebook 05's
# question (flaw 3). The profile switch, the greyed `snip_target_messages` slider (the
# article's step 2 has no target) and the strip's `persist_largest` row (a pass before a
# summary, which never runs here) belong to the package's second profile (notebook 05;
# flaws 4 and 8 in [docs/DESIGN.md](../docs/DESIGN.md#the-flaws)).

# %% tags=["nbval-ignore-output"]
threshold_explorer(history, profile="seed")

# %% [markdown] id="the-same-replay"
# The same replay at 290,000, as the explorer draws it (top: call by call; bottom: one
# `prepare` over the history):

# %%
display(*explore(history, "seed", tool_result_batch_char_limit=290_000))

# %% [markdown] id="check"
# ## Check yourself: choose the threshold
#
# Run step 1 backwards. Write `largest_large_limit(sizes, batch_limit)`: for one batch
# over `batch_limit` (`sizes` are its results' lengths), return the largest
# `large_result_char_limit` with which step 1 still brings the batch to at most
# `batch_limit`, or `None` when not even 10,000 does it. On paper first: which results
# must move, and which one of them decides the limit? The checker runs the package's
# step 1 on each case, ten of them random (seeded); a failing case prints its input.

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
# From here the course's pipeline is yours: it grows in `my_compact.py`, beside this
# notebook (double-click it in the file browser), one step a notebook, until notebook 08
# puts your steps together into `prepare`. Write `tool_result_budget` under its docstring: the signature holds the article's
# numbers as defaults, the docstring says what the step must do (its safety rules too), and
# the body is yours, plain dicts and the standard library. Save (Ctrl-S), then run the cell
# below. It reads your file afresh on each run and grades your function against the
# package's seed profile, on fixed cases and on cases drawn at random every time, so every
# number must come from the parameters. A failing case shows its input and what is wrong,
# never the expected output; `hint()` gives the next idea. Until you write it, it says so.

# %%
from compact_course.lessons.build_track import check

built = check("tool_result_budget")

# %% [markdown] id="recap"
# **Recap.**
# - Step 1 looks only at the newest batch, and only when its total is over 200,000
#   characters.
# - It moves results longer than 30,000 characters to `.task_outputs/tool-results/`
#   until the batch is at most the limit; largest first is the rule the exercise checks.
# - In their place stays a `<persisted-output>` block: the file's path on a
#   `Full output:` line and a 2,000-character preview.
#
# **Next:** notebook 02, step 2 `snip_compact`: the middle of a long list goes to a
# transcript.

# %% [markdown] id="references"
# **References.**
# - The article (learn-claude-code s08, in Chinese), section 三、第一步：tool_result_budget;
#   [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md) maps its sections to the code.
