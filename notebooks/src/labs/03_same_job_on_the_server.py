# %% [markdown] id="title"
# # Lab 03 · The same job on the server
#
# The article's pipeline runs on the client: before every call, your code rewrites the
# `messages` list. The Anthropic API now offers to do much of this job on its side, in
# three beta features that the pinned SDK (`anthropic` 2.17.0) carries in
# `anthropic.types.beta`:
#
# | the API's feature | beta | what it does | the article's nearest step |
# |---|---|---|---|
# | context editing, `clear_tool_uses_20250919` | `context-management-2025-06-27` | clears old tool results before the model reads the prompt; your list stays whole | step 3, `micro_compact` |
# | server-side compaction, `compact_20260112` | `compact-2026-01-12` | past a trigger, summarizes and answers with a `compaction` block you send back | step 4, `compact_history` |
# | on-demand compaction, `compaction={"type": "summarize"}` | `compact-2026-09-04` | compacts now; the SDK's tool runner sends it through `compact_before_next_turn()` | the `compact` tool |
#
# **What the API's docs recommend.** The context-editing page
# (https://platform.claude.com/docs/en/build-with-claude/context-editing; a copy of its
# Markdown, dated 2026-05-09, is at
# https://kb.kakadata.com/entries/source-url-https-platform-claude-com-docs-en-build-with-claude-context-editing)
# opens its "Overview" with this note: "For most use cases,
# server-side compaction is the primary strategy for managing context in long-running
# conversations. The strategies on this page are useful for specific scenarios where you
# need more fine-grained control over what content is cleared." This page starts there,
# then measures each design
# against the course's default profile (the course's fix of the article, not the
# article's own design) at the same trigger and at the same peak.
#
# Everything on this page runs against the **offline server**, which plays these three
# features by the SDK's types. It is a program, not a language model: its summary is the
# same state summary step 4 gets from it, and where the real API's behaviour is not
# documented (its summary text, its exact token counts, what clearing leaves in place of
# a result) the page says which choice is the offline server's. `docs/AFTER_THE_ARTICLE.md`
# lists them.

# %% [markdown] id="goal"
# **Goal.** You will learn to write the requests for the API's own context management,
# to read what it answers (`applied_edits`, the `compaction` block, `usage.iterations`),
# and to judge, on one canned session, what each design costs and loses against the
# course's pipeline; then you will pick the edits for a budget. About 35 minutes.

# %%
# %matplotlib inline
import json

import anthropic

from compact_course.agent.model import offline_client
from compact_course.bench.server_designs import ServerSettings, model_calls
from compact_course.lessons import server_replay as sr
from compact_course.lessons.exercises import check_edits_for_budget, hint
from compact_course.lessons.exercises import server_edits as budget
from compact_course.offline import MODEL_NAME
from compact_course.offline.api import context_edits
from compact_course.offline.api import server_compaction as sc
from compact_course.offline.api.server import start_offline_server
from compact_course.sessions.histories import data_dir, load_history

server = start_offline_server()
client = offline_client(server.base_url)
history = load_history("timeline_150")["messages"]
print(f"model: the offline server ({MODEL_NAME}), on 127.0.0.1")
print(f"timeline_150: {len(history)} messages, {len(model_calls(history))} model calls")

# %% [markdown] id="the-request-bodies-in-full"
# ## The request bodies, in full
#
# A tiny conversation (one request, one tool call) and the three ways to ask the server
# for help. Each body is what the SDK sends as JSON: the model, `max_tokens`, the tiny
# conversation printed once, and the keys each feature adds, printed under its beta. The
# beta goes in the `anthropic-beta` header, which `betas=[...]` fills.

# %%
tiny = [{"role": "user", "content": "What is the title of s01_agent_loop/README.md?"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Reading it."},
            {"type": "tool_use", "id": "toolu_01", "name": "read_file",
             "input": {"path": "s01_agent_loop/README.md", "limit": 3}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01",
             "content": "# s01: The Agent Loop - One Model, One List, One While"}]}]
CLEAR = {"type": "clear_tool_uses_20250919",
         "trigger": {"type": "input_tokens", "value": 30000},
         "keep": {"type": "tool_uses", "value": 3},
         "clear_at_least": {"type": "input_tokens", "value": 5000},
         "exclude_tools": ["glob"],
         "clear_tool_inputs": False}
