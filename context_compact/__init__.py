"""context_compact: the context-compaction pipeline of learn-claude-code s08, readable and safe.

    c = ContextCompactor(root, summarizer, CompactionConfig())   # CompactionConfig.seed(): the article
    messages = c.prepare(messages, active_request)

In tokens: config=CompactionConfig.for_window(200_000, 0.75), measure=TokenMeasure(client, model).
"""

from .compactor import CompactionWarning, ContextCompactor
from .config import CompactionConfig
from .guard import CompactionGuard, NoProgress
from .messages import MessageFormatError, estimate_chars, to_plain, validate_messages
from .reactive import hit_the_window, is_prompt_too_long
from .record import StepRecord
from .store import Store, StoreError
from .tokens import TokenMeasure

__all__ = ["CompactionConfig", "CompactionGuard", "CompactionWarning", "ContextCompactor",
           "MessageFormatError", "NoProgress", "StepRecord", "Store", "StoreError", "TokenMeasure",
           "estimate_chars", "hit_the_window", "is_prompt_too_long", "to_plain", "validate_messages"]
