"""Step 3 of the article: micro_compact, old tool results become placeholders.

Over all tool results in the list, the newest KEEP_RECENT_RESULTS (3) stay
whole; each older one longer than 120 characters becomes
`[Earlier tool result saved at <path>]` when step 1 had saved it, otherwise
`[Earlier tool result omitted.]`.

Left out on purpose: results of at most MICRO_MIN_CHARS (120), which a
placeholder would hardly shorten, and any choice by content: oldest goes first.
Flaws are numbered as in docs/DESIGN.md.
"""

from . import formats
from .messages import all_tool_results, text_of, with_text
from .store import StoreError


def fresh_from(messages) -> int:
    """Index of the first message newer than the model's last reply."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "assistant":
            return i + 1
    return 0


def placeholder(block, compactor) -> str | None:
    """The placeholder for one result, or None to leave it whole."""
    store = compactor.store
    text = text_of(block.get("content", ""))
    # A path is trusted only from our own <persisted-output> block naming a file of our
    # own folder that holds the preview (flaw 6, both profiles): a "Full output:" line
    # in a file the agent read is ordinary text.
    match = formats.PERSISTED_RE.match(text)
    if match and store.is_saved_copy(match["path"], match["preview"]):
        return formats.saved_placeholder(match["path"])
    # flaw 1: step 3 throws text away. The seed's "omitted" has no copy anywhere; the
    # default (micro_lossless) saves the full text first, so every placeholder is "saved".
    if not compactor.config.micro_lossless:
        return formats.OMITTED
    try:
        path = store.persist_result(block["tool_use_id"], text)
    except StoreError as error:
        compactor.report(f"tool_result {block['tool_use_id']!r} kept in context: {error}")
        return None
    return formats.saved_placeholder(path)


def micro_compact(messages, compactor, chars: int):
    """Step 3: older results become placeholders (`chars`: the list's size now)."""
    config = compactor.config
    # flaw 2: step 3 runs on every call. The seed shrinks old results however small
    # the context, rewriting old messages (the prompt-cache prefix breaks every turn);
    # the default (micro_only_over_limit) acts only over the limit, down to the target.
    if config.micro_only_over_limit and chars <= config.context_limit:
        return messages
    results = all_tool_results(messages)
    keep = config.keep_recent_results
    # flaw 16: KEEP_RECENT_RESULTS = 0 keeps everything.
    if keep or not config.micro_keep_zero_keeps_none:
        # The article's slice: with keep == 0 it is results[:-0], an empty
        # list, so "keep none" shrinks none (kept in the seed).
        older = results[:-keep]
    else:
        older = results
    # flaw 3: a fresh batch can be shrunk unread. The default never touches a result
    # newer than the model's last reply; for the seed `fresh` is past the last message.
    fresh = fresh_from(messages) if config.micro_protect_fresh else len(messages)
    for index, block in older:     # oldest first
        if config.micro_only_over_limit and chars <= config.target_size:
            break                  # flaw 2: down to the target, not further
        if index >= fresh:
            continue
        text = text_of(block.get("content", ""))
        if len(text) <= config.micro_min_chars:
            continue
        # flaw 1 again: a saved placeholder over 120 characters (a tool_use_id over 58)
        # has no "Full output:" line, so the article shrinks it again, to "omitted".
        if config.micro_lossless and formats.is_placeholder(text):
            continue
        new_text = placeholder(block, compactor)
        if new_text is None:
            continue
        content = with_text(block.get("content", ""), new_text)
        # The article's step 3 never looks at the size: it is not measured for it (flaw 2).
        chars = compactor.replace_content(messages, index, block, content,
                                          chars if config.micro_only_over_limit else None)
    return messages
