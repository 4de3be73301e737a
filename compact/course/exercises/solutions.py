"""Reference solutions to the notebooks' exercises, as a learner could write them.

They are kept out of the notebooks on purpose (docs/TEACHING.md shows them to
the teacher). Each is written from the article, not copied from the package:
the tests run each one through its checker, so a checker whose reference
drifted from the article fails there.
"""

import json

from ... import formats
from ...messages import text_of
from ...offline.tokens import estimate_text_tokens

# -- 00: a prediction ----------------------------------------------------------------

STEPS_THAT_ACT = {
    "five_reads": ["micro_compact"],
    "huge_result": ["tool_result_budget", "micro_compact"],
    "long_session": ["snip_compact", "micro_compact"],
    "two_code_files": ["compact_history"],
}


# -- 01 --------------------------------------------------------------------------------

def persisted(sizes, batch_limit, large_limit):
    total, chosen = sum(sizes), []
    for i in sorted(range(len(sizes)), key=lambda i: sizes[i], reverse=True):
        if total <= batch_limit:
            break
        if sizes[i] > large_limit:
            chosen.append(i)
            total -= sizes[i] - 2000  # the preview stays in the batch
    return chosen


# -- 02 --------------------------------------------------------------------------------

def cut_points(kinds, max_messages, keep_head):
    head_end = keep_head
    tail_start = len(kinds) - (max_messages - keep_head)
    if kinds[head_end - 1] == "tool_use":
        while head_end < tail_start and kinds[head_end] == "tool_result":
            head_end += 1
    if tail_start > 0 and kinds[tail_start] == "tool_result" and kinds[tail_start - 1] == "tool_use":
        tail_start -= 1
    return head_end, tail_start


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

def summary_cut(text, limit):
    if len(text) <= limit:
        return text
    head = limit // 4
    return text[:head] + formats.MIDDLE_OMITTED + text[len(text) - (limit - head):]


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

def tail_start(kinds, keep):
    start = max(0, len(kinds) - keep)
    if start > 0 and kinds[start] == "tool_result" and kinds[start - 1] == "tool_use":
        start -= 1
    return start


# -- 07 --------------------------------------------------------------------------------

def run_batch(messages, tool_uses, run, compact):
    results, compact_requested = [], False
    for use in tool_uses:
        if use["name"] == "compact":
            output, compact_requested = formats.COMPACT_TOOL_ACK, True
        else:
            output = run(use)
        results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output})
    messages = messages + [{"role": "user", "content": results}]
    return compact(messages) if compact_requested else messages


# -- 08 --------------------------------------------------------------------------------

def fresh_from(kinds):
    for i in range(len(kinds) - 1, -1, -1):
        if kinds[i] in ("assistant", "tool_use"):
            return i + 1
    return 0


# -- 09 --------------------------------------------------------------------------------

def cache_cost(previous, current):
    tokens = [estimate_text_tokens(json.dumps(m, ensure_ascii=False)) for m in current]
    if previous and current[:len(previous)] == previous:
        read = sum(tokens[:len(previous)])
        return 0.1 * read + 1.25 * (sum(tokens) - read)
    return 1.25 * sum(tokens)
