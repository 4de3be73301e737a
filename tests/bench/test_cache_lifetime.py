"""The cache's lifetime as a choice (issue 43): where the breakpoints go and how long each
lives (compact_course/agent/breakpoints.py), the API's rules for mixing lifetimes in the
offline server's cache (compact_course/offline/api/usage.py), the clocks of the issue
(compact_course/bench/simulated.py `CLOCKS`) and the bench that measures each rule on each.
"""

import json
from dataclasses import replace

import anthropic
import pytest

from compact_course.agent.breakpoints import (
    TTL_RULES,
    breakpoints,
    seen_after,
    typed_by_user,
    with_breakpoints,
)
from compact_course.bench import benchmark, cli, cost, stats, tables
from compact_course.bench.simulated import CLOCKS, PAST_THE_CACHE, call_times, make_session
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.usage import TTL_ORDER_ERROR, PromptCache, check_breakpoints, prompt_of
from tests.helpers import offline_model

pytestmark = pytest.mark.usefixtures("no_network")
LONG = "The same long opening text, read on every call. " * 120   # ~1,450 tokens
HOUR, FIVE = {"type": "ephemeral", "ttl": "1h"}, {"type": "ephemeral"}


def conversation(loop: int = 2) -> list:
    """A typed request, a tool loop of `loop` calls, each result long enough to be cached."""
    messages = [{"role": "user", "content": LONG}, {"role": "assistant", "content": "on it"},
                {"role": "user", "content": "Now fix the cart test."}]
    for k in range(loop):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{k}",
                                                        "name": "read_file", "input": {"path": "a.py"}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}",
                                                   "content": f"line {k}\n" + LONG}]}]
    return messages


def create(client, messages, **extra):
    return client.messages.create(model=MODEL_NAME, max_tokens=100, messages=messages, **extra)


def test_a_one_hour_breakpoint_after_a_five_minute_one_is_refused():
    early = [{"type": "text", "text": LONG, "cache_control": FIVE}, {"type": "text", "text": LONG}]
    late = [{"type": "text", "text": LONG, "cache_control": HOUR}, {"type": "text", "text": LONG}]
    with offline_model() as (_, client):
        create(client, [{"role": "user", "content": late}], cache_control=FIVE)   # 1h then 5m: taken
        with pytest.raises(anthropic.BadRequestError) as refused:
            create(client, [{"role": "user", "content": early}], cache_control=HOUR)
    assert refused.value.status_code == 400
    assert refused.value.body["error"]["message"] == TTL_ORDER_ERROR


def test_mixed_lifetimes_are_billed_at_the_apis_three_positions():
    """A: the highest hit; B: the highest 1-hour breakpoint after A; C: the last one."""
    messages = conversation(2)
    request = {"model": MODEL_NAME, "messages": with_breakpoints(messages, "1h-prefix")}
    prompt, cache = prompt_of(request), PromptCache(clock=lambda: 0.0)
    (b, _), (c, _) = prompt.marks
    upto = [sum(prompt.tokens[:k + 1]) for k in range(len(prompt.tokens))]
    first = cache.input_usage(prompt, 1024)
    assert first["cache_creation"] == {"ephemeral_1h_input_tokens": upto[b],
                                       "ephemeral_5m_input_tokens": upto[c] - upto[b]}
    # The same request again: A = C, nothing written; a longer one reads A and writes C' - A.
    assert cache.input_usage(prompt, 1024)["cache_read_input_tokens"] == upto[c]
    longer = prompt_of({"model": MODEL_NAME, "messages": with_breakpoints(conversation(3), "1h-prefix")})
    grown = cache.input_usage(longer, 1024)
    assert grown["cache_read_input_tokens"] == upto[c]
    assert grown["cache_creation"]["ephemeral_1h_input_tokens"] == 0   # B is below A
    assert grown["cache_creation"]["ephemeral_5m_input_tokens"] == sum(longer.tokens) - upto[c]


