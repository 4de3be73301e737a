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

# %%
# %matplotlib inline
import json

from IPython.display import display

from compact import CompactionConfig
from compact.course.charts import before_after, message_map
from compact.course.exercises import check_placeholders
from compact.course.histories import load_history
from compact.messages import text_of, tool_results, tool_uses
from compact.course.replay import replay
from compact.course.widgets import explore, threshold_explorer

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
# Before you run step 3: with the seed profile (the article's step 3, exactly), how
# many of these results become placeholders, and how many of those say "omitted"?
# Put your two numbers in the tuple and run the cell. The checker replays the step and
# compares.

# %%
prediction = None  # (placeholders, omitted), e.g. (4, 1)

result = check_placeholders(prediction)

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
# under its limits). The text is gone for good: the title of lesson s01 is nowhere in
# the context, and nowhere on disk.

# %%
print(text_of(tool_results(run.after[4])[0]["content"]))
print(f"files written: {run.files}")
print(f"'The Agent Loop' still in the context: "
      f"{any('The Agent Loop' in json.dumps(m) for m in run.after)}")

# %% [markdown]
# And this context is only 17,000 characters, a third of `CONTEXT_CHAR_LIMIT`: nothing
# needed shrinking. The article's step 3 runs on every call anyway (flaw 2; notebook 08
# has the table), and it rewrites old messages each time, which also breaks the prompt
# cache.
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
# ## The default profile
#
# The package's default fixes the step (flaws 1-3 in
# [docs/DESIGN.md](../docs/DESIGN.md)): it acts only when the context is over the limit,
# stops once it is under a target (60% of the limit), never shrinks results the model
# has not read yet, and **saves the full text first**, so every placeholder points at a
# copy. On `five_reads` at the article's limit it does nothing. With the limit lowered
# to 12,000 characters:

# %%
default_run = replay(history, profile="default", step="micro_compact",
                     overrides={"context_char_limit": 12_000})
print(default_run.table())
first_copy = default_run.files[0]
copy_text = (default_run.root / first_copy).read_text(encoding="utf-8")
print(f"\n{text_of(tool_results(default_run.after[4])[0]['content'])}")
print(f"{first_copy}: {len(copy_text):,d} characters, first line: {copy_text.splitlines()[0]}")
print(f"\ntarget: {default_run.config.target_chars:,d} characters; "
      f"now: {default_run.records[0].chars_after:,d}")

# %% [markdown]
# Two results were saved, and step 3 stopped short of its target: nothing else was its
# to touch. The glob result is under 120 characters, and the newest three results came
# after the model's last reply, so the model has not read them yet (flaw 3). The
# context is back under the limit, which is what step 3 is for; the target only says
# how far it may go once it has started.
#
# ## Characters before and after
#
# The seed step 3 on `five_reads`, and the message map (green: a placeholder with a copy
# on disk; vermillion: omitted, no copy).

# %%
before_after(run.records, limit=seed.context_char_limit,
             title="five_reads: step 3 alone (seed profile)")

# %%
message_map(run.before, run.after, title="five_reads: step 3, seed profile", columns=12)

# %% [markdown]
# ## Move the thresholds
#
# `keep_recent_results` and `micro_min_chars` are step 3's two numbers. Set
# `keep_recent_results` to 0 and watch even the fresh batch go; switch to the default
# profile and watch nothing happen until `context_char_limit` is under the size.

# %% tags=["nbval-ignore-output"]
threshold_explorer(history, profile="seed")

# %% [markdown]
# The default view, as the explorer first draws it:

# %%
display(*explore(history, "seed"))
