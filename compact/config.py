"""The numbers of the pipeline, in two profiles.

`CompactionConfig.seed()` is the article (s08) exactly: its thresholds and its
behaviour, flaws included, so a notebook can reproduce what the article shows.
`CompactionConfig()` is the default: the same thresholds with the behavioural
flaws fixed (flaws 1-5, 8 and 14-19 in docs/DESIGN.md, one switch each). The
safety fixes (trusted paths, collision-safe names, text of list content, plain
dicts, the prompt-too-long spellings: flaws 6, 7, 9, 11, 12) are not switches:
they hold in both profiles. tests/test_differential.py runs the seed profile
beside a flat copy of the article's code and compares them call after call.

All sizes are characters of `json.dumps(messages, ensure_ascii=False)`, unless
`context_token_limit` is set: then the context is measured in tokens by the
measure passed to the compactor (`compact.tokens.TokenMeasure`), and that limit
and its target replace `context_char_limit` and its target. `for_window` states
the limit as a share of a model's window. The per-result thresholds (steps 1
and 3) and the summary input stay characters of text in every case.

Left out: any number the article does not have, but for the default's fixes
and the token limit; the seed profile stays the article's characters.
"""

from dataclasses import dataclass, fields, replace

POSITIVE = ("context_char_limit", "tool_result_batch_char_limit", "large_result_char_limit",
            "summary_input_char_limit", "snip_max_messages", "snip_keep_head", "preview_chars")
WHOLE = ("keep_recent_results", "keep_recent_messages", "max_reactive_retries", "micro_min_chars")


def _plain_number(value, kinds=(int,)) -> bool:
    # bool is an int in Python, but True is no threshold.
    return isinstance(value, kinds) and not isinstance(value, bool)


