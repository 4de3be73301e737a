"""Step 1 of the article: tool_result_budget, moving huge results to disk.

The newest batch over TOOL_RESULT_BATCH_CHAR_LIMIT: its results over
LARGE_RESULT_CHAR_LIMIT, largest first, become a `<persisted-output>` block
with a 2000-character preview, until the batch is under the limit. Also
`persist_largest`, the default profile's pass before a summary (flaw 8).

Left out on purpose: older batches (step 3 handles them), and any choice by
content: size alone decides. Flaws are numbered as in docs/DESIGN.md.
"""

from . import formats
from .messages import text_of, tool_results, with_text
from .store import StoreError


def persisted_content(block, compactor):
    """The content that replaces one result once saved; None (and reported) if the write failed."""
    config, store = compactor.config, compactor.store
    # The text of the content, not str() of a list of blocks (flaw 11, both profiles):
    # an image block stays in context, the saved file holds only text.
    text = text_of(block.get("content", ""))
    try:
        path = store.persist_result(block["tool_use_id"], text)
    except StoreError as error:
        compactor.report(f"tool_result {block['tool_use_id']!r} kept in context: {error}")
        return None
    return with_text(block.get("content", ""), formats.persisted_block(path, text, config.preview_chars))


def already_saved(block, store) -> bool:
    """True for our own `<persisted-output>` block whose file is really there."""
    match = formats.PERSISTED_RE.match(text_of(block.get("content", "")))
    return bool(match) and store.is_saved_copy(match["path"], match["preview"])


def tool_result_budget(messages, compactor):
    """Step 1: persist the newest batch's largest results until it is under its limit
    (the batch's text is what it counts, not the list's size); with persist_oversized,
    also any of its results over oversized_fraction of the context limit."""
    config = compactor.config
    # Only the newest batch: the last message, when it is a user message of results.
    if not messages or messages[-1].get("role") != "user":
        return messages
    batch = tool_results(messages[-1])
    size = {id(b): len(text_of(b.get("content", ""))) for b in batch}
    total = sum(size.values())
    # flaw 18: one huge result costs a compaction. Kept whole in a batch under the
    # limit, one result over oversized_fraction of the context limit would push the
    # list over it by itself; saved now, while it is the newest message, it breaks no
    # cached prefix. The seed (persist_oversized off) looks at the batch's total only.
    oversized = config.oversized_chars if config.persist_oversized else None
    for block in sorted(batch, key=lambda b: size[id(b)], reverse=True):
        too_big = oversized is not None and size[id(block)] > oversized
        if total <= config.tool_result_batch_char_limit and not too_big:
            break
        # A block saved on an earlier call stays as it is: saving it again
        # would store a copy of the preview and change the list on every call.
        if (size[id(block)] <= config.large_result_char_limit and not too_big
                or already_saved(block, compactor.store)):
            continue
        content = persisted_content(block, compactor)
        if content is not None:
            compactor.replace_content(messages, len(messages) - 1, block, content, None)
            # Re-total after each one: the preview still counts toward the batch.
            total -= size[id(block)] - len(text_of(content))
    return messages


def persist_largest(messages, compactor, chars: int):
    """Persist the largest results anywhere until the context is under the target.

    flaw 8: a summary where a file write would do. One large fresh result can push
    the context over the limit while its batch is under step 1's, and the article
    then pays for a summary. Only in the default profile (its row in steps.py needs
    `persist_before_summary`), just before step 4: the move of step 1 applied to
    the largest results anywhere in the list, fresh ones too; step 4 runs only if
    this is not enough.

    `chars` is the current size; each replacement lowers it by the change in
    that block (exact for the article's measure, so the list is measured once).
    """
    config = compactor.config
    # Persisting only pays when the result is much longer than its preview.
    worth = config.preview_chars + 500
    candidates = []
    for index, message in enumerate(messages):
        for block in tool_results(message):
            text = text_of(block.get("content", ""))
            if len(text) > worth and formats.kind_of_result(text) == "whole":
                candidates.append((len(text), index, block))
    candidates.sort(key=lambda row: row[0], reverse=True)
    for _, index, block in candidates:
        if chars <= config.target_size:
            break
        content = persisted_content(block, compactor)
        if content is not None:
            chars = compactor.replace_content(messages, index, block, content, chars)
    return messages
