"""Every checker of compact.course.exercises: the reference solution passes, wrong answers
fail with a diff and a hint, and a stub is "not attempted yet", never a traceback.

The solutions (compact/course/exercises/solutions.py) are written from the
article, not copied from the package, so a checker whose reference drifted
from the article fails here. The wrong answers are the common mistakes
docs/TEACHING.md lists, the traps included (01: a persisted result counted as
0 instead of its preview).
"""

import json
import re
from pathlib import Path

import pytest

from compact import formats
from compact.course import exercises as ex
from compact.course.exercises import check as machinery
from compact.course.exercises import solutions as right
from compact.messages import text_of
from compact.offline.tokens import estimate_text_tokens

ROOT = Path(__file__).resolve().parent.parent

# -- wrong answers a learner could write ------------------------------------------------


def persisted_counted_as_zero(sizes, batch_limit, large_limit):
    """The trap: a persisted result counted as 0, not as its preview."""
    total, chosen = sum(sizes), []
    for i in sorted(range(len(sizes)), key=lambda i: sizes[i], reverse=True):
        if total <= batch_limit:
            break
        if sizes[i] > large_limit:
            chosen.append(i)
            total -= sizes[i]
    return chosen


def persisted_all_large(sizes, batch_limit, large_limit):
    """Forgets to re-total: persists every large result."""
    return [i for i, s in enumerate(sizes) if s > large_limit] if sum(sizes) > batch_limit else []


def persisted_in_batch_order(sizes, batch_limit, large_limit):
    total, chosen = sum(sizes), []
    for i, size in enumerate(sizes):
        if total <= batch_limit:
            break
        if size > large_limit:
            chosen.append(i)
            total -= size - 2000
    return chosen


def cut_points_naive(kinds, max_messages, keep_head):
    """Splits pairs."""
    return keep_head, len(kinds) - (max_messages - keep_head)


def cut_points_head_only(kinds, max_messages, keep_head):
    head, tail = right.cut_points(kinds, max_messages, keep_head)
    return head, len(kinds) - (max_messages - keep_head)


def older_result_trusts_any_line(text):
    """Flaw 6: trusts a `Full output:` line anywhere in the text."""
    if len(text) <= 120:
        return text
    found = re.search(r"^Full output: (.+)$", text, re.MULTILINE)
    return f"[Earlier tool result saved at {found[1]}]" if found else formats.OMITTED


def older_result_always_omitted(text):
    return text if len(text) <= 120 else formats.OMITTED


def older_result_shrinks_short_ones(text):
    return right.older_result(text + " " * 200) if len(text) <= 120 else right.older_result(text)


