# %% [markdown] id="title"
# # 06 · Reactive compaction: when the API still says "too long"
#
# The pipeline counts **characters**; the API counts **tokens**. When the API refuses
# anyway, the article's safety net (section 8) is `reactive_compact`: write the list to a
# transcript, summarize everything **before** the newest `KEEP_RECENT_MESSAGES = 5`
# messages, and try again with one `[Reactive compact]` message plus those, **once**: a
# refused retry goes to the caller. The offline model (not a language model) has an
# 8,000-token window here.

# %% [markdown] id="goal"
# **Goal.** You will learn when a request under the character limit is refused, and
# where `reactive_compact` cuts; then you will design a tail that reads the request once,
# and write the step. About 45 minutes on your own; in the 90-minute class, 8
# (docs/TEACHING.md).

# %% [markdown] id="under-the-character-limit-over"
# ## Under the character limit, over the window
#
# `overflow` (a made history) investigates a failing test run. Look at the tokens each
# profile's `prepare` would send, against the window: the article's step 3 shrinks old
# results on every call; the default profile shrinks only over the character limit (flaw
# 2's fix). The rest of the notebook runs the default.

# %%
# %matplotlib inline
import copy

import anthropic
from IPython.display import display

from context_compact import CompactionConfig, estimate_chars, is_prompt_too_long
from compact_course.lessons.charts import before_after
from compact_course.lessons.exercises import check_tail_once, hint
from compact_course.lessons.replay import replay
from compact_course.lessons.small_window import SmallWindow
from compact_course.sessions.histories import load_history

history = load_history("overflow")
messages, request = history["messages"], history["active_request"]
model = SmallWindow(history["window_tokens"])   # the offline model, its window in tokens
runs = {profile: replay(history, profile=profile) for profile in ("seed", "default")}
for profile, run in runs.items():
    print(f"{profile:<8} prepare acted: {run.fired() or 'none'}; {estimate_chars(run.after):>6,d} "
          f"characters, {model.tokens(run.after):>6,d} tokens (window {model.window:,d})")

# %% [markdown] id="the-refusal-in-the-apis-words"
# ## The refusal, in the API's words
#
# Read the default's refusal, then the article's check: neither of its two spellings is
# the API's (flaw 9 in [docs/DESIGN.md](../docs/DESIGN.md)); `is_prompt_too_long` checks
# the SDK's error type and all three spellings.

# %%
prepared = runs["default"].after


def article_check(error) -> bool:
    text = str(error).lower()
    return "prompt_too_long" in text or "too many tokens" in text


try:
    model.ask(prepared)
except anthropic.BadRequestError as error:
    print(f"{type(error).__name__} {error.status_code}: {error.body['error']['message']}")
    print(f"the article's check: {article_check(error)}; is_prompt_too_long: {is_prompt_too_long(error)}")

# %% [markdown] id="reactive-compact-then-the-retry"
# ## `reactive_compact`, then the retry
#
# Look at how many messages are kept verbatim, and at the first two.

# %%
compactor = runs["default"].compactor
compacted = compactor.reactive_compact(prepared, request)
kept = compacted[1:]
print(f"{len(prepared)} messages -> {len(compacted)}: the summary + {len(kept)} kept verbatim, "
      f"the first two kept: {[[block['type'] for block in message['content']] for message in kept[:2]]}")
saved = compactor.store.read_transcript(compactor.records[-1].files[0])
print(f"the transcript holds the list as it was: {saved == prepared}")
answer = model.ask(compacted)
print(f"the retry: {answer.stop_reason}, " + "; ".join(
    f"{block.name} {block.input}" for block in answer.content if block.type == "tool_use"))

# %% [markdown] id="the-second-refusal-inside-the"
# Six kept, not five: the fifth-newest message is a `tool_result`, so the cut moved one
# earlier; the retry asks for the whole test log.
#
# ## The second refusal, inside the agent loop
#
# `Agent` is the article's loop: `prepare` before each call, one `reactive_compact` on a
# refusal, the counter reset after each call that goes through. Its settings let requests
# outgrow the window, but not summary calls: the default profile, the article's step 1
# (`persist_oversized=False`: the default's would save the log at once), the summarizer's
# input capped at 20,000 characters. In the chart (call 2 is call 1's retry), look at call
# 3 against the dotted window (in characters at this history's rate).

# %%
agent = model.agent(CompactionConfig(summary_input_char_limit=20_000, persist_oversized=False))
agent.messages = copy.deepcopy(messages)
try:
    agent.loop(request)
except anthropic.BadRequestError as error:
    print(f"\nraised to the caller: {error.body['error']['message']}")
answers = model.answers()
print(f"the loop's model calls: {agent.model_calls}, the summaries' {len(answers) - agent.model_calls}; "
      f"the server's answers: {answers}")
for r in agent.compactor.records:
    if r.step == "reactive_compact":
        print(f"call {r.call}: reactive_compact, {r.chars_before:,d} -> {r.chars_after:,d} characters")
display(before_after(agent.compactor.records, limit=agent.config.context_char_limit,
                     title="The overflow history in the agent loop (window 8,000 tokens)",
                     window_chars=model.window_chars(prepared), window_tokens=model.window))

# %% [markdown] id="check"
# After call 2, the model reads `logs/test_run.log`: under the character limit, over the
# window. Call 3's `reactive_compact` keeps the log, so its retry is refused and raised.
# Reactive compaction helps against a history grown too long; one result too long is step
# 1's job.
#
# ## Check yourself: a tail that reads the request once
#
# The summary message carries the request: when the request's own message is kept too,
# the model reads it twice. Write `tail_once(kinds, keep, request_at)`: the index of the
# first message kept verbatim. `kinds` lists the messages as `"user"`,
# `"assistant"`, `"tool_use"` or `"tool_result"`; the request is the user message at
# `request_at`. Keep the newest `keep` messages, never part a pair, and let the model read
# the request once, in the summary message.

# %%
def tail_once(kinds, keep, request_at):
    raise NotImplementedError  # your code here


result = check_tail_once(tail_once)
open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="build-it"
# ## Build it: the safety net in your own file
#
# In `my_compact.py`, write `is_prompt_too_long` and `reactive_compact`, save, and run the cell.

# %%
from compact_course.lessons.build_track import check

built = [check("is_prompt_too_long"), check("reactive_compact")]

# %% [markdown] id="recap"
# **Recap.**
# - The pipeline counts characters, the API tokens: under the character limit, the
#   default profile can be refused where the article's step 3 had shrunk the context.
# - `reactive_compact` writes a transcript, summarizes all before the newest 5 messages
#   (one earlier rather than part a pair), and the call is tried again.
# - A refused retry goes to the caller, as here with one result too long.
#
# **Next:** notebook 07, the `compact` tool: the model asks for a summary itself.

# %% [markdown] id="references"
# **References.** The article (in Chinese), section 八、API 拒绝后的补救：reactive_compact;
# [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md).
