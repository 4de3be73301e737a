# %% [markdown] id="title"
# # Lab 02 · Evidence: what each design costs and loses over long sessions
#
# Lab 01 compared the two profiles on canned histories. Here the package's
# benchmark (`python -m compact_course bench`) simulates whole sessions turn by turn and runs
# five designs over the same session:
#
# - **none**: no compaction; a request over the offline model's window, 200,000 tokens,
#   is counted as refused (the first cell prints the window; every request is counted
#   in tokens of the offline estimate);
# - **summary**: `compact_history` whenever the list is over `CONTEXT_CHAR_LIMIT`;
# - **seed**: the article's pipeline as written;
# - **default**: the pipeline with the flaws fixed;
# - **oracle**: the floor, which no compactor can be, for it knows the future: every tool
#   output a later call will need arrives whole and stays, every other one is saved on
#   arrival and arrives as a saved placeholder. It never misses and never rewrites a
#   message.
#
# Three kinds of session, with fixed seeds: *tool-heavy* (many file reads and logs,
# some huge), *chat-heavy* (long answers, few tools) and *chinese* (the same in Chinese
# text, where the offline estimate counts a token for every Chinese character instead of
# one for four ASCII ones).
#
# The figures that matter over a long session are not only the characters in context:
#
# - **what the API would bill** (as the offline server models it), in units of Claude
#   Sonnet 5's base input price (the first cell prints its prices, their source and the
#   date they were read): each request is
#   sent as the agent sends it, with a prompt-cache breakpoint at its end, at its time on
#   the session's clock (tools, the model's writing, the user's pauses, now and then a
#   long one). The offline server's prompt cache bills it, by the API's rules
#   (`compact_course.offline.api.usage`): the tokens an earlier request wrote, if the new one
#   starts with them and the entry is alive (5 minutes from its last use), are read at
#   0.1; every other input token is written at 1.25; each reply's tokens are output at 5.
#   A summary call is billed too: its input (never cached) and its output. A step that
#   rewrites an old message, or a pause of over 5 minutes, means the next request reads
#   nothing, and all of it is written again;
# - **tool outputs lost**: outputs that can no longer be read verbatim, from the
#   context, a saved file or a transcript;
# - **summary calls**: each one is an extra model call, and each summary drops detail;
# - **misses**: on about 3 calls in 10 the simulated model needs an earlier tool output
#   again (the newest most often: the one k outputs back with weight 1/k); a miss is a
#   call where that output's text was not whole in the request it was sent. It may
#   still be on disk, for a model that goes back to read it, and the bill prices that
#   re-read (`+misses k`): one more call that reads the request from the cache, the
#   model's `read_file` call as output, and the output's tokens written. A design that
#   starves the model is not cheap on this bill, and `x oracle` says how far each design's
#   bill is from the floor's;
# - **forgotten** (seed 0's runs, the `forgot` column): the session's probes (lab
#   05: a line of an output, a file touched, the request, a stated step or decision, a
#   user's instruction) that nothing the design sends for the next turn, no file it
#   names and no summary keeps. Where misses count what is not in the request, this
#   counts what the model can no longer reach at all.

# %% [markdown] id="goal"
# **Goal.** You will learn to read the benchmark's table and chart: what each design
# costs with a prompt cache, what it loses, how often it summarizes, and how the same
# ideas look on the API's side; then you will work out how many calls a compaction
# takes to pay for itself once a cache is in play. About 30 minutes on your own; not
# part of the 90-minute class (docs/TEACHING.md).

# %%
# %matplotlib inline
from compact_course.bench import benchmark as bench
from compact_course.bench import chart, cost, prices, stats, tables
from compact_course.lessons.claims import default_claims
from compact_course.lessons.exercises import check_calls_to_pay_off, hint
from compact_course.offline.tokens import DEFAULT_WINDOW

SEEDS = range(8)
rows = bench.run_bench(turns=(40, 120), seeds=SEEDS, probe_seeds=(SEEDS[0],))
first = [r for r in rows if r["seed"] == SEEDS[0]]
print(f"{len(rows)} runs: {len(SEEDS)} seeds x {len(bench.KINDS)} sessions x 2 lengths x "
      f"{len(bench.DESIGNS)} designs ({', '.join(bench.DESIGNS)})")
print(f"refused: a request over {DEFAULT_WINDOW:,d} tokens, the offline model's window")
print("billed as " + tables.rates_line(prices.DEFAULT_MODEL))
print("the table (compact_course.bench.prices), US dollars per million tokens, one row a line:")
print("\n".join(prices.table_lines()))

