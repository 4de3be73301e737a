"""A guard against compaction that makes no progress: the loop stops, and says why.

When the context limit is below what one turn brings back (a file's preview
over `context_char_limit`, say), every call summarizes, the model reads the
same file again, and the next call summarizes again: 15 calls, 14 summaries
and no answer, without a word (issue 41). Claude Code stops its automatic
compaction after 3 failures in a row; this guard is the same idea for a loop
around `ContextCompactor`: after `max_summaries` summaries (compact_history,
reactive_compact, the compact tool: every step that paid for a model call)
within the newest `within_calls` calls of `prepare`, it raises
`NoProgress`, whose text names the limit setting and its value, what fills
the context (its biggest messages and results), and what to raise.

    guard = CompactionGuard(compactor)                 # 3 summaries within 5 calls
    messages[:] = guard.prepare(messages, request)     # in place of compactor.prepare

The course's agent (workbench/agent/loop.py) and the recipe
(examples/own_loop.py, docs/RECIPE.md) both use it.

Left out: deciding for the caller (no setting is changed, nothing is retried).
"""

from compact.messages import blocks, encode, text_of, to_plain

MAX_SUMMARIES = 3     # Claude Code's anchor: 3 compaction failures in a row stop it
WITHIN_CALLS = 5
SHOWN = 3             # the biggest parts named in the error


class NoProgress(RuntimeError):
    """Compaction keeps summarizing and the context keeps coming back over the limit."""


class CompactionGuard:
    def __init__(self, compactor, max_summaries: int = MAX_SUMMARIES,
                 within_calls: int = WITHIN_CALLS):
        if not 1 <= max_summaries <= within_calls:
            raise ValueError(f"max_summaries ({max_summaries}) must be between 1 and "
                             f"within_calls ({within_calls})")
        self.compactor = compactor
        self.max_summaries, self.within_calls = max_summaries, within_calls

    def prepare(self, messages, active_request):
        """`compactor.prepare`, then NoProgress if the summaries came too close together."""
        prepared = self.compactor.prepare(messages, active_request)
        self.check(messages)
        return prepared

    def summaries(self) -> int:
        """Summaries paid for within the newest `within_calls` calls of prepare."""
        first = self.compactor.calls - self.within_calls
        return sum(1 for r in self.compactor.records if r.model_calls and r.call > first)

    def check(self, context) -> None:
        """NoProgress, describing `context` (the list that was over the limit), when
        `max_summaries` summaries fell within the newest `within_calls` calls."""
        if self.summaries() >= self.max_summaries:
            raise NoProgress(self.explain(context))

    def explain(self, context) -> str:
        compactor = self.compactor
        config = compactor.config
        setting = "context_char_limit" if config.unit == "characters" else "context_token_limit"
        size = compactor.measure(context)
        return (f"compaction is making no progress: {self.summaries()} summaries within the last "
                f"{self.within_calls} calls (CompactionGuard max_summaries={self.max_summaries}, "
                f"within_calls={self.within_calls}), and each time the context came back over "
                f"{setting}={config.context_limit:,} {config.unit}. What fills it "
                f"({size:,} {config.unit}): {'; '.join(biggest(context))}. Raise {setting} "
                f"above {size:,}, so that what each turn brings back fits"
                + (f", or lower preview_chars={config.preview_chars:,} (a saved result keeps "
                   f"that much in context)" if config.preview_chars * 2 > config.context_char_limit
                   else "") + ".")


def biggest(messages, shown: int = SHOWN) -> list[str]:
    """The largest parts of a list, named: a tool result by its id, a message by its index."""
    parts = []
    for i, message in enumerate(to_plain(messages)):
        results = [b for b in blocks(message) if isinstance(b, dict) and b.get("type") == "tool_result"]
        for block in results:
            chars = len(text_of(block.get("content", "")))
            parts.append((chars, f"messages[{i}] tool_result {block['tool_use_id']!r}: "
                                 f"{chars:,} characters"))
        if not results:
            chars = len(encode(message.get("content", "")))
            parts.append((chars, f"messages[{i}] ({message.get('role')}): {chars:,} characters"))
    parts.sort(key=lambda part: part[0], reverse=True)
    return [text for _, text in parts[:shown]]
