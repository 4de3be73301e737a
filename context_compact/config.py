"""The numbers of the pipeline, in two profiles.

`seed()` is the article (s08) exactly, flaws included; the default fixes its behavioural flaws,
one switch each (flaws 1-5, 8, 14-19 in docs/DESIGN.md); the safety fixes (6, 7, 9, 11, 12)
hold in both. Sizes are characters of `json.dumps(messages, ensure_ascii=False)`, or tokens
when `context_token_limit` is set (steps 1 and 3 and the summary input stay characters).
Left out: any number the article does not have but the default's fixes and the token limit.
"""

from dataclasses import dataclass, fields

POSITIVE = ("context_char_limit", "tool_result_batch_char_limit", "large_result_char_limit",
            "summary_input_char_limit", "snip_max_messages", "snip_keep_head", "preview_chars")
WHOLE = ("keep_recent_results", "keep_recent_messages", "max_reactive_retries", "micro_min_chars")
FRACTIONS = ("target_fraction", "archive_fraction", "oversized_fraction")


def _number(value, kinds=(int,)) -> bool:
    return isinstance(value, kinds) and not isinstance(value, bool)   # True is no threshold


@dataclass(frozen=True)
class CompactionConfig:
    """The pipeline's numbers and switches; a bad value raises ValueError when built."""

    profile: str = "default"
    # The article's numbers (CONTEXT_CHAR_LIMIT, ...), the same in both profiles.
    context_char_limit: int = 50_000
    tool_result_batch_char_limit: int = 200_000
    large_result_char_limit: int = 30_000
    summary_input_char_limit: int = 80_000
    keep_recent_results: int = 3
    keep_recent_messages: int = 5
    max_reactive_retries: int = 1
    snip_max_messages: int = 50
    snip_keep_head: int = 3
    preview_chars: int = 2_000
    micro_min_chars: int = 120
    snip_target_messages: int | None = 30   # flaws 4, 5: a snip leaves 30, marker in (None: 51)
    micro_lossless: bool = True          # flaw 1: every placeholder points at a saved copy
    micro_only_over_limit: bool = True   # flaw 2: step 3 acts only over the limit, down to the target
    micro_protect_fresh: bool = True     # flaw 3: results the model has not read are never shrunk
    persist_before_summary: bool = True  # flaw 8: save the largest results before paying for a summary
    request_once: bool = True            # flaw 14: the request is visible exactly once
    snip_skip_empty: bool = True         # flaw 15: no transcript and no "[0 messages archived ...]"
    micro_keep_zero_keeps_none: bool = True   # flaw 16: 0 keeps none (the article's [:-0] keeps all)
    target_fraction: float = 0.6         # where step 3 and persist_largest stop, of the limit
    compact_in_one_call: bool = True     # flaw 17: step 2 archives to both targets in one call,
    archive_fraction: float = 0.2        # down to this share of the limit
    persist_oversized: bool = True       # flaw 18: step 1 saves a result over this share of the limit
    oversized_fraction: float = 0.4
    # Issue 31: on a cold cache a rewrite breaks nothing still paid for: compact down to the
    # target then (`when_cold`). Off: the benchmark measures it (docs/AFTER_THE_ARTICLE.md).
    compact_when_cold: bool = False
    append_only_thinking: bool = True    # flaw 19: with thinking blocks, shrink the past only whole
    context_token_limit: int | None = None   # the limit in tokens of a token measure

    def __post_init__(self):
        self.validate()

    @classmethod
    def seed(cls, **overrides) -> "CompactionConfig":
        """The article's design, flaws and all."""
        fixes = dict.fromkeys((f.name for f in fields(cls) if f.default is True), False)   # all off
        return cls(**{"profile": "seed", "snip_target_messages": None, **fixes, **overrides})

    @classmethod
    def named(cls, profile: str, **overrides) -> "CompactionConfig":
        """A profile by its name, 'seed' or 'default' (a notebook's switch, a --profile flag)."""
        if profile not in ("seed", "default"):
            raise ValueError(f"unknown profile {profile!r}: use 'seed' or 'default'")
        return cls.seed(**overrides) if profile == "seed" else cls(**overrides)

    @classmethod
    def for_window(cls, window_tokens: int, fraction: float, profile: str = "default",
                   **overrides) -> "CompactionConfig":
        """A token limit at `fraction` of a window: for_window(200_000, 0.75) is 150,000."""
        if not _number(window_tokens) or window_tokens < 1:
            raise ValueError(f"window_tokens must be a positive integer, got {window_tokens!r}")
        if not _number(fraction, (int, float)) or not 0 < fraction <= 1:
            raise ValueError(f"fraction must be in (0, 1], got {fraction!r}")
        return cls.named(profile, context_token_limit=int(window_tokens * fraction), **overrides)

    # The limit steps 3 and 4 compare with, in `unit`, and its shares; snip_keep_total: the
    # messages after a snip, marker included (the article keeps 51).
    unit = property(lambda self: "characters" if self.context_token_limit is None else "tokens")
    context_limit = property(lambda self: self.context_token_limit or self.context_char_limit)
    target_size = property(lambda self: int(self.context_limit * self.target_fraction))
    target_chars = property(lambda self: int(self.context_char_limit * self.target_fraction))
    archive_size = property(lambda self: int(self.context_limit * self.archive_fraction))
    oversized_chars = property(lambda self: int(self.context_char_limit * self.oversized_fraction))
    snip_keep_total = property(lambda self: self.snip_target_messages or self.snip_max_messages + 1)

    def validate(self) -> None:
        """Raise ValueError naming the bad field; called before any file is written."""
        switches = tuple(f.name for f in fields(self) if f.type in (bool, "bool"))   # None or 0: no "off"
        for names, wanted, good in (
                (switches, "True or False", lambda v: isinstance(v, bool)),
                (POSITIVE, "a positive integer", lambda v: _number(v) and v >= 1),
                (WHOLE, "a whole number >= 0", lambda v: _number(v) and v >= 0),
                (("profile",), "'seed' or 'default'", lambda v: v in ("seed", "default")),
                (FRACTIONS, "in (0, 1]", lambda v: _number(v, (int, float)) and 0 < v <= 1),
                (("snip_target_messages",), "an integer or None", lambda v: v is None or _number(v)),
                (("context_token_limit",), "a positive integer or None",
                 lambda v: v is None or _number(v) and v >= 1)):
            for name in names:
                if not good(getattr(self, name)):
                    raise ValueError(f"{name} must be {wanted}, got {getattr(self, name)!r}")
        if self.snip_keep_head >= self.snip_max_messages:
            raise ValueError(f"snip_keep_head ({self.snip_keep_head}) must be below "
                             f"snip_max_messages ({self.snip_max_messages})")
        target = self.snip_target_messages
        # Head + marker + one newest message must fit, and the target sit below the
        # trigger, or every call would archive again.
        if target is not None and not self.snip_keep_head + 2 <= target < self.snip_max_messages:
            raise ValueError(f"snip_target_messages ({target}) must be at least snip_keep_head + 2 "
                             f"({self.snip_keep_head + 2}) and below snip_max_messages "
                             f"({self.snip_max_messages})")

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}
