"""Every checker of compact.course.exercises: a right answer passes, a wrong one fails,
and a stub (None, or NotImplementedError) is "not attempted yet", never a traceback.

The right answers here are written from the article, not copied from the
package, so a checker whose reference drifted from the article fails too.
"""

import json

import pytest

from compact.course import exercises as ex
from compact.formats import COMPACT_TOOL_ACK, MIDDLE_OMITTED

# -- answers a learner could write -------------------------------------------------

def chars(messages):
    return len(json.dumps(messages, ensure_ascii=False))


def chars_ascii(messages):
    return len(json.dumps(messages))


def persisted(sizes, batch_limit, large_limit):
    total, chosen = sum(sizes), []
    for i in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        if total <= batch_limit:
            break
        if sizes[i] > large_limit:
            chosen.append(i)
            total -= sizes[i] - min(sizes[i], 2000)
    return chosen


def persisted_all_large(sizes, batch_limit, large_limit):
    """Forgets to re-total: persists every large result."""
    return [i for i, s in enumerate(sizes) if s > large_limit] if sum(sizes) > batch_limit else []


def cut_points(kinds, max_messages, keep_head):
    head, tail = keep_head, len(kinds) - (max_messages - keep_head)
    if kinds[head - 1] == "tool_use":
        while head < tail and kinds[head] == "tool_result":
            head += 1
    if tail > 0 and kinds[tail] == "tool_result" and kinds[tail - 1] == "tool_use":
        tail -= 1
    return head, tail


def cut_points_naive(kinds, max_messages, keep_head):
    """Splits pairs."""
    return keep_head, len(kinds) - (max_messages - keep_head)


def summary_cut(text, limit):
    if len(text) <= limit:
        return text
    head = limit // 4
    return text[:head] + MIDDLE_OMITTED + text[-(limit - head):]


def summary_cut_halves(text, limit):
    if len(text) <= limit:
        return text
    return text[:limit // 2] + MIDDLE_OMITTED + text[-(limit // 2):]


def too_long(message):
    text = message.lower()
    return any(s in text for s in ("prompt is too long", "prompt_too_long", "too many tokens"))


def too_long_article(message):
    """The article's check: misses the real API's spelling."""
    text = message.lower()
    return "prompt_too_long" in text or "too many tokens" in text


def answer_batch(tool_uses, run):
    results, requested = [], False
    for use in tool_uses:
        if use["name"] == "compact":
            output, requested = COMPACT_TOOL_ACK, True
        else:
            output = run(use)
        results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output})
    return results, requested


def answer_batch_compact_first(tool_uses, run):
    """Stops at the compact call: leaves later tool_use blocks unanswered."""
    results = []
    for use in tool_uses:
        if use["name"] == "compact":
            results.append({"type": "tool_result", "tool_use_id": use["id"],
                            "content": COMPACT_TOOL_ACK})
            return results, True
        results.append({"type": "tool_result", "tool_use_id": use["id"], "content": run(use)})
    return results, False


def cache_cost(previous, current):
    same = 0
    for old, new in zip(previous, current):
        if old != new:
            break
        same += 1
    cached = sum(len(json.dumps(m, ensure_ascii=False)) for m in current[:same])
    return 0.1 * cached + 1.25 * (len(json.dumps(current, ensure_ascii=False)) - cached)


def cache_cost_no_cache(previous, current):
    return 1.25 * len(json.dumps(current, ensure_ascii=False))


def stub(*args):
    raise NotImplementedError


FUNCTION_CHECKS = [
    (ex.check_chars, chars, chars_ascii),
    (ex.check_persisted, persisted, persisted_all_large),
    (ex.check_cut_points, cut_points, cut_points_naive),
    (ex.check_summary_cut, summary_cut, summary_cut_halves),
    (ex.check_too_long, too_long, too_long_article),
    (ex.check_answer_batch, answer_batch, answer_batch_compact_first),
    (ex.check_cache_cost, cache_cost, cache_cost_no_cache),
]
IDS = [check.__name__ for check, _, _ in FUNCTION_CHECKS]


