# %% [markdown] id="title"
# # Lab 04 · Your own agent, your own history
#
# Every notebook so far replayed the course's own histories with the article's numbers.
# Your agent is not the course's: its tools return other sizes, its sessions run longer or
# shorter, and its model has its own window. Here you replay **a session of your own
# agent** through the pipeline, sweep the thresholds over it, choose settings for a stated
# window, and read the recipe that wires the pipeline into a plain SDK tool loop.
#
# The importers (`compact_course.sessions`) read these formats:
#
# - **Claude Code session files**, the JSONL Claude Code keeps under
#   `~/.claude/projects/<project>/`. The format is Claude Code's own and not documented;
#   the importer keeps the main thread and what the harness sent the model (a slash
#   command's expanded prompt, an `isMeta` record), skips a subagent's sidechain (a
#   subagent's own file imports as a session) and the caveat lines of local commands,
#   joins a reply Claude Code wrote block by block, puts a parallel batch back together,
#   and keeps a compaction Claude Code did as such, reading the messages before it too;
# - **OpenAI Codex CLI rollouts**, **Responses API request bodies** and **ATIF
#   trajectories** (harbor's interchange format), turned into the Messages API's blocks;
# - **plain Messages API histories**: a JSON list, `{"messages": [...]}`, or one message a
#   line;
# - **OpenAI chat-format logs** (`tool_calls`, `role: "tool"`), turned into the Messages
#   API's blocks.
#
# A file that does not parse, or whose tool pairs do not match, is refused with the file,
# the line and what is wrong: nothing half-converted is replayed. A file no importer
# claims is refused with what it looks like.

# %% [markdown] id="goal"
# **Goal.** You will load a session file of another agent, replay it, sweep the
# thresholds over it, choose settings for a window and a budget, and see the four lines a
# tool loop needs. About 30 minutes.

# %%
# %matplotlib inline
from IPython.display import display

from context_compact import CompactionConfig
from compact_course.display.text import plural
from compact_course.lessons.charts import timeline_chart
from compact_course.lessons.exercises import check_settings, hint
from compact_course.lessons.replay import replay, timeline
from compact_course.lessons.sweep import describe, limit_of, sweep
from compact_course.lessons.sweep_chart import sweep_chart
from compact_course.sessions.histories import data_dir, open_session, records_in, sample_path

# Put the path of one of your own sessions here. Until then the sample opens.
MY_SESSION = "~/.claude/projects/my-project/my-session.jsonl"

history = open_session(MY_SESSION)
print(f"{history['shown_path']}: {history['format']}, {len(history['messages'])} messages")

# %% [markdown] id="what-the-file-holds-and-what-the"
# ## What the file holds, and what the model saw
#
# The sample, `data/sessions/claude_code_sample.jsonl`, is **made, not recorded**: no
# Claude Code ran. `scripts/make_claude_session.py` writes it in Claude Code's format from
# the course's workspace, with the real output of the course's tools, a subagent that
# reads the five lesson READMEs in its own sidechain, and a file-history snapshot before an
# edit. Its first record says so. Count its records by kind, then what the importer kept:

# %%
for kind, count in sorted(records_in(sample_path()).items()):
    print(f"{kind:24} {count:3} records")
sample = open_session(None)
print()
print(f"main thread: {len(sample['messages'])} messages, "
      f"{sum(m['role'] == 'assistant' for m in sample['messages'])} model replies")
print(f"title:   {sample['title'][:60]}...")
print(f"request: {sample['active_request']}")

# %% [markdown] id="every-import-also"
# Every import also says what it read and what it left out, by kind and with the lines:
# the history's `import_report` (its `import_notes` hold the same in English, for a terminal).

# %%
from compact_course.sessions.import_report import report_lines

for line in report_lines(sample["import_report"]):
    print(line)

