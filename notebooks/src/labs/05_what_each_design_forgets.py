# %% [markdown] id="title"
# # Lab 05 · What each design forgets
#
# The question people ask first about compaction is "why did my agent forget?". The
# notebooks so far measured characters, the bill, the outputs lost for good and the
# outputs a call missed; not, fact by fact, what the model can still *answer* once the
# context was compacted. The field has started to ask: Factory's evaluation of compaction (December 2025) puts probe questions to the
# model after a compaction, of four kinds: **recall** (a fact from earlier output),
# **artifact** (which files were read, written or changed), **continuation** (what the
# task is and what comes next) and **decision** (what was chosen, and why). A fifth kind
# is where summaries fail most visibly: the **latest value** of a fact that changed during
# the session (a setting the user changed, a test that failed then passed).
#
# Here the probes are drawn from the session itself, with no model (`compact_course.probes`):
# - recall: a line of a tool output that no other output has, near its middle;
# - artifact: each path read_file, write_file or edit_file was called on;
# - continuation: the current request, and the assistant's last stated next step;
# - decision: the user's instructions (sentences with a cue word such as "do not": the
#   exercise at the end works out the rule) and every earlier step or decision the
#   assistant stated (a sentence opening "Let me", "I'll", "First" and the like);
# - latest value: a fact stated more than once with different values (a line
#   `name = value`, a test's PASSED or FAILED, a sentence such as "Set the timeout to 45."):
#   the latest value is right, and an earlier one is **wrong**, not "can't tell".
#
# A probe gives the start of a line or sentence (its *cue*) and asks for the whole of it;
# an artifact probe asks whether a tool was called on a path. After a compaction, each
# probe is in one of four places (`compact_course.probes.status`, computed from the messages and
# the files, with no model):
# - **in context**: verbatim in what the model is sent;
# - **on disk**: the context names a file (a saved output, a transcript) that holds it, or
#   names a file that names one;
# - **summary only**: only a summary still says it;
# - **gone**: none of these.
#
# Then each probe is asked. The offline model answers through the real SDK, with
# `read_file` to re-read what the context names (`compact_course.bench.probe_ask`). It is a
# deterministic program, not a language model: it quotes only a text that starts with
# the cue, so it is never wrong, and its "I can't tell" counts what the context has lost.
# A latest-value question says how many values the fact took; the offline model quotes
# the last one only from a place that shows them all, so it never gives a stale value.
# An "on disk" probe counts as answered only when it re-read a file for it. With
# `ANTHROPIC_API_KEY` and `MODEL_ID` set, `python -m compact_course probe FILE` asks Claude the
# same questions (`--repeats N`: answers vary from run to run); this notebook stays offline.

# %% [markdown] id="goal"
# **Goal.** You will audit a compaction an agent recorded in its own session file, read
# the five kinds of probe on a session you can read, see where each step of the article
# and each design of labs 01-03 leaves them, check the article's claim about step 1 probe
# by probe, watch what each design keeps over five rounds of compaction, and write the
# rule a summary must keep.
# About 30 minutes on your own; not part of the 90-minute class (docs/TEACHING.md).

# %%
# %matplotlib inline
from collections import Counter

from compact_course.bench.probe import recorded_report, table
from compact_course.bench.probe_ask import Asker
from compact_course.bench.recorded import sample_paths
from compact_course.bench.rounds import rounds_table
from compact_course.lessons.exercises import check_instructions, hint
from compact_course.lessons.exercises.forgets import examples as instruction_examples
from compact_course.lessons.forgets import (STEP_HISTORIES, cost_and_forgotten, design_runs, recorded_audit,
                                            rounds_of, step_run, summary_keeps)
from compact_course.lessons.forgets_chart import cost_forgotten_chart, rounds_chart
from compact_course.probes import KINDS, STATUSES, count_by_kind, make_probes, score
from compact_course.sessions.histories import list_histories, load_history

asker = Asker.offline()
print(f"model: {asker.choice.model}, the offline model (no key, no network)")

# %% [markdown] id="a-compaction-recorded-in-a"
# ## A compaction recorded in a session file
#
# Your agent has compacted before, and its session file says so. Claude Code writes a
# `system` record with `subtype: "compact_boundary"`, then the summary the model wrote, in
# a `user` record marked `isCompactSummary`; Codex writes a `compacted` record. The file
# below is in Claude Code's shape, but it is **made, not recorded**: no Claude Code ran, and
# the project wrote its summary (`scripts/make_recorded_sessions.py`), so every answer is
# known. In it the user changes the timeout from 30 to 45, a test fails then passes, and a
# file's retries go from 2 to 5; then the context is compacted.

