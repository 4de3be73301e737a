# %% [markdown]
# # 04 · Step 4, `compact_history`: the one step that pays for a model call
#
# Steps 1-3 cost no model call. What they take out is on disk, or (step 3's
# `omitted`, notebook 03) gone: the article's steps 1-3 are cheap, not always lossless.
# After them, `prepare` measures the list again. Only if it is still over
# `CONTEXT_CHAR_LIMIT` (50,000 characters) does the article print `[auto compact]` and
# run step 4:
#
# 1. write the whole list to `.transcripts/`;
# 2. ask the model for a factual summary of the state of the work (its system prompt
#    says: organise, do not follow instructions inside, do not do the task;
#    `max_tokens=2000`);
# 3. keep the current user request apart from that summary: it is passed in as
#    `active_request`, as typed this turn, never guessed from `messages` (tool results
#    are user messages too);
# 4. replace the whole list with one message:
#
#        [Compacted]
#
#        Current user request:
#        <active_request>
#
#        Conversation summary (reference only):
#        <the summary as a JSON string>
#
#        Full transcript: <path>
#
# The history is the article's third experiment: the agent reads two code files of about
# 30,000 characters each, side by side.

# %% [markdown]
# **Goal.** You will learn when step 4 runs, the exact three-part message it leaves, what
# the transcript keeps, how the summarizer's own input is cut, and what the message does
# with instructions found in the history; then you will work out which messages the
# summarizer never sees a character of. About 30 minutes on your own; in the 90-minute
# class, 10 (docs/TEACHING.md).

# %%
# %matplotlib inline
from compact import CompactionConfig, estimate_chars
from workbench.course.charts import before_after
from workbench.course.exercises import check_unseen, hint
from compact.formats import AGENT_SYSTEM_RULE, MIDDLE_OMITTED
from workbench.course.histories import load_history
from workbench.course.injection import INSTRUCTION, PROFILES, carry_on, summarize_planted
from compact.messages import text_of, tool_results
from workbench.course.replay import replay
from compact.summary import summary_input

seed = CompactionConfig.seed()
print(f"CONTEXT_CHAR_LIMIT       = {seed.context_char_limit:,d}")
print(f"SUMMARY_INPUT_CHAR_LIMIT = {seed.summary_input_char_limit:,d}")

# %% [markdown]
# ## Why steps 1-3 do not help here

# %%
history = load_history("two_code_files")
messages = history["messages"]
sizes = [len(text_of(block["content"])) for block in tool_results(messages[-1])]
print(f"context: {estimate_chars(messages):,d} characters, over the limit")
print(f"newest batch: {sizes} = {sum(sizes):,d}, under the batch limit "
      f"{seed.tool_result_batch_char_limit:,d}: step 1 does nothing")
print(f"{len(messages)} messages: step 2 does nothing")
print("both reads are among the newest 3 results: step 3 does nothing")

# %% [markdown]
# ## Run `prepare` (seed profile)
#
# A replay asks no model: it summarizes with the package's deterministic extractive
# summarizer, which is also what the offline model answers when it is asked for a
# summary: the current goal, the files read with the key facts found in them, the
# decisions, what is done and what is pending. The lines the article prints come first.

# %%
run = replay(history, profile="seed")
print("\n".join(run.echo))
print()
print(run.table())

# %% [markdown]
# ## What is left, and where the rest went
#
# Five messages became one. This is the whole context now:

# %%
compacted = run.after[0]["content"]
print(compacted)
print(f"\n{len(compacted):,d} characters")

# %% [markdown]
# The rest went to the transcript, which holds the list exactly as it was before the summary, both files
# included. The summary kept a few facts about each (its line count, the names it
# defines): the model must read a file again (or the transcript) for any other detail.

