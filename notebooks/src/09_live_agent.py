# %% [markdown]
# # 09 · The live agent run
#
# Everything so far replayed canned histories. Now the agent of the article runs for
# real (sections 9 and 13): `workbench.agent.loop.Agent`, with its six tools, `prepare` before
# every model call, one reactive compaction on a refusal, and the compact tool.
#
# **Which model?** By default the offline model: a local server that speaks the
# Messages API on 127.0.0.1, reached through the real `anthropic` SDK, with a scripted,
# deterministic policy. No key, no network. Its window is counted in tokens of its own
# estimate (the line the first cell prints gives it), while the compactor's limits are
# in characters. If you set `ANTHROPIC_API_KEY` and `MODEL_ID`, the very same cells talk
# to the real API instead. The settings come from the course's own `.env` (the file `.env`
# at the root of the checkout the package is installed from, or the file
# `COMPACT_ENV_FILE` names), then from the environment, which wins; never from a `.env`
# in the current folder or the workspace, since nothing the agent can write may
# configure the agent; your outputs will then differ from the ones saved
# here, as a real model reads and answers in its own way. When the variable `CI` or
# `COMPACT_OFFLINE` is set (the tests set one), the notebook stays offline whatever keys
# it finds.
# The offline model is a deterministic stand-in, not a language model: it reads only what
# the request holds, and looks up what a question names with the tools the request offers.
# Each answer quotes what it read, with file and line, or says it cannot tell; where only a
# preview is left, it searches the saved copy again first (`tests/test_offline_truth.py`).
#
# We run two of the article's experiments in a scratch copy of the sample workspace:
#
# 1. **compare two large code files** (experiment 3) with the seed profile: the two
#    reads push the context past 50,000 characters, so you should see `[auto compact]`;
# 2. **analyse a huge JSON file** (experiment 2) with the default profile: step 1 moves
#    the result to `.task_outputs/tool-results/` and leaves a preview.

# %% [markdown]
# **Goal.** You will watch the whole pipeline work inside the article's agent, on a real
# workspace, read what it leaves on disk, and run it with your own `prepare` from notebook
# 08. About 20 minutes on your own; in the 90-minute class, 10 (docs/TEACHING.md).

# %%
# %matplotlib inline
import os
import re
import shutil
import tempfile
from pathlib import Path

from IPython.display import display

import compact
from compact import CompactionConfig
from workbench.agent.loop import Agent
from workbench.course.charts import timeline_chart
from workbench.course.exercises import check_default_run, hint
from workbench.agent.model import choose_model
from workbench.course.replay import call_points, seeded_ids
from workbench.agent.tasks import COMPARE_CODE, DOCS_JSON
from compact.messages import text_of, tool_results, tool_uses

# %%
force_offline = any(os.environ.get(name) for name in ("CI", "COMPACT_OFFLINE"))
choice = choose_model(offline=force_offline, echo=None, cassette=os.environ.get("COMPACT_CASSETTE"),
                      record=os.environ.get("COMPACT_RECORD"))
# The offline model's port changes on every run; the rest of the line is what matters.
print(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", choice.description))

# %% [markdown]
# **A recorded run.** A teacher with a key can keep this run in a cassette: start Jupyter
# with `COMPACT_RECORD` naming a file, and every API exchange is written there (requests and
# replies, dated, with the model that answered; no key, header or base URL). A class
# without a key starts it with `COMPACT_CASSETTE` naming that file instead: the offline
# server answers each request with the reply recorded for it, so the cells below print
# what the recorded run printed (README, "Record once, replay for a class").

# %%
from workbench.display.phrases import say

if choice.recorder is not None:
    print(say("cassette recording", path=choice.recorder.path))
elif choice.server is not None and choice.server.cassette is not None:
    print(say("cassette replaying", path=os.environ["COMPACT_CASSETTE"],
              what=choice.server.cassette.describe()))
else:
    print(say("cassette none"))

# %% [markdown]
# ## Predict first
#
# Below, experiment 3 runs with the seed profile: the agent reads two code files of
# about 30,000 characters each, one per model call, and the seed pays for a summary.
# This notebook never runs the same task under the **default** profile at the article's
# 50,000 characters, until you do it in "Your turn". Predict that run:
#
# - `files_saved`: how many files step 1 writes to `.task_outputs/` (lab 01's
#   flaw 18 has the rule);
# - `model_calls`: how many model calls the agent makes, its answer included (the first
#   cell says what the offline model does when only a preview is left).
#
# This is predict-then-verify: write your numbers and run the checker **before** you run
# "Your turn" at the end, which prints the same two numbers for the run you predicted.
# The checker runs that task offline and compares; `hint()` names the mistake it
# recognises.

# %%
prediction = None  # e.g. {"files_saved": 1, "model_calls": 3}

result = check_default_run(prediction)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown]
# ## A scratch workspace
#
# The agent's folder is also the compactor's root: transcripts and saved results land
# inside it. We copy the sample workspace to a temporary folder so the repository stays
# clean; every path printed below is relative to that folder.