# %%
path = sample_paths()["claude-code"]
[(recorded, row, designs)] = recorded_audit(path, asker)
print(f"{path.name}: {recorded.kind} at line {recorded.line} ({recorded.trigger}), "
      f"after {len(recorded.before)} messages; the summary it records:\n")
print(recorded.summary)

# %% [markdown] id="each-probe-of"
# Each probe of the messages before the boundary then stands in one of the places above, by
# the same rule for the recorded compaction and for each of the course's designs, plus one
# more: **re-read** (in none of them, but the agent fetched it again later in the file: a tool
# call whose result holds it). The offline model answers from what the compaction left: its
# summary, the messages it kept word for word, the transcript it names. Each miss (a tool
# output not whole in what is sent) is priced as one re-read of that output, in base input
# tokens. The report also prints the slice's size beside the size the compaction was made at:
# this file holds only a small part of what the agent had sent (`python -m compact_course probe FILE
# --recorded` prints the same).

# %%
print(recorded_report(row, designs))

# %% [markdown] id="the-summary-kept"
# The summary kept the instruction, the edited file, the error and the next step. It lost
# the assistant's decisions; four probes came back only because the agent fetched them
# again after the boundary, each a re-read paid for. On this short session the course's designs keep everything but one output
# (the seed profile's step 3 runs on every call). Look at the changed facts:

# %%
for probe, where, answer in zip(row["_probes"], row["_places"], row["answers"]):
    if probe.kind == "latest value":
        print(f"{probe.detail:8} {where:10} latest {probe.expected!r}, stale {list(probe.stale)}; "
              f"offline model: {answer['score']}")
timeout = next(p for p in row["_probes"] if p.detail == "setting")
print("\nan answer from the summary, 'Set the timeout to 30.':", score(timeout, "Set the timeout to 30."))

# %% [markdown] id="the-summary-still"
# The summary still says "Set the timeout to 30." and "test_total FAILED": two stale values
# (the report's count). A model that trusts it answers 30, and that answer is scored wrong.
# The offline model sees one value where the question counts two, and says it can't tell;
# even the retries, which the summary got right, it won't vouch for, since it can't see the
# change. Run the audit on your own file:
# `python -m compact_course probe ~/.claude/projects/<project>/<session>.jsonl --recorded`
# (or a Codex rollout; `--json` for the figures).

# %% [markdown] id="five-kinds-of-probe-from-a"
# ## Five kinds of probe, from a session you can read
#
# `long_session` is the canned history of notebook 02: a status report on the course's
# workspace, 64 messages. Its second message is the user's instruction
# "Do not edit anything under web/. Keep the report under 300 words."

# %%
history = load_history("long_session")
messages, request = history["messages"], history["active_request"]
probes = make_probes(messages, request)
print(f"{history['name']}: {len(messages)} messages; active request: {request}")
print(f"{len(probes)} probes:", count_by_kind(probes))
for kind in KINDS:
    mine = [p for p in probes if p.kind == kind]
    print(f"\n{kind}: {len(mine)}")
    for p in mine[:3]:
        print(f"  message {p.source:2d} ({p.detail}): expects {p.expected!r}")
    if mine:
        print(f"  e.g. {mine[0].question}")

# %% [markdown] id="each-cue-was"
# Each cue was chosen so that every line or sentence of the session that starts with it
# is the expected one: whatever copy a model finds, it is the right answer. An artifact
# probe names the tool and the path and expects "yes".

# %% [markdown] id="each-step-of-the-article-alone"
# ## Each step of the article, alone
#
# Each step runs once, alone, in the seed profile (the article as written), on the canned
# history made to show it. Then every probe is located, and asked.

# %%
steps = {step: step_run(name, step, asker=asker) for step, name in STEP_HISTORIES}
for step, run in steps.items():
    counts = Counter(run["statuses"])
    right = sum(tries[0]["score"] == "right" for tries in run["answers"])
    wrong = sum(tries[0]["score"] == "wrong" for tries in run["answers"])
    print(f"{step:19} on {run['history']:15} {len(run['probes']):2d} probes: "
          + ", ".join(f"{s} {counts[s]}" for s in STATUSES)
          + f"; answered right {right}, wrong {wrong}")

# %% [markdown] id="step-2-moves"
# Step 2 moves the middle of `long_session` to a transcript and names it in its marker:
# what left the context is on disk, and the offline model re-reads it. Step 4 replaces
# `two_code_files` with a summary that names its transcript: the same. Only step 3 makes
# probes gone: in the seed profile it shrinks `five_reads`' older results to
# `[Earlier tool result omitted.]`, with no copy (flaw 1), and the model can't tell
# those lines.