@pytest.mark.parametrize("check, right, wrong", FUNCTION_CHECKS, ids=IDS)
def test_a_right_function_passes_every_case(check, right, wrong, capsys):
    result = check(right)
    assert result.ok and result.passed == result.total >= 4
    out = capsys.readouterr().out
    assert "FAIL" not in out and f"All {result.total} cases pass." in out


@pytest.mark.parametrize("check, right, wrong", FUNCTION_CHECKS, ids=IDS)
def test_a_wrong_function_fails_some_case_and_says_which(check, right, wrong, capsys):
    result = check(wrong)
    assert result.attempted and not result.ok
    assert 0 < result.passed < result.total  # the wrong answer is close, not absurd
    out = capsys.readouterr().out
    assert out.count("  FAIL  ") == result.total - result.passed
    assert "expected" in out and "Hint:" in out


@pytest.mark.parametrize("check, right, wrong", FUNCTION_CHECKS, ids=IDS)
@pytest.mark.parametrize("answer", [None, stub], ids=["None", "stub"])
def test_a_stub_is_not_attempted_yet(check, right, wrong, answer, capsys):
    result = check(answer)
    assert not result.attempted and not result.ok and result.passed == 0
    out = capsys.readouterr().out
    assert "not attempted yet" in out and "Hint:" in out and "FAIL" not in out


@pytest.mark.parametrize("check, right, wrong", FUNCTION_CHECKS, ids=IDS)
def test_a_crashing_function_is_a_fail_line_not_a_traceback(check, right, wrong, capsys):
    def crashes(*args):
        raise KeyError("oops")
    result = check(crashes)
    assert result.attempted and result.passed == 0
    assert "raised KeyError" in capsys.readouterr().out


def test_a_value_that_is_not_a_function_is_refused_clearly(capsys):
    result = ex.check_chars(42)
    assert result.passed == 0 and "expected a function, got int" in capsys.readouterr().out


def test_chars_cases_include_text_where_ensure_ascii_matters():
    result = ex.check_chars(chars_ascii)
    failed = [case for case, ok, _ in result.rows if not ok]
    assert "a Chinese request" in failed and "one English request" not in failed


def test_persisted_reference_follows_the_article():
    # Largest first, re-total, stop under the limit; 30000 itself is not "longer".
    assert ex._persisted_reference([35_000, 31_000, 40_000, 150_000], 200_000, 30_000) == [3]
    assert ex._persisted_reference([300_000, 250_000], 200_000, 30_000) == [0, 1]
    assert ex._persisted_reference([30_000] * 8, 200_000, 30_000) == []


def test_cut_points_reference_keeps_pairs_whole():
    # The article's numbers: head 3 and the newest 47 of 60 messages.
    assert ex._cut_reference(["user", "assistant"] * 30, 50, 3) == (3, 13)
    kinds = ["user", "assistant", "tool_use", "tool_result"] + ["assistant", "user"] * 28
    assert ex._cut_reference(kinds, 50, 3) == (4, 13)


def test_cut_points_refuses_a_case_with_a_broken_pair():
    with pytest.raises(ValueError):
        ex._cut_reference(["user", "tool_result", "assistant"], 2, 1)


def test_too_long_cases_hold_both_refusals_and_unrelated_errors():
    expected = [ex.is_prompt_too_long(Exception(text)) for _, text in ex.TOO_LONG_CASES]
    assert expected.count(True) >= 4 and expected.count(False) >= 4


def test_answer_batch_reference_answers_compact_with_the_ack_and_never_runs_it():
    ran = []
    uses = [{"type": "tool_use", "id": "a", "name": "compact", "input": {}},
            {"type": "tool_use", "id": "b", "name": "bash", "input": {"command": "ls"}}]
    results, requested = ex.answer_batch_reference(uses, lambda use: ran.append(use) or "ok")
    assert requested and [r["tool_use_id"] for r in results] == ["a", "b"]
    assert results[0]["content"] == COMPACT_TOOL_ACK and [u["id"] for u in ran] == ["b"]


def test_cache_cost_reference_is_the_article_rates():
    ask = {"role": "user", "content": "hi"}
    reply = {"role": "assistant", "content": "hello"}
    a, b = len(json.dumps(ask)), len(json.dumps(reply))
    total = len(json.dumps([ask, reply]))
    assert ex.cache_cost_reference([ask], [ask, reply]) == pytest.approx(
        0.1 * a + 1.25 * (total - a))
    assert ex.cache_cost_reference([], [ask]) == pytest.approx(1.25 * (a + 2))
    assert b > 0