# %%
scratch = tempfile.TemporaryDirectory(prefix="live-run-")
workspace = Path(scratch.name) / "workspace"
sample = Path(compact.__file__).resolve().parent.parent / "data" / "workspace"
shutil.copytree(sample, workspace, ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
print(f"{sum(1 for p in workspace.rglob('*') if p.is_file())} files in the workspace copy")
for name in ("s08_context_compact/code.py", "s09_memory/code.py",
             "web/src/data/generated/docs.json"):
    print(f"  {name}: {len((workspace / name).read_text(encoding='utf-8')):,d} characters")

# %% [markdown]
# ## Experiment 3: two large code files, the seed profile
#
# The lines starting `>` are tool calls, the indented ones their results and the
# model's notes, and the bracketed ones what the compactor prints, as in the article.

# %%
compare_run = Agent(workspace, choice.client, choice.model, config=CompactionConfig.seed(),
                    new_id=seeded_ids())
print(f"task: {COMPARE_CODE}\n")
compare_answer = compare_run.ask(COMPARE_CODE)

# %%
print(compare_answer)

# %% [markdown]
# The answer opens with one line that is not part of it: `s09_memory/code.py: outline;
# ...` is the note the model wrote after its last read (after each read it writes down
# what it learned, like the lines in parentheses above, so that a summary can keep it).
# The answer proper starts at "Comparing".
# The agent went on after the summary: it knew from the `[Compacted]` message which
# files it had read. The summary replaced the whole list, so neither file's text was
# left in the context; the cell below checks that, and lists the tool calls the agent
# made after the summary.

# %%
after = compare_run.messages  # the context from the summary on
for name in ("s08_context_compact/code.py", "s09_memory/code.py"):
    start = (workspace / name).read_text(encoding="utf-8")[:2000]
    present = any(start in text_of(b["content"]) for m in after for b in tool_results(m))
    print(f"{name}: its text in the context after the summary: {present}")
print("first message:", after[0]["content"].split("\n")[0])
for use in (u for m in after for u in tool_uses(m)):
    print(f"tool call after the summary: {use['name']} {use['input']}")

# %% [markdown]
# ## Experiment 2: a huge JSON file, the default profile
#
# The same workspace, a new agent, the default profile: the read of `docs.json` is over
# step 1's limits, so it should go to disk with a preview, and no summary is needed.

# %%
json_run = Agent(workspace, choice.client, choice.model, config=CompactionConfig(),
                 new_id=seeded_ids(seed=9))
print(f"task: {DOCS_JSON}\n")
json_answer = json_run.ask(DOCS_JSON)

# %%
print(json_answer)

# %% [markdown]
# ## The files it leaves
#
# `.transcripts/` holds every list that was archived or summarized, one JSON message a
# line; `.task_outputs/tool-results/` holds the full text of every result the
# compactor moved out of the context.

# %%
def left_behind(folder: Path):
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.relative_to(folder).parts[0] in (".transcripts", ".task_outputs"):
            yield path.relative_to(folder).as_posix(), path.read_text(encoding="utf-8")


for name, text in left_behind(workspace):
    lines = text.count("\n")
    print(f"{name}\n    {len(text):,d} characters, {lines:,d} lines")

# %% [markdown]
# ## Characters before and after, per model call
#
# Grey is the context as it reached `prepare`, blue what was sent; the strip marks the
# calls where a step fired. A live run is not a replay, so `workbench.course.replay.call_points`
# rebuilds the points from the compactor's step records.

# %%
limit = CompactionConfig().context_char_limit
display(timeline_chart(call_points(compare_run.compactor.records), limit,
                       title="Experiment 3, seed profile: context at each model call"),
        timeline_chart(call_points(json_run.compactor.records), limit,
                       title="Experiment 2, default profile: context at each model call"))

# %% [markdown]
# ## Summary of the two runs

# %%
for name, agent in (("experiment 3, seed", compare_run), ("experiment 2, default", json_run)):
    summaries = sum(r.model_calls for r in agent.compactor.records)
    fired = sorted({r.step for r in agent.compactor.records if r.fired})
    print(f"{name}: model calls {agent.model_calls}, summary calls {summaries}, "
          f"files written {len(agent.compactor.store.written)}, steps fired: {', '.join(fired)}")

# %% [markdown]
# ## Your turn: your prepare, your settings
#
# `your_run` (`workbench/course/live_run.py`) runs experiment 3 once more, in a fresh copy
# of the workspace, with its own model (offline unless you set a key), so it runs again
# and again once the set-up cells at the top have run.
# **Try this.** Put the `def my_prepare(...)` you built in notebook 08 in place of the
# line `my_prepare = None`: the agent then calls *your* pipeline before every model call,
# and the first line printed says so (left as `None`, it says that the package's
# `prepare` runs). Then set `my_profile = "default"` and check your prediction:
# the files written and the model calls. Last, ask a question of your own in
# `my_question` (for example about `logs/test_run.log`).

# %%
from workbench.course.live_run import your_run

my_prepare = None            # your prepare(compactor, messages, active_request) from notebook 08
my_profile = "seed"          # "seed" or "default"
my_limit = 50_000            # context_char_limit, in characters
my_question = COMPARE_CODE   # or a question of your own, as a string

my_run = your_run(my_question, my_profile, my_limit, prepare=my_prepare, offline=force_offline)

# %%
# The experiments' model and workspace; the cell above starts and closes its own.
choice.close()
scratch.cleanup()

# %% [markdown]
# **Recap.**
# - The same `prepare` that the replays ran now runs before every call of a live agent.
# - In experiment 3 the two code files pushed the context over the limit and cost a
#   summary; in experiment 2 step 1 moved the huge JSON result to disk, with a preview.
# - Everything taken out of the context is in `.transcripts/` or
#   `.task_outputs/tool-results/` inside the workspace, and your own `prepare` can run in
#   the agent in place of the package's.
#
# **Next:** the labs (`labs/`), from lab 01, the article's design against the default
# profile. The article's next chapter, s09, is about memory: what outlives a session.
# For a class, docs/TEACHING.md has the paths through this course.

# %% [markdown]
# **References.**
# - The article, sections 9 (the agent loop) and 13 (the experiments): the chapter's own
#   page, in English, https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.en.md