# %% [markdown] id="the-sidechain-records"
# The sidechain records and the meta line are left out: that line is a local command's
# caveat, while the `isMeta` record that carries a slash command's prompt is kept (the
# report's "1 user (isMeta)"). The `summary` and the
# `file-history-snapshot` are bookkeeping, not messages. There are more assistant records
# than model replies: Claude Code writes one record per content block, and the importer
# joins the records that share a `message.id` back into one reply. The active request is
# the newest text a person typed.

# %% [markdown] id="todays-claude-code-and-the-other"
# ## Today's Claude Code, and the other formats
#
# Since 2.1.x Claude Code files each result of a parallel batch under the record of its own
# `tool_use` (`sourceToolAssistantUUID` says the same), so one batch fans out into
# branches; the importer puts each batch back together. It keeps a compaction Claude Code
# did as such, in the history's `compactions`: where it happened, and the summary that
# replaced the messages before it. `data/sessions/claude_code_2_1.jsonl` is made like the
# sample, by `scripts/make_sessions.py`; its summary is written by the script, not by a model.

# %%
from context_compact.messages import tool_results, tool_uses
from compact_course.sessions.histories import fanned_out, todays_samples

today = todays_samples()[0]
print(f"{today.name}: {fanned_out(today)} tool results filed under their own tool_use record")
newer = open_session(today)
used = sum(len(tool_uses(m)) for m in newer["messages"])
answered = sum(len(tool_results(m)) for m in newer["messages"])
print(f"read as {len(newer['messages'])} messages: {used} tool calls, {answered} results")
for c in newer["compactions"]:
    print(f"compacted at line {c['line']} ({c['trigger']}, {c['pre_tokens']:,} tokens before); "
          f"messages[:{c['at']}] came before it; the summary begins:")
    print("   ", c["summary"].splitlines()[0][:90])

# %% [markdown] id="the-other-made"
# The other made samples, one of each format, import the same way, and `python -m compact_course
# replay FILE` takes each of them:

# %%
for path in todays_samples()[1:]:
    other = open_session(path)
    left = list(other["import_report"]["left_out"])
    print(f"{path.name[:24]:24} {other['format']:9} {len(other['messages']):2} messages, "
          f"{len(other['compactions'])} recorded compaction(s); left out: {len(left)} kinds "
          f"({', '.join(left[:3])}{', ...' if len(left) > 3 else ''})")

# %% [markdown] id="one-prepare-over-the-whole"
# ## One `prepare` over the whole session
#
# As in lab 01, `replay` runs the pipeline once over the whole list, with the default
# profile and the article's numbers:

# %%
print(replay(history).table())

# %% [markdown] id="call-by-call"
# ## Call by call
#
# `timeline` feeds the session to `prepare` one model call at a time, as your agent would
# have, had it run the pipeline. The replies are the recorded ones: a compactor cannot
# change what the model went on to do.

# %%
calls = timeline(history)
display(timeline_chart(calls, title=f"{history['name']}: the context at each model call"))

# %% [markdown] id="sweep-the-thresholds-for-a"
# ## Sweep the thresholds for a window
#
# Say your model's window is 16,000 tokens. The sample is small (the line under the grid
# prints its peak with no compaction), so the windows here are small too; on a model's
# window of 200,000 tokens, or 1M, the same question comes once a session grows past it,
# and the same sweep answers it. `sweep` replays the session once per setting
# of the grid below, in both profiles. The context limit is either the article's, in
# characters (`context_char_limit`), or one in tokens (`context_token_limit`, counted here
# by the offline model's estimate); each is crossed with every value of
# `keep_recent_results` and `snip_target_messages`. Each row measures
#
# - **cost**: the session's bill in base input tokens, as in lab 02: a request that
#   extends the previous one reads that one from the prompt cache at 0.1 a token and
#   writes the rest at 1.25; each recorded reply is output, at 5; each summary call is
#   billed too (the table's first line names the model priced);
# - **+misses**: that bill with each miss (below) priced as its re-read: the newest
#   earlier output holding each name the call lacked, read back;
# - **lost**: tool outputs that can no longer be read verbatim anywhere;
# - **misses**: model calls whose recorded reply used a name (`snake_case`, 8 characters
#   or more) that only an earlier tool output held, when that name was nowhere in what the
#   call was sent: not in a result, a preview or a summary. This is the course's own
#   measure: your model would have had to read that output again;
# - **peak tokens**: the largest request, by the offline model's estimate;
# - **forgot**: the session's probes (lab 05's five kinds: recall, a line of an output;
#   artifact, a file touched; continuation, the request and the stated next step;
#   decision, a stated decision or a user's instruction; latest value, the last value
#   of a fact that changed) that nothing the setting sends
#   for the next turn, no file it names and no summary keeps.
#
# The ranking keeps only the rows that forget no more than the default profile at its
# defaults (the line under the table prints how many that is, and how many rows it leaves
# out, marked `-`). Of those, the best row (`*`) fits the window and loses nothing, then has
# the fewest misses, then the lowest bill with misses priced (`+misses`). A `!` marks a
# row over the window.

