"""My compaction pipeline: the article's (learn-claude-code s08), built by me, one step a notebook.

Each function below says WHAT it must do; the HOW is yours. Replace `raise NotImplementedError`
with your code, save (Ctrl-S), and run the notebook's check cell: it reads this file afresh
each time and grades your function on cases it draws at random on every run.

    step 1  tool_result_budget   notebook 01
    step 2  snip_compact         notebook 02
    step 3  micro_compact        notebook 03
    step 4  summary_input, compact_history   notebook 04
    the order  cheap_steps       notebook 05
    the safety net  is_prompt_too_long, reactive_compact   notebook 06
    the compact tool  run_tool_batch   notebook 07
    all of it  prepare           notebook 08 (and live in 09)

The rules every step keeps:
- `messages` is a list of plain dicts in the Messages API format ({"role": ..., "content": ...});
  return the list to send next. Change nothing a step is not about.
- Sizes are characters. A tool result's text is its content when that is a string; when it is a
  list of blocks, the texts of its "text" blocks joined with "\\n" (never str() of the list).
- Files go under `root` (a pathlib.Path): a saved result in `.task_outputs/tool-results/`, a
  transcript in `.transcripts/`. A path written into the context is relative to `root`.
- A tool_use and its tool_result stay together: never keep one and drop the other.
- Import only the standard library here: the checker refuses a file that imports the course's
  packages, and the package's own steps refuse to run while your function runs.
"""


# -- step 1 (notebook 01) ---------------------------------------------------------------------

def tool_result_budget(messages, root, batch_limit=200_000, large_limit=30_000, preview_chars=2_000):
    """Step 1: move the newest batch's largest tool results to disk.

    The newest batch is the last message, when it is a user message holding tool_result blocks;
    leave any other list as it is. If the batch's results total more than `batch_limit`
    characters, take them largest first; each one longer than `large_limit` has its full text
    written to a file under `root/.task_outputs/tool-results/` (the article names it
    `<tool_use_id>.txt`, with every character outside [A-Za-z0-9._-] turned into "_", cut to
    120), and its text in context becomes exactly:

        <persisted-output>
        Full output: <the file's path, relative to root>
        Preview:
        <the first preview_chars characters of the text>
        </persisted-output>

    After each one, total the batch again (the preview still counts) and stop as soon as the
    total is at most `batch_limit`.

    Safety (both of the package's profiles): two ids may clean up to the same name ("call/1" and
    "call_1"): every file must hold exactly its own result's text (any name in that folder will
    do: the cleaned id, with a suffix such as "-2" when a file of that name holds another text).
    When the content is a list of blocks, save and preview its text, and keep its other blocks
    (an image) in context.
    """
    raise NotImplementedError


# -- step 2 (notebook 02) ---------------------------------------------------------------------

def snip_compact(messages, root, max_messages=50, keep_head=3):
    """Step 2: above `max_messages` messages, archive the middle of the list.

    With at most `max_messages` messages, return the list as it is. Above it, write the whole
    list to `root/.transcripts/transcript_<uuid4 hex>.jsonl` (one message's JSON a line), and
    keep the first `keep_head` messages and the newest `max_messages - keep_head`, with one
    user message between them whose content is exactly

        [<N> messages archived at <the transcript's path, relative to root>]

    where N is the number of messages taken out. The cut never splits a pair: when the head
    ends on an assistant message with a tool_use, the head grows over the tool_result messages
    that follow it; when the tail would start on a tool_result whose tool_use is just before
    it, the tail starts one earlier.

    Safety: a message may hold the SDK's objects instead of dicts; a transcript line is the
    message as plain JSON, each object as `model_dump(exclude_none=True)` (the SDK's unset None
    fields, such as caller, left out), never its repr.
    """
    raise NotImplementedError


# -- step 3 (notebook 03) ---------------------------------------------------------------------

