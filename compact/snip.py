"""Step 2 of the article: snip_compact, archiving the middle of a long list.

Above `snip_max_messages` (50) the whole list goes to a transcript on disk and
the context keeps the first messages, one user marker
`[<N> messages archived at <path>]`, and the newest messages. The cut never
splits a tool_use from its tool_result: the head grows over the results of a
final tool_use, the tail starts one earlier when it would open on results.

The article's version (seed profile) keeps 3 + 47 + the marker = 51 messages,
so the very next call archives again (flaws 4 and 5 in docs/DESIGN.md); it
may archive the message that holds this turn's request (flaw 14); and when
the pair rules leave nothing between head and tail it still writes a
transcript and inserts `[0 messages archived at <path>]` (flaw 15). The
default profile cuts down to `snip_target_messages` (30, marker counted), so
the next archive is 20 messages away; puts the request in the marker when
every copy of it was archived; and leaves a list with nothing to cut alone.

Left out: any summary of what was archived; the transcript is the record.
"""

from . import formats
from .messages import has_tool_use, is_tool_result, request_positions, tool_results
from .store import StoreError


def cut_points(messages, config) -> tuple[int, int]:
    """(head_end, tail_start): keep messages[:head_end] and messages[tail_start:]."""
    # A list shorter than the head (one huge first message, say) is all head:
    # nothing to cut, and no index past its end.
    head_end = min(config.snip_keep_head, len(messages))
    newest = config.snip_keep_total - config.snip_keep_head - 1  # one place is the marker
    tail_start = max(len(messages) - newest, head_end)
    if head_end and has_tool_use(messages[head_end - 1]):
        while head_end < tail_start and is_tool_result(messages[head_end]):
            head_end += 1
    if (0 < tail_start < len(messages) and is_tool_result(messages[tail_start])
            and has_tool_use(messages[tail_start - 1])):
        tail_start -= 1
    return head_end, tail_start


def carried_request(messages, head_end: int, tail_start: int, active_request):
    """The request, when every message that shows it is about to be archived."""
    positions = request_positions(messages, active_request)
    if positions and all(head_end <= i < tail_start for i in positions):
        return active_request
    return None


def size_cut(messages, compactor, head_end: int, size: int, active_request=None) -> int:
    """The first message of the shortest tail that fits, with the head, in archive_size;
    never past the newest keep_recent_results results of the current request (its work
    in progress; a finished request's outputs are archived like the rest).

    `size` is the list's size by the compactor's measure; each message counts its
    share of the list's characters, so a token measure is asked nothing more.
    """
    config = compactor.config
    chars = [compactor.message_chars(m) for m in messages]
    room = sum(chars) * config.archive_size / max(size, 1) - sum(chars[:head_end])
    start = len(messages)
    while start > head_end and chars[start - 1] <= room:
        start -= 1
        room -= chars[start]
    start = min(start, len(messages) - 1)   # the newest message stays, whatever its size
    asked = request_positions(messages, active_request)
    left, i = config.keep_recent_results, len(messages)
    while left > 0 and i > (asked[-1] if asked else 0):
        i -= 1
        left -= len(tool_results(messages[i]))
    return min(start, i) if left < config.keep_recent_results else start


def one_call_cut(messages, compactor, chars, active_request=None) -> tuple[int, int] | None:
    """(head_end, tail_start) when either trigger fires: down to both targets at once."""
    config = compactor.config
    if len(messages) <= config.snip_max_messages and chars <= config.context_limit:
        return None
    head_end, by_count = cut_points(messages, config)
    tail_start = max(by_count, size_cut(messages, compactor, head_end, chars, active_request))
    if (tail_start < len(messages) and is_tool_result(messages[tail_start])
            and has_tool_use(messages[tail_start - 1])):
        tail_start -= 1
    return head_end, tail_start


def snip_compact(messages, compactor, active_request: str | None = None, chars: int | None = None):
    """Step 2: above the trigger, archive the middle and leave a marker in its place."""
    config = compactor.config
    if config.compact_in_one_call:
        size = compactor.size(messages) if chars is None else chars
        cut = one_call_cut(messages, compactor, size, active_request)
        if cut is None:
            return messages
        head_end, tail_start = cut
    elif len(messages) <= config.snip_max_messages:
        return messages
    else:
        head_end, tail_start = cut_points(messages, config)
    # The cut never crosses itself (head_end <= tail_start), but it can meet:
    # the article then archives nothing and still leaves a marker (flaw 15).
    if tail_start <= head_end and config.snip_skip_empty:
        return messages
    try:
        transcript = compactor.store.write_transcript(messages, compactor.texts(messages))
    except StoreError as error:
        compactor.report(f"snip_compact skipped, nothing archived: {error}")
        return messages
    carry = (carried_request(messages, head_end, tail_start, active_request)
             if config.request_once else None)
    marker = {"role": "user",
              "content": formats.archive_marker(tail_start - head_end, transcript, carry)}
    return [*messages[:head_end], marker, *messages[tail_start:]]
