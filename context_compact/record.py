"""What each step did on each call: the data behind every chart and table, one `StepRecord`
a step a call, quiet calls too. Left out: timing (the benchmark's) and the messages."""

from dataclasses import asdict, dataclass, field


@dataclass
class StepRecord:
    call: int                 # which prepare call (1-based); 0 before the first
    step: str                 # tool_result_budget, snip_compact, micro_compact, ...
    messages_before: int
    messages_after: int
    chars_before: int
    chars_after: int
    files: list = field(default_factory=list)   # relative paths written
    model_calls: int = 0      # summaries asked of the model
    error: str | None = None  # a write that failed; the text stayed in context
    # Thinking blocks it removed (a whole compaction), left behind an edited message (the API's
    # prefix check fails them), and the first message it changed: the cache restarts there.
    thinking_dropped: int = 0
    thinking_invalidated: int = 0
    cache_restart_at: int | None = None

    @property
    def fired(self) -> bool:
        return (self.chars_before != self.chars_after or self.messages_before != self.messages_after
                or bool(self.files) or self.model_calls > 0)

    def as_dict(self) -> dict:
        return {**asdict(self), "fired": self.fired}
