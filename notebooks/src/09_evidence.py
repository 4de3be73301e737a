# %% [markdown]
# # 09 · Evidence: what each design costs and loses over long sessions
#
# Notebook 08 compared the two profiles on canned histories. Here the package's
# benchmark (`python -m compact bench`) simulates whole sessions turn by turn and runs
# four designs over the same session:
#
# - **none**: no compaction; a request over 200,000 characters is counted as refused.
#   That is the benchmark's stand-in, in characters, for the model's window; the real
#   window is 200,000 tokens, and the first cell prints both;
# - **summary**: `compact_history` whenever the list is over `CONTEXT_CHAR_LIMIT`;
# - **seed**: the article's pipeline as written;
# - **default**: the pipeline with the flaws fixed.
#
# Three kinds of session, with fixed seeds: *tool-heavy* (many file reads and logs,
# some huge), *chat-heavy* (long answers, few tools) and *chinese* (the same in Chinese
# text, where a character costs about a token instead of a quarter).
#
# The figures that matter over a long session are not only the characters in context:
#
# - **cache-adjusted cost**: with a prompt cache, the leading messages that are
#   identical to the previous request are cheap (0.1 per character), the rest is dear
#   (1.25). A step that rewrites an old message breaks the prefix from there on;
# - **tool outputs lost**: outputs that can no longer be read verbatim, from the
#   context, a saved file or a transcript;
# - **summary calls**: each one is an extra model call, and each summary drops detail;
# - **misses**: on about 3 calls in 10 the simulated model needs an earlier tool output
#   again (the newest most often: the one k outputs back with weight 1/k); a miss is a
#   call where that output's text was not whole in the request it was sent.

# %% [markdown]
# **Goal.** You will learn to read the benchmark's table and chart: what each design
# costs with a prompt cache, what it loses, how often it summarizes, and how the same
# ideas look on the API's side; you will write the cache-adjusted cost yourself. About
# 25 minutes.

# %%
# %matplotlib inline
from compact import CompactionConfig
from compact.bench import benchmark as bench
from compact.bench.cost import CACHED_RATE, NEW_RATE
from compact.offline.tokens import DEFAULT_WINDOW
from compact.course.exercises import check_cache_cost

rows = bench.run_bench(turns=(40, 120), seeds=range(8))
print(f"{len(rows)} runs: {len(bench.KINDS)} sessions x 2 lengths x {len(bench.DESIGNS)} designs x 8 seeds")
print(f"cached prefix: {CACHED_RATE} per character; everything else: {NEW_RATE} per character")
print(f"refused above {bench.WINDOW_FACTOR * CompactionConfig().context_char_limit:,d} characters "
      f"(WINDOW_FACTOR {bench.WINDOW_FACTOR} x CONTEXT_CHAR_LIMIT); "
      f"the offline model's window: {DEFAULT_WINDOW:,d} tokens")

# %% [markdown]
# ## The table
#
# Every figure here is deterministic: the same on every machine. `bench.format_table`
# prints the rows of one seed; `bench.STABLE_COLUMNS` leaves out the timing columns.
# Then `bench.format_seeds` gives each design's mean and worst over the 8 seeds, and
# `bench.acceptance` checks the default against what issue 20 asked of it.

# %%
at_120 = [r for r in rows if r["turns"] == 120 and r["seed"] == 0]
print(bench.format_table(at_120, columns=bench.STABLE_COLUMNS))
print()
every_120 = [r for r in rows if r["turns"] == 120]
print(bench.format_seeds(bench.across_seeds(every_120)))
print()
print("\n".join(bench.acceptance(every_120)))

# %%
for kind in ("tool-heavy", "chinese", "chat-heavy"):
    cost = {r["design"]: r["cost"] for r in at_120 if r["session"] == kind}
    dearest = max(("summary", "seed", "default"), key=cost.get)
    print(f"{kind:10} none costs {cost['none'] / cost[dearest]:.2f} x the dearest other design ({dearest})")

