"""No quadratic path under any measure (issue 51); the times are `bench-prepare`'s to print.

With a limit in tokens and `compact_in_one_call` off, step 3 replaces result after result,
and each replacement measured the whole list again at a854c46: n replacements of an n-message
list, 133 ms at 200 messages and 5,953 at 1,600. Counted here in messages measured, not time:
now a replacement measures its message and its call, and each step the list once. And a
quiet call copies nothing: its output holds the caller's own messages.
"""

import json

from compact import CompactionConfig, ContextCompactor

from .helpers import body, call, short_summary, user


class CountingTokens:
    """A token measure (a quarter of the JSON) that counts the messages it is asked about."""
    unit = "tokens"

    def __init__(self):
        self.measured = 0

    def __call__(self, messages) -> int:
        self.measured += len(messages)
        return len(json.dumps(messages)) // 4


def history(calls: int) -> list:
    pairs = [call({f"toolu_{n:04d}": body(f"r{n}", 900)}) for n in range(calls)]
    return [user("Fix the build."), *[m for pair in pairs for m in pair]]


def test_step_3_measures_each_replacement_not_the_whole_list_again(tmp_path):
    for calls in (100, 400):
        messages, measure = history(calls), CountingTokens()
        config = CompactionConfig(context_token_limit=2_000, compact_in_one_call=False,
                                  persist_before_summary=False, snip_max_messages=10_000)
        compactor = ContextCompactor(tmp_path / str(calls), short_summary, config, measure=measure)
        compactor.prepare(messages, "Fix the build.")
        micro = next(r for r in compactor.records if r.step == "micro_compact")
        assert micro.chars_before > micro.chars_after   # it replaced results: hundreds of them
        assert measure.measured <= 12 * len(messages), f"{measure.measured:,} messages measured"


def test_a_quiet_call_copies_no_message(tmp_path):
    compactor = ContextCompactor(tmp_path, short_summary)
    settled = compactor.prepare(history(20), "Fix the build.")
    grown = [*settled, *call({"toolu_new": "ok"})]
    out = compactor.prepare(grown, "Fix the build.")
    assert out == grown and all(a is b for a, b in zip(out, grown, strict=True))
