"""What each step did on each call: the data behind every chart and table.

One `StepRecord` per step per call, whether the step changed anything or not,
so a timeline can show the quiet calls too.

Left out: timing (the benchmark times calls itself) and the messages
themselves (only their counts and sizes).
"""

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
    # What the step cost a session with thinking on (counted only when the list holds
    # thinking blocks): blocks it removed (whole compaction: the reasoning dropped), blocks
    # it left behind an edited message (the API's prefix check fails them), and the first
    # message it changed, where the prompt cache restarts (None: it only appended, or nothing).
    thinking_dropped: int = 0
    thinking_invalidated: int = 0
    cache_restart_at: int | None = None

    @property
    def fired(self) -> bool:
        return (self.chars_before != self.chars_after
                or self.messages_before != self.messages_after
                or bool(self.files) or self.model_calls > 0)

    def as_dict(self) -> dict:
        row = asdict(self)
        row["fired"] = self.fired
        return row