COMPACT = {"type": "compact_20260112",
           "trigger": {"type": "input_tokens", "value": 150000},
           "pause_after_compaction": False}
bodies = {
    "context-management-2025-06-27": {"context_management": {"edits": [CLEAR]}},
    "compact-2026-01-12": {"context_management": {"edits": [COMPACT]}},
    "compact-2026-09-04": {"compaction": {"type": "summarize"}},
}
print("every body:", json.dumps({"model": MODEL_NAME, "max_tokens": 1000, "messages": "tiny"}))
print("tiny =", json.dumps(tiny, indent=1))
for beta, extra in bodies.items():
    print(f"\nanthropic-beta: {beta}; the body adds:")
    print(json.dumps(extra, indent=1))
    reply = client.beta.messages.create(model=MODEL_NAME, max_tokens=1000, messages=tiny, betas=[beta],
                                        **extra)
    print(f"-> stop_reason {reply.stop_reason}, content {[b.type for b in reply.content]}, "
          f"context_management {reply.context_management}")

# %% [markdown] id="clearing-through-the-sdk"
# Each body went to the offline server as printed. The tiny conversation is far under
# every trigger, so the first two answer as usual, with no edit applied; the third
# compacts at once and answers with the `compaction` block alone. Every knob of
# `clear_tool_uses_20250919` is there: `trigger` (input tokens, or a number of tool
# uses), `keep` (the newest tool uses that stay), `clear_at_least` (clear only if at
# least this much goes), `exclude_tools` (never cleared) and `clear_tool_inputs` (also
# clear the calls' inputs: `true`, or a list of tool names).
#
# ## Clearing, through the SDK
#
# Take the session at its 100th model call and send it with the default edit (trigger
# 100,000 input tokens, keep 3). `count_tokens` with the same `context_management`
# answers the count after clearing and the original count.

# %%
at_100 = history[:model_calls(history)[99]]
default_clear = {"edits": [{"type": "clear_tool_uses_20250919"}]}
reply = client.beta.messages.create(model=MODEL_NAME, max_tokens=1000, messages=at_100,
                                    betas=["context-management-2025-06-27"],
                                    context_management=default_clear)
counted = client.beta.messages.count_tokens(model=MODEL_NAME, messages=at_100,
                                            betas=["context-management-2025-06-27"],
                                            context_management=default_clear)
(applied,) = reply.context_management.applied_edits
print(f"{len(at_100)} messages, {counted.context_management.original_input_tokens:,d} input tokens as sent")
print(f"applied: {applied.type}, {applied.cleared_tool_uses} tool uses cleared, "
      f"{applied.cleared_input_tokens:,d} input tokens cleared")
print(f"the model read {reply.usage.input_tokens:,d} tokens; count_tokens says {counted.input_tokens:,d}")
print(f"in place of each cleared result (the offline server's text): {context_edits.CLEARED_RESULT}")

# %% [markdown] id="one-session-through-each-design"
# The list you sent is unchanged: clearing happened on the server, on its copy. So
# nothing is lost for good, and on the next call you send the whole list again. The
# API's docs say only that a cleared result is replaced by "placeholder text"; the line
# printed above is the offline server's. So are the token counts: the offline estimate
# of `compact_course.offline.tokens`, not the API's tokenizer.
#
# ## One session through each design
#
# Now replay the whole session, call after call, through five designs. The model's
# replies are taken from the history, so a design cannot change what the model does next;
# what changes is what it reads.
#
# - **none**: the list as it grows;
# - **default**: the pipeline in the course's default profile, on the client (`prepare`);
# - **server-clear**: `clear_tool_uses_20250919` with its defaults;
# - **server-compact**: `compact_20260112` with a trigger of 100,000 tokens (its default
#   150,000 is more than this session ever reaches, the cell prints by how much);
# - **default+server-compact**: the course's default profile first, server-side
#   compaction on what it sends. Its row equals default's: the default never sends
#   anywhere near 100,000 tokens (its largest request, `max ktok`, is in the table), so
#   the server never compacts.

