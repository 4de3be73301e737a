"""The long-session benchmark's bookkeeping, on sessions small enough to count by hand."""

import json
from dataclasses import replace

import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from compact_course.bench import benchmark as bench
from compact_course.bench import chart, cli, cost, prices, stats, tables
from compact_course.bench.simulated import KINDS, Session, Turn, make_session
from compact_course.display.text import fixed_width, plural
from compact_course.lessons.claims import default_claims
from compact_course.offline.api.usage import LOOKBACK, PromptCache
from compact_course.offline.tokens import estimate_text_tokens, estimate_tokens
from context_compact import formats
from context_compact.messages import validate_messages
from context_compact.store import Store

# {"role": "user", "content": "hi"} is 33 characters of JSON:
# 1 "{" + 6 '"role"' + 2 ": " + 6 '"user"' + 2 ", " + 9 '"content"' + 2 ": " + 4 '"hi"' + 1 "}".
OPENING = {"role": "user", "content": "hi"}
OK = {"role": "user", "content": "ok"}                     # 33 as well
SAY = {"role": "assistant", "content": "x" * 150}          # 34 + 150 + 2 = 186


def chat_session(turns: int) -> Session:
    return Session("tiny", OPENING, "hi", tuple(Turn(SAY, OK, "ok") for _ in range(turns)))


def test_hand_counted_json_lengths():
    assert [len(json.dumps(m)) for m in (OPENING, OK, SAY)] == [33, 33, 186]
    # A request's size is the package's measure: the list's JSON, ", " and brackets included.
    assert cost.request_size(["aaaa", "bbbbbb"]) == len(json.dumps(["aaaa", "bbbbbb"])) - 4
    assert cost.request_size([]) == 2
    # In tokens of the estimate, ceil(ASCII / 4): 9, 9 and 47.
    assert [estimate_text_tokens(json.dumps(m)) for m in (OPENING, OK, SAY)] == [9, 9, 47]


A = {"role": "user", "content": "a" * 4000}          # about 1,000 tokens
B = {"role": "assistant", "content": "b" * 400}      # about 100
C = {"role": "user", "content": "c" * 40}            # about 10
J = cost.message_json


def sent(*messages, **extra) -> dict:
    return {"model": "claude-sonnet-5", "messages": list(messages),
            "cache_control": {"type": "ephemeral"}, **extra}


def test_the_bill_is_the_offline_servers_usage():
    # The same requests, at the same times, through the server's PromptCache: the same counts.
    server, ledger = PromptCache(), cost.CostLedger()
    for at, messages in ((0, [A, B]), (10, [A, B, C]), (20, [A, {**B, "content": "B" * 400}, C]),
                         (30, [A, B, C, B, C]), (400, [A, B, C, B, C, B, C])):
        mine = ledger.add_request([J(m) for m in messages], at=at)
        theirs = server.usage(sent(*messages), [], now=at)
        assert mine == {**theirs, "output_tokens": 0}, at   # "[]" is one token of output


def test_a_request_reads_the_previous_request_or_nothing():
    first = cost.request_usage([], [J(A), J(B)])
    total = first["input_tokens"] + first["cache_creation_input_tokens"]
    assert first["cache_read_input_tokens"] == 0 and first["cache_creation_input_tokens"] > 1100
    assert first["input_tokens"] < 10            # the JSON around the blocks, if any
    # The previous request whole, then one more message: it is read, the new one written.
    grown = cost.request_usage([J(A), J(B)], [J(A), J(B), J(C)])
    assert grown["cache_read_input_tokens"] == first["cache_creation_input_tokens"]
    assert 10 < grown["cache_creation_input_tokens"] < 20
    # A message of the previous request changed: no entry is found, all is written,
    # although the first message is the same (a breakpoint sits only at each request's end).
    broken = cost.request_usage([J(A), J(B), J(C)], [J(A), J({**B, "content": "B" * 400}), J(C)])
    assert broken["cache_read_input_tokens"] == 0
    assert broken["cache_creation_input_tokens"] == grown["cache_creation_input_tokens"] \
        + grown["cache_read_input_tokens"]
    # Under the model's minimum (1,024 tokens for Claude Sonnet 5) nothing is cached.
    alone = cost.request_usage([J(B)], [J(B)])
    assert alone["cache_creation_input_tokens"] == alone["cache_read_input_tokens"] == 0
    assert cost.request_cost([], [J(A), J(B)]) == pytest.approx(
        1.25 * first["cache_creation_input_tokens"] + first["input_tokens"])
    assert cost.CostLedger().minimum == 1024 and cost.CostLedger("claude-opus-5-5").minimum == 512
    assert cost.CostLedger("claude-sonnet-5-5").minimum == 1024   # no source: the offline model's
    assert total == estimate_tokens({"messages": [A, B]})   # what count_tokens answers


