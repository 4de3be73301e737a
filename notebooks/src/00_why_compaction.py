# %% [markdown]
# # 00 · Why compaction: the context is scratch paper
#
# A coding agent keeps its whole conversation in one Python list, `messages`: what the
# user typed, what the model answered, every `tool_use` the model asked for and every
# `tool_result` the harness sent back. On **every** model call the whole list goes to
# the API again. The article (learn-claude-code, chapter s08) calls it the model's
# scratch paper: everything is written on it in order, and the model re-reads all of it
# each time it goes on working.
#
# The paper has a fixed size. Past the model's window the API refuses the request with
# `prompt is too long`. In coding work, tool results take most of the room: one long
# file read, one test log, a few searches.
#
# This notebook measures a canned conversation the way the article does, watches a long
# session grow call by call, and finds where the API would refuse it. Then it draws the
# article's answer, the four-step pipeline, that notebooks 01-04 take one step at a time.

# %% [markdown]
# **Goal.** You will learn how the article measures a context (characters of JSON), how
# fast a session grows without compaction, and the shape of the article's pipeline: four
# steps, what triggers each, and what each leaves in the context and on disk. About 25
# minutes on your own; in the 90-minute class, 8 (docs/TEACHING.md). The course's
# terms, in English and Chinese: [docs/GLOSSARY.md](../docs/GLOSSARY.md).

# %%
# %matplotlib inline
import json
import statistics

from compact import CompactionConfig, estimate_chars
from workbench.course.charts import growth_chart
from workbench.course.exercises import check_steps_that_act, hint
from workbench.course.histories import load_history
from compact.messages import tool_results
from workbench.offline import estimate_text_tokens
from workbench.course.replay import timeline
from workbench.offline.tokens import DEFAULT_WINDOW
from workbench.course.pipeline_picture import pipeline_picture

config = CompactionConfig.seed()  # the article's numbers
print(f"CONTEXT_CHAR_LIMIT = {config.context_char_limit:,d} characters")

# %% [markdown]
# ## The whole game in one minute
#
# Before taking it apart, watch it work once. The article's agent (with the offline
# model, a deterministic program on 127.0.0.1, not a language model) compares two large
# code files in a scratch copy of the course's sample workspace. Lines starting `>` are
# its tool calls; the bracketed ones are the compactor at work: after the second read the
# context is over the limit, so the whole list goes to a transcript and a summary takes
# its place, and the agent carries on from the summary. This notebook explains why;
# notebooks 01-07 take each piece in turn, and notebook 09 runs it again at length.

# %%
import shutil
import tempfile
from pathlib import Path

import compact
from workbench.agent.loop import run_task
from workbench.course.replay import seeded_ids