def micro_compact(messages, root, keep_recent=3, min_chars=120):
    """Step 3: older tool results become short placeholders.

    Over every tool_result in the list, oldest first, the newest `keep_recent` stay whole. Each
    older one whose text is longer than `min_chars` characters becomes

        [Earlier tool result saved at <path>]   when step 1 had saved it: its text is step 1's
                                                <persisted-output> block, and <path> is read
                                                back from its "Full output: " line
        [Earlier tool result omitted.]          otherwise

    Safety: a "Full output: " line can stand in any file the agent read. Trust a path only from
    a text that is exactly step 1's block, and only when it names a file that exists in
    `root/.task_outputs/tool-results/`. When the content is a list of blocks, measure and
    replace its text, and keep its other blocks.
    """
    raise NotImplementedError


# -- step 4 (notebook 04) ---------------------------------------------------------------------

def summary_input(messages, limit=80_000):
    """The text the summarizer reads: the messages' JSON, cut when it is long.

    The text is json.dumps(messages, ensure_ascii=False). When it is longer than `limit`
    characters it becomes its first limit // 4 characters, then
    "\\n...[middle omitted; full transcript is on disk]...\\n", then its last
    limit - limit // 4 characters. Safety: SDK objects are made plain dicts first, as step 2
    makes them (`model_dump(exclude_none=True)`).
    """
    raise NotImplementedError


def compact_history(messages, root, active_request, summarize):
    """Step 4: the whole list becomes one summary message (the only step that calls the model).

    Write the list to a transcript, as step 2 does. Call `summarize(text)` once, with
    summary_input(messages) (the limit at its default), and return a list of one user message
    whose content is exactly

        [Compacted]

        Current user request:
        <active_request>

        Conversation summary (reference only):
        <the summary, as a JSON string: json.dumps(summary, ensure_ascii=False)>

        Full transcript: <the transcript's path, relative to root>
    """
    raise NotImplementedError


# -- the order (notebook 05) ------------------------------------------------------------------

def cheap_steps(messages, root):
    """Steps 1, 2 and 3, in the article's order, at the article's numbers.

    The order is the lesson: step 1 must run before step 3, or a large old result becomes a
    placeholder with no copy on disk.
    """
    raise NotImplementedError


# -- the safety net (notebook 06) -------------------------------------------------------------

def is_prompt_too_long(error):
    """True when `error` is the API refusing a prompt that is too long.

    The API's own text is "prompt is too long: 210445 tokens > 200000 maximum" (HTTP 400,
    invalid_request_error; the SDK raises it as anthropic.BadRequestError); count the spellings
    "prompt_too_long" and "too many tokens" too, in any case of letters.
    """
    raise NotImplementedError


def reactive_compact(messages, root, active_request, summarize, keep_recent=5):
    """After the API refused the prompt: summarize all but the newest messages.

    Write the whole list to a transcript. The kept tail is the newest `keep_recent` messages,
    starting one earlier when it would start on a tool_result whose tool_use is just before it.
    Summarize only what comes before the tail (`summarize(summary_input(those messages))`), and
    return a summary message like compact_history's, with "[Reactive compact]" in place of
    "[Compacted]", followed by the tail. When the tail is the whole list, summarize it all and
    return the summary message alone.
    """
    raise NotImplementedError


# -- the compact tool (notebook 07) -----------------------------------------------------------

def run_tool_batch(tool_uses, handlers):
    """Answer one assistant turn's tool_use blocks; True as second value if `compact` was among them.

    Return (the user message holding one tool_result per tool_use, in order; compact_requested).
    Every call but `compact` runs through handlers[name](input) -> str. The `compact` call has
    no handler and no side effect: its result is "Compaction requested after this tool batch."
    The whole batch is answered first; the caller appends the message, then runs
    compact_history when compaction was requested.
    """
    raise NotImplementedError


# -- all of it (notebook 08) ------------------------------------------------------------------

def prepare(messages, root, active_request, summarize, limit=50_000):
    """Before every model call: steps 1, 2 and 3 in order, then step 4 only if the list is
    still longer than `limit` characters of json.dumps(messages, ensure_ascii=False).

    Step 1 runs before step 3. A summary is paid for only when the three cheap steps were
    not enough.
    """
    raise NotImplementedError