def test_the_ledger_books_requests_replies_summaries_and_time():
    ledger = cost.CostLedger()
    one = ledger.add_request([J(A), J(B)], reply=J(C), at=0)
    two = ledger.add_request([J(A), J(B), J(C)], reply=J(C), at=60)
    assert two["cache_read_input_tokens"] == one["cache_creation_input_tokens"]
    # Six minutes untouched: the entry is gone, the whole request written again.
    cold = ledger.add_request([J(A), J(B), J(C), J(C)], at=60 + 360)
    assert cold["cache_read_input_tokens"] == 0
    summary = ledger.add_summary("b" * 400, "c" * 40)   # 100 tokens in, never cached; 10 out
    assert summary == {"input_tokens": 100, "cache_creation_input_tokens": 0,
                       "cache_read_input_tokens": 0, "output_tokens": 10}
    total = ledger.total
    assert total["output_tokens"] == 2 * ledger.tokens(J(C)) + 10
    assert total["cache_creation_input_tokens"] == sum(u["cache_creation_input_tokens"]
                                                       for u in (one, two, cold))
    assert ledger.cost == pytest.approx(cost.priced(total))
    assert ledger.input_tokens_sent == sum(total[f] for f in cost.FIELDS[:3])
    assert ledger.summary_calls == 1 and ledger.model == prices.DEFAULT_MODEL == "claude-sonnet-5"


def test_one_hour_writes_are_billed_at_their_own_price():
    five, hour = cost.CostLedger(), cost.CostLedger(ttl="1h")
    for ledger in (five, hour):
        ledger.add_request([J(A), J(B)])
    assert hour.total["cache_creation"]["ephemeral_1h_input_tokens"] \
        == five.total["cache_creation_input_tokens"] > 0
    written = five.total["cache_creation_input_tokens"]
    assert hour.cost - five.cost == pytest.approx((2.0 - 1.25) * written)


def test_the_rates_are_the_table_prices_ratios():
    # Sonnet 5.5 and Opus 5.5 read the cache at 0.05 of input, Fable 5.1 at 0.025,
    # the older models at 0.1; writes at 1.25 (5 minutes) and 2 (1 hour) everywhere.
    shares = {model: prices.rates(model)["cache_read_input_tokens"] for model in prices.PRICES}
    assert shares["claude-sonnet-5-5"] == shares["claude-opus-5-5"] == pytest.approx(0.05)
    assert shares["claude-fable-5-1"] == shares["claude-mythos-5-1"] == pytest.approx(0.025)
    assert shares["claude-sonnet-5"] == shares["claude-opus-4-5"] == pytest.approx(0.1)
    for model, row in prices.PRICES.items():
        rates = prices.rates(model)
        assert (rates["cache_write_5m"], rates["cache_write_1h"]) == pytest.approx((1.25, 2.0)), model
        assert rates["output_tokens"] == pytest.approx(5.0), model
        assert row.source and all(s.startswith(("https://", "issue 43")) for s in row.source), model
        assert row.read_on == prices.CHECKED
    assert cost.INPUT_RATE == 1.0 and cost.CACHE_READ_RATE == pytest.approx(0.1)
    assert cost.priced({"output_tokens": 2}) == 10.0
    assert cost.dollars({"input_tokens": 1_000_000}) == prices.PRICES["claude-sonnet-5"].input == 2.0
    assert cost.dollars({"input_tokens": 1_000_000}, "claude-opus-5-5") == 4.0
    with pytest.raises(ValueError, match="no price for model"):
        cost.CostLedger("gpt-4")


def test_a_model_priced_by_prompt_length_bills_each_request_in_its_band():
    # Haiku 5.5: up to 100,000 prompt tokens $0.10 input, above it $0.50 on every token.
    small = {"input_tokens": 100_000, "output_tokens": 10}
    large = {"input_tokens": 100_001, "output_tokens": 10}
    assert cost.priced(small, "claude-haiku-5-5") == pytest.approx(100_000 + 5 * 10)
    assert cost.priced(large, "claude-haiku-5-5") == pytest.approx(5 * 100_001 + 25 * 10)
    assert prices.band("claude-haiku-5-5", 100_001).name.endswith("over 100,000 tokens)")
    # The ledger prices request by request: one large and one small is not two halves.
    ledger = cost.CostLedger("claude-haiku-5-5")
    ledger.add_summary("a" * 4 * 100_001, "")
    ledger.add_summary("a" * 4 * 10, "")
    assert ledger.cost == pytest.approx(5 * 100_001 + 10)


def test_a_miss_is_priced_as_its_re_read():
    ledger = cost.CostLedger()
    bill = ledger.add_miss(sent_tokens=10_000, needed_text="x" * 4000)   # 1,000 tokens
    # The prefix read from the cache, the read_file call as output, the text written.
    expected = 0.1 * 10_000 + 5 * cost.REREAD_CALL_TOKENS + 1.25 * 1000
    assert bill == pytest.approx(expected) and ledger.repaid == pytest.approx(expected)
    assert ledger.cost == 0 and ledger.missed == 1 and 20 < cost.REREAD_CALL_TOKENS < 60


def test_a_turn_adds_fewer_blocks_than_the_apis_lookback():
    # The ledger reads the previous request whole; the API finds it only within
    # LOOKBACK (20) blocks of the new breakpoint: a turn must add fewer.
    for kind in KINDS:
        for turn in make_session(kind, 400, 0).turns:
            added = sum(len(m["content"]) if isinstance(m["content"], list) else 1
                        for m in (turn.assistant, turn.user))
            assert added <= LOOKBACK, kind


