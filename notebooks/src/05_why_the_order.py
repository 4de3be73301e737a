# %% [markdown]
# # 05 · Why the order is fixed
#
# Before every model call, `prepare` runs the steps in one order:
#
#     tool_result_budget -> snip_compact -> micro_compact -> compact_history (only if still over)
#
# The article (section 7) gives two reasons. The first is cost: steps 1-3 need no model,
# so the summary, the only step that does, comes last and only when the others were not
# enough. The second is about loss: **step 1 must run before step 3**. Step 1 saves a
# huge result to disk and leaves its path; step 3 then finds that path and points at the
# copy. The other way round, step 3 sees the huge result first, and the article's step 3
# replaces it with `[Earlier tool result omitted.]`. No copy was ever made. The text is
# gone for good.
#
# This notebook runs the steps in the wrong order and counts what is lost.

# %% [markdown]
# **Goal.** You will learn why step 1 must run before step 3, what "lost for good" means
# exactly (readable nowhere: not in the context, not in a transcript, not in a saved
# file), and you will write that test yourself. You also meet the package's second
# profile, which fixes the flaws behind this loss. About 20 minutes on your own; in the
# 90-minute class, 8 (docs/TEACHING.md).

# %%
# %matplotlib inline
import itertools
import tempfile

from IPython.display import display

from compact import CompactionConfig
from workbench.course.charts import before_after
from workbench.bench.cost import lost_outputs
from workbench.course.exercises import check_lost, check_order_loss, hint
from workbench.course.histories import load_history
from compact.messages import text_of, tool_results, tool_uses
from workbench.course.replay import format_table, make_compactor, run_step

seed = CompactionConfig.seed()

# %% [markdown]
# ## The history
#
# `huge_result` again (notebook 01). Look at where the big read sits in its batch: the
# model asked for it first, then for three small commands.

# %%
history = load_history("huge_result")
messages, request = history["messages"], history["active_request"]
names = {use["id"]: use["name"] for m in messages for use in tool_uses(m)}
results = [block for m in messages for block in tool_results(m)]
originals = {block["tool_use_id"]: text_of(block["content"]) for block in results}
for number, block in enumerate(results):
    newest = "  (one of the newest 3)" if number >= len(results) - seed.keep_recent_results else ""
    print(f"{block['tool_use_id']}  {names[block['tool_use_id']]:<9} "
          f"{len(originals[block['tool_use_id']]):>8,d} characters{newest}")

# %% [markdown]
# ## Predict first
#
# With the seed profile, run step 3 (`micro_compact`) and then step 1
# (`tool_result_budget`) on this history. How many tool outputs are lost for good, that
# is, readable neither in the context nor in any file? Put your number in and run the
# cell.

# %%
prediction = None  # a number

result = check_order_loss(prediction)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown]
# ## The article's order, and the wrong one
#
# `run_in_order` runs the three cheap steps in any order in a scratch folder, then asks
# `workbench.bench.cost.lost_outputs` which original results can no longer be read verbatim:
# not in the context, not in a saved file, not in a transcript.

# %%
def run_in_order(order, profile="seed"):
    with tempfile.TemporaryDirectory() as scratch:
        compactor = make_compactor(scratch, profile)
        context = messages
        for step in order:
            context = run_step(compactor, step, context, request)
        lost = lost_outputs(originals, context, compactor.store)
        return {"records": compactor.records, "context": context, "lost": lost,
                "files": list(compactor.store.written)}


right = run_in_order(["tool_result_budget", "snip_compact", "micro_compact"])
wrong = run_in_order(["micro_compact", "snip_compact", "tool_result_budget"])

for name, run in (("article's order", right), ("wrong order", wrong)):
    print(f"== {name}")
    print(format_table(run["records"]))
    read_now = text_of(tool_results(run["context"][-1])[0]["content"])
    print(f"the read of docs.json is now: {read_now}")
    print(f"lost for good: {run['lost'] or 'nothing'}\n")

