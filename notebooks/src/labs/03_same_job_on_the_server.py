# %% [markdown] id="title"
# # Lab 03 · The same job on the server
#
# **The question:** should the API compact for you? The pinned SDK (`anthropic` 2.17.0)
# carries beta features that do the pipeline's job on the server: context editing,
# `clear_tool_uses_20250919` (beta `context-management-2025-06-27`), is step 3; server-side
# compaction, `compact_20260112` (`compact-2026-01-12`), is step 4.
#
# The vendor's advice (https://platform.claude.com/docs/en/build-with-claude/context-editing):
# "For most use cases, server-side compaction is the primary strategy for managing context
# in long-running conversations." Everything here runs against the **offline server**, a
# program (not a language model) that plays these features by the SDK's types; where the
# API is not documented, the choice is its own (`docs/AFTER_THE_ARTICLE.md`).

# %% [markdown] id="goal"
# **Goal.** You will compare what each server design costs and loses with the course's
# pipeline, on one session and at the same trigger, and pick the edits for a budget. About 30 minutes on your own; not part
# of the 90-minute class (docs/TEACHING.md).

# %%
# %matplotlib inline
import anthropic

from compact_course.agent.model import offline_client
from compact_course.bench import cost, prices
from compact_course.bench.server_designs import ServerSettings, model_calls
from compact_course.display.text import plural
from compact_course.lessons import server_replay as sr
from compact_course.lessons.exercises import check_edits_for_budget, hint
from compact_course.lessons.exercises import server_edits as budget
from compact_course.offline import MODEL_NAME
from compact_course.offline.api import context_edits
from compact_course.offline.api import server_compaction as sc
from compact_course.offline.api.server import start_offline_server
from compact_course.sessions.histories import load_history

show_all = False  # True: more columns, the clear_at_least rows, the edits through the SDK
server = start_offline_server()
client = offline_client(server.base_url)
history = load_history("timeline_150")["messages"]
print(f"timeline_150: {len(history)} messages, {len(model_calls(history))} model calls")

# %% [markdown] id="one-session-through-each-design"
# ## One session through each design
#
# Replay the session through five designs (the replies are recorded):
# **none**; **default**, the course's default profile on the client; **server-clear** with
# its defaults; **server-compact** with a trigger of 100,000 tokens (its default, 150,000,
# is more than this session reaches); **default+server-compact**. The columns: thousands of
# tokens read and written to the cache, the cost, calls that do not extend the previous
# request (`breaks`), summaries, the largest request, outputs lost for good.
#
# Costs are in **base input tokens** (each token at its price over an input token's),
# weighted by the API's prices for Claude Sonnet 5
# (https://platform.claude.com/docs/en/about-claude/pricing, "Prompt caching"): input 1, a
# 5-minute cache write 1.25, a cache read 0.1, output 5. The cell prints them.

# %%
row = prices.price(prices.DEFAULT_MODEL)
print(f"{row.name}, US dollars per million tokens: input {row.input:g}, output {row.output:g}; in base "
      f"input tokens: input {cost.RATES['input_tokens']:g}, cache writes {cost.RATES['cache_write_5m']:g}, "
      f"reads {cost.RATES['cache_read_input_tokens']:g}, output {cost.RATES['output_tokens']:g}")
runs = sr.replay_designs(history, ServerSettings(compact_trigger=100_000))
print(sr.totals_table(sr.design_totals(runs)))
sr.replay_chart(runs, "timeline_150", trigger=100_000)

# %% [markdown] id="what-clear-at-least-buys-with"
# Top, the tokens each call sends; bottom, the share the cache reads again. One large batch
# makes three lines jump; the default saves it to disk. The last row
# equals default's, its line dashed on default's: the default never sends 100,000 tokens.
# From call 68, server-clear's cache share swings between 0 and about 0.9: it is 0 on each
# call that clears one more result (43 of 91), as a new tool use pushes one out of the
# newest 3. `clear_at_least` ("Context will only be modified if at least this many tokens
# can be removed", the SDK's docstring) holds clearing back, but only delays the first
# break: once met, it is met on every call (the offline server clears each request afresh;
# `show_all = True` prints its rows at a trigger of 30,000 tokens).

# %%
if show_all:
    print(sr.totals_table(sr.clear_at_least_rows(history, 30_000, (0, 5_000, 20_000))))

# %% [markdown] id="clearing-through-the-sdk"
# ## With `show_all = True`: the edits through the SDK
#
# The session at its 100th model call, with the default edit; `count_tokens` gives the
# original count. Your list is unchanged: the server cleared its own copy. Then server
# compaction's signed `compaction` block: sent back, it stands for all it replaced;
# changed, it is refused.