# %%
settings = ServerSettings(compact_trigger=100_000)
runs = sr.replay_designs(history, settings)
rows = sr.design_totals(runs)
print(sr.totals_table(rows))
print()
none = runs["none"]["calls"]
jump = max(range(1, len(none)), key=lambda k: none[k]["tokens"] - none[k - 1]["tokens"])
print(f"largest request with no management: {max(c['tokens'] for c in none):,d} tokens; "
      f"compact_20260112's default trigger: {sc.DEFAULT_TRIGGER:,d}")
step = none[jump]["tokens"] - none[jump - 1]["tokens"]
print(f"the largest step: call {none[jump]['call']}, +{step:,d} tokens")

# %% [markdown] id="the-columns-thousands"
# The columns: thousands of input tokens read by the model over the session (`read
# ktok`), thousands of them written to the prompt cache (`written`), the cost in
# thousands of base input tokens' price, booked as the benchmark books it (the offline
# server's prompt cache; Claude Sonnet 5's prices: input 1, cache write 1.25, cache read
# 0.1, output 5; a summary's input and output too; the calls are sent back to back, so
# nothing expires), the calls whose request does not start with the whole previous one
# (`breaks`), summary calls, the largest request, and tool outputs lost for good (not
# in the client's list, nor in a file the pipeline saved).

# %%
sr.replay_chart(runs, "timeline_150", trigger=100_000)

# %% [markdown] id="what-clear-at-least-buys-with"
# Read the chart from the top. A large batch of results arrives at the call the cell
# above prints: the lines of none, server-clear and server-compact jump with it. The
# course's default profile keeps it out of the prompt at once, saved to disk with a
# preview, so its line hardly moves (its largest request, in the table, stays small, and
# it loses nothing: the batch is on disk). When the prompt passes the trigger,
# server-clear clears every old result but the newest 3 and server-compact replaces
# everything with one summary: both fall. After that, server-compact's cache share
# (bottom) recovers, while server-clear's drops to zero on about every other call past
# the trigger (`breaks` 43 against 1 in the table): each new tool use moves the cleared boundary
# (next section). Compare `breaks` in the table, and the default profile's
# requests: small, so each of its breaks costs little.
#
# ## What `clear_at_least` buys with the prompt cache
#
# The SDK's docstrings define the two knobs: `keep` is the "Number of tool uses to
# retain in the conversation", and `clear_at_least` a gate: "Context will only be
# modified if at least this many tokens can be removed". So, past the trigger, every
# tool use but the newest `keep` is cleared, and when one more tool use arrives, the one
# that was 3rd newest is cleared too: the prompt changes there, and the cache reads
# nothing of the previous request (a breakpoint at each request's end). The same session
# with a trigger of 30,000 tokens:

# %%
print(sr.totals_table(sr.clear_at_least_rows(history, 30_000, (0, 5_000, 20_000))))

# %% [markdown] id="what-a-compaction-block-holds"
# `clear_at_least` holds clearing back until that much can go at once; after that, the
# gate is met on every call. So it delays the first break, and no more: the table's
# `breaks` fall from 60 to 58 at 5,000, and not at all from 5,000 to 20,000. What the API does between two requests is not
# documented: the offline server clears each request from scratch, as the docstrings
# read (its choice, `docs/AFTER_THE_ARTICLE.md`), and the cost of server-clear in these
# tables rests on that reading.
#
# ## What a `compaction` block holds, and why it must go back
#
# Ask for server-side compaction on the session at its 100th call, with a trigger of
# 50,000 tokens (the lowest the offline server accepts, `sc.MIN_TRIGGER`: its choice; the
# SDK's types name only the default, 150,000) and `pause_after_compaction`, so the reply
# is the block alone.

# %%
paused = client.beta.messages.create(
    model=MODEL_NAME, max_tokens=1000, messages=at_100, betas=["compact-2026-01-12"],
    context_management={"edits": [{"type": "compact_20260112", "pause_after_compaction": True,
                                   "trigger": {"type": "input_tokens", "value": sc.MIN_TRIGGER}}]})
block = paused.content[0]
print(f"stop_reason: {paused.stop_reason}; content: {[b.type for b in paused.content]}")
iterations = [f"{i.type} (in {i.input_tokens:,d}, out {i.output_tokens:,d})" for i in paused.usage.iterations]
print(f"usage: input {paused.usage.input_tokens}, output {paused.usage.output_tokens}; "
      f"iterations: {', '.join(iterations)}")
