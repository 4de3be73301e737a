"""Step 3 of the article: micro_compact, old tool results become placeholders.

Over all tool results in the list, the newest KEEP_RECENT_RESULTS (3) stay
whole; each older one longer than 120 characters becomes
`[Earlier tool result saved at <path>]` when step 1 had saved it, otherwise
`[Earlier tool result omitted.]`.

The article's version (seed profile) runs on every call, shrinks a fresh batch
before the model has read it, and throws away the text behind "omitted"
(flaws 1-3 in docs/DESIGN.md). It takes `results[:-KEEP_RECENT_RESULTS]`, so
0 shrinks nothing at all (flaw 16), and it looks at a placeholder like any
text: one over 120 characters (a tool_use_id over 58 characters) has no
`Full output:` line and becomes "omitted". The default profile:
- acts only when the context is over the limit, oldest result first, and stops
  once the size is at the target (a fraction of the limit), so a small context
  and the prompt-cache prefix are left alone;
- never touches results the model has not answered yet (after its last reply);
- saves the full text before it shrinks, so the placeholder always points at a
  copy.

Both profiles trust a saved path only from our own `<persisted-output>` block
naming a file in our own folder (flaw 6); the default leaves our placeholders
alone.

Left out: results of at most MICRO_MIN_CHARS (120), which a placeholder
would hardly shorten, and any choice by content: oldest goes first.
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
    match = formats.PERSISTED_RE.match(text)
    if match and store.is_saved_copy(match["path"], match["preview"]):
        return formats.saved_placeholder(match["path"])
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
    if config.micro_only_over_limit and chars <= config.context_limit:
        return messages
    results = all_tool_results(messages)
    keep = config.keep_recent_results
    if keep or not config.micro_keep_zero_keeps_none:
        # The article's slice: with keep == 0 it is results[:-0], an empty
        # list, so "keep none" shrinks none (flaw 16, kept in the seed).
        older = results[:-keep]
    else:
        older = results
    fresh = fresh_from(messages) if config.micro_protect_fresh else len(messages)
    for index, block in older:
        if config.micro_only_over_limit and chars <= config.target_size:
            break
        if index >= fresh:
            continue
        text = text_of(block.get("content", ""))
        if len(text) <= config.micro_min_chars:
            continue
        # The article shrinks a long saved placeholder again, to "omitted" (flaw 1).
        if config.micro_lossless and formats.is_placeholder(text):
            continue
        new_text = placeholder(block, compactor)
        if new_text is None:
            continue
        content = with_text(block.get("content", ""), new_text)
        # The article's step 3 never looks at the size: it is not measured for it.
        chars = compactor.replace_content(messages, index, block, content,
                                          chars if config.micro_only_over_limit else None)
    return messages
