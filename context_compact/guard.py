"""A guard against compaction that makes no progress: the loop stops, and says why.

Below what one turn brings back (a file's preview over the limit, say) every call summarizes and
the model reads the file again: 15 calls, 14 summaries, no answer (issue 41). As Claude Code stops
its automatic compaction after 3 failures in a row, `CompactionGuard.prepare` raises `NoProgress`
after `max_summaries` summaries within the newest `within_calls` calls of `prepare`, naming the
limit's setting and value, what fills the context and what to raise.

    messages[:] = CompactionGuard(compactor).prepare(messages, request)   # 3 within 5

Left out: deciding for the caller (no setting is changed, nothing is retried).
"""

from .media import extra_chars
from .messages import encode, text_of, to_plain, tool_results


class NoProgress(RuntimeError):
    """Compaction keeps summarizing and the context keeps coming back over the limit."""


class CompactionGuard:
    def __init__(self, compactor, max_summaries: int = 3, within_calls: int = 5):   # Claude Code's 3
        if not 1 <= max_summaries <= within_calls:
            raise ValueError(f"max_summaries ({max_summaries}) must be between 1 and "
                             f"within_calls ({within_calls})")
        self.compactor, self.max_summaries, self.within_calls = compactor, max_summaries, within_calls

    def prepare(self, messages, active_request):   # compactor.prepare, then check
        prepared = self.compactor.prepare(messages, active_request)
        self.check(messages)
        return prepared

    def summaries(self) -> int:   # summaries paid for within the newest `within_calls` calls
        first = self.compactor.calls - self.within_calls
        return sum(1 for r in self.compactor.records if r.model_calls and r.call > first)

    def check(self, context) -> None:
        """NoProgress, describing `context` (the list over the limit), when the summaries came too close."""
        if self.summaries() < self.max_summaries:
            return
        config = self.compactor.config
        setting = "context_char_limit" if config.unit == "characters" else "context_token_limit"
        size = self.compactor.measure(context)
        preview = config.preview_chars * 2 > config.context_char_limit   # one saved result's preview fills it
        raise NoProgress(
            f"compaction is making no progress: {self.summaries()} summaries within the last "
            f"{self.within_calls} calls (CompactionGuard max_summaries={self.max_summaries}, "
            f"within_calls={self.within_calls}), and each time the context came back over "
            f"{setting}={config.context_limit:,} {config.unit}. What fills it ({size:,} {config.unit}): "
            f"{'; '.join(biggest(context))}. Raise {setting} above {size:,}, so that what each turn "
            f"brings back fits" + (f", or lower preview_chars={config.preview_chars:,} (a saved result "
                                   f"keeps that much in context)" if preview else "") + ".")


def biggest(messages, shown: int = 3) -> list[str]:
    """The largest parts of a list, named: a tool result by its id, a message by its index
    (its images and documents by the API's rule)."""
    parts = []
    for i, message in enumerate(to_plain(messages)):
        for block in tool_results(message):
            chars = len(text_of(block.get("content", "")))
            parts.append((chars, f"messages[{i}] tool_result {block['tool_use_id']!r}: {chars:,} characters"))
        if not tool_results(message):
            chars = len(encode(message.get("content", ""))) + extra_chars(message, encode(message))
            parts.append((chars, f"messages[{i}] ({message.get('role')}): {chars:,} characters"))
    return [text for _, text in sorted(parts, key=lambda part: part[0], reverse=True)[:shown]]
