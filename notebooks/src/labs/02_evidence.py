# %% [markdown] id="title"
# # Lab 02 · Evidence: what each design costs and loses over long sessions
#
# **The question.** With a prompt cache, is the design that keeps the context smallest also
# the cheapest? The benchmark (`python -m compact_course bench`) plays long simulated
# sessions (tool-heavy, chat-heavy, Chinese; 120 turns; 8 seeds) through five designs:
# **none** (no compaction: a request over the 200,000-token window is refused), **summary**
# (step 4 alone), **seed** (the article's pipeline), **default** (its flaws fixed) and
# **oracle** (a floor: it knows which outputs later calls will need).
#
# Each request is billed in Claude Sonnet 5's base input tokens: what starts like an
# earlier request still cached (5 minutes from its last use) is read at 0.1, other input is
# written at 1.25, a summary call's input (never cached) costs 1, output 5. A step that
# rewrites an old message makes the next request write everything again.
#
# Columns: **+misses k**, the bill in thousands, each **miss** (a needed earlier output not
# whole in the request) priced as the call reading it back; **x oracle**, that over the
# oracle's; **read**, the input share read from the cache; **refused**, requests over the
# window, each figure counting them as if the API took them; **summ**, summary calls;
# **lost**, outputs readable nowhere; **forgot**, probes (lab 05) nothing keeps. Every
# column and price, with sources:
# [docs/DESIGN.md, "The benchmark's reference"](../docs/DESIGN.md#the-benchmarks-reference-lab-02).

# %% [markdown] id="goal"
# **Goal.** You will read what each design costs and loses with a prompt cache, then work
# out when a compaction pays for itself. About 30 minutes on your own; not part of the 90-minute class
# (docs/TEACHING.md).

# %%
# %matplotlib inline
from compact_course.bench import benchmark as bench
from compact_course.bench import chart, prices, stats, tables
from compact_course.lessons.claims import default_claims
from compact_course.lessons.exercises import check_calls_to_pay_off, hint

show_all = False  # True: every column, the mean and worst over the seeds, every price, every panel

SEEDS = range(8)
rows = bench.run_bench(turns=(40, 120), seeds=SEEDS, probe_seeds=(SEEDS[0],))
at_120 = [r for r in rows if r["turns"] == 120 and r["seed"] == SEEDS[0]]
every_120 = [r for r in rows if r["turns"] == 120]
print(f"{len(rows)} runs, billed at this row of the price list (US dollars per million tokens):")
print(prices.table_lines([prices.DEFAULT_MODEL])[0])
COLUMNS = ("+misses k", "x oracle", "read", "refused", "summ", "lost", "forgot")
for kind in bench.KINDS:
    print(f"\n{kind}, seed {SEEDS[0]}:")
    table = tables.format_table([r for r in at_120 if r["session"] == kind], columns=("design", *COLUMNS))
    print("\n".join(line for line in table.splitlines() if not line.startswith("-")))
print(f"\nthe default profile's claims over {len(SEEDS)} seeds, and whether each holds (yes or NO):")
print("\n".join(default_claims(every_120)))
if show_all:
    print(tables.format_table(at_120, columns=tables.STABLE_COLUMNS + tables.PROBE_COLUMNS))
    print(tables.format_seeds(stats.across_seeds(every_120)))
    print("\n".join(prices.table_lines()))

# %% [markdown] id="the-chart"
# ## The chart
#
# Left, each request's size along the tool-heavy session (seed 0; **none** is off the
# chart); right, each design's bill, misses not priced (log scale); `show_all = True` draws
# every panel. Above the chart, per session, which of the three designs that compact
# (summary, seed, default) sends the smallest requests on average, and which is cheapest.
#
# - **seed** sends the smallest requests on the tool-heavy and Chinese sessions, yet
#   rewrites old messages so often that it reads the cache least, and bills far more;
# - **default** sends larger requests, rewrites rarely, and is the cheapest of the three
#   on every session; the claims above hold it on all 8 seeds;
# - **summary** pays for summary after summary, each starting the cache anew.
#
# So no: with a prompt cache, the smallest context is not the cheapest bill.

