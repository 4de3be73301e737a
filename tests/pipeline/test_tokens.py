"""The token measure (context_compact/tokens.py) and token thresholds (CompactionConfig).

Counted at the offline model: how many `count_tokens` requests a session costs
(one per new unit, not one per message per call), how close the per-unit sum is
to one count of the whole request, and that a token limit fires at the count
it states, not a token earlier or later.
"""

from pathlib import Path

import pytest

from compact_course.offline import MODEL_NAME
from compact_course.offline.tokens import estimate_tokens
from compact_course.sessions.histories import list_histories, load_history
from context_compact import CompactionConfig, ContextCompactor, estimate_chars
from context_compact.store import seeded_ids
from context_compact.tokens import PROBE, TokenMeasure, countable, units
from tests.helpers import call, offline_model, pairs_history, short_summary, user

pytestmark = pytest.mark.usefixtures("no_network")


def count_requests(server) -> int:
    return sum(1 for r in server.requests if r["path"] == "/v1/messages/count_tokens")


def test_units_keep_a_tool_use_with_its_results():
    messages = pairs_history(3)
    cut = units(messages)
    assert [len(unit) for unit in cut] == [1, 2, 2, 2]
    assert [m for unit in cut for m in unit] == messages


def test_a_100_call_session_asks_once_per_new_unit(tmp_path):
    # Nothing compacts (the limits are far away): the list only grows, so every
    # count is for what the call added: one pair (the model's turn and its results).
    config = CompactionConfig(context_token_limit=10**9, snip_max_messages=10_000)
    with offline_model() as (server, client):
        measure = TokenMeasure(client, MODEL_NAME)
        compactor = ContextCompactor(tmp_path, short_summary, config, measure=measure, new_id=seeded_ids())
        messages = [user("Fix the failing test.")]
        for n in range(100):
            messages = compactor.prepare(messages, "Fix the failing test.")
            messages += call({f"toolu_{n:03d}": f"output {n} " * 20})
        # The base, the opening request, then one new pair per call after the first.
        assert count_requests(server) == measure.requests == 1 + 1 + 99
        # Without the cache, one request per unit per call: 1 + 2 + ... + 100.
        assert sum(len(units(messages[:1 + 2 * n])) for n in range(100)) == 5050


def test_compacting_session_asks_only_for_what_changed(tmp_path):
    # The default profile with a token limit it reaches: steps rewrite results and
    # archive messages, and each rewritten unit is asked once; everything else is known.
    config = CompactionConfig(context_token_limit=3_000)
    seen = set()
    with offline_model() as (server, client):
        measure = TokenMeasure(client, MODEL_NAME)
        original = measure.unit_tokens

        def remember(unit):
            seen.add(repr(unit))
            return original(unit)
        measure.unit_tokens = remember
        compactor = ContextCompactor(tmp_path, short_summary, config, measure=measure, new_id=seeded_ids())
        messages = [user("Fix the failing test.")]
        for n in range(100):
            messages = compactor.prepare(messages, "Fix the failing test.")
            messages += call({f"toolu_{n:03d}": f"output {n} " * 60})
        assert any(r.fired for r in compactor.records)
        # Each unit was asked once: a new pair per call, and each unit a step rewrote.
        assert count_requests(server) == 1 + len(seen)
        assert len(seen) < 3 * 100


def compare_with_whole(measure: TokenMeasure, messages) -> dict:
    """The measure's sum beside one count of the whole request (two figures and the gap)."""
    summed, whole = measure(messages), measure.count_tokens(messages)
    return {"summed": summed, "whole": whole, "difference": summed - whole, "units": len(units(messages))}


def test_the_sum_is_within_a_token_per_unit_of_the_whole(tmp_path):
    with offline_model() as (_, client):
        measure = TokenMeasure(client, MODEL_NAME)
        for name in list_histories():
            messages = load_history(name)["messages"]
            figures = compare_with_whole(measure, messages)
            assert figures["whole"] == estimate_tokens({"messages": messages})
            probe = estimate_tokens({"messages": [PROBE]}) - estimate_tokens({"messages": []})
            assert abs(figures["difference"] - probe) <= figures["units"] + 2, (name, figures)


def test_a_token_limit_fires_at_the_count_it_states(tmp_path):
    history = load_history("overflow")
    messages, request = history["messages"], history["active_request"]
    with offline_model() as (server, client):
        measure = TokenMeasure(client, MODEL_NAME)
        tokens = measure(messages)
        at = ContextCompactor(tmp_path / "at", short_summary, CompactionConfig(context_token_limit=tokens),
                              measure=measure, new_id=seeded_ids())
        assert at.prepare(messages, request) == messages
        assert not any(r.fired for r in at.records)
        below = ContextCompactor(tmp_path / "below", short_summary,
                                 CompactionConfig(context_token_limit=tokens - 1),
                                 measure=measure, new_id=seeded_ids())
        prepared = below.prepare(messages, request)
        fired = [r for r in below.records if r.fired]
        assert fired and fired[0].chars_before == tokens
        # Step 2's one-call archive (flaw 17) is the first to act: it compares tokens too.
        assert fired[0].step == "snip_compact"
        assert measure(prepared) <= below.config.target_size
        # The same list is far under the article's 50,000 characters: only tokens fired it.
        assert estimate_chars(messages) < CompactionConfig().context_char_limit


def test_for_window_states_the_limit_as_a_share():
    assert CompactionConfig.for_window(200_000, 0.75).context_token_limit == 150_000
    assert CompactionConfig.for_window(32_000, 0.5).context_limit == 16_000
    assert CompactionConfig.for_window(200_000, 0.5).unit == "tokens"
    assert CompactionConfig.seed().unit == "characters"
    assert CompactionConfig.seed().context_limit == 50_000
    with pytest.raises(ValueError, match="fraction"):
        CompactionConfig.for_window(200_000, 1.5)
    with pytest.raises(ValueError, match="context_token_limit"):
        CompactionConfig(context_token_limit=0)


def test_a_unit_mix_is_refused(tmp_path):
    class Tokens:
        unit = "tokens"

        def __call__(self, messages):
            return 0
    with pytest.raises(ValueError, match="counts tokens"):
        ContextCompactor(tmp_path, None, CompactionConfig(), measure=Tokens())
    with pytest.raises(ValueError, match="counts characters"):
        ContextCompactor(tmp_path, None, CompactionConfig(context_token_limit=1000))


def test_the_api_compaction_default_is_the_sdks():
    from anthropic.types.beta import beta_compact_20260112_edit_param as param

    from context_compact.tokens import API_COMPACTION_TRIGGER
    source = Path(param.__file__).read_text(encoding="utf-8")
    assert f"Defaults to {API_COMPACTION_TRIGGER} input tokens" in source


def test_a_lone_call_or_lone_results_are_counted_as_text():
    messages = pairs_history(1)
    call_alone, results_alone = [messages[1]], [messages[2]]
    with offline_model() as (_, client):
        measure = TokenMeasure(client, MODEL_NAME)
        # The API refuses either alone; the measure counts their JSON as text instead.
        alone = measure(call_alone) - measure.base, measure(results_alone) - measure.base
        pair = measure(messages[1:]) - measure.base
    assert countable(call_alone)[0]["content"][0]["type"] == "text"
    assert countable(messages[1:]) == messages[1:]
    # Text holding the blocks' JSON escapes their quotes: within a quarter of the pair's count.
    assert all(n > 0 for n in alone) and abs(sum(alone) - pair) <= 0.25 * pair