# %%
if show_all:
    at_100 = history[:model_calls(history)[99]]
    edits = {"edits": [{"type": "clear_tool_uses_20250919"}]}
    beta = ["context-management-2025-06-27"]
    reply = client.beta.messages.create(model=MODEL_NAME, max_tokens=1000, messages=at_100, betas=beta,
                                        context_management=edits)
    counted = client.beta.messages.count_tokens(model=MODEL_NAME, messages=at_100, betas=beta,
                                                context_management=edits)
    (applied,) = reply.context_management.applied_edits
    print(f"sent {counted.context_management.original_input_tokens:,d} tokens; "
          f"{applied.cleared_tool_uses} tool uses cleared; the model read {reply.usage.input_tokens:,d}")
    print(f"each cleared result reads (the offline server's text): {context_edits.CLEARED_RESULT}")
    paused = client.beta.messages.create(
        model=MODEL_NAME, max_tokens=1000, messages=at_100, betas=["compact-2026-01-12"],
        context_management={"edits": [{"type": "compact_20260112", "pause_after_compaction": True,
                                       "trigger": {"type": "input_tokens", "value": sc.MIN_TRIGGER}}]})
    block = paused.content[0]
    question = {"role": "user", "content": "How many records does chapter s01 have in docs.json?"}
    later = client.beta.messages.count_tokens(model=MODEL_NAME, messages=[paused.to_param(), question],
                                              betas=["compact-2026-01-12"])
    print(f"stop_reason {paused.stop_reason}; the block's summary: {len(block.content):,d} characters; "
          f"the block and the question: {later.input_tokens:,d} tokens")
    forged = {**block.model_dump(), "content": block.content.replace("s01", "s99")}
    try:
        client.beta.messages.create(model=MODEL_NAME, max_tokens=1000, betas=["compact-2026-01-12"],
                                    messages=[{"role": "assistant", "content": [forged]}, question])
    except anthropic.BadRequestError as error:
        print(f"a changed block: {type(error).__name__}")

# %% [markdown] id="when-each-design-wins-the-same"
# ## At the same trigger
#
# Above, the default profile acted from 50,000 characters, the server from 100,000 tokens.
# The benchmark's longest tool-heavy session (400 turns) runs each server design at its
# default trigger beside the default profile at the same trigger. `forgot` counts the
# probes (lab 05's five kinds) that nothing the design sends, no file it names and no
# summary keeps.

# %%
from compact_course.bench import benchmark as bench
from compact_course.bench.probe_walk import session_messages
from compact_course.bench.simulated import make_session
from compact_course.probes import make_probes

long_session = make_session("tool-heavy", 400, 0)
probes = make_probes(*session_messages(long_session))
plain = bench.run_session(long_session, "none")
per_token = plain["largest"] / plain["largest_tokens"]
fair = {"default, 50,000 chars": bench.run_session(long_session, "default", probes=probes)}
for design, trigger in {"server-clear": context_edits.DEFAULT_TRIGGER["value"],
                        "server-compact": sc.DEFAULT_TRIGGER}.items():
    limit = round(trigger * per_token)
    fair[f"default, {limit:,d} chars"] = bench.run_session(long_session, "default", probes=probes,
                                                          limits={"context_char_limit": limit})
    fair[f"{design}, {trigger:,d} tokens"] = bench.run_session(long_session, design, probes=probes)
print(f"{'design, trigger':32}{'cost k':>8}{'peak ktok':>10}{'lost':>6}{'forgot':>9}"
      + (f"{'+misses k':>10}{'no pauses':>10}{'summ':>5}{'missed':>8}" if show_all else ""))
for label, row in fair.items():
    print(f"{label:32}{row['cost'] / 1000:>8,.0f}{row['largest_tokens'] / 1000:>10.1f}{row['lost']:>6}"
          f"{row['forgotten']:>5}/{row['probes']}"
          + (f"{row['cost_repaid'] / 1000:>10,.0f}{row['cost_no_pauses'] / 1000:>10,.0f}"
             f"{row['summary_calls']:>5}{row['misses']:>5}/{row['references']}" if show_all else ""))

# %% [markdown] id="check"
# At the same trigger, the default profile costs less than either server design and forgets
# no probe: what it takes out is on disk, behind a marker. Clearing loses nothing from your
# list, yet the model gets a placeholder and no file; compaction loses what it summarized.
# These are the offline server's and the benchmark's figures, not the real API's (lab 02
# puts the vendor's published ones beside the bench's).
#
# ## Check yourself
#
# The budget on timeline_150: cost at most 850,000, the cache broken on fewer calls than
# the same edits without `clear_at_least`, nothing lost for good (clearing always meets
# this: your list keeps every output), the newest 3 tool uses whole. No setting on this
# page meets it, nor does a trigger alone (one large batch passes every trigger from 20,000
# to 80,000 tokens at once). Read the session's tools and ask which results are worth
# clearing: each clear saves what it removes and breaks the cache. Write the edits: a list
# of `{"type": "clear_tool_uses_20250919", ...}` with the SDK's knobs (`trigger`, `keep`,
# `clear_at_least`, `exclude_tools`).

# %%
print(f"budget: cost at most {budget.BUDGET_COST:,d}; tools by calls, result characters:")
for tool, sizes in budget.results_by_tool().items():
    print(f"{tool:12}{plural(len(sizes), 'call'):>9}, {sum(sizes):>9,d} in all, "
          f"mean {sum(sizes) // len(sizes):>7,d}")
my_edits = None  # your edits here, e.g. [{"type": "clear_tool_uses_20250919", ...}]

result = check_edits_for_budget(my_edits)

open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="recap"
# **Recap.**
# - Past its trigger, clearing breaks the cache on about every other call; `clear_at_least`
#   only delays that.
# - At the same trigger, the default profile costs and forgets least here: what it takes
#   out is on disk; the server's designs leave a placeholder or a summary.
# - Server compaction needs no pipeline of yours: that is its case.
#
# **Next:** lab 04, your own agent's sessions.

# %% [markdown] id="references"
# **References.**
# - The article, sections 五 and 六; its code:
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py
# - Server-side compaction: https://platform.claude.com/docs/en/build-with-claude/compaction
# - Prompt caching: https://platform.claude.com/docs/en/build-with-claude/prompt-caching
# - Factory Research, "Evaluating Context Compression for AI Agents" (four of the probes'
#   five kinds): https://factory.ai/news/evaluating-compression
#
# **To discuss.** Clearing forgets most probes here, yet the API offers it. For which tools
# is a cleared result no loss at all?

# %%
client.close()
server.stop()
