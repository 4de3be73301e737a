# %% [markdown] id="title"
# # 09 · The live agent run
#
# Everything so far replayed canned histories. Now the article's agent (sections 9 and 13)
# runs for real: `compact_course.agent.loop.Agent`, with its six tools, `prepare` before every
# model call, one reactive compaction on a refusal, and the compact tool.
#
# **Which model?** By default the offline model: a local server speaking the Messages API
# on 127.0.0.1 through the real `anthropic` SDK, with no key and no network. It is a
# deterministic program, not a language model: it answers only from what the request
# holds, or says it cannot tell (`tests/offline/test_offline_truth.py`). With `ANTHROPIC_API_KEY`
# and `MODEL_ID` set, the same cells talk to the real API and print what it answers; `CI`
# or `COMPACT_OFFLINE` keeps the notebook offline; a cassette replays a recorded run
# ([docs/INSTALL.md](../docs/INSTALL.md)).

# %% [markdown] id="goal"
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

import context_compact
from context_compact import CompactionConfig
from context_compact.messages import text_of, tool_results, tool_uses
from compact_course.agent.loop import Agent
from compact_course.agent.model import choose_model
from compact_course.agent.tasks import COMPARE_CODE, DOCS_JSON
from compact_course.display.phrases import say
from compact_course.lessons.charts import timeline_chart
from compact_course.lessons.exercises import check_default_run, hint
from compact_course.lessons.replay import call_points, seeded_ids

force_offline = any(os.environ.get(name) for name in ("CI", "COMPACT_OFFLINE"))
choice = choose_model(offline=force_offline, echo=None, cassette=os.environ.get("COMPACT_CASSETTE"),
                      record=os.environ.get("COMPACT_RECORD"))
