# %% [markdown]
# # 03 · Step 3, `micro_compact`: old results become placeholders
#
# Step 2 kept the newest messages, but an old tool result among them can still be
# thousands of characters the model no longer needs. Step 3 goes over **all** tool
# results in the list:
#
# - the newest `KEEP_RECENT_RESULTS` (3) stay whole;
# - each older one of at most 120 characters stays too (not worth it);
# - each older, longer one is replaced by one line. If step 1 had saved it, the path is
#   read back from its `Full output: <path>` line:
#
#       [Earlier tool result saved at <path>]
#
#   otherwise:
#
#       [Earlier tool result omitted.]
#
# The article notes that no table links the steps: step 3 finds step 1's copies by
# reading step 1's own marker text. And it says "omitted" results cannot be recovered.
# This notebook replays the article's first experiment, `five_reads`, and looks at
# exactly that.

# %% [markdown]
# **Goal.** You will learn which results step 3 shrinks and which it keeps, how it finds
# step 1's saved copy through the `Full output:` line, and what "omitted" costs; you will
# write the step's core yourself. About 30 minutes on your own; in the 90-minute class,
# 12 (docs/TEACHING.md).

# %%
# %matplotlib inline
import json
from pathlib import Path

from IPython.display import display

import compact
from compact import CompactionConfig
from workbench.course.charts import before_after, message_map
from workbench.course.exercises import check_older_result, check_placeholders, hint
from workbench.course.histories import load_history
from compact.messages import text_of, tool_results, tool_uses
from workbench.course.replay import replay
from workbench.course.widgets import explore, threshold_explorer

seed = CompactionConfig.seed()
print(f"KEEP_RECENT_RESULTS = {seed.keep_recent_results}, "
      f"results of at most {seed.micro_min_chars} characters are left alone")

# %% [markdown]
# ## The tool results, oldest first

# %%
history = load_history("five_reads")
messages = history["messages"]
calls = {use["id"]: use for m in messages for use in tool_uses(m)}
results = [block for m in messages for block in tool_results(m)]
for number, block in enumerate(results):
    use = calls[block["tool_use_id"]]
    newest = "  (one of the newest 3)" if number >= len(results) - seed.keep_recent_results else ""
    print(f"{block['tool_use_id']}  {use['name']:<9} "
          f"{use['input'].get('path') or use['input'].get('pattern'):<28} "
          f"{len(text_of(block['content'])):>6,d} characters{newest}")

# %% [markdown]
# ## Predict first
#
# Before you run step 3: with the seed profile (the article's step 3 and numbers), how
# many of these results become placeholders, and how many of those say "omitted"?
# Put your two numbers in the tuple and run the cell. The checker replays the step and
# compares.

# %%
prediction = None  # (placeholders, omitted), e.g. (4, 1)

result = check_placeholders(prediction)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown]
# ## Run step 3 (seed profile)

# %%
run = replay(history, profile="seed", step="micro_compact")
print(run.table())
print()
for block in (b for m in run.after for b in tool_results(m)):
    text = text_of(block["content"])
    print(f"{block['tool_use_id']}  {len(text):>6,d}  {text.splitlines()[0][:70]}")

# %% [markdown]
# ## The exact text left behind, and where the full text went
#
# The two older READMEs are now the same 30 characters. "Files written" is empty: step 3
# of the article saved nothing, and step 1 had nothing to save (these results are far
# under its limits). So the title of lesson s01 has left the conversation: it is not in
# the context, and no file the compactor wrote holds it (there is no transcript and no
# saved copy). Only the README itself is still in the workspace, so here the agent could
# read it again; the output of a command that changed the workspace, or of a slow test
# run, could not be had again.

# %%
print(text_of(tool_results(run.after[4])[0]["content"]))
print(f"files written: {run.files}")
print(f"'The Agent Loop' still in the context: "
      f"{any('The Agent Loop' in json.dumps(m) for m in run.after)}")
workspace = Path(compact.__file__).resolve().parent.parent / "data" / "workspace"
readme = calls["toolu_0002"]["input"]["path"]
print(f"{readme} still in the workspace: {(workspace / readme).is_file()}")