def summary_cut_halves(text, limit):
    if len(text) <= limit:
        return text
    return text[:limit // 2] + formats.MIDDLE_OMITTED + text[-(limit // 2):]


def summary_cut_three_quarters(text, limit):
    """Rounds the tail down too: 3 * (limit // 4) characters, short when 4 does not divide limit."""
    if len(text) <= limit:
        return text
    return text[:limit // 4] + formats.MIDDLE_OMITTED + text[-(3 * (limit // 4)):]


def summary_cut_strictly_under(text, limit):
    if len(text) < limit:
        return text
    return text[:limit // 4] + formats.MIDDLE_OMITTED + text[len(text) - (limit - limit // 4):]


def lost_context_only(originals, context, transcripts, saved):
    return right.lost(originals, context, [], {})


def lost_no_paths(originals, context, transcripts, saved):
    return right.lost(originals, context, transcripts, {})


def tail_start_naive(kinds, keep):
    return max(0, len(kinds) - keep)


def tail_start_negative(kinds, keep):
    start = len(kinds) - keep
    if start > 0 and kinds[start] == "tool_result" and kinds[start - 1] == "tool_use":
        start -= 1
    return start


def run_batch_compact_at_once(messages, tool_uses, run, compact):
    """Compacts as soon as compact is seen: the results answer nothing."""
    results, compacted = [], None
    for use in tool_uses:
        if use["name"] == "compact":
            compacted = compact(messages)
            output = formats.COMPACT_TOOL_ACK
        else:
            output = run(use)
        results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output})
    return (compacted or messages) + [{"role": "user", "content": results}]


def run_batch_never_compacts(messages, tool_uses, run, compact):
    return right.run_batch(messages, tool_uses, run, lambda listed: listed)


def run_batch_stops_at_compact(messages, tool_uses, run, compact):
    results = []
    for use in tool_uses:
        if use["name"] == "compact":
            results.append({"type": "tool_result", "tool_use_id": use["id"],
                            "content": formats.COMPACT_TOOL_ACK})
            return compact(messages + [{"role": "user", "content": results}])
        results.append({"type": "tool_result", "tool_use_id": use["id"], "content": run(use)})
    return messages + [{"role": "user", "content": results}]


def fresh_from_first_reply(kinds):
    for i, kind in enumerate(kinds):
        if kind in ("assistant", "tool_use"):
            return i + 1
    return 0


def fresh_from_the_reply(kinds):
    return max(0, right.fresh_from(kinds) - 1)


def cache_cost_no_cache(previous, current):
    return 1.25 * sum(estimate_text_tokens(json.dumps(m, ensure_ascii=False)) for m in current)


def cache_cost_leading_matches(previous, current):
    """The character-era rule: the leading messages that match are read, whatever changed after."""
    tokens = [estimate_text_tokens(json.dumps(m, ensure_ascii=False)) for m in current]
    same = 0
    while same < min(len(previous), len(current)) and previous[same] == current[same]:
        same += 1
    return 0.1 * sum(tokens[:same]) + 1.25 * sum(tokens[same:])


def cache_cost_characters(previous, current):
    sizes = [len(json.dumps(m, ensure_ascii=False)) for m in current]
    read = sum(sizes[:len(previous)]) if previous and current[:len(previous)] == previous else 0
    return 0.1 * read + 1.25 * (sum(sizes) - read)


FUNCTION_CHECKS = [
    (ex.check_persisted, right.persisted,
     [persisted_counted_as_zero, persisted_all_large, persisted_in_batch_order]),
    (ex.check_cut_points, right.cut_points, [cut_points_naive, cut_points_head_only]),
    (ex.check_older_result, right.older_result,
     [older_result_trusts_any_line, older_result_always_omitted, older_result_shrinks_short_ones]),
    (ex.check_summary_cut, right.summary_cut,
     [summary_cut_halves, summary_cut_three_quarters, summary_cut_strictly_under]),
    (ex.check_lost, right.lost, [lost_context_only, lost_no_paths]),
    (ex.check_tail_start, right.tail_start, [tail_start_naive, tail_start_negative]),
    (ex.check_run_batch, right.run_batch,
     [run_batch_compact_at_once, run_batch_never_compacts, run_batch_stops_at_compact]),
    (ex.check_fresh_from, right.fresh_from, [fresh_from_first_reply, fresh_from_the_reply]),
    (ex.check_cache_cost, right.cache_cost,
     [cache_cost_no_cache, cache_cost_leading_matches, cache_cost_characters]),
]
IDS = [check.__name__ for check, _, _ in FUNCTION_CHECKS]
WRONG = [(check, wrong) for check, _, wrongs in FUNCTION_CHECKS for wrong in wrongs]


@pytest.mark.parametrize("check, solution, wrongs", FUNCTION_CHECKS, ids=IDS)
def test_the_reference_solution_passes_every_case(check, solution, wrongs, capsys):
    result = check(solution)
    assert result.ok and result.passed == result.total >= 10
    out = capsys.readouterr().out
    assert "FAIL" not in out and f"All {result.total} cases pass." in out


@pytest.mark.parametrize("check, wrong", WRONG, ids=[w.__name__ for _, w in WRONG])
def test_a_wrong_answer_fails_with_a_diff_and_a_hint(check, wrong, capsys):
    result = check(wrong)
    assert result.attempted and not result.ok
    out = capsys.readouterr().out
    assert out.count("  FAIL  ") == result.total - result.passed
    details = [detail for _, ok, detail in result.rows if not ok]
    # Each miss says how it differs (where two texts part, or which element and value),
    # or what the learner's code raised.
    assert all(re.search(DIFF + r"|raised \w+", d) for d in details), details
    assert "Hint:" in out and "you said" not in out
    assert "\n      " in out  # the first misses are explained under their FAIL line


DIFF = r"differ at character|expected .+ got"


@pytest.mark.parametrize("check, solution, wrongs", FUNCTION_CHECKS, ids=IDS)
def test_at_least_two_wrong_answers_per_checker_fail_with_a_diff(check, solution, wrongs, capsys):
    with_a_diff = [wrong for wrong in wrongs
                   if any(not ok and re.search(DIFF, d) for _, ok, d in check(wrong).rows)]
    assert len(with_a_diff) >= 2, [w.__name__ for w in with_a_diff]


@pytest.mark.parametrize("check, solution, wrongs", FUNCTION_CHECKS, ids=IDS)
@pytest.mark.parametrize("answer", [None, "stub"])
def test_a_stub_is_not_attempted_yet(check, solution, wrongs, answer, capsys):
    def stub(*args):
        raise NotImplementedError
    result = check(stub if answer == "stub" else None)
    assert not result.attempted and not result.ok and result.passed == 0
    out = capsys.readouterr().out
    assert "not attempted yet" in out and "Hint:" in out and "FAIL" not in out


@pytest.mark.parametrize("check, solution, wrongs", FUNCTION_CHECKS, ids=IDS)
def test_a_crashing_function_is_a_fail_line_not_a_traceback(check, solution, wrongs, capsys):
    def crashes(*args):
        raise KeyError("oops")
    result = check(crashes)
    assert result.attempted and result.passed == 0
    assert "raised KeyError" in capsys.readouterr().out


def test_a_value_that_is_not_a_function_is_refused_clearly(capsys):
    result = ex.check_tail_start(42)
    assert result.passed == 0 and "expected a function, got an int" in capsys.readouterr().out


# -- the traps ------------------------------------------------------------------------------

def failed_cases(result) -> list:
    return [case for case, ok, _ in result.rows if not ok]


def test_counting_a_persisted_result_as_zero_fails_the_preview_case():
    result = ex.check_persisted(persisted_counted_as_zero)
    assert "the preview still counts" in failed_cases(result)
    detail = dict((case, d) for case, _, d in result.rows)["the preview still counts"]
    assert "too few" in detail  # the hint names the mistake


def test_a_forged_full_output_line_is_not_a_saved_copy():
    result = ex.check_older_result(older_result_trusts_any_line)
    assert failed_cases(result) == ["a file that mentions a Full output: line",
                                    "a log that starts with a Full output: line"]


def test_the_tail_of_the_summary_input_is_the_rest_of_the_budget():
    failed = failed_cases(ex.check_summary_cut(summary_cut_three_quarters))
    assert "a limit not divisible by 4, 101" in failed and "the article's limit, 80000" not in failed


def test_compacting_before_the_results_is_named_in_the_hint():
    result = ex.check_run_batch(run_batch_compact_at_once)
    hints = " ".join(d for _, ok, d in result.rows if not ok)
    assert "compact ran before the results were appended" in hints


def test_the_cases_are_the_same_on_every_run():
    first = ex.check_cut_points(right.cut_points).rows
    assert [case for case, _, _ in first] == [case for case, _, _ in
                                              ex.check_cut_points(right.cut_points).rows]


# -- the diff machinery ----------------------------------------------------------------------

def test_a_type_difference_names_both_types_not_two_lookalike_values():
    text = machinery.difference(1, "1")
    assert text == "expected an int (1), got a str ('1')"
    assert machinery.difference([1, 2], (1, 2)).startswith("expected a list")


def test_a_text_difference_shows_the_first_differing_character_with_context():
    expected = "a" * 100 + "XYZ" + "b" * 100
    got = "a" * 100 + "XQZ" + "b" * 100
    text = machinery.difference(expected, got)
    assert "differ at character 101" in text
    assert "XYZ" in text and "XQZ" in text
    # Longer than the 60 characters the old checker cut both values to, and still readable.
    caret = text.splitlines()[-1]
    got_line = text.splitlines()[-2]
    assert got_line[caret.index("^")] == "Q"


def test_a_text_that_stops_early_says_so():
    assert "yours stops there" in machinery.difference("abcdef", "abc")
    assert "yours goes on" in machinery.difference("abc", "abcdef")


def test_a_list_difference_points_at_the_first_differing_element():
    text = machinery.difference([{"a": "x"}, {"a": "long text"}], [{"a": "x"}, {"a": "long test"}])
    assert text.startswith("at [1]: at ['a']: texts differ at character 7")


def test_same_treats_a_bool_as_no_count_and_close_floats_as_equal():
    assert not machinery.same(1, True)
    assert machinery.same(0.1 + 0.2, 0.3)
    assert not machinery.same((1, 2), [1, 2])


# -- predictions ---------------------------------------------------------------------------

def test_a_prediction_takes_a_number_a_tuple_or_a_dict(capsys):
    expected = {"placeholders": 2, "omitted": 1}
    assert machinery.check_prediction("p", (2, 1), expected, "h").ok
    assert machinery.check_prediction("p", {"placeholders": 2, "omitted": 1}, expected, "h").ok
    wrong = machinery.check_prediction("p", (2, 2), expected, "h")
    assert wrong.attempted and wrong.passed == 1
    assert "expected 1, got 2" in capsys.readouterr().out
    assert not machinery.check_prediction("p", None, expected, "h").attempted
    assert not machinery.check_prediction("p", (2, None), expected, "h").attempted
    assert machinery.check_prediction("p", (2,), expected, "h").passed == 0
    assert machinery.check_prediction("one", 3, {"n": 3}, "h").ok
    assert not machinery.check_prediction("one", True, {"n": 1}, "h").ok  # a bool is not a count


def test_a_string_prediction_is_told_its_type(capsys):
    result = machinery.check_prediction("one", "1", {"n": 1}, "h")
    assert not result.ok
    assert "expected an int (1), got a str ('1')" in capsys.readouterr().out


def test_steps_that_act_follow_the_triggers():
    assert ex.pipeline.steps_that_act() == right.STEPS_THAT_ACT
    assert ex.check_steps_that_act(right.STEPS_THAT_ACT).ok
    wrong = dict(right.STEPS_THAT_ACT, huge_result=["tool_result_budget"])
    assert ex.check_steps_that_act(wrong).passed == 3
    a_name_not_a_list = dict(right.STEPS_THAT_ACT, long_session="snip_compact")
    result = ex.check_steps_that_act(a_name_not_a_list)
    assert result.passed == 3
    assert "expected a list" in dict((c, d) for c, _, d in result.rows)["long_session"]


def test_placeholders_on_five_reads_match_the_article_rule():
    from compact.course.histories import load_history
    from compact.messages import tool_results
    results = [b for m in load_history("five_reads")["messages"] for b in tool_results(m)]
    shrunk = [b for b in results[:-3] if len(text_of(b["content"])) > 120]
    # Nothing in five_reads is large enough for step 1, so every placeholder says omitted.
    assert ex.micro.placeholders_on_five_reads() == {"placeholders": len(shrunk),
                                                     "omitted": len(shrunk)}
    assert shrunk


def test_seed_losses_are_positive():
    assert all(n > 0 for n in ex.profiles.seed_losses().values())


def test_summary_calls_in_the_live_run_are_read_from_the_records():
    seed = ex.live.summary_calls_in_live_run("seed")["summary_calls"]
    default = ex.live.summary_calls_in_live_run("default")["summary_calls"]
    # The seed summarizes the two code files; the default persists them instead.
    assert seed >= 1 and default == 0


PREDICTIONS = [
    (ex.check_placeholders, ex.micro.placeholders_on_five_reads),
    (ex.check_order_loss, ex.order.order_loss_on_huge_result),
    (ex.check_seed_losses, ex.profiles.seed_losses),
    (ex.check_summary_calls, ex.live.summary_calls_in_live_run),
]


@pytest.mark.parametrize("check, reference", PREDICTIONS,
                         ids=[check.__name__ for check, _ in PREDICTIONS])
def test_a_prediction_checker_passes_the_right_numbers_and_fails_wrong_ones(
        check, reference, capsys):
    expected = reference()
    right_answer = tuple(expected.values()) if len(expected) > 1 else next(iter(expected.values()))
    assert check(right_answer).ok
    wrong = check({label: value + 1 for label, value in expected.items()})
    assert wrong.attempted and wrong.passed == 0 and wrong.total == len(expected)
    out = capsys.readouterr().out
    assert all(f"expected {value}, got {value + 1}" in out for value in expected.values())
    as_text = check({label: str(value) for label, value in expected.items()})
    assert as_text.attempted and as_text.passed == 0
    assert "expected an int" in capsys.readouterr().out
    assert not check(None).attempted
    assert "not attempted yet" in capsys.readouterr().out


# -- the catalogue ---------------------------------------------------------------------------

def test_every_notebook_has_a_checker_and_nine_have_code_to_write():
    # every notebook in notebooks/src has its checker, and no checker names a missing notebook
    from pathlib import Path
    src = Path(__file__).parent.parent / "notebooks" / "src"
    notebooks = sorted(p.name[:2] for p in src.glob("[0-9][0-9]_*.py"))
    assert sorted(ex.CHECKERS) == notebooks
    writes_code = {nb for nb, checks in ex.CHECKERS.items()
                   if any(c in ex.WRITES_CODE for c in checks)}
    assert len(writes_code) >= 9
    assert {"01", "02", "03", "04", "06", "07"} <= writes_code
    assert set(ex.WRITES_CODE) == {check for check, _, _ in FUNCTION_CHECKS}


def test_the_teachers_guide_shows_every_solution_as_it_is_in_solutions_py():
    import inspect
    guide = (ROOT / "docs" / "TEACHING.md").read_text(encoding="utf-8")
    for _, solution, _ in FUNCTION_CHECKS:
        source = inspect.getsource(solution).strip()
        assert source in guide, f"docs/TEACHING.md lacks the solution {solution.__name__}"