# %%
for kind in bench.KINDS:
    three = [r for r in at_120 if r["session"] == kind and r["design"] in ("summary", "seed", "default")]
    small = min(three, key=lambda r: sum(r["request_chars"]) / len(r["request_chars"]))
    cheap = min(three, key=lambda r: r["cost_repaid"])   # misses priced: a starved model is no saving
    print(f"{kind}: smallest mean request {small['design']} "
          f"({sum(small['request_chars']) / len(small['request_chars']):,.0f} characters), "
          f"cheapest {cheap['design']} (the table's {cheap['cost_repaid'] / 1000:,.0f}k; "
          f"{cheap['cost'] / 1000:,.0f}k without its misses)")
chart.bench_chart(rows, timings=False) if show_all else chart.question_chart(rows)

# %% [markdown] id="the-same-ideas-on-the-apis-side"
# ## The same ideas on the API's side
#
# Context editing (`clear_tool_uses_20250919`) is step 3 on the server, and server-side
# compaction (`compact_20260112`) step 4 (lab 03). Anthropic's measured savings, on its own
# tasks: context editing cut token use by 84% in a 100-turn web-search evaluation
# (https://www.anthropic.com/news/context-management); the cookbook's client-side compaction
# took a ticket-handling task from 204,416 to 82,171 input tokens
# (https://platform.claude.com/cookbook/tool-use-automatic-context-compaction). Below, the
# bench's own (input tokens, default against none): other tasks and models, never ranked.

# %%
for kind in bench.KINDS:
    sent = {r["design"]: r for r in at_120 if r["session"] == kind}
    default, none = sent["default"]["tokens_in"], sent["none"]["tokens_in"]
    refused = sent["none"]["refused"]
    print(f"{kind}: default {default / 1000:,.0f}k input tokens, none {none / 1000:,.0f}k"
          + (f" ({refused} refused requests counted as if sent)" if refused else "")
          + f": {1 - default / none:.0%} fewer")

# %% [markdown] id="check"
# ## Check yourself: when does a compaction pay for itself?
#
# A step that shrinks the list makes every later request smaller, but changes the list the
# cache holds. Write `calls_to_pay_off(before, after, summary=None, cold=False)`:
#
# - `before`: the request just sent, its messages oldest first as `(name, tokens)` pairs;
#   the cache holds it and nothing else (the breakpoint at its end; simplified: the API
#   also keeps earlier requests' entries, found up to 20 blocks back);
# - `after`: the list a step leaves, in the same form; the same name is the same message,
#   unchanged;
# - `summary`: step 4's summary call as `(input tokens, output tokens)`, else `None`;
# - `cold`: the next call comes after a pause longer than the cache lives.
#
# Then the session goes on alike with the step or without it: each call adds a reply and a
# user message (500 tokens in all), billed as above (replies cost the same both ways: leave
# them out). Return how many calls, counting the one right after the step, it takes until
# the session with the step has cost no more in all than the one without, or `None` if it
# never does.
#
# Before you code: which pays back faster, step 3 shrinking one old 8,000-token result, or
# step 4 replacing the whole list with a summary?

# %%
def calls_to_pay_off(before, after, summary=None, cold=False):
    raise NotImplementedError  # your code here


result = check_calls_to_pay_off(calls_to_pay_off)

open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="recap"
# **Recap.**
# - With a prompt cache, what a request costs depends on whether it starts with the whole
#   previous one: the smallest context is not the cheapest bill.
# - A compaction is paid for on the next call, which cannot read what it changed; each
#   later call saves 0.1 a token removed, so a small cut pays back slowly.
# - The default loses and forgets nothing and rewrites rarely: here, the cheapest compactor.
#
# **Next:** lab 03, the same job done by the API's own context management.

# %% [markdown] id="references"
# **References.** Prompt caching: https://platform.claude.com/docs/en/build-with-claude/prompt-caching;
# context editing: https://platform.claude.com/docs/en/build-with-claude/context-editing;
# "The Complexity Trap" (2025), masking against summaries: https://arxiv.org/abs/2508.21433.
#
# **To discuss.** The sessions are synthetic and the replies canned: which verdicts would
# you expect to hold on your own agent's sessions, and which would you measure again?
