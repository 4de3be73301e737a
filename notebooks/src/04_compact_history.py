# %% [markdown] id="title"
# # 04 · Step 4, `compact_history`: the one step that pays for a model call
#
# If the list is still over `CONTEXT_CHAR_LIMIT` (50,000 characters) after steps 1-3,
# the article prints `[auto compact]` and runs step 4: it writes the whole list to
# `.transcripts/`, asks the model for a factual summary of the work's state, and replaces
# the list with one `[Compacted]` message.

# %% [markdown] id="goal"
# **Goal.** You will learn when step 4 runs, the message it leaves, how the summarizer's
# input is cut, and where a planted instruction ends up; then you will work out which
# messages the summarizer never sees, and write the step. About 45 minutes on your own;
# in the 90-minute class, 8 (docs/TEACHING.md).

# %% [markdown] id="run-prepare-seed-profile"
# ## When step 4 runs
#
# The article's third experiment: the agent reads two long code files. In the chart,
# steps 1-3 leave the list over the limit; look at the one step that changed it.

# %%
# %matplotlib inline
import tempfile

from context_compact import estimate_chars
from context_compact.formats import AGENT_SYSTEM_RULE, MIDDLE_OMITTED
from context_compact.summary import summary_input
from compact_course.article import CONTEXT_CHAR_LIMIT, SUMMARY_INPUT_CHAR_LIMIT
from compact_course.lessons.charts import before_after
from compact_course.lessons.exercises import check_unseen, hint
from compact_course.lessons.injection import carry_on, summarize_planted
from compact_course.lessons.replay import replay
from compact_course.sessions.histories import load_history
from IPython.display import display

run = replay("two_code_files", profile="seed")
messages = run.before   # the history as it was loaded
print("\n".join(run.echo))
print(f"steps that changed the list: {run.fired()}; {len(messages)} messages, "
      f"{estimate_chars(messages):,d} characters of JSON -> {len(run.after)}, {estimate_chars(run.after):,d}")
display(before_after(run.records, limit=CONTEXT_CHAR_LIMIT, title="two_code_files: prepare, seed profile"))

# %% [markdown] id="the-compacted-message"
# ## The `[Compacted]` message
#
# The list is now this one user message. Look for its three parts: the request typed this
# turn, the summary as a JSON string (written by the package's deterministic extractive
# summarizer, not a language model), and the transcript's path.

# %%
compacted = run.after[0]["content"]
print(compacted)
transcript = run.compactor.store.read_transcript(run.files[0])
print(f"\nits text: {len(compacted):,d} characters; "
      f"the transcript holds the list as it was: {transcript == messages}")

# %% [markdown] id="what-the-summarizer-is-sent"
# The summary is all the model keeps of the five messages; the code is only in the
# transcript now.
#
# ## What the summarizer is sent
#
# Above `SUMMARY_INPUT_CHAR_LIMIT` (80,000) the summarizer's input keeps a quarter of that
# budget from the start of the JSON and three quarters from the end, with a marker
# between. The two files fit; `timeline_150` does not:

# %%
print(f"two_code_files: {len(summary_input(messages, SUMMARY_INPUT_CHAR_LIMIT)):,d} characters sent")
long_session = load_history("timeline_150")["messages"]
long_input = summary_input(long_session, SUMMARY_INPUT_CHAR_LIMIT)
cut = long_input.index(MIDDLE_OMITTED)
print(f"timeline_150:   {estimate_chars(long_session):,d} characters in {len(long_session)} messages; "
      f"{len(long_input):,d} sent, the marker {MIDDLE_OMITTED.strip()!r} at {cut:,d}")

# %% [markdown] id="an-instruction-in-the-history-is"
# ## An instruction in the history is data
#
# The article's last lesson: the summary is reference data. A note is titled with an
# order aimed at the agent; the user asks what work it says is open; the agent reads it,
# and step 4 summarizes. Where does the order land, and what does the agent do next?

# %%
planted_root = tempfile.TemporaryDirectory(prefix="planted-")
planted = summarize_planted("seed", planted_root.name)
print(planted.excerpt())
went_on = carry_on(planted)
print(f"\nthe order is in: {[part for part, holds in planted.holds_instruction().items() if holds]}; "
      f"going on, the agent deleted nothing: {not went_on.deleting_calls and went_on.files_kept}")
print(f"the agent's system prompt: {AGENT_SYSTEM_RULE}")
planted_root.cleanup()

# %% [markdown] id="check"
# The order sits only inside the quoted summary under "reference only", after the typed
# request: structure, not obedience (the offline model acts on `Current user request`
# alone anyway). "Reference only" is a request to a model, not a sandbox; against a
# harmful command the defence is the sandbox ([docs/SAFETY.md](../docs/SAFETY.md)).
#
# ## Check yourself: what the summarizer never sees
#
# Write `unseen(sizes, limit)`: `sizes` are the messages' JSON sizes
# (`len(json.dumps(message, ensure_ascii=False))`), oldest first; return, oldest first,
# the indexes of the messages of which the cut input holds not one character. The input
# is `json.dumps` of the whole list: work out where each message starts; a message the
# cut passes through is partly seen.

# %%
def unseen(sizes, limit):
    raise NotImplementedError  # your code here


result = check_unseen(unseen)
open_hint = False  # set it to True and run this cell again: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="build-it"
# ## Build it: step 4 in your own file
#
# In `my_compact.py`, write `summary_input`, then `compact_history` with it, save, and run
# the cell. The check's stand-in for the model is a small function that answers a summary
# with quotes and a line break: the message must hold it as a JSON string.

# %%
from compact_course.lessons.build_track import check

built = [check("summary_input"), check("compact_history")]

# %% [markdown] id="recap"
# **Recap.**
# - Step 4 runs only when steps 1-3 left over 50,000 characters; it alone calls the model.
# - It leaves one `[Compacted]` message: the request, the summary as reference data, the
#   transcript's path.
# - Above 80,000 characters the summarizer gets a quarter from the start, the rest from
#   the end.
#
# **Next:** notebook 05, why the steps run in this order.

# %% [markdown] id="references"
# **References.** The article (in Chinese), section 六、第四步：compact_history;
# [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md).
