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
# session grow call by call, and finds where the API would refuse it. The next five
# notebooks take the article's four steps one at a time.

# %%
# %matplotlib inline
import json

from IPython.display import display

from compact import CompactionConfig, estimate_chars
from compact.course.charts import growth_chart
from compact.course.exercises import check_chars
from compact.course.histories import load_history
from compact.messages import tool_results
from compact.offline import estimate_text_tokens
from compact.course.replay import timeline
from compact.offline.tokens import DEFAULT_WINDOW
from compact.course.widgets import explore, threshold_explorer

config = CompactionConfig.seed()  # the article's numbers
print(f"CONTEXT_CHAR_LIMIT = {config.context_char_limit:,d} characters")

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
# six-character escape (`\u8bf7`), so a Chinese request would look six times bigger
# than it is. Characters are not tokens either: English runs near four characters a
# token, Chinese near one. The article keeps characters on purpose, because they are
# deterministic and cheap; the offline model estimates tokens as
# `ceil(ASCII characters / 4) + other characters`.

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
# With the pipeline (here the package's default profile), it is what `prepare` sends.

# %%
session = load_history("timeline_150")
all_messages = session["messages"]
call_starts = [i for i, m in enumerate(all_messages) if m["role"] == "assistant"]
if all_messages[-1]["role"] == "user":
    call_starts.append(len(all_messages))  # results the model has not answered yet
grown = [estimate_chars(all_messages[:i]) for i in call_starts]
tokens = [estimate_text_tokens(json.dumps(all_messages[:i], ensure_ascii=False))
          for i in call_starts]
piped = timeline(session, profile="default")
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
# The model's window is 200,000 tokens (the real API's, and the offline model's
# default). This session never reaches it in 158 calls, but it only ever grows. At
# its own average pace, when would it get there?

# %%
chars_per_token = grown[-1] / tokens[-1]
window_chars = DEFAULT_WINDOW * chars_per_token
per_call = tokens[-1] / len(tokens)
refused_at = len(tokens) + int((DEFAULT_WINDOW - tokens[-1]) // per_call) + 1
print(f"window: {DEFAULT_WINDOW:,d} tokens, about {window_chars:,.0f} characters of this "
      f"session ({chars_per_token:.1f} characters a token)")
print(f"growth: about {per_call:,.0f} tokens a call on average")
print(f"at that pace the API answers 'prompt is too long' from about call {refused_at}")

# %% [markdown]
# ## Characters before and after: the whole session
#
# Grey: the context with no compaction at all. Blue: what the pipeline (default profile)
# actually sends.
# The dashed line is the article's `CONTEXT_CHAR_LIMIT`; the red one is the window,
# converted to characters, with the grey line's projection (dotted) to where it
# crosses.

# %%
growth_chart(grown, sent, config.context_char_limit, window_chars, DEFAULT_WINDOW,
             refused_at=refused_at, title="timeline_150: the context at each model call")

# %% [markdown]
# ## Move the thresholds
#
# The explorer replays `timeline_150` call by call with the thresholds you choose. Top:
# the context as it arrives at each call (grey) and what is sent (blue), with marks
# below for each step that fired. Bottom: one `prepare` over the whole history at
# once. Try `context_char_limit` at 150,000, or the seed profile.

# %% tags=["nbval-ignore-output"]
threshold_explorer("timeline_150")

# %% [markdown]
# The default view, as the explorer first draws it:

# %%
display(*explore("timeline_150", "default"))

# %% [markdown]
# ## Check yourself
#
# Write `chars(messages)`: the article's measure, the number of characters of the
# JSON of the whole list. The checker runs it on a few lists (one has Chinese text)
# next to the package's `estimate_chars`. Replace the `raise` line, then run the cell.

# %%
def chars(messages) -> int:
    raise NotImplementedError  # your code here


result = check_chars(chars)