# The offline model's port changes on every run; the rest of the line is what matters.
print(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", choice.description))
if choice.recorder is not None:
    print(say("cassette recording", path=choice.recorder.path))
elif choice.server is not None and choice.server.cassette is not None:
    print(say("cassette replaying", path=os.environ["COMPACT_CASSETTE"],
              what=choice.server.cassette.describe()))
else:
    print(say("cassette none"))

# The agent's folder is also the compactor's root: transcripts and saved results land in it.
scratch = tempfile.TemporaryDirectory(prefix="live-run-")
workspace = Path(scratch.name) / "workspace"
sample = Path(context_compact.__file__).resolve().parent.parent / "data" / "workspace"
shutil.copytree(sample, workspace, ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
print("characters:", {name: len((workspace / name).read_text(encoding="utf-8")) for name in (
    "s08_context_compact/code.py", "s09_memory/code.py", "web/src/data/generated/docs.json")})


def calls_only(line):
    """The agent's echo cut to tool calls (`>`) and what the compactor prints (`[...]`)."""
    if line.startswith((">", "[")):
        print(line)

# %% [markdown] id="predict-first"
# ## Predict first
#
# Experiment 3 below runs with the seed profile, which pays for a summary. Predict the
# same task under the **default** profile at the same 50,000 characters, a run only "Your
# turn" shows:
#
# - `files_saved`: files step 1 writes to `.task_outputs/` (flaw 18 in
#   [docs/DESIGN.md](../docs/DESIGN.md) has the rule);
# - `model_calls`: model calls, the answer's included (where only a preview is left, the
#   offline model searches the saved copy before it answers).
#
# Run the checker before "Your turn"; `hint()` names the mistake it recognises.

# %%
prediction = None  # e.g. {"files_saved": 1, "model_calls": 3}

result = check_default_run(prediction)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="experiment-3-two-large-code"
# ## Experiment 3: two large code files, the seed profile
#
# Lines starting `>` are tool calls, bracketed ones what the compactor prints, as in the
# article (`echo=print` shows the results too). After the summary neither file's text is
# left: the agent goes on from the `[Compacted]` message. "Your turn" runs it again and
# prints the answer.

# %%
compare_run = Agent(workspace, choice.client, choice.model, config=CompactionConfig.seed(),
                    new_id=seeded_ids(), echo=calls_only)
compare_answer = compare_run.ask(COMPARE_CODE)
after = compare_run.messages  # the context from the summary on
for name in ("s08_context_compact/code.py", "s09_memory/code.py"):
    start = (workspace / name).read_text(encoding="utf-8")[:2000]
    present = any(start in text_of(b["content"]) for m in after for b in tool_results(m))
    print(f"{name}: its text in the context after the summary: {present}")
print("first message:", after[0]["content"].split("\n")[0], "; tool calls after it:",
      [use["name"] for m in after for use in tool_uses(m)])

# %% [markdown] id="experiment-2-a-huge-json-file"
# ## Experiment 2: a huge JSON file, the default profile
#
# The same workspace, a new agent: the read of `docs.json` is over step 1's limits, so it
# goes to disk with a preview, and no summary is needed.

# %%
json_run = Agent(workspace, choice.client, choice.model, config=CompactionConfig(),
                 new_id=seeded_ids(seed=9), echo=calls_only)
json_answer = json_run.ask(DOCS_JSON)
print("the answer's last line:", json_answer.splitlines()[-1])

# %% [markdown] id="what-the-runs-leave-and-the"
# ## What the runs leave, and the context at each call
#
# `.transcripts/` holds each list archived or summarized; `.task_outputs/tool-results/` the
# full text of each result moved out of the context. In the charts, grey is the context
# as it reached `prepare`, blue what was sent; the strip marks where a step fired.

# %%
for name, agent in (("experiment 3, seed", compare_run), ("experiment 2, default", json_run)):
    fired = sorted({r.step for r in agent.compactor.records if r.fired})
    print(f"{name}: model calls {agent.model_calls}, summary calls "
          f"{sum(r.model_calls for r in agent.compactor.records)}, steps fired: {', '.join(fired)}")
    for written in agent.compactor.store.written:
        print(f"    {written}: {len((workspace / written).read_text(encoding='utf-8')):,d} characters")
limit = CompactionConfig().context_char_limit
display(timeline_chart(call_points(compare_run.compactor.records), limit,
                       title="Experiment 3, seed profile: context at each model call"),
        timeline_chart(call_points(json_run.compactor.records), limit,
                       title="Experiment 2, default profile: context at each model call"))
choice.close()       # "Your turn" starts and closes a model of its own
scratch.cleanup()

# %% [markdown] id="your-turn-your-prepare-your"
# ## Your turn: your prepare, your settings
#
# **Try this.** Put your `def my_prepare(...)` from notebook 08 in place of the line
# `my_prepare = None`. `your_run` (`compact_course/lessons/live_run.py`) runs experiment 3 again
# in a fresh copy of the workspace with `Agent(prepare=my_prepare)`: your pipeline before
# every model call, as its first line says. Then set `my_profile = "default"` to check
# your prediction, and ask a question of your own in `my_question`. The answer's first
# line is the offline model's note on the result it has just read whole, here the outline.

# %%
from compact_course.lessons.live_run import your_run

my_prepare = None            # your prepare(compactor, messages, active_request) from notebook 08
my_profile = "seed"          # "seed" or "default"
my_limit = 50_000            # context_char_limit, in characters
my_question = COMPARE_CODE   # or a question of your own, as a string

my_run = your_run(my_question, my_profile, my_limit, prepare=my_prepare, offline=force_offline)

# %% [markdown] id="recap"
# **Recap.**
# - The same `prepare` that the replays ran now runs before every call of a live agent,
#   and your own can run in its place.
# - In experiment 3 the two code files pushed the context over the limit and cost a
#   summary; in experiment 2 step 1 moved the huge JSON result to disk, with a preview.
# - Everything taken out of the context is in `.transcripts/` or
#   `.task_outputs/tool-results/` inside the workspace.
#
# **Next:** the labs (`labs/`), from lab 01: the article's design against the default
# profile.

# %% [markdown] id="references"
# **References.**
# - The article, sections 9 (the agent loop) and 13 (the experiments): the chapter's own
#   page, in English, https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.en.md