@pytest.mark.parametrize("rule, seen, marks", [
    ("5m", set(), [(6, "5m")]),
    ("1h", set(), [(6, "1h")]),
    ("1h-prefix", set(), [(2, "1h"), (6, "5m")]),
    ("1h-after-pause", set(), [(6, "5m")]),
    ("1h-after-pause", {"long gap"}, [(6, "1h")]),
    ("adaptive", {"long gap"}, [(2, "1h"), (6, "5m")]),
    ("adaptive", {"long gap", "slow tool"}, [(6, "1h")]),
])
def test_each_rule_places_its_breakpoints_and_the_api_takes_them(rule, seen, marks):
    messages = conversation(2)
    assert breakpoints(rule, len(messages), 2, frozenset(seen)) == marks
    sent = with_breakpoints(messages, rule, frozenset(seen))
    assert [k for k, m in enumerate(sent) if "cache_control" in str(m)] == [k for k, _ in marks]
    assert messages == conversation(2)                 # the input is never changed
    check_breakpoints({"messages": sent})              # at most 4, 1 hour before 5 minutes


def test_the_prefix_rule_keeps_the_prefix_over_a_users_pause_and_5m_does_not():
    """Through the SDK: after a 7-minute pause the 5-minute rule reads nothing, the prefix
    rule reads everything up to the request the user typed."""
    clock = [1000.0]
    read = {}
    for rule in ("5m", "1h-prefix"):
        with offline_model() as (server, client):
            server.prompt_cache.clock = lambda: clock[0]
            messages = conversation(2)
            create(client, with_breakpoints(messages, rule))
            clock[0] += 7 * 60
            nxt = [*messages, {"role": "assistant", "content": "Fixed."},
                   {"role": "user", "content": "Thanks; now the docs."}]
            read[rule] = create(client, with_breakpoints(nxt, rule)).usage.cache_read_input_tokens
    prefix = prompt_of({"messages": with_breakpoints(conversation(0), "5m")})
    assert read["5m"] == 0
    assert read["1h-prefix"] >= sum(prefix.tokens) > 1024


def test_a_gap_over_5_minutes_is_seen_and_a_slow_tool_told_from_a_pause():
    assert seen_after(frozenset(), 299, after_user=False) == frozenset()
    assert seen_after(frozenset(), 301, after_user=True) == {"long gap"}
    assert seen_after(frozenset(), 301, after_user=False) == {"long gap", "slow tool"}
    assert typed_by_user({"role": "user", "content": "hi"})
    assert not typed_by_user(conversation(1)[-1]) and not typed_by_user({"role": "assistant", "content": "x"})
    with pytest.raises(ValueError, match="unknown cache ttl rule '2h'"):
        breakpoints("2h", 3, None)


def test_the_issues_clocks():
    session = make_session("chat-heavy", 120, 0)
    for clock in CLOCKS:
        times = call_times(session, clock=clock)
        assert times == call_times(make_session("chat-heavy", 400, 0), clock=clock)[:120]
        gaps = [(later - now, turn.request is not None)
                for now, later, turn in zip(times, times[1:], session.turns)]
        if clock == "pauses":   # every user pause is 6-10 minutes, the tools as the bench's
            assert all(PAST_THE_CACHE[0] < gap < PAST_THE_CACHE[1] + 60 for gap, user in gaps if user)
            assert max(gap for gap, user in gaps if not user) < 300
        if clock == "cold":     # no call survives the 5-minute cache
            assert min(gap for gap, _ in gaps) > 300
    with pytest.raises(ValueError, match="unknown clock"):
        call_times(session, clock="lunar")


def test_one_replay_books_every_bill_as_separate_runs_would():
    session = replace(make_session("tool-heavy", 60, 1))
    bills = [("claude-sonnet-5", "5m", "bench"), ("claude-opus-5-5", "adaptive", "cold")]
    together = benchmark.run_bills(session, "default", bills)
    for row, (model, ttl, clock) in zip(together, bills):
        alone = benchmark.run_session(session, "default", model=model, ttl=ttl, clock=clock)
        same = ("cost", "cost_no_pauses", "repaid", "misses", "tokens_in", "cache_read", "lost")
        assert {k: row[k] for k in same} == {k: alone[k] for k in same}
        assert (row["ttl"], row["clock"], row["priced_as"]) == (ttl, clock, model)
    with pytest.raises(ValueError, match="5-minute breakpoint only"):
        benchmark.run_session(session, "seed", ttl="1h")