# %% [markdown] id="characters-and-tokens"
# ## Characters and tokens
#
# The pipeline counts characters, as the article does:
# `estimate_chars(messages) = len(json.dumps(messages, ensure_ascii=False))`. Without
# `ensure_ascii=False`, Python writes each non-ASCII character as a six-character escape
# (`\u8bf7`). This benchmark counts tokens with the offline model's estimate,
# `ceil(ASCII characters / 4) + other characters`: a token for four ASCII characters, one
# for every other character, each Chinese one included. One request, three weights:

# %%
import json

from context_compact import estimate_chars
from compact_course.offline import estimate_text_tokens

request_en = [{"role": "user", "content": "Read the five lesson READMEs and compare their titles."}]
request_zh = [{"role": "user", "content": "请读取五节课程的 README.md，比较它们的一级标题。"}]
print(f"{'':<9}{'default json.dumps':>20}{'ensure_ascii=False':>20}{'tokens (estimate)':>19}")
for name, sample in (("English", request_en), ("Chinese", request_zh)):
    print(f"{name:<9}{len(json.dumps(sample)):>20}{estimate_chars(sample):>20}"
          f"{estimate_text_tokens(json.dumps(sample, ensure_ascii=False)):>19}")

# %% [markdown] id="the-table"
# ## The table
#
# Every figure here is deterministic: the same on every machine. `tables.format_table`
# prints the rows of one seed; `tables.STABLE_COLUMNS` leaves out the timing columns, and
# `tables.PROBE_COLUMNS` adds the forgotten beside the cost (seed 0 is probed).
# Then `tables.format_seeds` gives each design's mean and worst over the 8 seeds
# (`stats.across_seeds`), and `default_claims` checks what this page claims of the
# default, one line a session, each ending in yes or NO.

# %%
at_120 = [r for r in first if r["turns"] == 120]
print(f"seed {SEEDS[0]}:")
print(tables.format_table(at_120, columns=tables.STABLE_COLUMNS + tables.PROBE_COLUMNS))
print()
every_120 = [r for r in rows if r["turns"] == 120]
print(f"over {len(SEEDS)} seeds, 120 turns: mean and worst of each design")
print(tables.format_seeds(stats.across_seeds(every_120)))
print()
print("\n".join(default_claims(every_120)))

# %%
OTHERS = ("summary", "seed", "default")
for kind in bench.KINDS:
    by = {r["design"]: r for r in at_120 if r["session"] == kind}
    # Ranked by the bill with misses priced (+misses): a design that starves the model pays.
    cheapest = min(OTHERS, key=lambda d: by[d]["cost_repaid"])
    dearest = max(OTHERS, key=lambda d: by[d]["cost_repaid"])
    print(f"{kind}, misses priced: cheapest {cheapest}, dearest of the three {dearest}; none costs "
          f"{by['none']['cost_repaid'] / by[dearest]['cost_repaid']:.2f} x {dearest}; default costs "
          f"{by['default']['cost_repaid'] / by['seed']['cost_repaid']:.2f} x seed and "
          f"{by['default']['x_oracle']:.2f} x the oracle")
    shares = ", ".join(f"{d} {cost.OUTPUT_RATE * by[d]['tokens_out'] / by[d]['cost']:.0%}"
                       for d in OTHERS)
    print(f"    output's share of the cost: {shares}")
    print("    missed: " + ", ".join(f"{d} {by[d]['misses']} (repaid {by[d]['repaid'] / 1000:,.0f}k)"
                                      for d in ("none", *OTHERS)))
    print("    forgot: " + ", ".join(f"{d} {by[d]['forgotten']}/{by[d]['probes']}"
                                     for d in ("none", *OTHERS)))
english = {r["design"]: r for r in at_120 if r["session"] == "tool-heavy"}
chinese = {r["design"]: r for r in at_120 if r["session"] == "chinese"}
for design in ("summary", "default"):
    ratio = (chinese[design]["largest_tokens"] / chinese[design]["largest"]) / (
        english[design]["largest_tokens"] / english[design]["largest"])
    print(f"largest request, {design}: chinese {chinese[design]['largest']:,d} characters "
          f"{chinese[design]['largest_tokens']:,d} tokens; tool-heavy {english[design]['largest']:,d} "
          f"characters {english[design]['largest_tokens']:,d} tokens: {ratio:.1f} x the tokens a character")

