# %% [markdown] id="title"
# # Lab 05 · What each design forgets
#
# **The question.** After a compaction, what can the model still answer, and what is
# gone for good?
#
# Factory's evaluation (https://factory.ai/news/evaluating-compression) asks **probe**
# questions after a compaction, of four kinds: **recall** (a fact from an earlier
# output), **artifact** (which files were read or changed), **continuation** (the task and
# the next step) and **decision** (what was chosen). The course adds a fifth, **latest
# value**: the last value of a fact that changed (a setting, a test that failed then
# passed); an earlier value is **stale**, and an answer that gives it is scored **wrong**.
#
# The probes are drawn from the session, with no model (`compact_course.probes`), each
# found in one of four **places**: **in context** (verbatim in the request sent), **on
# disk** (in a file the context names), **summary only**, or **gone**. A probe is **held**
# when it is in context or in a summary, **reachable** when it is held or on disk. Then
# the offline model (a program, not a language model) answers each through the real SDK,
# only from text it finds: its "I can't tell" counts what the context has lost.

# %% [markdown] id="goal"
# **Goal.** You will audit a recorded compaction, watch what five **designs** (ways to
# compact, as in labs 02-03) hold compaction after compaction, and write the rule a summary must
# keep. About 35 minutes on your own; not part of the 90-minute class (docs/TEACHING.md).

# %%
# %matplotlib inline
from collections import Counter

from compact_course.bench.probe import recorded_report, table
from compact_course.bench.probe_ask import Asker
from compact_course.bench.recorded import sample_paths
from compact_course.bench.rounds import curves, rounds_table
from compact_course.lessons.exercises import check_instructions, hint
from compact_course.lessons.exercises.forgets import examples as instruction_examples
from compact_course.lessons.forgets import (STEP_HISTORIES, cost_and_forgotten, design_runs, recorded_audit,
                                            rounds_of, step_run, summary_keeps)
from compact_course.lessons.forgets_chart import cost_forgotten_chart, rounds_chart
from compact_course.probes import score
from compact_course.sessions.histories import list_histories

asker = Asker.offline()
print(f"model: {asker.choice.model}, the offline model (no key, no network)")

# %% [markdown] id="a-compaction-recorded-in-a"
# ## A compaction recorded in a session file
#
# Claude Code marks a compaction with a `compact_boundary` record, then the summary the
# model wrote. The file below has that shape but is **made, not recorded**
# (`scripts/make_recorded_sessions.py`), so every answer is known. In it the user changes
# the timeout from 30 to 45, a test fails then passes, and a file's retries go from 2 to 5;
# then the context is compacted. The summary it records:

# %%
path = sample_paths()["claude-code"]
[(recorded, row, designs)] = recorded_audit(path, asker)
print(recorded.summary)

# %% [markdown] id="each-probe-of"
# Each probe of the messages before the `compact_boundary` is placed, with one more place:
# **re-read** (the agent fetched it again after the boundary, a call paid for). Then the
# three latest-value probes:

# %%
print(f"{len(row['_probes'])} probes:", dict(Counter(row["_places"])))
for probe, where, answer in zip(row["_probes"], row["_places"], row["answers"]):
    if probe.kind == "latest value":
        print(f"{probe.detail:8} {where:13} latest {probe.expected!r} (was {probe.stale[0]!r}); "
              f"offline model: {answer['score']}")
timeout = next(p for p in row["_probes"] if p.detail == "setting")
print("an answer from the summary, 'Set the timeout to 30.':", score(timeout, "Set the timeout to 30."))

# %% [markdown] id="the-summary-still"
# The summary still says "Set the timeout to 30.": a model that trusts it answers 30,
# scored wrong. The question says the timeout took two values; the offline model finds
# one, which may be stale, so it answers "can't tell". Audit your own file the same way:
# `python -m compact_course probe ~/.claude/projects/<project>/<session>.jsonl --recorded`.