print(f"content, {len(block.content):,d} characters, begins:")
print("\n".join(block.content.splitlines()[:8]))
print(f"encrypted_content, read back: {sc.block_meta(block.model_dump())}")
print(f"signature: {len(block.signature)} characters; tool_changes: {block.tool_changes}")

# %% [markdown] id="the-block-holds"
# The block holds the summary (`content`), opaque metadata (`encrypted_content`: the real
# API's is encrypted; the offline server's is plain base64 of what the block stands for,
# printed above), a `signature`, and `tool_changes`. The `compaction` entry of
# `usage.iterations` is, in the SDK's docstring, the usage of the compaction operation
# itself, not the size of the context it closed: a compaction that closes about 200k
# tokens "can report only a few thousand". How the API arrives at its counts is not
# documented; the offline server's (its estimate) is the summary prompt's instructions
# in and the summary out. They are not in the top-level `usage`, which is zero here
# because nothing else was sampled.
#
# Send it back first, followed by the next question, and the server reads it as the
# summary of everything it replaced: the request costs a small fraction of the session,
# and the model still reads the goal, the files and their facts. Leave it out and the
# model reads the question alone, knowing nothing of the session; change it and the
# server refuses it.

# %%
question = {"role": "user", "content": "How many records does chapter s01 have in docs.json?"}
later = [paused.to_param(), question]
with_block = client.beta.messages.count_tokens(model=MODEL_NAME, messages=later, betas=["compact-2026-01-12"])
without = client.messages.count_tokens(model=MODEL_NAME, messages=[question])
print(f"the session as it was: {counted.context_management.original_input_tokens:,d} tokens; "
      f"the block and the question: {with_block.input_tokens:,d}; "
      f"the question alone: {without.input_tokens:,d}")
print("what the offline model reads in place of the block begins:")
print("\n".join(sc.as_read(block.model_dump())["content"].splitlines()[:6]))
forged = {**block.model_dump(), "content": block.content.replace("s01", "s99")}
try:
    client.beta.messages.create(model=MODEL_NAME, max_tokens=1000, betas=["compact-2026-01-12"],
                                messages=[{"role": "assistant", "content": [forged]}, question])
except anthropic.BadRequestError as error:
    print(f"a changed block: {type(error).__name__} ({error.error_code}): {error.api_message}")

# %% [markdown] id="on-demand-through-the-sdks-tool"
# The signature is an HMAC with a key each offline server makes when it starts: the real
# API's format is not documented, and a block from one offline server is refused by
# another. The SDK turns the error's code (`error.details.error_code`) into its own class,
# `CompactionContentMismatchError` above.
#
# ## On demand, through the SDK's tool runner
#
# `compaction={"type": "summarize"}` compacts now and returns the block alone. The SDK's
# tool runner sends it for you: call `compact_before_next_turn()`, and after the current
# turn it asks for the block, yields it (`stop_reason` "compaction"), carries on from it.
# Here it runs the article's first experiment on the sample workspace and compacts after
# the second reply.

# %%
replies = sr.run_with_compaction(client, MODEL_NAME,
                                 "What are the first-level titles of the five lesson READMEs?",
                                 data_dir() / "workspace")
for line in replies:
    first = line["text"].splitlines()[0] if line["text"] else ""
    print(f"{line['reply']:2d}  {line['stop_reason']:10}  {'+'.join(line['blocks']):16}  {first[:62]}")
print()
print("the last reply ends:")
print("\n".join(replies[-1]["text"].splitlines()[-5:]))

