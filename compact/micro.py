"""Step 3 of the article, micro_compact: old tool results become placeholders.

Of all tool results in the list, the newest KEEP_RECENT_RESULTS (3) stay whole; each older
one over MICRO_MIN_CHARS (120) becomes `[Earlier tool result saved at <path>]` when step 1
had saved it, otherwise `[Earlier tool result omitted.]`. Left out: results a placeholder
would hardly shorten, and any choice by content: the oldest goes first.
"""

from . import formats
from .messages import text_of, tool_results, with_text
from .store import StoreError


def fresh_from(messages) -> int:
    """Index of the first message newer than the model's last reply."""
    return next((i + 1 for i in reversed(range(len(messages))) if messages[i].get("role") == "assistant"), 0)


def placeholder(block, compactor) -> str | None:
    """The placeholder for one result, or None to leave it whole."""
    text = text_of(block.get("content", ""))
    # A path is trusted only from our own <persisted-output> block naming a file of our own
    # folder that holds the preview (flaw 6, both profiles): a "Full output:" line in a
    # file the agent read is ordinary text.
    match = formats.PERSISTED_RE.match(text)
    if match and compactor.store.is_saved_copy(match["path"], match["preview"]):
        return formats.saved_placeholder(match["path"])
    # flaw 1: step 3 throws text away. The seed's "omitted" has no copy anywhere; the
    # default (micro_lossless) saves the full text first, so every placeholder is "saved".
    if not compactor.config.micro_lossless:
        return formats.OMITTED
    try:
        return formats.saved_placeholder(compactor.store.persist_result(block["tool_use_id"], text))
    except StoreError as error:
        compactor.report(f"tool_result {block['tool_use_id']!r} kept in context: {error}")
        return None


def micro_compact(messages, compactor, chars: int):
    """Step 3: older results become placeholders (`chars`: the list's size now)."""
    config = compactor.config
    # flaw 2: step 3 runs on every call, however small the context, and rewrites old messages
    # (the prompt cache breaks every turn); the default acts only over the limit, down to the target.
    if config.micro_only_over_limit and chars <= config.context_limit:
        return messages
    results = [(i, b) for i, m in enumerate(messages) for b in tool_results(m)]   # oldest first
    keep = config.keep_recent_results
    # flaw 16: KEEP_RECENT_RESULTS = 0 keeps everything: the article's slice with keep == 0
    # is results[:-0], an empty list, so "keep none" shrinks none (kept in the seed).
    older = results[:-keep] if keep or not config.micro_keep_zero_keeps_none else results
    # flaw 3: a fresh batch can be shrunk unread. The default never touches a result newer
    # than the model's last reply; for the seed `fresh` is past the last message.
    fresh = fresh_from(messages) if config.micro_protect_fresh else len(messages)
    for index, block in older:   # oldest first
        if config.micro_only_over_limit and chars <= config.target_size:
            break   # flaw 2: down to the target, not further
        text = text_of(block.get("content", ""))
        # flaw 1 again: a saved placeholder over 120 characters (a tool_use_id over 58) has
        # no "Full output:" line, so the article shrinks it again, to "omitted".
        if index >= fresh or len(text) <= config.micro_min_chars \
                or config.micro_lossless and formats.is_placeholder(text):
            continue
        new_text = placeholder(block, compactor)
        if new_text is not None:
            # The article's step 3 never looks at the size (flaw 2): not measured for it.
            content = with_text(block.get("content", ""), new_text)
            chars = compactor.replace_content(messages, index, block, content,
                                              chars if config.micro_only_over_limit else None)
    return messages