# %% [markdown] id="the-articles-claim-about-step-1"
# ## The article's claim about step 1, probe by probe
#
# The article says of step 1's persisted output: 完整内容仍然可以从路径中取回 (the full
# content can still be retrieved from the path). On `huge_result`, step 1 moves the
# 288,000-character JSON to `.task_outputs/tool-results/` and leaves a 2,000-character
# preview. Every probe of the history, its place after step 1, and the answer:

# %%
run = steps["tool_result_budget"]
for probe, status, tries in zip(run["probes"], run["statuses"], run["answers"]):
    answer = tries[0]
    print(f"{probe.kind:12} {status:11} {answer['score']:10} re-read: {', '.join(answer['reads']) or '-'}")
    print(f"{'':12} expects {probe.expected[:80]!r}")
print("\ngone:", run["statuses"].count("gone"),
      "| every probe answered right:", all(t[0]["score"] == "right" for t in run["answers"]))

# %% [markdown] id="the-claim-holds"
# The claim holds on this history: the line past the preview is on disk, and the model
# gets it back by reading the path the preview names.

# %% [markdown] id="each-design-of-labs-01-03-at-the"
# ## Each design of labs 01-03, at the end of a session
#
# The designs of the benchmark (lab 02): `none`, `summary` (step 4 alone), `seed`,
# `default`, and the API's own context management as the offline server plays it
# (lab 03): `server-clear`, `server-compact`, `default+server-compact`; and
# `default+cold`, the default with its cache-aware switch on (`compact_when_cold`: on a
# call whose prompt cache has expired, it compacts down to the target).
# `long_session` is replayed call by call through each, then prepared for the next turn,
# and each probe is located and asked there.

# %%
runs = design_runs("long_session", asker)
print(table(runs))

# %% [markdown] id="the-seed-profiles"
# The seed profile's step 3 leaves most of the recall lines gone, and the model can't
# tell them; the default saves them first, so they are on disk and answered. This
# session is too short for the server designs' default triggers (100,000 and 150,000
# tokens): they change nothing here. The longer session below shows what they do.

# %% [markdown] id="the-summarys-weak-spot"
# ## The summary's weak spot
#
# Factory found every method it tried weakest on the artifact trail. What of the
# summaries this course writes (the offline model's extractive summary, step 4)? Each
# canned history is replaced by its summary message, and the transcript behind it is
# left out on purpose: what does the summary keep by itself?

# %%
kept = summary_keeps(list_histories())
for kind, row in kept.items():
    print(f"{kind:12} {row['probes']:3d} probes: in context {row['in context']:3d}, "
          f"kept by the summary {row['summary only']:3d}, gone {row['gone']:3d}")
print("\nthe decisions and instructions it drops:")
for name, detail, text in kept["decision"]["gone texts"]:
    print(f"  {name:15} {detail:10} {text!r}")

# %% [markdown] id="the-courses-summary"
# The course's summary lists every call it saw with its path, so here it keeps the whole
# artifact trail. Its weak spots are elsewhere: most recall lines, and the user's
# instructions (its docstring lists the user's constraints among what it leaves out).
# That is the offline stand-in's limit, not the article's design: the article's summary
# prompt asks a real model to keep the user's constraints (用户约束). A rule like the
# exercise's `instructions` is what would keep them.
# A summary written by Claude is not measured here; run `python -m compact_course probe` with a
# key to see yours.

# %% [markdown] id="what-each-design-costs-and-what"
# ## What each design costs, and what it forgets
#
# A longer session: the benchmark's tool-heavy session, 120 turns, seed 0. Each design's
# bill (lab 02's, in base input tokens) beside the probes gone at the end.

# %%
rows = cost_and_forgotten("tool-heavy", 120)
for row in rows:
    print(f"{row['design']:24} cost {row['cost'] / 1e6:5.2f}M (misses priced "
          f"{row['cost_repaid'] / 1e6:5.2f}M, {row['misses']} misses)  forgotten {row['forgotten']:3d} "
          f"of {row['probes']}  requests over the window {row['refused']:3d}  "
          f"summary calls {row['summary_calls']:2d}")
# A server compaction is booked as a summary call, so none here means it never triggered.
both = next(row for row in rows if row["design"] == "default+server-compact")
print(f"default+server-compact: {both['summary_calls']} summary calls, the server's "
      f"compactions and step 4's together")