# %% [markdown] id="when-each-design-wins-the-same"
# After the block, the model reads only the summary and the turns that follow it, and it
# still finishes the list, s01's title included: the summary carried the titles it had
# read before the block. (The runner first asks the server to hold the conversation in a
# thread; the offline server refuses, with the code that makes the runner send the whole
# history each turn instead.)
#
# ## When each design wins: the same trigger, the same peak
#
# On `timeline_150` the designs above were compared as they come: the course's default
# profile acts from 50,000 characters (about 12,500 tokens of this English text), the
# server's edits from 100,000 and 150,000 tokens. That is not a fair fight. The
# benchmark's longest tool-heavy session (400 turns, seed 0) runs each server design with
# its default trigger beside the default profile with its limit set to the same trigger,
# converted with the session's own characters a token; the limit of 50,000 characters is
# there too. Each row gives the cost with the user's pauses (the session's clock: a
# cache entry left over 5 minutes is gone) and without, the largest request (`peak`),
# the outputs lost for good, the summaries, the misses (calls whose needed earlier
# output was not whole in the request sent) and the **forgotten** (lab 05's probes
# of the session, of four kinds: recall, a line of an output; artifact, a file touched;
# continuation, the request and the stated next step; decision, a stated decision or a
# user's instruction; forgotten when nothing the design sends for the next turn, no file
# it names and no summary keeps it).

# %%
from compact_course.bench import benchmark as bench
from compact_course.bench import prices
from compact_course.bench.probe_walk import session_messages
from compact_course.bench.simulated import make_session
from compact_course.probes import make_probes

long_session = make_session("tool-heavy", 400, 0)
probes = make_probes(*session_messages(long_session))
plain = bench.run_session(long_session, "none")
per_token = plain["largest"] / plain["largest_tokens"]
triggers = {"server-clear": context_edits.DEFAULT_TRIGGER["value"], "server-compact": sc.DEFAULT_TRIGGER}
fair = {"default, 50,000 chars": bench.run_session(long_session, "default", probes=probes)}
for design, trigger in triggers.items():
    limit = round(trigger * per_token)
    fair[f"default, {limit:,d} chars"] = bench.run_session(long_session, "default", probes=probes,
                                                          limits={"context_char_limit": limit})
    fair[f"{design}, {trigger:,d} tokens"] = bench.run_session(long_session, design, probes=probes)
print(f"{per_token:.2f} characters a token in this session")
print(f"billed as {prices.price(plain['priced_as']).name}; +misses k: the bill with each miss "
      f"priced as its re-read")
print(f"{'design, trigger':34}{'cost k':>8}{'+misses k':>10}{'no pauses':>10}{'peak ktok':>10}"
      f"{'lost':>6}{'summ':>5}{'missed':>8}{'forgot':>9}")
for label, row in fair.items():
    print(f"{label:34}{row['cost'] / 1000:>8,.0f}{row['cost_repaid'] / 1000:>10,.0f}"
          f"{row['cost_no_pauses'] / 1000:>10,.0f}"
          f"{row['largest_tokens'] / 1000:>10.1f}{row['lost']:>6}{row['summary_calls']:>5}"
          f"{row['misses']:>5}/{row['references']}{row['forgotten']:>5}/{row['probes']}")
print(f"cheapest, misses priced: {min(fair, key=lambda k: fair[k]['cost_repaid'])}; fewest misses: "
      f"{min(fair, key=lambda k: fair[k]['misses'])}; fewest forgotten: "
      f"{min(fair, key=lambda k: fair[k]['forgotten'])}")
for design in triggers:
    same = next(label for label in fair if label.startswith(design))
    peer = min((label for label in fair if label.startswith("default")),
               key=lambda label: abs(fair[label]["largest_tokens"] - fair[same]["largest_tokens"]))
    ratio = fair[peer]["cost"] / fair[same]["cost"]
    print(f"nearest peak to {same}: {peer} ({fair[peer]['largest_tokens'] / 1000:.1f} against "
          f"{fair[same]['largest_tokens'] / 1000:.1f} ktok): cost {ratio:.2f} x, "
          f"forgot {fair[peer]['forgotten']} against {fair[same]['forgotten']}")