def test_no_compaction_counts_refused_calls_and_cost():
    # Requests, characters: [o] = 33 + 2 = 35; [o, a, u] = 33 + 186 + 33 + 6 = 258;
    # then + 186 + 33 + 4 each: 481, 704. Tokens, as count_tokens counts the request
    # (the list inside '["", [], ' and ']', 10 more characters): ceil(45 / 4) = 12, 67, 123, 179.
    row = bench.run_session(chat_session(4), "none", window=120)
    assert row["request_chars"] == [35, 258, 481, 704]
    assert row["refused"] == 2   # 123 and 179 tokens > 120
    assert row["largest"] == 704 and row["largest_tokens"] == 179
    # Under 1024 tokens nothing is cached: plain input, and each reply SAY is 47 out.
    assert row["tokens_in"] == 12 + 67 + 123 + 179 and row["cache_read"] == 0
    assert row["tokens_out"] == 4 * 47
    assert row["cost"] == pytest.approx(381 + 5 * 188, abs=0.05)
    assert row["model_calls"] == 4 and row["summary_calls"] == 0
    assert row["median_ms"] is None and row["growth"] is None


def test_summary_only_counts_each_summary_call_its_input_and_output():
    # The summary message S (summarizer answers "S", request "ok", the first
    # transcript's name) is 203 characters of JSON: [S] is 205, 51 tokens.
    s, s2 = (formats.summary_message("Compacted", "ok", "S",
                                     f".transcripts/transcript_{n:032x}.jsonl") for n in (1, 2))
    assert len(json.dumps(s)) == len(json.dumps(s2)) == 203
    # Limit 450. Call 1 [o] = 35, call 2 [o, a, u] = 258: under. Call 3
    # [o, a, u, a, u] = 481: summarized to [S] = 205. Call 4 [S, a, u] =
    # 205 + 186 + 33 + 4 = 428: under. Call 5 = 428 + 223 = 651: summarized.
    row = bench.run_session(chat_session(6), "summary",
                            limits={"context_char_limit": 450}, summarize=lambda m: "S")
    assert row["request_chars"] == [35, 258, 205, 428, 205, 428]
    assert row["summary_calls"] == 2
    assert row["model_calls"] == 6 + 2
    # Requests in tokens (characters + 10, over 4): 12, 67, 54, 110, 54, 110. A summary's
    # input is the JSON of the list it replaced (481 and 651 characters: 121 and 163
    # tokens), its output "S".
    assert row["tokens_in"] == (12 + 67 + 54 + 110 + 54 + 110) + (121 + 163)
    assert row["tokens_out"] == 6 * 47 + 2 * 1
    assert row["cost"] == pytest.approx(row["tokens_in"] + 5 * row["tokens_out"], abs=0.05)
    assert row["lost"] == 0 and row["files"] == 2  # two transcripts


def five_results_session() -> Session:
    """One batch of five 500-character results, then a text answer."""
    uses = [{"type": "tool_use", "id": f"t{k}", "name": "read_file", "input": {"path": f"f{k}"}}
            for k in range(5)]
    results = [{"type": "tool_result", "tool_use_id": f"t{k}", "content": str(k) * 500}
               for k in range(5)]
    return Session("tiny", OPENING, "hi", (
        Turn({"role": "assistant", "content": uses}, {"role": "user", "content": results}),
        Turn({"role": "assistant", "content": [{"type": "text", "text": "done"}]}, OK, "ok"),
    ))


def test_seed_loses_a_fresh_batch_beyond_the_newest_three():
    # Call 2 sees 5 results: the seed keeps the newest 3 and omits t0 and t1,
    # with no transcript (2 < 50 messages): both are lost. The default leaves
    # a small context alone and loses nothing.
    seed = bench.run_session(five_results_session(), "seed")
    default = bench.run_session(five_results_session(), "default")
    assert (seed["outputs"], seed["lost"], seed["lost_ids"]) == (5, 2, ["t0", "t1"])
    assert (default["lost"], default["files"]) == (0, 0)


def test_a_miss_is_a_needed_output_not_whole_in_the_request():
    # A third call needs t0: the seed omitted it on call 2 (a miss), the default kept it;
    # the second call needs t4, whole in both. Misses count calls, not outputs.
    first, second = five_results_session().turns
    session = Session("tiny", OPENING, "hi", (
        first, replace(second, refers_to="t4"),
        Turn({"role": "assistant", "content": "ok"}, OK, "ok", refers_to="t0")))
    seed, default = (bench.run_session(session, design) for design in ("seed", "default"))
    assert (seed["misses"], seed["references"]) == (1, 2)
    assert (default["misses"], default["references"]) == (0, 2)
    assert cost.in_context([first.user], "t0", "0" * 500)
    assert not cost.in_context([first.user], "t0", "0" * 499)