def _check_count(name: str, value, minimum: int) -> None:
    if not _plain_number(value) or value < minimum:
        wanted = "a positive integer" if minimum == 1 else "a whole number >= 0"
        raise ValueError(f"{name} must be {wanted}, got {value!r}")


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

    # Flaw 4 and 5: after a snip the list holds this many messages, marker
    # included, so the next archive is (max - target) messages away.
    # None means the article's cut: head + (max - head) newest + the marker.
    snip_target_messages: int | None = 30

    # Flaw 1: placeholders always point at a saved copy.
    micro_lossless: bool = True
    # Flaw 2: step 3 acts only over the limit, and stops at the target.
    micro_only_over_limit: bool = True
    # Flaw 3: results the model has not answered yet are never shrunk.
    micro_protect_fresh: bool = True
    # Flaw 8: persist the largest results before paying for a summary.
    persist_before_summary: bool = True
    # Flaw 14: the current request stays visible exactly once: step 2's marker
    # carries it when every copy was archived, and reactive_compact's tail
    # starts after the request's own message (the article keeps the newest 5).
    request_once: bool = True
    # Flaw 15: a snip whose pair-safe cut leaves nothing to archive writes no
    # transcript and no "[0 messages archived ...]" marker.
    snip_skip_empty: bool = True
    # Flaw 16: keep_recent_results=0 keeps none; the article's results[:-0] shrinks none.
    micro_keep_zero_keeps_none: bool = True
    # Where step 3 and persist_largest stop, as a fraction of the context limit.
    target_fraction: float = 0.6
    # Flaw 17: one cache break per compaction. When either trigger fires (over
    # context_char_limit, or over snip_max_messages), step 2 archives, in that
    # one call, the oldest messages down to archive_fraction of the limit and to
    # snip_target_messages, keeping the newest keep_recent_results results.
    compact_in_one_call: bool = True
    archive_fraction: float = 0.2
    # Flaw 18: a result over oversized_fraction of context_char_limit is saved
    # by step 1 as it arrives (a preview stays), whatever its batch's total.
    persist_oversized: bool = True
    oversized_fraction: float = 0.4
    # Issue 31, the cache-aware switch: when the prompt cache has expired anyway
    # (the session sat idle longer than the cache lives), a rewrite breaks nothing
    # that is still paid for: compact then, down to the target, whatever the size
    # (`when_cold`). Off: the benchmark measures it (docs/AFTER_THE_ARTICLE.md).
    compact_when_cold: bool = False
    # flaw 19 (issue 42, preserved thinking): a thinking block sent back is bound to
    # everything before it, so an in-place edit of the past (steps 2, 3, persist_largest)
    # is a 400 or drops its reasoning. While the list holds a thinking block, shrink the
    # past only whole, at a compaction (step 4; reactive_compact summarizes all of it).
    append_only_thinking: bool = True
    # Tokens instead of characters: the context limit in tokens of the compactor's
    # token measure. None: the article's characters (context_char_limit).
    context_token_limit: int | None = None

    def __post_init__(self):
        self.validate()

    @classmethod
    def seed(cls, **overrides) -> "CompactionConfig":
        """The article's design, flaws and all."""
        article = dict(
            profile="seed",
            snip_target_messages=None,
            micro_lossless=False,
            micro_only_over_limit=False,
            micro_protect_fresh=False,
            persist_before_summary=False,
            request_once=False,
            snip_skip_empty=False,
            micro_keep_zero_keeps_none=False,
            compact_in_one_call=False,
            persist_oversized=False,
            append_only_thinking=False,
        )
        article.update(overrides)
        return cls(**article)

    @classmethod
    def named(cls, profile: str, **overrides) -> "CompactionConfig":
        """A profile by its name, 'seed' or 'default' (a notebook's switch, a --profile flag)."""
        if profile == "seed":
            return cls.seed(**overrides)
        if profile == "default":
            return cls(**overrides)
        raise ValueError(f"unknown profile {profile!r}: use 'seed' or 'default'")

    @classmethod
    def for_window(cls, window_tokens: int, fraction: float, profile: str = "default",
                   **overrides) -> "CompactionConfig":
        """A token limit at `fraction` of a window: for_window(200_000, 0.75) is 150,000.

        The API's own context management triggers at 100,000 input tokens (tool
        result clearing) and 150,000 (compaction) by default: 0.5 and 0.75 of a
        200,000-token window.
        """
        if not _plain_number(window_tokens) or window_tokens < 1:
            raise ValueError(f"window_tokens must be a positive integer, got {window_tokens!r}")
        if not _plain_number(fraction, (int, float)) or not 0 < fraction <= 1:
            raise ValueError(f"fraction must be in (0, 1], got {fraction!r}")
        return cls.named(profile, context_token_limit=int(window_tokens * fraction), **overrides)

    def when_cold(self) -> "CompactionConfig":
        """The numbers for a call on a cold cache: the target is the limit, and stays the
        target (the steps that act over the limit act over the target, down to it)."""
        if self.context_token_limit is None:
            return replace(self, context_char_limit=max(1, self.target_chars), target_fraction=1.0)
        return replace(self, context_token_limit=max(1, self.target_size), target_fraction=1.0)

    @property
    def unit(self) -> str:
        """What the context limit counts: 'tokens' or 'characters'."""
        return "characters" if self.context_token_limit is None else "tokens"

    @property
    def context_limit(self) -> int:
        """The context limit steps 3 and 4 compare with, in `unit`."""
        if self.context_token_limit is None:
            return self.context_char_limit
        return self.context_token_limit

    @property
    def target_size(self) -> int:
        """Where step 3 and persist_largest stop, in `unit`."""
        return int(self.context_limit * self.target_fraction)

    @property
    def target_chars(self) -> int:
        return int(self.context_char_limit * self.target_fraction)

    @property
    def archive_size(self) -> int:
        """Where step 2 stops when it archives by size (compact_in_one_call), in `unit`."""
        return int(self.context_limit * self.archive_fraction)

    @property
    def oversized_chars(self) -> int:
        """A result longer than this is saved as it arrives (persist_oversized)."""
        return int(self.context_char_limit * self.oversized_fraction)

    @property
    def snip_keep_total(self) -> int:
        """Messages after a snip, marker included (the article keeps 51)."""
        if self.snip_target_messages is None:
            return self.snip_max_messages + 1
        return self.snip_target_messages

    def validate(self) -> None:
        """Raise ValueError naming the bad field; called before any file is written."""
        self._validate_switches()
        for name in POSITIVE:
            _check_count(name, getattr(self, name), minimum=1)
        for name in WHOLE:
            _check_count(name, getattr(self, name), minimum=0)
        if self.profile not in ("seed", "default"):
            raise ValueError(f"profile must be 'seed' or 'default', got {self.profile!r}")
        for name in ("target_fraction", "archive_fraction", "oversized_fraction"):
            fraction = getattr(self, name)
            if not _plain_number(fraction, (int, float)) or not 0 < fraction <= 1:
                raise ValueError(f"{name} must be in (0, 1], got {fraction!r}")
        self._validate_snip()
        tokens = self.context_token_limit
        if tokens is not None and (not _plain_number(tokens) or tokens < 1):
            raise ValueError(f"context_token_limit must be a positive integer or None, got {tokens!r}")

    def _validate_switches(self) -> None:
        # Every field declared bool: None or 0 would read as "off" and change
        # the behaviour without a word (micro_lossless=None dropped results).
        for field in fields(self):
            value = getattr(self, field.name)
            if field.type in (bool, "bool") and not isinstance(value, bool):
                raise ValueError(f"{field.name} must be True or False, got {value!r}")

    def _validate_snip(self) -> None:
        if self.snip_keep_head >= self.snip_max_messages:
            raise ValueError(
                f"snip_keep_head ({self.snip_keep_head}) must be below "
                f"snip_max_messages ({self.snip_max_messages})")
        target = self.snip_target_messages
        if target is not None:
            if not _plain_number(target):
                raise ValueError(f"snip_target_messages must be an integer or None, got {target!r}")
            # Head + marker + at least one newest message must fit, and the
            # target must sit below the trigger or every call would re-archive.
            if not self.snip_keep_head + 2 <= target < self.snip_max_messages:
                raise ValueError(
                    f"snip_target_messages ({target}) must be at least "
                    f"snip_keep_head + 2 ({self.snip_keep_head + 2}) and below "
                    f"snip_max_messages ({self.snip_max_messages})")

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}