cost_forgotten_chart(rows)

# %% [markdown] id="read-the-chart"
# Read the chart from the lower left: the cheapest design, misses priced (each miss
# billed as its re-read, lab 02), that forgets nothing. On this
# session that is the default profile (and the default under server compaction, which
# never triggers here: the cell prints 0 summary calls for it, the server's compactions
# included). The seed profile costs more and forgets; server compaction
# forgets what its summary dropped; clearing forgets the results it cleared, and at the
# API's default trigger it costs the most of the designs that compact. `none` forgets nothing and costs much
# more, and past the model's window the API would refuse it (lab 02).

# %% [markdown] id="round-after-round"
# ## Round after round
#
# One compaction is not where loss shows: the field finds it after several (a free-form
# summary keeping every planted fact at round 2 and a tenth by round 5, in one conformance
# kit). The benchmark's tool-heavy session, 400 turns, goes through each design; a **round**
# is one of the design's own compactions (a transcript written, or the server's compaction),
# and at each round every probe of the messages before it is located again: **held** in the
# request or its summary, or **reachable** (a file the request names holds it too).

# %%
rounds = rounds_of("tool-heavy", 400, ("none", "summary", "seed", "default", "server-compact"))
print(rounds_table(rounds))
rounds_chart(rounds, "tool-heavy", 400)

# %% [markdown] id="read-the-solid"
# Read the solid lines first: what the model has without re-reading. Every design that
# compacts holds less at each round: the summary design from 69% of the probes at round 1
# to 44% at round 5, the default from 27% to 6% (it moves outputs to disk rather than
# summarising them), server compaction from 32% to 12% over the four rounds it reaches.
# The dashed lines are what a re-read can still bring back: 100% at every round for the
# summary design and the default (their transcripts and saved outputs), 73% by round 5 for
# the seed profile (step 3's placeholders with no copy), and for server compaction no more
# than it holds: it keeps no file. Recall lines go first: no design holds one by round 5.
# The summary here is the offline model's extractive one; a model's summary may keep more
# or less, which `--recorded` measures on your own file.

# %% [markdown] id="check"
# ## Check yourself: the rule a summary must keep
#
# The course's summary drops the user's instructions. The probes find them with a rule,
# `compact_course.probes.instructions`, and you will write it again without reading it: work
# it out from the examples below. Each text is printed with the sentences the rule keeps
# (the package computes them). Which words make a sentence an instruction? Does their
# case matter? What of a word inside a longer one, and of Chinese, which puts no spaces
# between words? The rule reads words, not meaning: it keeps sentences a person would not
# call instructions and misses some a person would; find them, they tell you what the
# rule looks at.
#
# Then write `instructions(text)`: the sentences of `text` the rule keeps, in their
# order, stripped; `compact_course.probes.readable_units(text, "sentence")` cuts a text into
# sentences. The checker runs the package's rule and yours on canned texts you have not
# seen and on seeded random ones. `hint()` names the mistake it recognised.

# %%
for text, kept in instruction_examples():
    print(f"{text!r}\n    keeps {kept}")

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
# - A probe is a question whose answer the session holds; after compaction it is in
#   context, on disk, in a summary only, or gone, and that can be computed with no model,
#   for the course's designs and for the compaction your agent recorded
#   (`probe FILE --recorded`). A stale value a summary keeps makes an answer wrong.
# - Step 1, 2 and 4 of the article leave their text on disk; the seed profile's step 3
#   makes it gone. Round after round, what a design holds falls; only files keep it
#   reachable.
# - The course's summary keeps the artifact trail but drops recall lines and the user's
#   instructions: a rule like `instructions` is what a summary must keep.
#
# **Next:** lab 06, today's API: compaction that keeps thinking valid.

# %% [markdown] id="references"
# **References.**
# - The article, section 6 (the summary: facts only, the request kept apart) and its
#   four core lessons; the chapter's page upstream, in English:
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.en.md
# - The upstream summarizer's prompt: https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py
# - The API's compaction and its `instructions` for the summary:
#   https://platform.claude.com/docs/en/build-with-claude/compaction
# - Claude Code, what survives a compaction: https://code.claude.com/docs/en/context-window
# - Lost in the Middle: how language models use long contexts (Liu et al., 2023), why
#   "still in the context" is not "used": https://arxiv.org/abs/2307.03172
#
# **For discussion.**
# - Which of a user's instructions would you keep out of the summary altogether, and
#   where would you put them instead?
# - A probe whose answer is "in a summary only": is that remembered? What would you
#   measure to find out with a real model?

# %%
asker.close()
