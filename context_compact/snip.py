"""Step 2 of the article, snip_compact: the middle of a long list goes to a transcript.

Above `snip_max_messages` (50) the list goes to a transcript, and the context keeps the first
messages, a marker `[<N> messages archived at <path>]` and the newest, never splitting a pair.
Left out: a summary of what was archived (the transcript is the record), any choice by content.
"""

from . import formats
from .messages import has_tool_use, is_tool_result, request_positions, tool_results
from .store import StoreError


def cut_points(messages, config) -> tuple[int, int]:
    """(head_end, tail_start): keep messages[:head_end] and messages[tail_start:]."""
    # A list shorter than the head (one huge first message, say) is all head.
    head_end = min(config.snip_keep_head, len(messages))
    # flaw 4: no hysteresis, and flaw 5: the marker is not counted. The seed keeps 3 + 47
    # newest + the marker = 51 (snip_keep_total), still over 50, so the next call archives
    # again; the default keeps snip_target_messages (30), marker counted: 20 calls away.
    newest = config.snip_keep_total - config.snip_keep_head - 1   # one place is the marker
    tail_start = max(len(messages) - newest, head_end)
    # The head ends on a tool_use: it grows over the results that answer it, up to
    # tail_start at most (the two may meet: flaw 15).
    if head_end and has_tool_use(messages[head_end - 1]):
        while head_end < tail_start and is_tool_result(messages[head_end]):
            head_end += 1
    # The tail would open on results whose tool_use is just before it: it starts one
    # earlier, so the pair stays whole in the tail. A short list over the size limit
    # (flaw 17) has fewer messages than the count keeps: tail_start is then the head's end.
    if 0 < tail_start < len(messages) and is_tool_result(messages[tail_start]) \
            and has_tool_use(messages[tail_start - 1]):
        tail_start -= 1
    return head_end, tail_start


def carried_request(messages, head_end: int, tail_start: int, active_request):
    """flaw 14: the request can leave the context. When every message that shows it is
    archived, the marker carries it (`request_once`); the kept few are read first."""
    kept = request_positions([*messages[:head_end], *messages[tail_start:]], active_request)
    archived = request_positions(messages[head_end:tail_start], active_request)
    return active_request if archived and not kept else None


def size_cut(messages, compactor, head_end: int, size: int, active_request=None) -> int:
    """Where the shortest tail that fits, with the head, in archive_size starts (each message its
    share of `size`), never past the newest keep_recent_results of the current request."""
    config = compactor.config
    chars = [size + 2 for size in compactor.sizes(messages)]   # its JSON (media by their rule) and ", "
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
    if tail_start < len(messages) and is_tool_result(messages[tail_start]) \
            and has_tool_use(messages[tail_start - 1]):
        tail_start -= 1
    return head_end, tail_start


def snip_compact(messages, compactor, active_request: str | None = None, chars: int | None = None):
    """Step 2: above the trigger, archive the middle and leave a marker in its place."""
    config = compactor.config
    # flaw 17: two cache breaks per compaction (step 2 on the count, step 3 on the size, on
    # different calls). The default archives on either trigger, down to both targets at once.
    if config.compact_in_one_call:
        size = compactor.size(messages) if chars is None else chars
        cut = one_call_cut(messages, compactor, size, active_request)
    else:
        cut = cut_points(messages, config) if len(messages) > config.snip_max_messages else None
    if cut is None:
        return messages
    head_end, tail_start = cut
    # flaw 15: a snip that cuts nothing. The cut never crosses itself, but it can meet: the
    # article still writes a transcript and "[0 messages archived ...]"; the default does not.
    if tail_start <= head_end and config.snip_skip_empty:
        return messages
    try:
        transcript = compactor.store.write_transcript(messages, compactor.texts(messages))
    except StoreError as error:
        compactor.report(f"snip_compact skipped, nothing archived: {error}")
        return messages
    carry = carried_request(messages, head_end, tail_start, active_request) if config.request_once else None
    marker = {"role": "user", "content": formats.archive_marker(tail_start - head_end, transcript, carry)}
    return [*messages[:head_end], marker, *messages[tail_start:]]