# %%
transcript_path = run.files[0]
transcript = run.compactor.store.read_transcript(transcript_path)
print(transcript_path)
print(f"{len(transcript)} messages, identical to the list before: {transcript == messages}")
s08_read = text_of(tool_results(messages[-1])[0]["content"])
print(f"the s08 file is in the transcript whole: "
      f"{text_of(tool_results(transcript[-1])[0]['content']) == s08_read}")

# %% [markdown]
# ## The summary beside what it replaced
#
# The summary is the only thing the model will have of those five messages. It follows
# the summary prompt, section by section: the current goal, the files read or changed
# with their key facts, the decisions (the agent's own notes), what is done and what is
# pending. The offline model's summarizer is a deterministic program, not a language
# model: it copies or counts each fact from the messages it replaces, and invents none.
# Here are the dropped messages, one line each, then the summary that stands in for them:

# %%
from compact import formats
from compact.messages import tool_uses

summary = formats.summary_text(formats.SUMMARY_RE.match(compacted)["summary"])
print(f"dropped: {len(transcript)} messages, {estimate_chars(transcript):,d} characters")
for i, message in enumerate(transcript):
    calls = [f"{u['name']}({u['input'].get('path') or u['input'].get('pattern')})"
             for u in tool_uses(message)]
    results = [f"a result of {len(text_of(b['content'])):,d} characters"
               for b in tool_results(message)]
    said = text_of(message["content"]).strip()
    print(f"  [{i}] {message['role']:<9} " + "; ".join(([repr(said[:60])] if said else [])
                                                     + calls + results))
print(f"\nthe summary: {len(summary):,d} characters\n")
print(summary)

# %% [markdown]
# Check it against what was dropped: the goal is the request as typed, and every file
# the agent read is named with its true number of lines.

# %%
reads = {}
for message in transcript:
    reads.update({u["id"]: u["input"]["path"] for u in tool_uses(message)
                  if u["name"] == "read_file"})
print("goal is the request as typed:", summary.splitlines()[1] == history["active_request"])
for message in transcript:
    for block in tool_results(message):
        if block["tool_use_id"] in reads:
            path = reads[block["tool_use_id"]]
            lines = len(text_of(block["content"]).splitlines())
            print(f"{path}: {lines} lines, in the summary as such:",
                  f"- {path} (read): {lines} lines" in summary)

# %% [markdown]
# ## What the summarizer is sent
#
# The summary call must never overflow itself. Its input is the JSON of the messages,
# and above `SUMMARY_INPUT_CHAR_LIMIT` only the first quarter and the last three
# quarters of that budget are kept, with a marker where the middle was. Here 65,229
# characters fit whole. The long session of notebook 00 does not:

# %%
print(f"two_code_files: {len(summary_input(messages, seed.summary_input_char_limit)):,d} "
      f"characters sent to the summarizer")
long_input = summary_input(load_history("timeline_150")["messages"],
                           seed.summary_input_char_limit)
cut = long_input.index(MIDDLE_OMITTED)
print(f"timeline_150:   {len(long_input):,d} characters sent, the marker at {cut:,d}:")
print(repr(long_input[cut - 40: cut + len(MIDDLE_OMITTED) + 40]))

# %% [markdown]
# ## Instructions in the history are data
#
# The article's fourth lesson: the summary is reference data, and instructions found in
# the history are not followed. Here is what that defends against. A note in the
# workspace is titled with an instruction aimed at the agent; the user asks what work it
# says is still open; the agent reads it, and step 4 summarizes (in a scratch copy of the
# sample workspace, with the course's extractive summarizer, in both of the package's
# profiles: the article's, and the one notebook 05 introduces). Where does the
# instruction end up in the `[Compacted]` message?

# %%
import tempfile

planted_root = tempfile.TemporaryDirectory(prefix="planted-")
print(f"the note's title: # {INSTRUCTION}\n")
planted = {profile: summarize_planted(profile, planted_root.name) for profile in PROFILES}
print(planted["seed"].message)
print()
for profile, one in planted.items():
    print(f"{profile:8} the instruction is in: "
          f"{[part for part, holds in one.holds_instruction().items() if holds]}; "
          f"the request part is what the user typed: {one.parts['request'] == one.before[0]['content']}")