def test_when_each_lifetime_wins():
    """One chat-heavy session of 120 turns, the default under each rule on each clock (the
    figures docs/AFTER_THE_ARTICLE.md states; `python -m compact_course bench --ttls ... --clocks ...`
    prints them over every session and seed)."""
    session = make_session("chat-heavy", 120, 0)
    rules = ("5m", "1h", "1h-prefix", "adaptive")
    bills = [("claude-sonnet-5", rule, clock) for clock in CLOCKS for rule in rules]
    rows = {(r["ttl"], r["clock"]): r for r in benchmark.run_bills(session, "default", bills)}
    bill = {key: row["cost_repaid"] for key, row in rows.items()}
    assert len({row["misses"] for row in rows.values()}) == 1     # a lifetime never changes what is sent
    # The bench's clock: the few long pauses save less than an hour's writes cost.
    assert bill["5m", "bench"] < min(bill[rule, "bench"] for rule in rules[1:])
    # Every user pause past 5 minutes: an hour wins, for the whole list or for the prefix.
    assert bill["1h", "pauses"] < bill["1h-prefix", "pauses"] < 0.55 * bill["5m", "pauses"]
    # No call survives 5 minutes: the tail must live the hour too; adaptive turns to it.
    assert bill["adaptive", "cold"] == bill["1h", "cold"] < 0.45 * bill["5m", "cold"]
    assert bill["adaptive", "cold"] < bill["1h-prefix", "cold"]
    assert set(TTL_RULES) == {"5m", "1h", "1h-prefix", "1h-after-pause", "adaptive"}


def test_the_bench_prints_the_rule_and_the_clock_of_every_row(capsys):
    assert cli.main(["--quick", "--sessions", "tool-heavy", "--designs", "seed", "default", "oracle",
                     "--ttls", "5m", "adaptive", "--clocks", "cold", "--models", "claude-sonnet-5"]) == 0
    out = capsys.readouterr().out
    assert ("cache breakpoints (compact_course.agent.breakpoints): 5m, adaptive for default, default+cold, "
            "oracle, 5m for the rest; clocks: cold") in out
    table = out.split("seed 0:\n")[1].split("\n\n")[0].splitlines()
    assert table[0].split()[:6] == ["model", "session", "turns", "design", "ttl", "clock"]
    assert [line.split()[:6] for line in table[2:7]] == [
        ["sonnet-5", "tool-heavy", "20", design, ttl, "cold"]
        for design, ttl in (("seed", "5m"), ("default", "5m"), ("default", "adaptive"),
                            ("oracle", "5m"), ("oracle", "adaptive"))]
    assert "+misses x seed mean" in out and "<= seed each run" in out
    # One rule and one clock: said once above the tables, no column that reads the same in every row.
    assert cli.main(["--quick", "--sessions", "chat-heavy", "--designs", "seed", "default",
                     "--models", "claude-sonnet-5"]) == 0
    out = capsys.readouterr().out
    assert "cache breakpoints (compact_course.agent.breakpoints): 5m for every design; clocks: bench" in out
    assert out.split("seed 0:\n")[1].splitlines()[0].split()[:5] == ["model", "session", "turns", "design",
                                                                      "calls"]


def test_a_call_is_cold_only_once_the_longest_lived_breakpoint_has_lapsed():
    """The cache-aware switch asks `cold`: under 1h-prefix a 7-minute pause leaves the
    prefix alive, so compacting then would break what is still paid for."""
    texts = [json.dumps(m) for m in conversation(1)]
    for rule, cold_after_7 in (("5m", True), ("1h-prefix", False), ("1h", False)):
        ledger = cost.CostLedger("claude-sonnet-5", rule)
        ledger.add_request(texts, at=0.0)
        assert ledger.cold(7 * 60) is cold_after_7
        assert ledger.cold(61 * 60)