def test_references_are_recency_biased_and_seeded():
    session = make_session("tool-heavy", 300, seed=4)
    order = {}
    for n, turn in enumerate(session.turns):
        for block in turn.user["content"] if isinstance(turn.user["content"], list) else []:
            order[block["tool_use_id"]] = n
    ages = [n - order[t.refers_to] for n, t in enumerate(session.turns) if t.refers_to]
    assert all(age >= 1 for age in ages)                     # only outputs already there
    assert 0.2 < len(ages) / len(session.turns) < 0.4        # REFER_CHANCE 0.3
    assert sum(age <= 3 for age in ages) > sum(age > 50 for age in ages) > 0
    assert make_session("tool-heavy", 300, seed=4) == session
    assert [t.refers_to for t in make_session("tool-heavy", 300, seed=5).turns] != [
        t.refers_to for t in session.turns]


@pytest.mark.slow
def test_the_default_beats_the_seed_profile_across_two_seeds():
    # The targets are asserted here, on the figures; the bench only prints them.
    rows = bench.run_bench(turns=(120,), sessions=KINDS, designs=("summary", "seed", "default"),
                           seeds=range(2))
    summary = {r["session"]: r for r in stats.across_seeds(rows) if r["design"] == "default"}
    for kind in ("tool-heavy", "chinese"):
        row = summary[kind]
        assert row["ratio_mean"] <= 0.5 and row["ratio_worst"] <= 0.6, kind
        assert row["lost_worst"] == 0 and row["summaries_worst"] <= 1, kind
        assert row["misses_le_seed"], kind
    chat = {(r["seed"], r["design"]): r["cost"] for r in rows if r["session"] == "chat-heavy"}
    assert all(chat[n, "default"] <= chat[n, "summary"] for n in range(2))
    assert "x seed mean" in tables.format_seeds(stats.across_seeds(rows))
    # Lab 02 prints the same claims, one line a claim, each naming its session and ending in
    # the answer to it (yes or NO).
    lines = default_claims(rows)
    assert {line.split(":")[0] for line in lines} == set(KINDS), lines
    assert all(line.endswith(": yes") for line in lines), lines


def test_a_claim_that_fails_reads_no():
    rows = [{"session": "tool-heavy", "turns": 120, "seed": 0, "design": design, "cost": cost_,
             "misses": 0, "lost": lost, "summary_calls": 0} for design, cost_, lost in
            (("seed", 100.0, 3), ("default", 70.0, 0))]
    lines = default_claims(rows)
    assert "tool-heavy: costs at most 0.5 of the seed profile's, mean of the seeds (0.70): NO" in lines
    assert "tool-heavy: at most 0.6 of it on the worst seed (0.70): NO" in lines
    assert "tool-heavy: loses no output (0 at worst): yes" in lines


def test_the_claims_say_whether_the_default_is_the_cheapest_of_the_three_that_compact():
    # Lab 02 says the default is the cheapest of summary, seed and default on all 8 seeds;
    # issue 52's reviewer found no printed line comparing it with summary-only on the
    # tool-heavy and Chinese sessions. Each line now says it, seed by seed.
    def run(session, seed, design, cost_):
        return {"session": session, "turns": 120, "seed": seed, "design": design, "cost": cost_,
                "misses": 0, "lost": 0, "summary_calls": 0}
    rows = [run(kind, seed, design, cost_) for kind in ("tool-heavy", "chat-heavy") for seed in (0, 1)
            for design, cost_ in (("summary", 60.0), ("seed", 100.0), ("default", 40.0))]
    rows[-1]["cost"] = 70.0                  # chat-heavy, seed 1: dearer than summary-only
    rows[0]["cost"], rows[2]["cost"] = 45.0, 50.0   # tool-heavy, seed 0: the same
    lines = default_claims(rows)
    cheapest = "the cheapest of summary, seed and default on every seed"
    assert f"tool-heavy: {cheapest}: NO" in lines and f"chat-heavy: {cheapest}: NO" in lines, lines
    # The comparisons with the seed profile hold: they alone would not show it.
    assert "tool-heavy: costs at most 0.5 of the seed profile's, mean of the seeds (0.45): yes" in lines
    assert "tool-heavy: at most 0.6 of it on the worst seed (0.50): yes" in lines
    rows[0]["cost"], rows[2]["cost"], rows[-1]["cost"] = 60.0, 40.0, 40.0
    assert all(line.endswith(": yes") for line in default_claims(rows) if cheapest in line)
    # A missing rival is no evidence: the claim reads NO.
    assert f"tool-heavy: {cheapest}: NO" in default_claims([r for r in rows if r["design"] != "summary"])


def test_lost_outputs_omitted_saved_transcript_and_forged(tmp_path):
    store = Store(tmp_path)
    text = {k: k * 300 for k in "ABCDEF"}
    saved = store.persist_result("B", text["B"])
    store.write_transcript([{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "D", "content": text["D"]}]}])
    wrong = store.persist_result("F-other", "not F's text")

    def result(use_id, content):
        return {"type": "tool_result", "tool_use_id": use_id, "content": content}
    context = [{"role": "user", "content": [
        result("A", formats.OMITTED),                                 # lost
        result("B", formats.saved_placeholder(saved)),                # on disk
        result("C", [{"type": "text", "text": text["C"]}]),          # whole, as blocks
        result("D", formats.OMITTED),                                 # in a transcript
        result("E", formats.saved_placeholder("../outside.txt")),     # not our folder
        result("F", formats.saved_placeholder(wrong)),                # someone else's text
    ]}]
    (tmp_path / "outside.txt").write_text(text["E"])
    assert cost.lost_outputs(text, context, store) == ["A", "E", "F"]