# %%
WINDOW = 16_000
GRID = {"context_char_limit": (25_000, 50_000, 100_000), "context_token_limit": (6_000, 12_000),
        "keep_recent_results": (1, 3, 6), "snip_target_messages": (20, 40)}
swept = sweep(history, GRID, window_tokens=WINDOW, probe=True)
print(describe(swept))

# %% [markdown] id="the-chart-draws"
# The chart draws every row: cost across, misses up. Filled dots lose nothing, hollow ones
# lose outputs, crosses do not fit the window; the star is the best row, the dashed line
# the cost of no compaction.

# %%
display(sweep_chart(swept))

# %% [markdown] id="read-it-with"
# Read it with the checks below. The seed profile's step 3 keeps no copy of what it
# removes, so its rows lose outputs and forget probes, and the ranking leaves them out;
# the default's rows lose none and forget none. In the default
# profile, in either unit, the lowest limit has the cheapest row and the most misses; but
# the ranges of cost can overlap (the last lines print where they do), so a lower limit
# is not cheaper whatever the other knobs are set to. The largest limit in characters
# does not fit a window this small.

# %%
seed_rows = [r for r in swept.rows if r.profile == "seed"]
default_rows = [r for r in swept.rows if r.profile == "default"]
print(f"seed rows that lose outputs:    {sum(r.lost > 0 for r in seed_rows)} of {len(seed_rows)}")
print(f"default rows that lose outputs: {sum(r.lost > 0 for r in default_rows)} of {len(default_rows)}")
print(f"seed rows that forget probes:   {sum(r.forgotten > 0 for r in seed_rows)} of {len(seed_rows)}; "
      f"default rows: {sum(r.forgotten > 0 for r in default_rows)} of {len(default_rows)}")
by_limit = {}
for row in default_rows:
    by_limit.setdefault(limit_of(row.settings), []).append(row)
for limit, rows in by_limit.items():
    print(f"default, limit {limit:>11}: cost {min(r.cost for r in rows):>9,} to "
          f"{max(r.cost for r in rows):>9,}, misses {min(r.misses for r in rows)} to "
          f"{max(r.misses for r in rows)}, fits {WINDOW:,} tokens: "
          f"{all(r.fits(WINDOW) for r in rows)}")
limits = list(by_limit)
for low, high in zip(limits, limits[1:]):
    if low.split()[-1] == high.split()[-1]:   # the same unit
        overlap = max(r.cost for r in by_limit[low]) >= min(r.cost for r in by_limit[high])
        print(f"cost ranges of {low.strip()} and {high.strip()} overlap: {overlap}")

# %% [markdown] id="the-chosen-settings"
# ## The chosen settings
#
# The best row's settings are a `CompactionConfig`: pass it to your compactor. A limit in
# tokens needs a token measure beside it, `context_compact.tokens.TokenMeasure(client, model)`,
# which asks your model's own `count_tokens`; the compactor refuses a limit in one unit
# measured in the other.