# %% [markdown] id="the-chart"
# How to read it, at 120 turns; the cell above prints each comparison for seed 0, the
# table before it the means and worsts over the 8 seeds:
#
# - **none** sends everything every time, so it never misses. Counted in tokens, its
#   requests pass the 200,000-token window on the tool-heavy and Chinese sessions
#   (`refused`), and never on seed 0's chat-heavy one. Had the API taken them all, they
#   would cost the most on those two sessions, although almost all their input is read
#   from the cache (`read`): every call sends the whole list again. On seed 0's
#   chat-heavy session it costs about as much as the seed profile (the cell prints the
#   ratio); over the seeds, more (`x seed`). The user's pauses cost it most: in the
#   table over the seeds, the gap between `cost k mean` and `no pauses mean` is largest
#   on its rows, since a long list written again after each long pause is dear;
# - **summary** keeps every request small and loses nothing verbatim (the transcripts
#   hold it, so it forgets no probe: a marker names the file), but calls the summarizer
#   again and again (`summ`). Each summary is billed,
#   its input uncached and its output at the output rate, and the list after it starts
#   anew, so the next request is written to the cache again;
# - **seed** loses tool outputs for good (`lost`): the `omitted` placeholders of step 3;
#   it is the one design that forgets probes (the `forgot` lines), since what step 3
#   shrinks has no copy anywhere.
#   Step 3 runs on every call and step 2 archives again and again, so its requests
#   rarely start with the whole previous one: the lowest `read` share, and the dearest
#   of the three designs that compact, though its requests are small;
# - **default** loses nothing, forgets no probe, pays for no summary in 120 turns, misses the fewest of
#   the three designs that compact on average, and costs the least of the three on all
#   three sessions, misses priced or not: it changes old messages rarely, so most of its
#   input is read from the cache (`x seed`: its cost over the seed profile's, mean and
#   worst over the seeds);
# - **oracle** is the floor: its bill with misses priced is the lowest of all, and the
#   default's is about twice it on the tool-heavy and Chinese sessions and close to it on
#   chat-heavy (`x oracle`). The gap is what knowing the future would save: outputs kept
#   whole that no later call reads, and the misses' re-reads;
# - **output is billed at five times input**: on chat-heavy, with long answers, it is
#   about half of the summary and default designs' cost (the "output's share"
#   lines);
# - **characters are not tokens** (`max kch`, `max ktok`): in the summary and default
#   rows, the Chinese session's largest request has about as many characters as the
#   tool-heavy one, and about twice the tokens a character (the two "largest request"
#   lines). A limit in characters tuned for English text lets Chinese text use far more
#   of the window.
#
# ## The chart
#
# Cost (log scale), outputs lost, summary calls and misses per design, for seed 0; the
# size of every request along the tool-heavy session (`timings=False` draws it instead
# of the time per call, which differs on every machine); and each design's cost over
# the seed profile's, the mean over the seeds as a bar and the worst as a tick.

# %%
chart.bench_chart(rows, timings=False)

# %% [markdown] id="timings"
# ## Timings
#
# `prepare` is timed on every call, but timings change from run to run and machine to
# machine, so this page does not store them. Run `python -m compact_course bench` in a
# terminal: it prints this table at 120 and 400 turns with the time per call and a
# `growth` column, then the means and worsts over 8 seeds; `python -m compact_course
# bench-prepare` times one `prepare` against one `json.dumps` of the same list.
# `growth` is the ratio of median time per call between the two lengths, divided by the
# ratio of median new content per call. Near 1 means the work per call follows what is
# new, not the length of the session (no quadratic loop).

