"""Reference solutions to the notebooks' exercises, as a learner could write them.

They are kept out of the notebooks on purpose (docs/TEACHING.md shows them to
the teacher). Each is written from the article, not copied from the package:
the tests run each one through its checker, so a checker whose reference
drifted from the article fails there.
"""

import math
import re

from context_compact import formats
from context_compact.messages import text_of

# -- 00: a prediction ----------------------------------------------------------------

STEPS_THAT_ACT = {
    "five_reads": ["micro_compact"],
    "huge_result": ["tool_result_budget", "micro_compact"],
    "long_session": ["snip_compact", "micro_compact"],
    "two_code_files": ["compact_history"],
}


# -- 01 --------------------------------------------------------------------------------

def largest_large_limit(sizes, batch_limit):
    total, needed = sum(sizes), None
    for size in sorted(sizes, reverse=True):  # step 1 takes the largest first
        if total <= batch_limit:
            break
        total -= size - 2000                  # its preview stays in the batch
        needed = size                         # this one must be longer than the limit
    if total > batch_limit or needed is None or needed - 1 < 10_000:
        return None
    return needed - 1


# -- 02 --------------------------------------------------------------------------------

def archive_calls(added, max_messages, target):
    calls, length = [], 0
    for call, count in enumerate(added, start=1):
        length += count
        if length > max_messages:
            calls.append(call)
            length = target                   # the marker is one of the target
    return calls


# -- 03 --------------------------------------------------------------------------------

def older_result(text):
    if len(text) <= 120:
        return text
    first_lines = text.split("\n", 2)
    if (len(first_lines) == 3 and first_lines[0] == "<persisted-output>"
            and first_lines[1].startswith("Full output: ")):
        path = first_lines[1][len("Full output: "):]
        return f"[Earlier tool result saved at {path}]"
    return formats.OMITTED


# -- 04 --------------------------------------------------------------------------------

def unseen(sizes, limit):
    total = sum(sizes) + 2 * (len(sizes) - 1) + 2  # '[', ', ' between, ']'
    if total <= limit:
        return []
    hidden_from, hidden_to = limit // 4, total - (limit - limit // 4)
    hidden, start = [], 1
    for index, size in enumerate(sizes):
        if start >= hidden_from and start + size <= hidden_to:
            hidden.append(index)
        start += size + 2
    return hidden


# -- 05 --------------------------------------------------------------------------------

def lost(originals, context, transcripts, saved):
    readable = {}
    for messages in [context, *transcripts]:
        for message in messages:
            if not isinstance(message["content"], list):
                continue
            for block in message["content"]:
                if block.get("type") != "tool_result":
                    continue
                text = text_of(block["content"])  # content may be a list of blocks
                texts = readable.setdefault(block["tool_use_id"], set())
                texts.add(text)
                path = formats.persisted_path(text) or formats.saved_path(text)
                if path in saved:
                    texts.add(saved[path])
    return [i for i, text in originals.items() if text not in readable.get(i, set())]


# -- 06 --------------------------------------------------------------------------------

def tail_once(kinds, keep, request_at):
    start = max(0, len(kinds) - keep)
    if start > 0 and kinds[start] == "tool_result" and kinds[start - 1] == "tool_use":
        start -= 1
    if request_at >= start:                   # the summary message holds the request
        start = request_at + 1
    return start


# -- 07 --------------------------------------------------------------------------------

def run_batch_safely(messages, tool_uses, run, compact):
    results, compact_requested = [], False
    for use in tool_uses:
        if use["name"] == "compact":
            output, compact_requested = formats.COMPACT_TOOL_ACK, True
        else:
            try:
                output = run(use)
            except Exception as error:        # any tool may fail; the call still needs an answer
                output = f"Error: {error}"
        results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output})
    messages = messages + [{"role": "user", "content": results}]
    return compact(messages) if compact_requested else messages


# -- labs/01 ---------------------------------------------------------------------------

def unread_shrunk(sizes, fresh):
    older = range(len(sizes) - 3)            # the newest 3 stay whole, by position
    return sum(1 for i in older if i >= len(sizes) - fresh and sizes[i] > 120)


# -- labs/02 ---------------------------------------------------------------------------

def calls_to_pay_off(before, after, summary=None, cold=False):
    old = sum(tokens for _, tokens in before)
    new = sum(tokens for _, tokens in after)
    # The call right after the step: with it, nothing is read (the cache holds whole
    # requests, and the step changed this one) and all of `after` is written at 1.25;
    # without it, `before` is read at 0.1, or written again when the cache is cold.
    extra = 1.25 * new - (1.25 if cold else 0.1) * old
    if summary is not None:
        extra += summary[0] + 5 * summary[1]     # the summary call: input at 1, output at 5
    if extra <= 0:
        return 1
    saving = 0.1 * (old - new)                   # every later call reads the shorter list
    if saving <= 0:
        return None
    return 1 + math.ceil(extra / saving)


# -- labs/03: a prediction: edits for the budget ---------------------------------------

# The many small bash and glob results are not worth a cache break each: keep them.
EDITS_FOR_BUDGET = [{"type": "clear_tool_uses_20250919",
                     "trigger": {"type": "input_tokens", "value": 20_000},
                     "clear_at_least": {"type": "input_tokens", "value": 5_000},
                     "exclude_tools": ["bash", "glob"]}]


# -- labs/05 ---------------------------------------------------------------------------

def instructions(text):
    from compact_course.probes import CONSTRAINT_EN, CONSTRAINT_ZH, readable_units
    kept = []
    for sentence in readable_units(text, "sentence"):
        lower = sentence.lower()
        if any(re.search(r"(?<![a-z])" + re.escape(cue) + r"(?![a-z])", lower) for cue in CONSTRAINT_EN) \
                or any(cue in sentence for cue in CONSTRAINT_ZH):
            kept.append(sentence)
    return kept