# %%
best = swept.best
config = CompactionConfig.named(best.profile, **best.settings)
print(f"CompactionConfig.named({best.profile!r}, **{best.settings})")
print(f"its context limit counts {config.unit}: {config.context_limit:,}")
print(f"cost {best.cost:,} of {swept.baseline['cost']:,} without compaction, "
      f"{plural(best.misses, 'miss', 'misses')}, peak {best.peak_tokens:,} tokens")

# %% [markdown] id="the-recipe-four-lines-in-your"
# ## The recipe: four lines in your own loop
#
# [docs/RECIPE.md](../docs/RECIPE.md) explains them; `examples/own_loop.py` is the whole
# loop, and a test runs it against the offline model. These are its four places:
#
# 1. `prepare(messages, request)` before every model call;
# 2. `reactive_compact(messages, request)` once when the API still answers "prompt is too
#    long", then the same call again;
# 3. the `compact` tool: run the whole batch, append every result, only then
#    `compact_history`;
# 4. the current request passed to each of them.

# %%
recipe = (data_dir().parent / "examples" / "own_loop.py").read_text(encoding="utf-8")
start = recipe.index("def ask(")
print(recipe[start:recipe.index("\n\n\n", start)])

# %% [markdown] id="check"
# ## Check yourself: settings for a smaller model
#
# Your team moves this agent to a model whose window is 4,000 tokens, and can spend a cost
# of 30,000 on this session (in the sweep's units). The cell prints how many rows of the
# grid above fit that window: the answer is not in the table. Before you run anything,
# predict which knob moves the peak, in which direction, and what that does to the cost.
# Then choose a profile, one context limit (in characters or in tokens) and the other two
# thresholds. The checker replays your choice (any values) and judges it: it must fit the
# window, lose nothing, forget no more probes than the default profile at its defaults,
# and stay within the budget (with no row of the grid fitting, it has no best row to
# compare misses with, and says so).

# %%
SMALL_WINDOW, BUDGET = 4_000, 30_000
print(f"rows of the grid that fit {SMALL_WINDOW:,} tokens: "
      f"{sum(r.fits(SMALL_WINDOW) for r in swept.rows)} of {len(swept.rows)}")
my_choice = None  # e.g. {"profile": "default", "context_char_limit": 50_000,
#                         "keep_recent_results": 3, "snip_target_messages": 30}

result = check_settings(my_choice, swept, budget=BUDGET, window=SMALL_WINDOW)

open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="recap"
# **Recap.**
# - The importers read Claude Code (2.1.x included, its own compactions kept), Codex CLI,
#   Responses API, ATIF, Messages API and OpenAI chat files, and name the line of anything
#   they cannot convert; `python -m compact_course replay FILE` and `sweep FILE` take them all.
# - A sweep over your own session shows what each setting costs, loses, forgets and misses
#   for your window; it ranks only the rows that forget no more than the default, and the
#   best row is a `CompactionConfig` to keep.
# - Four lines wire the pipeline into any tool loop: `prepare`, `reactive_compact` on the
#   refusal, `compact_history` after the whole batch, and the current request passed in.
#
# **Next:** lab 05, what each design forgets.

# %% [markdown] id="references"
# **References.**
# - The article, section 九 (the pipeline before every model call, in the agent loop),
#   and its code: https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py
# - Token counting, for a limit in tokens measured by your own model:
#   https://platform.claude.com/docs/en/build-with-claude/token-counting
# - Prompt caching, which the sweep's cost column follows:
#   https://platform.claude.com/docs/en/build-with-claude/prompt-caching
# - Lindenbauer et al., "The Complexity Trap: Simple Observation Masking Is as Efficient as
#   LLM Summarization for Agent Context Management" (2025): https://arxiv.org/abs/2508.21433
#
# **To discuss.**
# - The sweep ranks on one session. How many of your own sessions, and of which kinds, would
#   you sweep before you trusted its best row?
# - Your agent works on a private repository. Which of the four kinds of probe would you add
#   or weigh more, and why?
