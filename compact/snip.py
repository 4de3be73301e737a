"""Step 2 of the article: snip_compact, archiving the middle of a long list.

Above `snip_max_messages` (50) the whole list goes to a transcript on disk and
the context keeps the first messages, one user marker
`[<N> messages archived at <path>]`, and the newest messages. The cut never
splits a tool_use from its tool_result: the head grows over the results of a
final tool_use, the tail starts one earlier when it would open on results.

The article keeps 3 + 47 + the marker = 51 messages, so the very next call
archives again (flaws 4 and 5 in docs/DESIGN.md). The default profile cuts
down to `snip_target_messages` (30, marker counted), so the next archive is
20 messages away.

Both profiles: if the current request was among the archived messages, the
marker carries it, so the request stays visible exactly once. Left out: any
summary of what was archived; the transcript is the record.
"""

from . import formats
from .messages import has_tool_use, is_tool_result, request_positions
from .store import StoreError


def cut_points(messages, config) -> tuple[int, int]:
    """(head_end, tail_start): keep messages[:head_end] and messages[tail_start:]."""
    head_end = config.snip_keep_head
    newest = config.snip_keep_total - head_end - 1  # one place is the marker
    tail_start = len(messages) - newest
    if has_tool_use(messages[head_end - 1]):
        while head_end < tail_start and is_tool_result(messages[head_end]):
            head_end += 1
    if (tail_start > 0 and is_tool_result(messages[tail_start])
            and has_tool_use(messages[tail_start - 1])):
        tail_start -= 1
    return head_end, tail_start


def snip_compact(messages, compactor, active_request: str | None = None):
    """Step 2: above the trigger, archive the middle and leave a marker in its place."""
    config = compactor.config
    if len(messages) <= config.snip_max_messages:
        return messages
    head_end, tail_start = cut_points(messages, config)
    if tail_start <= head_end:
        return messages
    try:
        transcript = compactor.store.write_transcript(messages)
    except StoreError as error:
        compactor.report(f"snip_compact skipped, nothing archived: {error}")
        return messages
    # The marker carries the request only when every copy of it was archived.
    positions = request_positions(messages, active_request)
    archived = range(head_end, tail_start)
    carry = active_request if positions and all(i in archived for i in positions) else None
    marker = {"role": "user",
              "content": formats.archive_marker(tail_start - head_end, transcript, carry)}
    return [*messages[:head_end], marker, *messages[tail_start:]]