# %% [markdown] id="the-same-ideas-on-the-apis-side"
# ## The same ideas on the API's side
#
# The Anthropic API offers two server-side tools that do parts of this pipeline for you.
# Both count **tokens** (the model's own count), not characters.
#
# **Context editing, `clear_tool_uses_20250919`** (beta header
# `context-management-2025-06-27`). When the input passes a trigger (by default 100,000
# input tokens), the API keeps the newest few tool uses (`keep`, by default 3) and
# clears the results of the older ones, leaving a placeholder. `clear_at_least` makes it
# act only if it can remove at least that many tokens, because every clearing breaks the
# cached prefix (past the trigger, each new tool use moves the cleared boundary: the
# offline server's reading of the SDK's docstrings, lab 03);
# `exclude_tools` names tools whose results are never cleared; `clear_tool_inputs` also
# clears the calls' inputs. It is step 3 acting only over a trigger, one of the default
# profile's fixes; but it has no target, so past the trigger each new tool use clears one
# more result, unless `clear_at_least` holds it back until a clearing is worth the cache
# write. And nothing is lost:
# the edit happens on the server, your own `messages` list stays whole. The price is that
# you still send the whole list on every request.
#
# **Server-side compaction, `compact_20260112`** (beta header `compact-2026-01-12`).
# When the input passes a trigger (by default 150,000 input tokens), the API summarizes
# the older context and returns a `compaction` block; you send that block back in the
# following requests in place of what it summarized. It is step 4 on the server's side,
# with optional `instructions` for the summary (the offline server's summary is its own
# deterministic one, not a model's). Unlike `compact_history` it
# writes no transcript: keeping the full history, if you need it, is your job.
#
# | | this course's default profile | `clear_tool_uses_20250919` | `compact_20260112` |
# |---|---|---|---|
# | unit | characters (deterministic) | input tokens | input tokens |
# | trigger | 50,000 characters | 100,000 tokens | 150,000 tokens |
# | old tool results | archived to a transcript (a marker with the path), or saved to disk with a placeholder | placeholder; your list keeps them | summarized |
# | keeps | the newest 3 results, and every one the model has not read yet | the newest 3 tool uses | the summary + what follows |
# | cache | acts rarely, cuts to a target, one break per compaction | past the trigger, a break at each new tool use; `clear_at_least` delays the first | one break per compaction |
# | huge fresh result | persisted with a preview | cleared only once old enough | summarized |
#
# The cache row's two API columns are the offline server's reading, not the API's word:
# the SDK's docstrings say what each edit clears, not how the prompt cache meets it
# (`docs/AFTER_THE_ARTICLE.md` says which parts are ours; lab 03 measures the breaks on
# the offline server). The default profile's column is this benchmark's own measure.
#
# The benchmark's lesson carries over: what you remove, and how often you rewrite the
# start of the list, decide the cost as much as how small the list is.

# %% [markdown] id="check"
# ## Check yourself: when does a compaction pay for itself?
#
# A step that shrinks the list makes every later request smaller, but it also changes the
# list the cache holds. Write `calls_to_pay_off(before, after, summary=None, cold=False)`:
#
# - `before`: the request just sent, its messages oldest first as `(name, tokens)` pairs;
#   the cache holds it, and nothing else (the breakpoint at its end);
# - `after`: the list a step leaves, in the same form; a pair with the same name is the
#   same message, unchanged;
# - `summary`: for step 4, its summary call as `(input tokens, output tokens)`; `None`
#   for the other steps;
# - `cold`: the next call comes after a pause longer than the cache lives.
#
# Then the session goes on the same way with the step or without it: every call adds a
# reply and a user message (500 tokens in all) and is billed as this page bills one
# (read 0.1, write 1.25, plain input 1, output 5; replies are the same both ways, leave
# them out). Return how many calls, counting the one right after the step, it takes
# until the session with the step has cost no more in all than the session without it,
# or `None` if it never does. The API caches no prefix shorter than the model's minimum;
# every list here is longer.
#
# Before you code: which pays back faster, step 3 shrinking one old 8,000-token result,
# or step 4 replacing the whole list with a summary?

# %%
def calls_to_pay_off(before, after, summary=None, cold=False):
    raise NotImplementedError  # your code here


result = check_calls_to_pay_off(calls_to_pay_off)

open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="recap"
# **Recap.**
# - With a prompt cache, what a request costs depends on whether it starts with the
#   whole previous request, not only on its size; replies and summaries are billed too.
#   So a compaction is paid for on the call right after it, which cannot read the
#   request the step changed, and each later call saves 0.1 per token removed: a small
#   cut takes many calls to pay back, and after a long pause, when the cache is gone
#   anyway, a cut without a summary pays from the first call.
# - The seed design loses tool outputs for good, forgets probes and rewrites old messages
#   often; the default loses and forgets none, rewrites rarely, and costs the least of
#   the four that a compactor can be; the oracle, which knows the future, says how far
#   from the floor it is.
# - The API's context editing and server-side compaction are steps 3 and 4 done on the
#   server, counted in tokens.
#
# **Next:** lab 03, the same job done on the server, by the API's own context
# management.

# %% [markdown] id="references"
# **References.**
# - The article, section 二 (why tool results are handled before any summary) and
#   section 七 (why the order is fixed); its code:
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py
# - Prompt caching (breakpoints, the 5-minute and 1-hour lifetimes, prices):
#   https://platform.claude.com/docs/en/build-with-claude/prompt-caching
# - Context editing: https://platform.claude.com/docs/en/build-with-claude/context-editing
# - Lindenbauer et al., "The Complexity Trap" (2025), observation masking against LLM
#   summaries on SWE-bench Verified: https://arxiv.org/abs/2508.21433
#
# **To discuss.**
# - The benchmark's sessions are synthetic and its replies canned. Which of its verdicts
#   would you expect to hold on your own agent's sessions, and which would you re-measure?
# - The seed profile forgets probes and the summary design calls a model many times. If
#   you could pay for only one of the two faults, which would you accept, and why?
