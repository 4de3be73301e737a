"""Step 1 of the article, tool_result_budget: huge results of the newest batch go to disk.

While the newest batch is over TOOL_RESULT_BATCH_CHAR_LIMIT, its results over
LARGE_RESULT_CHAR_LIMIT, largest first, become a `<persisted-output>` block with a 2000-character
preview; `persist_largest` is the default's pass before a summary (flaw 8 in docs/DESIGN.md).
Left out: older batches (step 3's), and any choice by content.
"""

from . import formats
from .messages import text_of, tool_results, with_text
from .store import StoreError


def persisted_content(block, compactor):
    """The content that replaces one result once saved; None (and reported) if the write failed."""
    # The text of the content, not str() of a list of blocks (flaw 11, both profiles):
    # an image block stays in context, the saved file holds only text.
    text = text_of(block.get("content", ""))
    try:
        path = compactor.store.persist_result(block["tool_use_id"], text)
    except StoreError as error:
        compactor.report(f"tool_result {block['tool_use_id']!r} kept in context: {error}")
        return None
    return with_text(block.get("content", ""),
                     formats.persisted_block(path, text, compactor.config.preview_chars))


def tool_result_budget(messages, compactor):
    """Step 1: persist the newest batch's largest results until its text is under its limit;
    with persist_oversized, also any result over oversized_fraction of the context limit."""
    config = compactor.config
    if not messages or messages[-1].get("role") != "user":   # the newest batch: the last message
        return messages
    batch = tool_results(messages[-1])
    size = {id(b): len(text_of(b.get("content", ""))) for b in batch}
    total = sum(size.values())
    # flaw 18: one huge result costs a compaction. In a batch under the limit, a result over
    # oversized_fraction of the context limit pushes the list over it alone; saved now, while
    # it is the newest message, it breaks no cached prefix. The seed counts the total only.
    oversized = config.oversized_chars if config.persist_oversized else None
    for block in sorted(batch, key=lambda b: size[id(b)], reverse=True):
        too_big = oversized is not None and size[id(block)] > oversized
        if total <= config.tool_result_batch_char_limit and not too_big:
            break
        # Our own block, saved on an earlier call: saving it again would save the preview.
        saved = formats.PERSISTED_RE.match(text_of(block.get("content", "")))
        if size[id(block)] <= config.large_result_char_limit and not too_big \
                or saved and compactor.store.is_saved_copy(saved["path"], saved["preview"]):
            continue
        content = persisted_content(block, compactor)
        if content is not None:
            compactor.replace_content(messages, len(messages) - 1, block, content, None)
            total -= size[id(block)] - len(text_of(content))   # the preview still counts
    return messages


def persist_largest(messages, compactor, chars: int):
    """The default's pass before step 4 (flaw 8: a summary where a file write would do): one large
    fresh result can push the list over the limit with its batch under step 1's. Step 1's move on
    the largest results anywhere until the size (`chars`, lowered by each change) is under the target."""
    config = compactor.config
    worth = config.preview_chars + 500   # only a result much longer than its preview pays
    candidates = sorted(((len(text_of(b.get("content", ""))), i, b) for i, m in enumerate(messages)
                         for b in tool_results(m)), key=lambda row: row[0], reverse=True)
    for length, index, block in candidates:
        if chars <= config.target_size:
            break
        if length > worth and formats.kind_of_result(text_of(block.get("content", ""))) == "whole":
            content = persisted_content(block, compactor)
            if content is not None:
                chars = compactor.replace_content(messages, index, block, content, chars)
    return messages