with tempfile.TemporaryDirectory(prefix="first-run-") as scratch:
    workspace = Path(scratch) / "workspace"
    sample = Path(compact.__file__).resolve().parent.parent / "data" / "workspace"
    shutil.copytree(sample, workspace, ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
    shown = lambda line: print(line) if line.startswith(("[", ">")) else None  # noqa: E731
    first = run_task("compare-code", workspace, profile="seed", echo=shown, new_id=seeded_ids())
    print(f"\nanswer, first line: {first.answer.splitlines()[0][:100]}")
    print(f"model calls: {first.model_calls}; files the compactor wrote: "
          f"{len(first.compactor.store.written)} (a transcript)")

# %% [markdown]
# ## One small conversation, message by message
#
# `five_reads` is the article's first experiment: the agent finds the READMEs of five
# lessons and reads them. Each line below is one message: its role, what it holds, and
# its size in characters of JSON.

# %%
history = load_history("five_reads")
messages = history["messages"]


def size(message) -> int:
    return len(json.dumps(message, ensure_ascii=False))


def blocks(message) -> str:
    if isinstance(message["content"], str):
        return "text"
    return ", ".join(block["type"] for block in message["content"])


for index, message in enumerate(messages):
    print(f"{index:>2}  {message['role']:<9} {size(message):>6,d}  {blocks(message)}")

total = estimate_chars(messages)
in_results = sum(size(m) for m in messages if tool_results(m))
print(f"\n{len(messages)} messages, {total:,d} characters; "
      f"the tool results alone: {in_results:,d} ({in_results / total:.0%})")

# %% [markdown]
# ## The article's measure
#
# Every threshold in the article is a number of **characters**, measured one way:
#
#     estimate_chars(messages) = len(json.dumps(messages, ensure_ascii=False))
#
# `ensure_ascii=False` matters. Python's default writes every non-ASCII character as a
# six-character escape (`\u8bf7`), so every Chinese character of a request would
# count as six. Characters are not tokens either. The article keeps characters on
# purpose, because they are deterministic and cheap. The offline model estimates tokens
# as `ceil(ASCII characters / 4) + other characters`: four ASCII characters a token, and
# one token for every other character, each Chinese character included. The last column
# is that estimate.

# %%
english = [{"role": "user",
            "content": "Read the five lesson READMEs and compare their titles."}]
chinese = [{"role": "user", "content": "请读取五节课程的 README.md，比较它们的一级标题。"}]

print(f"{'':<9}{'default json.dumps':>20}{'ensure_ascii=False':>20}{'tokens (estimate)':>19}")
for name, sample in (("English", english), ("Chinese", chinese)):
    text = json.dumps(sample, ensure_ascii=False)
    print(f"{name:<9}{len(json.dumps(sample)):>20}{estimate_chars(sample):>20}"
          f"{estimate_text_tokens(text):>19}")

# %% [markdown]
# ## How fast a session grows
#
# `timeline_150` is a long working session: 158 model calls over many small tasks, with
# a few large moments (a 288,000-character JSON file, two code files, a whole test
# log). Without any compaction, the context at each call is simply every message so far.
# With the article's pipeline (`CompactionConfig.seed()`, the article's numbers and
# design), it is what `prepare` sends; the picture further down shows what `prepare` does.

# %%
session = load_history("timeline_150")
all_messages = session["messages"]
call_starts = [i for i, m in enumerate(all_messages) if m["role"] == "assistant"]
if all_messages[-1]["role"] == "user":
    call_starts.append(len(all_messages))  # results the model has not answered yet
grown = [estimate_chars(all_messages[:i]) for i in call_starts]
tokens = [estimate_text_tokens(json.dumps(all_messages[:i], ensure_ascii=False))
          for i in call_starts]
piped = timeline(session, profile="seed")
sent = [point.chars_after for point in piped.points]

first_over = next(call for call, chars in enumerate(grown, start=1)
                  if chars > config.context_char_limit)
print(f"{len(grown)} model calls")
print(f"no compaction:  over CONTEXT_CHAR_LIMIT from call {first_over}; "
      f"at the last call {grown[-1]:,d} characters, about {tokens[-1]:,d} tokens")
print(f"with prepare:   at most {max(sent):,d} characters sent on any call")
print(f"characters sent over the whole session: {sum(grown):,d} without compaction, "
      f"{sum(sent):,d} with it ({sum(grown) / sum(sent):.0f} times fewer)")

# %% [markdown]
# The last line is the hidden cost: every call re-sends everything, so without
# compaction the characters sent grow with the *square* of the session's length.
#
# ## Where the API would refuse
#
# The offline model's window is 200,000 tokens by default (`DEFAULT_WINDOW`); a real
# model's window is on its page of the API's documentation. This session never reaches
# 200,000 tokens in 158 calls, but it only ever grows. When would it get there? That
# depends on the pace one assumes: the average call's growth includes a few large jumps
# (the largest is printed), the median call's does not. The cell prints both, so the
# answer is a range, not one call.

# %%
chars_per_token = grown[-1] / tokens[-1]
window_chars = DEFAULT_WINDOW * chars_per_token
steps = [b - a for a, b in zip([0, *tokens], tokens)]
paces = {"average": tokens[-1] / len(tokens), "median": statistics.median(steps)}
at_pace = {name: len(tokens) + int((DEFAULT_WINDOW - tokens[-1]) // pace) + 1
           for name, pace in paces.items()}
refused_at = at_pace["average"]
print(f"window: {DEFAULT_WINDOW:,d} tokens, about {window_chars:,.0f} characters of this "
      f"session ({chars_per_token:.1f} characters a token)")
print(f"growth per call: {paces['average']:,.0f} tokens on average, {paces['median']:,.0f} "
      f"for the median call; the largest jump {max(steps):,d} tokens")
for name, call in at_pace.items():
    print(f"at the {name} pace the API answers 'prompt is too long' from about call {call:,d}")

# %% [markdown]
# ## Characters before and after: the whole session
#
# Grey: the context with no compaction at all. Blue: what the article's pipeline
# actually sends.
# Two dashed lines: the black one is the article's `CONTEXT_CHAR_LIMIT`, the orange-red
# one the window, converted to characters; the grey line's projection (dotted) runs to
# where it crosses the window.

# %%
growth_chart(grown, sent, config.context_char_limit, window_chars, DEFAULT_WINDOW,
             refused_at=refused_at, title="timeline_150: the context at each model call")

# %% [markdown]
# ## The article's answer: four steps before every call
#
# The article does not wait for the refusal. Before **every** model call, `prepare`
# runs four steps in a fixed order, cheapest and most recoverable first. Each box says
# when the step acts (its trigger), what it leaves in the context, and what it writes on
# disk. The numbers are the article's, read from `CompactionConfig.seed()`.

# %%
pipeline_picture()

# %% [markdown]
# Two more entry points sit beside the pipeline: `reactive_compact`, a one-time rescue
# when the API refuses anyway (notebook 06), and a `compact` tool the model can call
# itself (notebook 07). Notebook 05 explains why the order is fixed.
#
# ## Check yourself: which steps act?
#
# Read the triggers in the picture, then predict. One `prepare` with the article's
# numbers runs on each of four canned histories you will meet in notebooks 01-04:
#
# - `five_reads`: 9 messages, about 17,000 characters, five README reads;
# - `huge_result`: 5 messages; the newest batch holds a 288,000-character file read and
#   three small results;
# - `long_session`: 64 messages, more than step 2's 50, about 24,000 characters in all;
# - `two_code_files`: 5 messages, about 65,000 characters; the newest batch holds two
#   code files of about 30,000 characters each.
#
# Which steps change something on each? Write a list of step names per history, in the
# order they run; the checker replays each history and compares.

# %%
prediction = None  # e.g. {"five_reads": ["snip_compact"], "huge_result": [...], ...}

result = check_steps_that_act(prediction)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown]
# **Recap.**
# - The article measures a context as the characters of its JSON, `ensure_ascii=False`;
#   characters are not tokens.
# - Without compaction every call re-sends everything, so the context and the characters
#   sent only grow, until the API refuses.
# - `prepare` runs four steps before every call: results to disk, the middle of a long
#   list to a transcript, old results to one line, and a summary only if still too big.
#
# **Next:** notebook 01, step 1 `tool_result_budget`: a huge result goes to disk.

# %% [markdown]
# **References.**
# - The article (learn-claude-code s08, in Chinese), sections 一、先理解上下文 and
#   二、为什么先整理工具结果;
#   [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md) maps its sections to the code.