def test_persisted_block_counts_only_with_its_file(tmp_path):
    store = Store(tmp_path)
    original = "L" * 5000
    path = store.persist_result("big", original)
    block = formats.persisted_block(path, original, 2000)
    message = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "big", "content": block}]}
    assert cost.lost_outputs({"big": original}, [message], store) == []
    (tmp_path / path).unlink()
    assert cost.lost_outputs({"big": original}, [message], store) == ["big"]


def test_token_estimate_tells_chinese_from_english():
    assert estimate_text_tokens("abcd") == 1
    assert estimate_text_tokens("abcde") == 2
    assert estimate_text_tokens("上下文") == 3
    assert estimate_text_tokens("ab上") == 2
    # The ledger's tokens of one message: the estimate of its JSON.
    assert cost.CostLedger().tokens(cost.message_json({"role": "user", "content": "上下文"})) \
        == estimate_text_tokens('{"role": "user", "content": ""}') + 3


def test_growth_is_time_ratio_over_new_content_ratio():
    def row(turns, design, ms, new):
        return {"session": "s", "turns": turns, "design": design, "median_ms": ms,
                "median_new_chars": new, "growth": None}
    rows = bench.add_growth([row(120, "default", 1.0, 1000), row(400, "default", 3.0, 1500),
                             row(120, "none", None, 1000), row(400, "none", None, 1500)])
    assert [r["growth"] for r in rows] == [None, 2.0, None, None]


@pytest.mark.parametrize("kind", KINDS)
def test_sessions_are_valid_deterministic_and_prefix_stable(kind):
    long = make_session(kind, 60)
    assert make_session(kind, 60) == long
    assert make_session(kind, 25).turns == long.turns[:25]
    assert make_session(kind, 25, seed=1).turns != long.turns[:25]
    flat = [long.opening] + [m for t in long.turns for m in (t.assistant, t.user)]
    validate_messages(flat)
    assert len(long.outputs()) == sum(len(t.user["content"]) for t in long.turns
                                      if isinstance(t.user["content"], list))


def test_chinese_session_is_written_in_chinese():
    outputs = make_session("chinese", 40).outputs().values()
    reads = [t for t in outputs if any("\u4e00" <= ch <= "\u9fff" for ch in t)]
    assert len(reads) >= 5


def test_bad_names_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown session kind 'poem'"):
        make_session("poem", 10)
    with pytest.raises(ValueError, match="turns must be a positive integer"):
        make_session("chat-heavy", 0)
    with pytest.raises(ValueError, match="unknown design 'magic'"):
        bench.run_session(chat_session(1), "magic")


def test_tool_heavy_120_turns_meets_the_acceptance_claims():
    rows = bench.run_bench(turns=(120,), sessions=("tool-heavy",), designs=("seed", "default"))
    seed, default = rows
    assert default["design"] == "default" and default["turns"] == 120
    assert default["lost"] == 0
    assert default["summary_calls"] <= 1
    assert default["cost"] < seed["cost"]
    assert seed["lost"] > 0  # the flaw the default fixes shows in the same figures
    assert default["refused"] == 0 and default["largest"] <= 50_000 + 200


@pytest.mark.slow
def test_quick_command_prints_the_table_and_writes_the_chart(tmp_path, capsys):
    chart = tmp_path / "bench.png"
    assert cli.main(["--quick", "--sessions", "tool-heavy", "--chart", str(chart)]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines()
            # One rule and one clock: their columns are not shown (tables.UNLESS_ALL).
            if len(line.split()) == len(tables.COLUMNS) - len(tables.UNLESS_ALL)
            and line.split()[1] == "tool-heavy"
            and line.split()[3] in bench.DESIGNS]
    # Billed as both of the bench's models, each one's rows in a block of its own.
    assert [(r[0], r[2], r[3]) for r in rows] == [
        (tables.short_model(m), str(t), d) for t in bench.QUICK_TURNS for m in prices.BENCH_MODELS
        for d in bench.DESIGNS]
    assert all(line in out for line in prices.table_lines(prices.BENCH_MODELS))
    assert "mean and worst of each design" in out and "x seed mean" in out
    assert "(yes)" not in out and "(NO)" not in out   # figures only: the tests assert
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_chart_and_table_name_every_design():
    rows = bench.run_bench(turns=(8, 16), sessions=("chat-heavy",))
    table = tables.format_table(rows)
    assert len(table.splitlines()) == 2 + 10 + 1  # header, rule, 10 rows, one blank
    fig = chart.bench_chart(rows)
    assert isinstance(fig, Figure)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == list(bench.DESIGNS)
    # The cost panel draws the longest runs' costs, one bar per design, in its colour.
    longest = {r["design"]: r["cost"] for r in rows if r["turns"] == 16}
    bars = fig.axes[0].containers
    assert [[b.get_height() for b in group] for group in bars] == [[longest[d]] for d in bench.DESIGNS]
    assert [to_hex(group[0].get_facecolor()) for group in bars] == [
        bench.COLOURS[d].lower() for d in bench.DESIGNS]
    assert all(ax.get_ylabel() and ax.get_title() for ax in fig.axes)