# %% [markdown] id="round-after-round"
# ## Compaction after compaction
#
# One compaction is not where loss shows. The benchmark's tool-heavy session, 400 turns,
# goes through five designs: `none`, `summary` (step 4 alone), the `seed` and `default`
# profiles, and `server-compact` (the API's compaction, as the offline server plays it).
# A **round** is one of the design's own compactions; at each, the cell counts the probes
# made so far that are held, and those reachable.

# %%
runs = rounds_of("tool-heavy", 400, ("none", "summary", "seed", "default", "server-compact"))
for design, points in curves(runs).items():
    if not points:
        print(f"{design:15} never compacts")
        continue
    (_, held, reach), (last, held_last, reach_last) = points[0], points[-1]
    print(f"{design:15} rounds 1-{last}: held {held:.0%} -> {held_last:.0%}, "
          f"reachable {reach:.0%} -> {reach_last:.0%}")
rounds_chart(runs, "tool-heavy", 400)

# %% [markdown] id="read-the-solid"
# The solid lines are held (what the model has without re-reading): they fall over the
# rounds. The default holds little, since it moves outputs to disk rather than summarising
# them. The dashed lines are reachable (what a re-read brings back): all of it for
# `summary` and `default` (their transcripts and saved outputs), less for `seed` (step 3's
# placeholders have no copy), and for `server-compact` no more than it holds: it keeps no file.
#
# The reference tables (each step alone, each design at a session's end, the bill, every
# round by kind) print with `show_all = True`.

# %%
show_all = False   # True: the reference tables, as lab 02 prints them
if show_all:
    print(recorded_report(row, designs))
    for step, name in STEP_HISTORIES:
        run = step_run(name, step, asker=asker)
        print(step, name, dict(Counter(run["statuses"])))
    print(table(design_runs("long_session", asker)))
    for kind, kept in summary_keeps(list_histories()).items():
        print(kind, {k: v for k, v in kept.items() if k != "gone texts"})
    bill = cost_and_forgotten("tool-heavy", 120)
    for design_row in bill:
        print({k: design_row[k] for k in ("design", "cost_repaid", "forgotten", "probes", "refused")})
    print(rounds_table(runs))
    from IPython.display import display
    display(cost_forgotten_chart(bill))

# %% [markdown] id="check"
# ## Check yourself: the rule a summary must keep
#
# Step 4's summary, as the offline model writes it, drops the user's instructions ("Do not
# edit anything under web/."). The probes find them with a rule,
# `compact_course.probes.instructions`; write
# it again from the examples below, each printed with the sentences the rule keeps.
# Which words make a sentence an instruction? Does case matter? A word inside a longer one? Chinese, with no
# spaces between words? The rule reads words, not meaning: the sentences it gets "wrong"
# tell you what it looks at.
#
# Write `instructions(text)`: the sentences of `text` the rule keeps, in order, stripped
# (`compact_course.probes.readable_units(text, "sentence")` cuts sentences). The checker
# compares yours with the package's on unseen and seeded random texts.

# %%
for text, kept in instruction_examples():
    print(f"{text!r} -> {kept}")

# %%
def instructions(text):
    raise NotImplementedError  # your code here


result = check_instructions(instructions)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="recap"
# **Recap.**
# - A probe is a question the session can answer; its place after a compaction is
#   computed with no model, for your own session file too (`probe FILE --recorded`).
# - A summary that keeps a stale value makes an answer wrong, not missing.
# - Round after round every design holds less; only files keep the rest reachable.
#
# **Next:** lab 06, today's API: compaction that keeps thinking valid.

# %% [markdown] id="references"
# **References.**
# - Factory, Evaluating context compression: https://factory.ai/news/evaluating-compression
# - The article, section 6 (the summary: facts only, the request kept apart):
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.en.md (the English page upstream;
#   where it differs from the article: docs/AFTER_THE_ARTICLE.md)
# - The API's compaction and its `instructions`: https://platform.claude.com/docs/en/build-with-claude/compaction
# - Claude Code, what survives a compaction: https://code.claude.com/docs/en/context-window
#
# **For discussion.** A probe whose answer is "in a summary only": is that remembered?
# What would you measure to find out with a real model?

# %%
asker.close()