# %% [markdown]
# In the wrong order, step 3 came first. The read was not among the newest 3 results,
# so it became `omitted`. Then step 1 added the batch up: under 1,000
# characters, far under its limit, nothing to save. The 288,000 characters of
# `docs.json` exist nowhere any more. Here the agent could read the file again; the
# output of a command that changes the workspace, or of a slow test run, it could not.
#
# ## Every order of the three cheap steps

# %%
steps = ("tool_result_budget", "snip_compact", "micro_compact")
print(f"{'order':<52}{'lost':>5}{'files':>7}{'characters after':>18}")
for order in itertools.permutations(steps):
    run = run_in_order(order)
    after = run["records"][-1].chars_after
    print(f"{' -> '.join(order):<52}{len(run['lost']):>5}{len(run['files']):>7}{after:>18,d}")

# %% [markdown]
# Step 2 does nothing on 5 messages, so what matters is only whether step 1 comes before
# step 3.
#
# ## The flaws behind the loss, and the default profile
#
# Two flaws of the article's step 3 made this loss possible (both numbered in
# [docs/DESIGN.md](../docs/DESIGN.md)):
#
# - **flaw 1**: `[Earlier tool result omitted.]` keeps no copy anywhere;
# - **flaw 3**: the read was in the batch the model had not answered yet, so it was
#   shrunk before the model ever read it; only the newest 3 results are protected.
#
# The package has a second profile, the default `CompactionConfig()`, which keeps the
# article's numbers and fixes its flaws; lab 01 goes through all of them. For these
# two, its step 3 never shrinks a result newer than the model's last reply, and saves the
# full text before it writes a placeholder. So even in the wrong order it loses nothing:

# %%
default_wrong = run_in_order(["micro_compact", "snip_compact", "tool_result_budget"], "default")
print(f"default profile, wrong order: lost {len(default_wrong['lost'])}, "
      f"files {default_wrong['files']}")

# %% [markdown]
# ## Characters before and after
#
# Both orders end at about the same size. The chart cannot show the difference; the
# count of lost outputs does.

# %%
display(before_after(right["records"], limit=seed.context_char_limit,
                     title="huge_result: the article's order (seed profile)"),
        before_after(wrong["records"], limit=seed.context_char_limit,
                     title="huge_result: step 3 before step 1 (seed profile)"))

# %% [markdown]
# ## Check yourself: what is lost for good?
#
# Write `lost(originals, context, transcripts, saved)`: the ids of the tool results whose
# original text can no longer be read verbatim. You get
#
# - `originals`: `{tool_use_id: text}`, every result as it first came back;
# - `context`: the messages after the steps ran;
# - `transcripts`: a list of message lists, one for each transcript on disk;
# - `saved`: `{path: text}`, the files step 1 (or a fixed step 3) saved.
#
# A result is readable when some `tool_result` with its id, in the context or in a
# transcript, holds exactly the original; or when such a result is one of our markers
# (`<persisted-output>` or `[Earlier tool result saved at ...]`) whose path names a saved
# file holding it (`compact.formats.persisted_path` and `saved_path` read the path back).
# A result's content may be a list of blocks: `compact.messages.text_of` gives its text.
#
# The checker runs the package's steps in every order on canned histories, in both
# profiles, and compares with the benchmark's own `workbench.bench.cost.lost_outputs`.

# %%
def lost(originals, context, transcripts, saved) -> list:
    raise NotImplementedError  # your code here


result = check_lost(lost)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown]
# **Recap.**
# - Step 1 must run before step 3: then the huge result is on disk before step 3 turns it
#   into one line, and that line points at the copy.
# - The other way round, the article's step 3 leaves `omitted` and no copy exists: the
#   output is lost for good, and no chart of sizes shows it.
# - The default profile fixes the two flaws behind it: step 3 saves before it shrinks,
#   and never shrinks a result the model has not read.
#
# **Next:** notebook 06, `reactive_compact`: when the API refuses anyway.

# %% [markdown]
# **References.**
# - The article (learn-claude-code s08, in Chinese), section 七、为什么顺序必须固定;
#   [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md) maps its sections to the code.