def test_the_cost_panel_names_the_bill_it_draws_and_the_table_says_refused_are_billed():
    # Issue 52's reviewer: titled "What the API bills", the panel drew none's refused
    # requests (the API answers them with an error, it bills no reply) and a bill without
    # misses beside lab 02's table of +misses k, with nothing to say so.
    from compact_course.display.chart_text import CHART_TEXT
    english, chinese = CHART_TEXT["en"]["cost title"], CHART_TEXT["zh"]["cost title"]
    assert "misses not priced" in english and "refused one as if sent" in english
    assert "What the API bills" not in english
    assert "缺失不计价" in chinese and "被拒绝的请求按已发送计价" in chinese
    rows = bench.run_bench(turns=(6,), sessions=("tool-heavy",), limits={"context_char_limit": 2_000},
                           designs=("seed",))
    [row] = rows
    assert row["misses"] and row["cost_repaid"] > row["cost"]   # the two bills differ here
    fig = chart.bench_chart(rows, timings=False)
    assert fig.axes[0].get_title() == english
    assert [b.get_height() for b in fig.axes[0].containers[0]] == [row["cost"]]   # not cost_repaid
    legend = tables.legend()
    assert "refuses them, every figure here counts them as if it took them" in legend


def test_table_shows_the_columns_asked_for_in_their_order():
    rows = bench.run_bench(turns=(6,), sessions=("tool-heavy",), designs=("seed", "default"))
    table = tables.format_table(rows, columns=("design", "lost", "files"))
    lines = table.splitlines()
    assert lines[0].split() == ["design", "lost", "files"]
    assert [line.split() for line in lines[2:]] == [
        [r["design"], f"{r['lost']}/{r['outputs']}", str(r["files"])] for r in rows]
    stable = tables.format_table(rows, columns=tables.STABLE_COLUMNS)
    assert "ms" not in stable and "growth" not in stable and "cost k" in stable
    assert tables.format_table(rows) == tables.format_table(rows, [c[0] for c in tables.COLUMNS])
    with pytest.raises(ValueError, match="unknown column 'speed'"):
        tables.format_table(rows, columns=("design", "speed"))


def test_chart_without_timings_draws_the_request_sizes_instead():
    rows = bench.run_bench(turns=(8, 16), sessions=("tool-heavy", "chat-heavy"))
    fig = chart.bench_chart(rows, timings=False)
    panel = fig.axes[3]
    assert "Request size" in panel.get_title() and panel.get_ylabel() == "characters sent"
    first = [r for r in rows if r["session"] == "tool-heavy" and r["turns"] == 16]
    lines = {line.get_label(): list(line.get_ydata()) for line in panel.lines}
    # One line per design but none (it grows off the chart), the sizes the rows hold.
    assert {d: lines[d] for d in ("summary", "seed", "default", "oracle")} == {
        r["design"]: r["request_chars"] for r in first if r["design"] != "none"}
    assert "none" not in lines
    assert lines["CONTEXT_CHAR_LIMIT (50,000)"] == [50_000, 50_000]
    timed = chart.bench_chart(rows)
    assert "milliseconds" in timed.axes[3].get_ylabel()


# -- the shared text helpers ------------------------------------------------------------

def test_fixed_width_pads_each_cell_and_keeps_string_rows():
    lines = fixed_width([("a", "bb", "c"), "-- a rule --", ("", "x")], widths=(3, 4, 0))
    assert lines == ["a  bb  c", "-- a rule --", "   x"]
    assert fixed_width([("1", "22"), ("333", "4")], widths=(3, 3), align=">", gap=" ") == [
        "  1  22", "333   4"]


@pytest.mark.parametrize(("count", "many", "expected"), [
    (0, None, "0 files"), (1, None, "1 file"), (2, None, "2 files"),
    (1, "summaries", "1 summary"), (3, "summaries", "3 summaries")])
def test_plural_counts_a_noun(count, many, expected):
    one = "summary" if many else "file"
    assert plural(count, one, many) == expected


def test_bench_prepare_times_every_design_in_every_case():
    from compact_course.bench import prepare_bench
    rows = prepare_bench.run(sizes=((50, 20_000), (100, 40_000)), runs=1)
    timed = {(r["case"], r["design"]) for r in rows if r["ms"] is not None}
    assert timed == {("no-op", d) for d in prepare_bench.DESIGNS} | {
        ("compacting", d) for d in prepare_bench.DESIGNS} | {
        (case, d) for case in ("saving", "tokens") for d in ("default", "floor")}
    assert all(r["ms"] > 0 for r in rows if r["ms"] is not None)
    table = prepare_bench.format_rows(rows)
    assert table.splitlines()[0].split()[:4] == ["case", "messages", "characters", "floor"]
    assert sum(line.split()[1] == "growth" for line in table.splitlines()[2:]) == 4
    listed = prepare_bench.make_list(100, 40_000)
    assert len(listed) == 99 and abs(len(json.dumps(listed, ensure_ascii=False)) - 40_000) < 4_000