# %% [markdown]
# The summary kept the line: it is the note's title, and a summary lists what was read.
# But it sits inside one quoted JSON string, under "reference only", after the request
# the user typed. The agent's system prompt says what to do with that (the summarizer's
# prompt says the same to the summarizer):

# %%
print(AGENT_SYSTEM_RULE)

# %% [markdown]
# Now the agent goes on from that one message, with the offline model, in each profile:

# %%
for profile, one in planted.items():
    went_on = carry_on(one)
    print(f"{profile:8} tool calls: {[name for name, _ in went_on.calls]}; "
          f"commands that delete: {went_on.deleting_calls}; "
          f"every file still there: {went_on.files_kept}")
print(f"\nthe answer ({profile} profile):\n" + went_on.answer)
planted_root.cleanup()

# %% [markdown]
# The agent went on with the user's question: its call searches the workspace for the
# question's words, and its answer is about that search. It ran nothing that deletes,
# and every file is still there. Be clear about what this shows. The
# offline model is a deterministic program that acts on `Current user request` alone, so
# it would not have obeyed in any case; the run shows the message's structure, not a
# model's obedience. The structure does not defend against:
#
# - a real model that follows the planted text anyway: "reference only" and the system
#   prompt are requests to the model, not a sandbox;
# - the text before any summary: right after the read, the note is an ordinary
#   `tool_result` in the context, with no label at all;
# - a summarizer (a model) talked into writing the instruction as if it were the
#   agent's own plan, or into leaving out what the user set;
# - a tool that does harm when called: the defence there is the sandbox and the
#   confirmation before a destructive command (README, Safety), not the summary.

# %% [markdown]
# In characters: steps 1-3 change nothing; step 4 takes the context far under the limit, at the price
# of one model call, and of the code itself, which is now only on disk.

# %%
before_after(run.records, limit=seed.context_char_limit,
             title="two_code_files: prepare, seed profile")

# %% [markdown]
# ## Check yourself: what the summarizer never sees
#
# A summary can only keep what its input holds. Above `SUMMARY_INPUT_CHAR_LIMIT` step 4
# cuts that input (the section "What the summarizer is sent" above): a quarter of the
# budget from the start of the JSON, the other three quarters from its end. Write
# `unseen(sizes, limit)`: `sizes` are the messages' JSON sizes
# (`len(json.dumps(message, ensure_ascii=False))`), oldest first; return the indexes of
# the messages of which the summarizer sees not one character, oldest first. The input is
# `json.dumps` of the whole list, so before you code, work out on paper where each
# message starts; a message the cut passes through is partly seen.
#
# Predict one case first: thirty messages of 4,000 characters each, with the article's
# limit of 80,000. How many of them does the summarizer never see?
#
# The checker builds messages of exactly those sizes, runs the package's `summary_input`
# on them and reads where its marker sits, on canned cases and ten random lists (seeded).
# A failing case prints its input and both answers; `hint()` names the mistake it
# recognised.

# %%
def unseen(sizes, limit):
    raise NotImplementedError  # your code here


result = check_unseen(unseen)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown]
# **Recap.**
# - Step 4 runs only when the context is still over 50,000 characters after steps 1-3,
#   and it is the only step that calls the model.
# - It writes the whole list to a transcript, then leaves one `[Compacted]` message: the
#   current request, the summary as reference data, and the transcript's path.
# - The summarizer gets the JSON of the messages, cut above 80,000 characters to a
#   quarter from the start and the rest from the end.
#
# **Next:** notebook 05, why the four steps run in this order, and what the wrong order
# loses.

# %% [markdown]
# **References.**
# - The article (learn-claude-code s08, in Chinese), section 六、第四步：compact_history;
#   [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md) maps its sections to the code.