# %% [markdown]
# And this context is only 17,000 characters, a third of `CONTEXT_CHAR_LIMIT`: nothing
# needed shrinking. The article's step 3 runs on every call anyway (flaw 2), and on a
# call that finds an older result it has not shrunk yet, it rewrites an old message,
# which also breaks the prompt cache. Not every call finds one: lab 01's table
# counts the calls where it did (on `timeline_150`, 49 of 158).
#
# ## The other placeholder: a saved copy
#
# On `huge_result`, step 1 saved the big read first. When step 3 runs in the same
# `prepare`, it finds the path on the `Full output:` line and points at the file:

# %%
both = replay("huge_result", profile="seed")
read = tool_results(both.after[-1])[0]
placeholder = text_of(read["content"])
saved_path = both.files[0]
print(placeholder)
print(f"{saved_path}: {len((both.root / saved_path).read_text(encoding='utf-8')):,d} "
      f"characters on disk")

# %% [markdown]
# ## Characters before and after
#
# The seed step 3 on `five_reads`, and the message map (green: a placeholder with a copy
# on disk; vermillion: omitted, no copy). The top row is the list before, each message
# coloured by its fate, what step 3 made of it; the bottom row the list after, each
# coloured by what it holds now. Step 3 moves no message, so the two rows look alike.

# %%
before_after(run.records, limit=seed.context_char_limit,
             title="five_reads: step 3 alone (seed profile)")

# %%
message_map(run.before, run.after, title="five_reads: step 3, seed profile", columns=12)

# %% [markdown]
# ## Move the thresholds
#
# **Try this.** `keep_recent_results` and `micro_min_chars` are step 3's two numbers.
# Set `keep_recent_results` to 1: two more READMEs become `omitted`, the context falls
# further, and still no file is written. Set it to 5: step 3 touches nothing. Then put it
# back to 3 and raise `micro_min_chars` above the size of the two older READMEs: they
# stay whole. Watch the bottom chart's `micro_compact` bar and the "files written".

# %% tags=["nbval-ignore-output"]
threshold_explorer(history, profile="seed")

# %% [markdown]
# The same replay with `keep_recent_results` at 1, as the explorer draws it:

# %%
display(*explore(history, "seed", keep_recent_results=1))

# %% [markdown]
# ## Check yourself: write step 3's core
#
# Write `older_result(text)`: what step 3 leaves in place of a result that is **not**
# among the newest 3. Your specification is what you have seen, not a recipe: the
# threshold printed at the top, the placeholders step 3 left above (`omitted` on
# `five_reads`, a saved copy's path on `huge_result`), and step 1's `<persisted-output>`
# block from notebook 01
# (`compact.formats` holds its format and `OMITTED`). There is no table linking the two
# steps: the text itself is the link. Before you code, decide from those examples how
# your function knows that a text is step 1's block, and where in it the path is.
#
# Decide with care: a file the agent read can *contain* a `Full output: ` line without
# being one of step 1's blocks. The article's step 3 trusts such a line too (flaw 6 in
# [docs/DESIGN.md](../docs/DESIGN.md)); the package does not, in either profile, and the
# checker grades the package's reading. The checker lets the package's step 1 save real
# files in a scratch folder, runs the package's step 3 on each text, and compares; a
# failing case shows its input and both answers, and `hint()` opens the rule.

# %%
def older_result(text: str) -> str:
    raise NotImplementedError  # your code here


result = check_older_result(older_result)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown]
# **Recap.**
# - Step 3 keeps the newest 3 results and any result of at most 120 characters; every
#   other result becomes one line, on every call.
# - It finds step 1's saved copy by reading the `Full output:` line of step 1's own block.
# - Without such a copy the line says `omitted`, and step 3 keeps no copy of its own
#   (the article's flaw 1): the text survives only where a transcript written earlier
#   holds it (here none was; lab 01 shows a call where one was).
#
# **Next:** notebook 04, step 4 `compact_history`: the one step that pays for a model call.

# %% [markdown]
# **References.**
# - The article (learn-claude-code s08, in Chinese), section 五、第三步：micro_compact;
#   [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md) maps its sections to the code.