def test_over_sessions_sets_each_rule_beside_the_article_and_the_oracle():
    def row(design, ttl, seed, kind, bill, misses):
        return {"priced_as": "claude-sonnet-5", "session": kind, "turns": 120, "clock": "bench",
                "seed": seed, "design": design, "ttl": ttl, "cost_repaid": bill, "misses": misses}
    rows = [row("seed", "5m", 0, "chat-heavy", 100, 5), row("seed", "5m", 1, "chinese", 200, 5),
            row("default", "5m", 0, "chat-heavy", 50, 4), row("default", "5m", 1, "chinese", 60, 6),
            row("default", "1h", 0, "chat-heavy", 40, 4), row("default", "1h", 1, "chinese", 80, 6),
            row("oracle", "5m", 0, "chat-heavy", 25, 0), row("oracle", "5m", 1, "chinese", 30, 0)]
    by = {(r["design"], r["ttl"]): r for r in stats.over_sessions(rows)}
    assert by["default", "5m"]["priced_ratio_mean"] == pytest.approx((0.5 + 0.3) / 2)
    assert by["default", "1h"]["priced_ratio_worst"] == pytest.approx(0.4)
    # No oracle ran under 1h: the 5-minute oracle is the floor.
    assert by["default", "1h"]["oracle_by_kind"] == {"chat-heavy": pytest.approx(1.6),
                                                     "chinese": pytest.approx(80 / 30)}
    assert by["default", "5m"]["misses_total"] == 10 and not by["default", "5m"]["misses_le_seed"]
    line = tables.format_over(stats.over_sessions(rows)).splitlines()[3]
    assert line.split()[:6] == ["sonnet-5", "bench", "default", "5m", "2", "0.400"]


@pytest.mark.parametrize("rule", ["1h-prefix", "adaptive"])
def test_the_servers_usage_under_a_rule_is_the_bench_bill(monkeypatch, rule):
    """Every request of a bench session on the 6-10 minute clock, sent through the SDK with
    the breakpoints the rule places (`with_breakpoints`), at its time: the offline server
    reads and writes what the bench booked, the 1-hour and 5-minute writes apart."""
    booked, real = [], cost.CostLedger.add_request

    def recording(self, texts, reply=None, at=None):
        usage = real(self, texts, reply, at)
        booked.append((list(texts), self.now, self.seen, usage))
        return usage

    monkeypatch.setattr(cost.CostLedger, "add_request", recording)
    benchmark.run_session(make_session("chat-heavy", 30, 2), "default", ttl=rule, clock="pauses",
                          limits={"context_char_limit": 20_000})
    booked = booked[0::2]   # the bill with pauses (a second ledger books them without)
    with offline_model() as (server, client):
        clock = [0.0]
        server.prompt_cache.clock = lambda: clock[0]
        for texts, at, seen, usage in booked:
            clock[0] = at
            got = create(client, with_breakpoints([json.loads(t) for t in texts], rule, seen)).usage
            # The server's estimate also counts the markers' own JSON (a string made a text
            # block, "cache_control": {...}; the API's tokens do not): its request is a few
            # tokens longer, and a prefix that reaches the end is capped at that total (the
            # blocks' rounded estimates add up to a little more than the request's).
            served = [got.cache_read_input_tokens, got.cache_creation_input_tokens,
                      got.cache_creation.ephemeral_1h_input_tokens]
            billed = [usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"],
                      usage["cache_creation"]["ephemeral_1h_input_tokens"]]
            assert all(abs(a - b) <= 16 for a, b in zip(served, billed)), (served, billed)
            assert 0 <= got.input_tokens - usage["input_tokens"] <= 40
    assert sum(u["cache_creation"]["ephemeral_1h_input_tokens"] for *_, u in booked) > 0
    assert sum(u["cache_read_input_tokens"] for *_, u in booked) > 0
