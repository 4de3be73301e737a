# %% [markdown] id="title"
# # 00 · Why compaction: the context is scratch paper
#
# A coding agent keeps its whole conversation in one list, `messages`, and sends all of
# it on **every** model call. The article (learn-claude-code, chapter s08) calls it the
# model's scratch paper, of a fixed size: past the model's window the API refuses the
# request with `prompt is too long`.

# %% [markdown] id="goal"
# **Goal.** You will learn how the article measures a context, how fast a session grows,
# and the article's four steps: what triggers each and what each leaves. About 10 minutes
# on your own; in the 90-minute class, 12, the set-up included (docs/TEACHING.md). Terms
# in both languages: [docs/GLOSSARY.md](../docs/GLOSSARY.md).

# %% [markdown] id="the-whole-game-in-one-minute"
# ## The whole game in one minute
#
# The article's agent, with the offline model (a deterministic program, not a language
# model), compares two large code files. `>` lines are its tool calls, bracketed ones the
# compactor: after the second read the list goes to a transcript (a file of the whole
# list), a summary takes its place, and the agent carries on.

# %%
# %matplotlib inline
import json
import tempfile

from IPython.display import display

from context_compact.messages import tool_results
from compact_course.article import CONTEXT_CHAR_LIMIT
from compact_course.agent.loop import run_task
from compact_course.lessons.charts import growth_figure
from compact_course.lessons.exercises import check_steps_that_act, hint
from compact_course.agent.workspace import fresh_workspace
from compact_course.lessons.pipeline_picture import pipeline_picture
from compact_course.lessons.replay import growth, seeded_ids
from compact_course.offline.tokens import DEFAULT_WINDOW
from compact_course.sessions.histories import load_history

with tempfile.TemporaryDirectory(prefix="first-run-") as scratch:
    shown = lambda line: print(line) if line.startswith(("[", ">")) else None  # noqa: E731
    first = run_task("compare-code", fresh_workspace(scratch), profile="seed", echo=shown,
                     new_id=seeded_ids())
    print(f"model calls: {first.model_calls}; files the compactor wrote: "
          f"{len(first.compactor.store.written)} (a transcript)")

# %% [markdown] id="the-articles-measure-and-how"
# ## The article's measure, and how fast a session grows
#
# Every threshold in the article counts **characters**:
# `len(json.dumps(messages, ensure_ascii=False))`; the API counts tokens. Most are tool
# results (first line). The chart: a long session at each model call, grey with no
# compaction (dotted: projected to the window), blue as `prepare` (below) sends it.

# %%
small = load_history("five_reads")["messages"]
size = len(json.dumps(small, ensure_ascii=False))   # the article's measure
in_results = sum(len(json.dumps(m, ensure_ascii=False)) for m in small if tool_results(m))
print(f"five_reads: {len(small)} messages, {size:,d} characters, "
      f"{in_results / size:.0%} of them tool results")

session = growth("timeline_150", DEFAULT_WINDOW)   # before each call: no compaction, and sent
print(f"timeline_150, {len(session.grown)} calls: at the last {session.grown[-1]:,d} characters with no "
      f"compaction, at most {max(session.sent):,d} sent with prepare; by the offline model's token "
      f"estimate ({session.chars_per_token:.1f} characters a token), 'prompt is too long' from "
      f"about call {session.refused_at}")
growth_figure(session, CONTEXT_CHAR_LIMIT, DEFAULT_WINDOW,
              title="timeline_150: the context at each model call")

# %% [markdown] id="check"
# ## The article's answer, and which steps act
#
# Before **every** model call, `prepare` runs four steps, cheapest and most recoverable
# first; the picture gives each one's trigger and what it leaves. Predict which change
# something on four histories of notebooks 01-04:
#
# - `five_reads`: 9 messages, about 17,000 characters, five README reads;
# - `huge_result`: 5 messages; the newest batch holds a 288,000-character file read and
#   three small results;
# - `long_session`: 64 messages (step 2's limit is 50), about 24,000 characters;
# - `two_code_files` (the one-minute run's task): 5 messages, about 65,000 characters;
#   the newest batch holds two code files of about 30,000 characters each.

# %%
display(pipeline_picture())
prediction = None  # e.g. {"five_reads": ["snip_compact"], "huge_result": [...], ...}

result = check_steps_that_act(prediction)
open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="recap"
# **Recap.**
# - The article measures a context in characters of JSON; the API counts tokens.
# - Without compaction every call re-sends everything, until the API refuses.
# - `prepare` runs four steps before every call: results to disk, the middle of a long
#   list to a transcript, old results to one line, a summary only if still too big.
#
# **Next:** notebook 01, step 1 `tool_result_budget`: a huge result goes to disk.

# %% [markdown] id="references"
# **References.** The article (in Chinese), sections 一、先理解上下文 and 二、为什么先整理工具结果;
# [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md).