# %% [markdown] id="check"
# Read it row against row, the last two lines first: they set each server design beside
# the default row whose peak is nearest to its own (the same peak), and the rows above set
# it beside the default at its own trigger (the same trigger).
#
# - **Cost.** At the same trigger and at the nearest peak, the default profile costs less
#   than either server design (the `x` in the last lines is its cost over theirs).
# - **Forgotten.** The default rows forget no probe: what they take out of the prompt is
#   on disk, named by a marker the model can follow. Server-side clearing keeps your own
#   list whole (`lost` 0), yet the model is sent a placeholder for every cleared result
#   and no file to read it back from, so most of the probes are gone from what it can
#   reach; server-side compaction forgets fewer than clearing, since its summary keeps
#   some of them, and loses for good every output it summarized unless you keep your own
#   copy of the history.
# - **Misses.** Server-side compaction misses fewest: the `fewest misses` line names it.
#   A miss counts an output not whole in the request; the default's are on disk, one
#   `read_file` away, which the forgotten column counts and the misses do not.
#
# So, when each design wins: the default profile wins on cost and on what it forgets, at
# every trigger tried, if you write and run a pipeline on the client; server-side
# compaction wins on misses, needs no pipeline, and is the API's recommendation when you
# want the API to do the job, at the price of what its summary drops; clearing wins only
# where the cleared results are not needed again (the model can run the tool again), and
# its cache cost is the highest here. Every figure is the offline server's and the
# benchmark's (synthetic sessions, canned replies, the offline token estimate, the
# course's probes), not a measurement of the real API.
#
# ## Check yourself
#
# The budget, on timeline_150: a cost of at most 850,000, the cache broken on fewer calls
# than the same edits without `clear_at_least`, no tool output lost for good, and the
# newest 3 tool uses always whole. No setting printed on this page meets it: the request
# body's `CLEAR` costs 863,334, the `clear_at_least` rows 887k and 979k, the defaults
# 1,088k. The trigger will not get you there either: on this session every trigger from
# 20,000 to 80,000 tokens gives the same cost, since one large batch passes them all at
# once. Read the session's tools below (how many calls each made, how large their
# results are) and ask which results are worth clearing: each clear saves what it
# removes and, past the trigger, breaks the cache on the next call.
# Write the `edits` of a `context_management` that meet the budget (a list of edits, as
# in the request bodies above). The checker plays them over the session and reports each
# line with the figure it measured.

# %%
print(f"budget: cost at most {budget.BUDGET_COST:,d}, fewer breaks than without clear_at_least, "
      f"nothing lost, keep at least {budget.BUDGET_KEEP}")
print(f"\n{'tool':12}{'calls':>6}{'result characters':>19}{'mean':>8}{'largest':>9}")
for tool, sizes in budget.results_by_tool().items():
    print(f"{tool:12}{len(sizes):>6}{sum(sizes):>19,d}{sum(sizes) // len(sizes):>8,d}{max(sizes):>9,d}")
edits = None  # your edits here, e.g. [{"type": "clear_tool_uses_20250919", ...}]

result = check_edits_for_budget(edits)

open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="recap"
# **Recap.**
# - The API can clear old tool results (`clear_tool_uses_20250919`) or summarize
#   (`compact_20260112`, or on demand) on its side; the request names the beta and the edit.
# - Clearing keeps your list whole; past its trigger it keeps only the newest `keep` tool
#   uses, and `clear_at_least` delays it. A `compaction` block stands for what it
#   replaced and must go back.
# - The API's docs make server-side compaction the primary strategy; on these sessions,
#   at the same trigger, the course's default profile costs least, and compaction misses
#   least but loses what it summarizes unless you keep it; clearing forgets most of
#   the probes, since nothing the model can reach holds what it cleared.
#
# **Next:** lab 04, your own agent's sessions through the same measures.

# %% [markdown] id="references"
# **References.**
# - The article, sections 五 (step 3, `micro_compact`) and 六 (step 4, `compact_history`),
#   whose server-side counterparts this page runs; the upstream code:
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py
# - Context editing, with the vendor's advice that server-side compaction comes first:
#   https://platform.claude.com/docs/en/build-with-claude/context-editing
# - Server-side compaction: https://platform.claude.com/docs/en/build-with-claude/compaction
# - Prompt caching (breakpoints, lifetimes, prices):
#   https://platform.claude.com/docs/en/build-with-claude/prompt-caching
# - Factory Research, "Evaluating Context Compression for AI Agents" (the probes' four
#   kinds): https://factory.ai/news/evaluating-compression
#
# **To discuss.**
# - Your agent's users pause for lunch mid-session. Which design of the table would you
#   run, and what would you measure first on your own sessions to be sure?
# - Clearing forgets most of the probes here, yet the API offers it. For which tools is
#   a cleared result no loss at all?

# %%
client.close()
server.stop()
