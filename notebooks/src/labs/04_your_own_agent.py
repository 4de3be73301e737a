# %% [markdown] id="title"
# # Lab 04 · Your own agent, your own history
#
# **The question:** which settings fit *your* agent's window, and what do they cost?
# Every notebook so far replayed the course's histories with the article's numbers. Your
# agent's tools return other sizes, its sessions run longer or shorter, its model has its
# own window. Here you replay one of its sessions, sweep the thresholds over it, and pick
# settings for a window.
#
# The importers read Claude Code session files, Codex CLI rollouts, Responses API bodies,
# ATIF trajectories, Messages API histories and OpenAI chat logs;
# [docs/RECIPE.md](../../docs/RECIPE.md) says what each keeps and leaves out. A file that
# cannot be read is refused with its file, line and what is wrong.

# %% [markdown] id="goal"
# **Goal.** You will load a session of another agent, sweep the thresholds over it, read
# the sweep's chart, and choose settings for a smaller window than any row fits. About 25
# minutes.

# %%
# %matplotlib inline
from IPython.display import display

from context_compact import CompactionConfig
from compact_course.display.text import plural
from compact_course.lessons.exercises import check_settings, hint
from compact_course.lessons.exercises import own
from compact_course.lessons.sweep import describe, limit_of, sweep
from compact_course.lessons.sweep_chart import sweep_chart
from compact_course.sessions.histories import open_session
from compact_course.sessions.import_report import report_lines

# Put the path of one of your own sessions here. Until then the sample opens.
MY_SESSION = "~/.claude/projects/my-project/my-session.jsonl"

history = open_session(MY_SESSION)
print(f"{history['shown_path']}: {history['format']}, {len(history['messages'])} messages")
for line in report_lines(history["import_report"])[1:]:
    print(line)

# %% [markdown] id="what-the-file-holds-and-what-the"
# The sample is **made, not recorded**: `scripts/make_claude_session.py` writes it in Claude
# Code's format from the course's workspace, with real tool output. The import says what it
# left out (a subagent's sidechain, bookkeeping) and which records it joined (Claude Code
# writes one record per content block).

# %% [markdown] id="sweep-the-thresholds-for-a"
# ## Sweep the thresholds for a window
#
# Say your model's window is 16,000 tokens (the sample is small, so the window is too; a
# window of 200,000 tokens asks the same question later). `sweep` replays the session call
# by call once per setting of the grid, in both profiles.
# The limit is in characters (`context_char_limit`) or in tokens (`context_token_limit`, by
# the offline model's estimate), crossed with `keep_recent_results`. Each row measures:
#
# - **cost**: the session's bill in base input tokens, with a prompt cache (as in lab 02);
# - **lost**: tool outputs that can no longer be read verbatim anywhere;
# - **misses**: calls whose recorded reply used a name only an earlier output held, when
#   that name was not in what the call was sent (the course's own measure);
# - **peak**: the largest request, in tokens.
#
# The best row fits the window and loses nothing, then has the fewest misses, then the
# lowest cost. (Lab 05's forgotten probes are left out: here they equal `lost` on every
# row.) Set `show_all = True` to print every row.

# %%
WINDOW = 16_000
GRID = {"context_char_limit": (25_000, 50_000, 100_000), "context_token_limit": (6_000, 12_000),
        "keep_recent_results": (1, 3, 6)}
show_all = False
swept = sweep(history, GRID, window_tokens=WINDOW)
if show_all:
    print(describe(swept))
print(f"{len(swept.rows)} rows; no compaction: cost {swept.baseline['cost']:,}, "
      f"peak {swept.baseline['peak_tokens']:,} tokens")
display(sweep_chart(swept))

# %% [markdown] id="read-it-with"
# Cost runs across, misses up. Filled dots lose nothing, hollow ones lose outputs, crosses
# do not fit the window; the star is the best row, the dashed line no compaction. The
# same rows in numbers, the default profile grouped by its limit:

# %%
seed_rows = [r for r in swept.rows if r.profile == "seed"]
default_rows = [r for r in swept.rows if r.profile == "default"]
print(f"rows that lose outputs: seed {sum(r.lost > 0 for r in seed_rows)} of {len(seed_rows)}, "
      f"default {sum(r.lost > 0 for r in default_rows)} of {len(default_rows)}")
by_limit = {}
for row in default_rows:
    by_limit.setdefault(limit_of(row.settings), []).append(row)
for limit, rows in by_limit.items():
    print(f"default, limit {limit}: cost {min(r.cost for r in rows):,} to {max(r.cost for r in rows):,}, "
          f"misses {min(r.misses for r in rows)} to {max(r.misses for r in rows)}, "
          f"peak {max(r.peak_tokens for r in rows):,} tokens")
best = swept.best
config = CompactionConfig.named(best.profile, **best.settings)
print(f"best: CompactionConfig.named({best.profile!r}, **{best.settings}), "
      f"cost {best.cost:,}, {plural(best.misses, 'miss', 'misses')}")

# %% [markdown] id="the-chosen-settings"
# Every seed row loses outputs: its step 3 keeps no copy of what it removes. In the default
# profile, a lower limit lowers the peak and raises the misses, and the cost moves with
# `keep_recent_results` as well as with the limit. The best row's settings are a
# `CompactionConfig`: pass it to your compactor. A limit in tokens needs
# `context_compact.tokens.TokenMeasure(client, model)` beside it, which asks your model's
# `count_tokens`.
#
# To wire the pipeline into your own loop, read [docs/RECIPE.md](../../docs/RECIPE.md):
# `prepare` before every call, `reactive_compact` once on "prompt is too long", the
# `compact` tool's batch run whole first, the current request passed to each.
# `examples/own_loop.py` is that loop.

# %% [markdown] id="check"
# ## Check yourself: a smaller model
#
# Your team moves this agent to a model with a 5,000-token window and can spend a cost of
# 29,000 on this session. No row of the sweep fits that window. Choose a profile and a
# `context_char_limit` (keep the profile's other settings). The checker replays your
# choice: it must fit the window, lose nothing and stay within the budget.
#
# Four characters a token is a guess, not a measure; here it holds, just (20,000
# characters peak at 4,942 tokens), and fitting is not the hard part. Two forces set the
# bill: near the window every call sends nearly the window; far below it, compactions
# come often and each rewrites the prompt the cache holds (at 4,000 characters, 7
# summaries). The bill is lowest in between, and jagged from one limit to the next, so
# aim for the middle of the valley. To see it, sweep the limit alone:
# `sweep(history, {"context_char_limit": (...)}, window_tokens=own.LAB_WINDOW)`.

# %%
my_choice = None  # e.g. {"profile": "default", "context_char_limit": 50_000}

result = check_settings(my_choice, swept, budget=own.LAB_BUDGET, window=own.LAB_WINDOW)

open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="recap"
# **Recap.**
# - The importers read other agents' session files and name the line of anything they
#   cannot convert; `python -m compact_course sweep FILE` takes them all.
# - A sweep over your own session shows what each setting costs, loses and misses
#   for your window; its best row is a `CompactionConfig` to keep.
# - The cheapest setting is found by replaying, not by a rule of thumb: the limit and
#   `keep_recent_results` both move the cost.
#
# **Next:** lab 05, what each design forgets.

# %% [markdown] id="references"
# **References.**
# - The article, section 九 (the pipeline before every model call), and its code:
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py
# - Token counting: https://platform.claude.com/docs/en/build-with-claude/token-counting
# - Prompt caching, which the cost follows:
#   https://platform.claude.com/docs/en/build-with-claude/prompt-caching
#
# **To discuss.** The sweep ranks on one session. How many of your own sessions, and of
# which kinds, would you sweep before you trusted its best row?