def test_the_servers_usage_over_a_bench_session_is_the_bench_bill(monkeypatch):
    """One bill: every request of a bench session, sent to the offline server through the
    SDK at its time on the session's clock, gets the very counts the bench booked.
    (Output tokens aside: the bench books the session's canned reply, the server writes its own.)"""
    from compact_course.offline import MODEL_NAME
    from tests.helpers import offline_model

    booked = []
    real = cost.CostLedger.add_request

    def recording(self, texts, reply=None, at=None):
        usage = real(self, texts, reply, at)
        booked.append((list(texts), self.now, usage))
        return usage

    monkeypatch.setattr(cost.CostLedger, "add_request", recording)
    session = make_session("chat-heavy", 40, 3)
    row = bench.run_session(session, "default", limits={"context_char_limit": 20_000})
    booked = booked[0::2]   # the bill with pauses (a second ledger books them without)
    assert row["summary_calls"] + row["files"] > 0 and len(booked) == 40
    gaps = [b[1] - a[1] for a, b in zip(booked, booked[1:])]
    assert max(gaps) > 300    # at least one pause past the cache's lifetime
    fields = cost.FIELDS[:3]
    with offline_model() as (server, client):
        clock = [0.0]
        server.prompt_cache.clock = lambda: clock[0]
        for texts, at, usage in booked:
            clock[0] = at
            got = client.messages.create(model=MODEL_NAME, max_tokens=50,
                                         messages=[json.loads(t) for t in texts],
                                         cache_control={"type": "ephemeral"}).usage
            assert [getattr(got, f) for f in fields] == [usage[f] for f in fields]
            assert got.cache_creation.ephemeral_5m_input_tokens == usage["cache_creation_input_tokens"]
    totals = {f: sum(u[f] for _, _, u in booked) for f in fields}
    assert row["cache_read"] == totals["cache_read_input_tokens"] > 0


def _printed(notebook) -> str:
    cells = json.loads(notebook.read_text())["cells"]
    return "".join("".join(o.get("text", "")) for c in cells if c["cell_type"] == "code"
                   for o in c.get("outputs", []))