# %% [markdown]
# How to read it, at 120 turns:
#
# - **none** sends everything every time: many of its requests are over the window
#   (`refused`, 100 of 120 on the tool-heavy session), and had the API taken them, they
#   would cost more than any other design on the tool-heavy and Chinese sessions: the
#   cell above prints by how much, against the dearest of the other three;
# - **summary** keeps every request small and loses nothing verbatim (the transcripts
#   hold it), but calls the summarizer again and again (`summ`), each summary a model
#   call and a loss of detail in what the model sees;
# - **seed** loses tool outputs for good (`lost`): the `omitted` placeholders of
#   step 3. And because step 3 runs on every call and step 2 archives again and again, it
#   rewrites old messages often, so its requests share a shorter prefix with the
#   previous one: its cache-adjusted cost is high even though its requests are small;
# - **default** loses nothing, pays for at most one summary, and costs the least on every
#   session, under half the seed's on average over the 8 seeds on the tool-heavy and
#   Chinese ones (`x seed mean`): it changes old messages rarely, and when it does it
#   archives deep, down to a target, in one call (flaw 17), so the next many requests
#   share a long prefix; and a huge result goes to disk as it arrives (flaw 18). On the
#   chat-heavy session it archives old answers where summary-only pays for summaries;
# - **misses** (`missed`): none misses nothing, since it keeps everything, but the API
#   would refuse most of its requests; the other designs miss on between a third and a
#   little over half of the calls that need an earlier output, since the model sometimes
#   needs one from long ago and nothing under 50,000 characters keeps everything. The
#   default misses no more than the seed on any seed (the last lines);
# - **characters are not tokens** (`~ktok`, estimated): in the summary and default rows,
#   the Chinese session's largest request has about as many characters as the English
#   ones but twice the tokens. A
#   limit in characters tuned for English text lets Chinese text use far more of the
#   window.
#
# ## The chart
#
# Cost (log scale), outputs lost, summary calls and misses per design on seed 0, the
# size of every request along the tool-heavy session (`timings=False` draws it instead of
# the time per call, which differs on every machine), and, bottom right, each design's
# cost over the seed profile's on the same session: the bar is the mean over the 8 seeds,
# the black tick the worst.

# %%
bench.bench_chart(rows, timings=False)

# %% [markdown]
# ## Timings
#
# `prepare` is timed on every call, but timings change from run to run and machine to
# machine, so this page does not store them. Run `python -m compact bench` in a
# terminal: it prints this table at 120 and 400 turns with the time per call and a
# `growth` column, then the means and worsts over 8 seeds; `python -m compact
# bench-prepare` times one `prepare` against one `json.dumps` of the same list. `growth` is the ratio of median time per call between the two
# lengths, divided by the ratio of median new content per call. Near 1 means the work
# per call follows what is new, not the length of the session (no quadratic loop).

# %% [markdown]
# ## The same ideas on the API's side
#
# The Anthropic API offers two server-side tools that do parts of this pipeline for you.
# Both count **tokens** (the model's own count), not characters.
#
# **Context editing, `clear_tool_uses_20250919`** (beta header
# `context-management-2025-06-27`). When the input passes a trigger (by default 100,000
# input tokens), the API clears the oldest tool results and leaves a placeholder, keeping
# the newest few tool uses (`keep`, by default 3). `clear_at_least` makes it act only if it
# can remove at least that many tokens, because every clearing breaks the cached prefix;
# `exclude_tools` names tools whose results are never cleared; `clear_tool_inputs` also
# clears the calls' inputs. It is step 3 with the default profile's fixes: it acts only
# over a trigger, and cuts deep enough to be worth the cache write. And nothing is lost:
# the edit happens on the server, your own `messages` list stays whole. The price is that
# you still send the whole list on every request.
#
# **Server-side compaction, `compact_20260112`** (beta header `compact-2026-01-12`).
# When the input passes a trigger (by default 150,000 input tokens), the API summarizes
# the older context and returns a `compaction` block; you send that block back in the
# following requests in place of what it summarized. It is step 4, done by the model that
# is answering, with optional `instructions` for the summary. Unlike `compact_history` it
# writes no transcript: keeping the full history, if you need it, is your job.
#
# | | this course's default profile | `clear_tool_uses_20250919` | `compact_20260112` |
# |---|---|---|---|
# | unit | characters (deterministic) | input tokens | input tokens |
# | trigger | 50,000 characters | 100,000 tokens | 150,000 tokens |
# | old tool results | archived to a transcript (a marker with the path), or saved to disk with a placeholder | placeholder; your list keeps them | summarized |
# | keeps | the newest 3 results, and every unanswered one | the newest 3 tool uses | the summary + what follows |
# | cache | acts rarely, cuts to a target, one break per compaction | `clear_at_least` | one break per compaction |
# | huge fresh result | persisted with a preview | cleared only once old enough | summarized |
#
# The benchmark's lesson carries over: what you remove, and how often you rewrite the
# start of the list, decide the cost as much as how small the list is.

# %% [markdown]
# ## Check yourself
#
# Write `cache_cost(previous, current)`: the cache-adjusted cost of the request
# `current` (a list of messages) sent right after `previous`. Measure each message as
# `len(json.dumps(message, ensure_ascii=False))`. The leading messages of `current`
# that are identical to those of `previous` cost 0.1 per character; every other
# character of `len(json.dumps(current, ensure_ascii=False))` costs 1.25.

# %%
def cache_cost(previous, current) -> float:
    raise NotImplementedError  # your code here


result = check_cache_cost(cache_cost)

# %% [markdown]
# **Recap.**
# - With a prompt cache, a request's cost depends on how much of it repeats the previous
#   one, not only on its size.
# - The seed design loses tool outputs for good and rewrites old messages often; the
#   default loses none and rewrites rarely but deeply.
# - The API's context editing and server-side compaction are steps 3 and 4 done on the
#   server, counted in tokens.
#
# **Next:** notebook 10, the agent of the article, live.