def test_a_prediction_takes_a_number_a_tuple_or_a_dict(capsys):
    expected = {"placeholders": 2, "omitted": 1}
    assert ex._check_prediction("p", (2, 1), expected, "h").ok
    assert ex._check_prediction("p", {"placeholders": 2, "omitted": 1}, expected, "h").ok
    wrong = ex._check_prediction("p", (2, 2), expected, "h")
    assert wrong.attempted and wrong.passed == 1
    assert "you said 2, the package says 1" in capsys.readouterr().out
    assert not ex._check_prediction("p", None, expected, "h").attempted
    assert not ex._check_prediction("p", (2, None), expected, "h").attempted
    assert ex._check_prediction("p", (2,), expected, "h").passed == 0
    assert ex._check_prediction("one", 3, {"n": 3}, "h").ok
    assert not ex._check_prediction("one", True, {"n": 1}, "h").ok  # a bool is not a count


def test_every_notebook_has_a_checker():
    assert sorted(ex.CHECKERS) == [f"{n:02d}" for n in range(11)]
    assert all(name.startswith("check_") for name in (f.__name__ for f in ex.CHECKERS.values()))


# -- predictions: the reference is computed live; check it against the histories ----

def _older_long_results(messages, keep=3, minimum=120):
    """Results the article's step 3 shrinks: older than the newest `keep`, over `minimum`."""
    from compact.messages import text_of, tool_results
    results = [b for m in messages for b in tool_results(m)]
    older = results[:-keep] if keep else results
    return [b for b in older if len(text_of(b["content"])) > minimum]


def test_placeholders_on_five_reads_match_the_article_rule():
    from compact.course.histories import load_history
    shrunk = len(_older_long_results(load_history("five_reads")["messages"]))
    # Nothing in five_reads is large enough for step 1, so every placeholder says omitted.
    assert ex.placeholders_on_five_reads() == {"placeholders": shrunk, "omitted": shrunk}
    assert shrunk >= 1


def test_order_loss_on_huge_result_is_the_read_step_3_saw_first():
    from compact.course.histories import load_history
    from compact.messages import text_of
    messages = load_history("huge_result")["messages"]
    large = [b for b in _older_long_results(messages) if len(text_of(b["content"])) > 30_000]
    assert len(large) >= 1
    assert ex.order_loss_on_huge_result() == {"lost": len(large)}


def test_seed_losses_are_positive_and_the_default_loses_none():
    from compact.course.replay import outputs_lost
    losses = ex.seed_losses()
    assert set(losses) == {"long_session", "timeline_150"}
    assert all(n > 0 for n in losses.values())
    assert outputs_lost("long_session", profile="default") == 0


def test_summary_calls_in_the_live_run_are_read_from_the_records():
    seed = ex.summary_calls_in_live_run("seed")["summary_calls"]
    default = ex.summary_calls_in_live_run("default")["summary_calls"]
    # The seed summarizes the two code files; the default persists them instead.
    assert seed >= 1 and default == 0


PREDICTIONS = [
    (ex.check_placeholders, ex.placeholders_on_five_reads),
    (ex.check_order_loss, ex.order_loss_on_huge_result),
    (ex.check_seed_losses, ex.seed_losses),
    (ex.check_summary_calls, ex.summary_calls_in_live_run),
]


@pytest.mark.parametrize("check, reference", PREDICTIONS,
                         ids=[check.__name__ for check, _ in PREDICTIONS])
def test_a_prediction_checker_passes_the_right_numbers_and_fails_wrong_ones(
        check, reference, capsys):
    expected = reference()
    right = tuple(expected.values()) if len(expected) > 1 else next(iter(expected.values()))
    assert check(right).ok
    off_by_one = {label: value + 1 for label, value in expected.items()}
    wrong = check(off_by_one)
    assert wrong.attempted and wrong.passed == 0 and wrong.total == len(expected)
    nothing = check(None)
    assert not nothing.attempted
    out = capsys.readouterr().out
    assert "the package says" in out and "not attempted yet" in out