def test_every_price_the_course_prints_is_a_row_of_the_table_with_its_source(capsys):
    """Each price line printed (the bench, lab 02 in both editions) is one row of
    compact_course.bench.prices as `row_line` writes it: its five prices, its minimum, the day
    it was read and its sources; no page writes a dollar figure the table does not have."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    lines = prices.table_lines()
    for line, row in zip(lines, [r for r in prices.PRICES.values() for r in (r, r.above) if r]):
        for figure in (row.input, row.write_5m, row.write_1h, row.read, row.output):
            assert f"{figure:.3f}" in line, (row.name, figure)
        assert row.read_on in line and all(source in line for source in row.source)
    assert cli.main(["--quick", "--turns", "4", "--sessions", "chat-heavy", "--designs", "default"]) == 0
    out = capsys.readouterr().out
    shown = [line for line in out.splitlines() if line.startswith("Claude ") and ": input " in line]
    assert shown == prices.table_lines(prices.BENCH_MODELS)
    # The legend's rates are the same rows over their base input price.
    assert all(tables.rates_line(model) in out for model in prices.BENCH_MODELS)
    assert "cache read 0.05, output 5" in tables.rates_line("claude-opus-5-5")
    assert "cache read 0.1, output 5" in tables.rates_line("claude-sonnet-5")
    for name in ("labs/02_evidence.ipynb", "zh/labs/02_evidence.ipynb"):
        printed = [line for line in _printed(root / "notebooks" / name).splitlines()
                   if line.startswith("Claude ") and ": input " in line]
        assert printed and set(printed) <= set(lines), name
        assert any(line.startswith(prices.price(prices.DEFAULT_MODEL).name + ":") for line in printed)
    table = {round(v, 3) for row in prices.PRICES.values() for r in (row, row.above) if r
             for v in (r.input, r.write_5m, r.write_1h, r.read, r.output)}
    pages = [*root.glob("notebooks/src/**/*.py"), *root.glob("docs/*.md"), root / "README.md"]
    for page in pages:
        for figure in re.findall(r"\$\s?(\d+(?:\.\d+)?)\b", page.read_text(encoding="utf-8")):
            assert round(float(figure), 3) in table, (page.name, figure)


def test_the_sessions_clock_has_tools_the_model_and_the_users_pauses():
    from compact_course.bench.simulated import call_times
    long = make_session("chat-heavy", 400, 0)
    times, calm = call_times(long), call_times(long, pauses=False)
    assert times == call_times(long) and times[:120] == call_times(replace(long, turns=long.turns[:120]))
    assert times[0] == 0 and all(b > a for a, b in zip(times, times[1:]))
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert sum(g > 300 for g in gaps) >= 3 and max(gaps) > 3600   # now and then a long pause
    assert max(b - a for a, b in zip(calm, calm[1:])) < 300 and calm[-1] < times[-1]


@pytest.mark.slow
def test_the_bench_prints_costs_with_and_without_pauses_and_the_switchs_effect(capsys):
    assert cli.main(["--quick", "--sessions", "chat-heavy", "--designs", "default", "default+cold",
                     "--seeds", "2"]) == 0
    out = capsys.readouterr().out
    assert "no pauses" in out and "x default mean" in out and "default+cold" in out
    rows = bench.run_bench(turns=(60,), sessions=("chat-heavy",), designs=("default", "default+cold"),
                           seeds=range(2))
    cold = [r for r in rows if r["design"] == "default+cold"]
    assert all(r["cost"] >= r["cost_no_pauses"] * 0.5 for r in rows) and any(r["cold_calls"] for r in cold)
    [mine] = [r for r in stats.across_seeds(rows) if r["design"] == "default+cold"]
    assert mine["default_mean"] < 1 and mine["default_worst"] <= 1   # the switch's effect, over seeds


@pytest.mark.slow
def test_the_cache_aware_switch_stays_off_it_saves_money_but_misses_more():
    """The rule (issue 31): default only if it wins on cost at no more misses. On chat-heavy
    sessions (8 seeds, 120 turns) it costs less on every seed, and misses more on average."""
    from context_compact.config import CompactionConfig
    rows = bench.run_bench(turns=(120,), sessions=("chat-heavy",), designs=("default", "default+cold"),
                           seeds=range(8))
    by = {(r["seed"], r["design"]): r for r in rows}
    pairs = [(by[s, "default"], by[s, "default+cold"]) for s in range(8)]
    assert all(cold["cost"] < plain["cost"] for plain, cold in pairs)
    assert sum(c["misses"] for _, c in pairs) > sum(p["misses"] for p, _ in pairs)
    assert CompactionConfig().compact_when_cold is False


def test_the_oracle_never_misses_never_rewrites_and_loses_nothing():
    """The floor: every output saved on arrival, each one a call needs written for it."""
    first, second = five_results_session().turns
    session = Session("tiny", OPENING, "hi", (
        first, replace(second, refers_to="t4"),
        Turn({"role": "assistant", "content": "ok"}, OK, "ok", refers_to="t0")))
    oracle = bench.run_session(session, "oracle")
    assert (oracle["misses"], oracle["lost"], oracle["files"]) == (0, 0, 5)
    # Its requests hold placeholders; the two needs are billed as two 500-character writes.
    assert oracle["request_chars"][1] < bench.run_session(session, "none")["request_chars"][1]
    assert oracle["repaid"] == pytest.approx(2 * 1.25 * estimate_text_tokens("0" * 500))
    rows = bench.add_oracle([{**bench.run_session(session, d), "seed": 0} for d in ("seed", "oracle")])
    assert rows[1]["x_oracle"] == 1.0
    assert rows[0]["x_oracle"] == rows[0]["cost_repaid"] / oracle["cost_repaid"]
    # A miss costs the seed its re-read: the bill with misses priced is higher by `repaid`.
    seed = rows[0]
    assert seed["misses"] == 1 and seed["repaid"] > 0
    assert seed["cost_repaid"] == pytest.approx(seed["cost"] + seed["repaid"], abs=0.1)


def test_the_tables_price_misses_and_say_how_far_from_the_oracle(capsys):
    rows = bench.run_bench(turns=(40,), sessions=("tool-heavy",), seeds=range(2),
                           models=prices.BENCH_MODELS)
    assert {r["priced_as"] for r in rows} == set(prices.BENCH_MODELS)
    summary = stats.across_seeds(rows)
    oracle = [r for r in summary if r["design"] == "oracle"]
    assert all(r["oracle_mean"] == 1.0 and r["misses_total"] == 0 for r in oracle)
    default = [r for r in summary if r["design"] == "default"]
    assert all(r["oracle_mean"] > 1 and r["priced_ratio_mean"] < 1 for r in default)
    table = tables.format_seeds(summary)
    assert "+misses k mean" in table and "x oracle" in table
    assert "x oracle" in tables.format_table(rows) and "+misses k" in tables.format_table(rows)


def test_no_page_ranks_designs_by_cost_alone():
    """Issue 43: a ranking by cost alone rewards starving the model; every ranking the course
    prints uses the bill with misses priced (`cost_repaid`), or misses first (the sweep)."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    ranking = re.compile(r"(?:min|max|sorted)\([^\n]*key=lambda \w+: [^\n]*\[['\"]cost['\"]\]")
    pages = [*root.glob("notebooks/src/**/*.py"), *root.glob("compact_course/**/*.py")]
    found = [(page.name, m.group(0)) for page in pages
             for m in ranking.finditer(page.read_text(encoding="utf-8"))]
    assert found == []
    assert ranking.search('cheapest = min(OTHERS, key=lambda d: by[d]["cost"])')   # what it finds
