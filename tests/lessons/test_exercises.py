"""Every checker of compact_course.lessons.exercises: the reference solution passes, wrong answers
fail with a diff and a hint, and a stub is "not attempted yet", never a traceback.

The solutions (compact_course/lessons/exercises/solutions.py) are written from the
article, not copied from the package, so a checker whose reference drifted
from the article fails here. The wrong answers are the common mistakes
docs/TEACHING.md lists, the traps included (01: a persisted result counted as
0 instead of its preview).
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from compact_course.lessons import exercises as ex
from compact_course.lessons.exercises import check as machinery
from compact_course.lessons.exercises import hints
from compact_course.lessons.exercises import solutions as right
from compact_course.lessons.exercises.snip import simulate
from compact_course.probes import CONSTRAINT_EN, CONSTRAINT_ZH, readable_units
from context_compact import formats
from context_compact.messages import text_of

ROOT = Path(__file__).resolve().parents[2]

# -- wrong answers a learner could write ------------------------------------------------


def lla_the_articles_number(sizes, batch_limit):
    """Answers with the article's LARGE_RESULT_CHAR_LIMIT, whatever the batch."""
    return 30_000


def lla_preview_as_zero(sizes, batch_limit):
    """The trap: a persisted result counted as 0, not as its preview."""
    total, needed = sum(sizes), None
    for size in sorted(sizes, reverse=True):
        if total <= batch_limit:
            break
        total -= size
        needed = size
    return None if needed is None or needed - 1 < 10_000 else needed - 1


def lla_the_size_itself(sizes, batch_limit):
    """Forgets that only results *longer* than the limit move."""
    answer = right.largest_large_limit(sizes, batch_limit)
    return None if answer is None else answer + 1


def archive_the_articles_cut(added, max_messages, target):
    """The article's snip keeps max_messages + 1 (3 + 47 + the marker)."""
    return simulate(added, max_messages, max_messages + 1)


def archive_without_the_marker(added, max_messages, target):
    return simulate(added, max_messages, target + 1)


def archive_on_reaching(added, max_messages, target):
    return simulate(added, max_messages, target, over=lambda n, m: n >= m)


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


def unseen_in_halves(sizes, limit):
    """Cuts the budget in halves, not a quarter from the start."""
    return _unseen_with(sizes, limit, head=limit // 2)


def unseen_without_separators(sizes, limit):
    """Lays the messages end to end, forgetting '[', ', ' and ']'."""
    return _unseen_with(sizes, limit, separator=0, bracket=0)


def unseen_partly_counted(sizes, limit):
    """Counts a message the cut passes through as unseen."""
    return _unseen_with(sizes, limit, partly=True)


def _unseen_with(sizes, limit, head=None, separator=2, bracket=1, partly=False):
    total = sum(sizes) + separator * (len(sizes) - 1) + 2 * bracket
    if total <= limit:
        return []
    head = limit // 4 if head is None else head
    hidden_to, out, start = total - (limit - head), [], bracket
    for index, size in enumerate(sizes):
        end = start + size
        if (start < hidden_to and end > head) if partly else (start >= head and end <= hidden_to):
            out.append(index)
        start = end + separator
    return out


def lost_context_only(originals, context, transcripts, saved):
    return right.lost(originals, context, [], {})


def lost_no_paths(originals, context, transcripts, saved):
    return right.lost(originals, context, transcripts, {})


def tail_like_the_article(kinds, keep, request_at):
    """A copy of the article's listing: the newest keep, one earlier for a pair."""
    start = max(0, len(kinds) - keep)
    if start > 0 and kinds[start] == "tool_result" and kinds[start - 1] == "tool_use":
        start -= 1
    return start


def tail_from_the_request(kinds, keep, request_at):
    start = tail_like_the_article(kinds, keep, request_at)
    return request_at if request_at >= start else start


def tail_always_after_the_request(kinds, keep, request_at):
    return max(request_at + 1, 0) if request_at + 1 <= len(kinds) else len(kinds)


def tail_parting_a_pair(kinds, keep, request_at):
    start = max(0, len(kinds) - keep)
    return request_at + 1 if request_at >= start else start


def run_batch_like_the_article(messages, tool_uses, run, compact):
    """A copy of the article's harness: nothing catches a tool that raises."""
    results, compact_requested = [], False
    for use in tool_uses:
        if use["name"] == "compact":
            output, compact_requested = formats.COMPACT_TOOL_ACK, True
        else:
            output = run(use)
        results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output})
    messages = messages + [{"role": "user", "content": results}]
    return compact(messages) if compact_requested else messages


def run_batch_stops_at_the_failure(messages, tool_uses, run, compact):
    results = []
    for use in tool_uses:
        try:
            output = formats.COMPACT_TOOL_ACK if use["name"] == "compact" else run(use)
        except Exception as error:
            results.append({"type": "tool_result", "tool_use_id": use["id"],
                            "content": f"Error: {error}"})
            return messages + [{"role": "user", "content": results}]
        results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output})
    messages = messages + [{"role": "user", "content": results}]
    return compact(messages) if any(u["name"] == "compact" for u in tool_uses) else messages


def run_batch_drops_the_failure(messages, tool_uses, run, compact):
    def quiet(use):
        try:
            return run(use)
        except Exception:
            return None
    answered = right.run_batch_safely(messages, tool_uses, quiet, lambda listed: listed)
    answered[-1]["content"] = [b for b in answered[-1]["content"] if b["content"] is not None]
    compacted = any(u["name"] == "compact" for u in tool_uses)
    return compact(answered) if compacted else answered


def run_batch_no_compact_after_a_failure(messages, tool_uses, run, compact):
    failed = []

    def noting(use):
        try:
            return run(use)
        except Exception:
            failed.append(use)
            raise
    after = right.run_batch_safely(messages, tool_uses, noting, lambda listed: listed)
    asked = any(u["name"] == "compact" for u in tool_uses)
    return compact(after) if asked and not failed else after


def unread_forgets_the_newest_three(sizes, fresh):
    """Every unread result over 120: the newest 3 of the whole list forgotten."""
    return sum(1 for i in range(len(sizes) - fresh, len(sizes)) if sizes[i] > 120)


def unread_counts_read_ones(sizes, fresh):
    """Every older result shrunk, read ones too."""
    return sum(1 for i in range(len(sizes) - 3) if sizes[i] > 120)


def unread_newest_three_long(sizes, fresh):
    """The newest 3 *long* results kept, not the newest 3."""
    long_ones = [i for i, size in enumerate(sizes) if size > 120]
    return sum(1 for i in long_ones[:-3] if i >= len(sizes) - fresh)


def unread_ignores_the_size(sizes, fresh):
    """Every unread result older than the newest 3, short ones too: max(0, fresh - 3)."""
    return max(0, fresh - 3)


def unread_shrinks_120(sizes, fresh):
    """A result of exactly 120 characters shrunk too."""
    return sum(1 for i in range(len(sizes) - 3) if i >= len(sizes) - fresh and sizes[i] >= 120)


def pay_off_reads_the_unchanged_start(before, after, summary=None, cold=False):
    """The call after the step reads the messages the step left unchanged at the start."""
    from compact_course.lessons.exercises.payoff import calls, closed_form
    return calls(*closed_form(before, after, summary, cold, shared=True))


def pay_off_without_the_summary_call(before, after, summary=None, cold=False):
    return right.calls_to_pay_off(before, after, None, cold)


def pay_off_ignores_the_pause(before, after, summary=None, cold=False):
    return right.calls_to_pay_off(before, after, summary, False)


def pay_off_from_the_second_call(before, after, summary=None, cold=False):
    """Counts the calls that save, not the call that pays the extra."""
    answer = right.calls_to_pay_off(before, after, summary, cold)
    return answer - 1 if answer and answer > 1 else answer


def pay_off_at_once(before, after, summary=None, cold=False):
    """A smaller list is cheaper from the first call: the cache left out."""
    return 1 if sum(t for _, t in after) < sum(t for _, t in before) else None


def instructions_case_sensitive(text):
    """The cue words as written: "Do not" and "DON'T" are missed."""
    return [s for s in readable_units(text, "sentence") if any(c in s for c in CONSTRAINT_EN + CONSTRAINT_ZH)]


def instructions_whole_lines(text):
    """Whole lines that hold an instruction, not the sentence."""
    return [ln.strip() for ln in text.splitlines() if ln.strip() and right.instructions(ln)]


def instructions_inside_words(text):
    """A cue found inside a word: "commonly" holds "only"."""
    return [s for s in readable_units(text, "sentence")
            if any(c in s.lower() for c in CONSTRAINT_EN + CONSTRAINT_ZH)]


FUNCTION_CHECKS = [
    (ex.check_largest_large_limit, right.largest_large_limit,
     [lla_the_articles_number, lla_preview_as_zero, lla_the_size_itself]),
    (ex.check_archive_calls, right.archive_calls,
     [archive_the_articles_cut, archive_without_the_marker, archive_on_reaching]),
    (ex.check_older_result, right.older_result,
     [older_result_trusts_any_line, older_result_always_omitted, older_result_shrinks_short_ones]),
    (ex.check_unseen, right.unseen,
     [unseen_in_halves, unseen_without_separators, unseen_partly_counted]),
    (ex.check_lost, right.lost, [lost_context_only, lost_no_paths]),
    (ex.check_tail_once, right.tail_once,
     [tail_like_the_article, tail_from_the_request, tail_always_after_the_request,
      tail_parting_a_pair]),
    (ex.check_run_batch_safely, right.run_batch_safely,
     [run_batch_like_the_article, run_batch_stops_at_the_failure, run_batch_drops_the_failure,
      run_batch_no_compact_after_a_failure]),
    (ex.check_unread_shrunk, right.unread_shrunk,
     [unread_forgets_the_newest_three, unread_counts_read_ones, unread_newest_three_long,
      unread_shrinks_120, unread_ignores_the_size]),
    (ex.check_calls_to_pay_off, right.calls_to_pay_off,
     [pay_off_reads_the_unchanged_start, pay_off_without_the_summary_call, pay_off_ignores_the_pause,
      pay_off_from_the_second_call, pay_off_at_once]),
    (ex.check_instructions, right.instructions,
     [instructions_case_sensitive, instructions_whole_lines, instructions_inside_words]),
]
# The exercises the learner designs: each wrong answer's hint() names its mistake.
# (check, wrong answer, words its hint must say)
NAMED_MISTAKES = [
    (ex.check_largest_large_limit, lla_the_articles_number, "the article's own limit"),
    (ex.check_largest_large_limit, lla_preview_as_zero, "2,000-character preview"),
    (ex.check_largest_large_limit, lla_the_size_itself, "step 1 leaves it"),
    (ex.check_archive_calls, archive_the_articles_cut, "that is the article's cut"),
    (ex.check_archive_calls, archive_without_the_marker, "the marker is one of them"),
    (ex.check_archive_calls, archive_on_reaching, "not when it reaches it"),
    (ex.check_unseen, unseen_in_halves, "a quarter of the limit from the start"),
    (ex.check_unseen, unseen_without_separators, "', ' between two messages"),
    (ex.check_unseen, unseen_partly_counted, "is partly sent"),
    (ex.check_tail_once, tail_like_the_article, "that is the article's tail"),
    (ex.check_tail_once, tail_from_the_request, "the tail starts at the request"),
    (ex.check_tail_once, tail_always_after_the_request, "already before the tail"),
    (ex.check_tail_once, tail_parting_a_pair, "the pair is parted"),
    (ex.check_unread_shrunk, unread_forgets_the_newest_three, "even unread ones"),
    (ex.check_unread_shrunk, unread_counts_read_ones, "read ones too"),
    (ex.check_unread_shrunk, unread_newest_three_long, "by position"),
    (ex.check_unread_shrunk, unread_shrinks_120, "exactly 120 characters is left alone"),
    (ex.check_unread_shrunk, unread_ignores_the_size, "whatever its size"),
    (ex.check_run_batch_safely, run_batch_like_the_article, "let it escape"),
    (ex.check_run_batch_safely, run_batch_stops_at_the_failure, "run every call of the batch"),
    (ex.check_run_batch_safely, run_batch_drops_the_failure, "every tool_use needs its tool_result"),
    (ex.check_run_batch_safely, run_batch_no_compact_after_a_failure, "even when a call failed"),
    (ex.check_calls_to_pay_off, pay_off_reads_the_unchanged_start, "not even the messages before it"),
    (ex.check_calls_to_pay_off, pay_off_without_the_summary_call, "summary call is billed too"),
    (ex.check_calls_to_pay_off, pay_off_ignores_the_pause, "the cache has expired"),
    (ex.check_calls_to_pay_off, pay_off_from_the_second_call, "as call 1"),
    (ex.check_calls_to_pay_off, pay_off_at_once, "not cheaper at once"),
]
IDS = [check.__name__ for check, _, _ in FUNCTION_CHECKS]
WRONG = [(check, wrong) for check, _, wrongs in FUNCTION_CHECKS for wrong in wrongs]
# Checkers whose wrong answers take seconds each run in CI and with `-m slow` (none now: 08's
# capstone is the build track's, tests/lessons/test_build_track.py).
SLOW_CHECKS = ()


def marked(rows, ids) -> list:
    """The parameters, each of a slow checker marked slow."""
    return [pytest.param(*row, id=name, marks=[pytest.mark.slow] if row[0] in SLOW_CHECKS else [])
            for row, name in zip(rows, ids)]


@pytest.mark.parametrize("check, solution, wrongs", FUNCTION_CHECKS, ids=IDS)
def test_the_reference_solution_passes_every_case(check, solution, wrongs, capsys):
    result = check(solution)
    assert result.ok and result.passed == result.total >= 10
    out = capsys.readouterr().out
    assert "FAIL" not in out and f"All {result.total} cases pass." in out


@pytest.mark.parametrize("check, wrong", marked(WRONG, [w.__name__ for _, w in WRONG]))
def test_a_wrong_answer_fails_with_a_diff_and_a_hint(check, wrong, capsys):
    result = check(wrong)
    assert result.attempted and not result.ok
    out = capsys.readouterr().out
    assert out.count("  FAIL  ") == result.total - result.passed
    details = [detail for _, ok, detail in result.rows if not ok]
    # Each miss says which way it is off (where a text goes wrong, which item and which
    # way), or what the learner's code raised; never what it should have been.
    assert all(re.search(WAY + r"|raised \w+", d) for d in details), details
    assert not [d for d in details if "expected" in d], details
    # Each miss shows the case's input first, so the learner can run it by hand.
    assert all(d.startswith("input: ") for d in details), details
    assert "\n      " in out  # the first misses are explained under their FAIL line
    # The hints stay closed until asked: the verdict says how to open them.
    assert "run hint()" in out and "hint:" not in out
    ex.hint()
    assert f"hint: {result.general}" in capsys.readouterr().out


# The directions check.py gives (its WAYS), in the learner's own terms.
WAY = (r"too high|too low|too many items|too few items|an item it should not|misses an item"
       r"|is wrong|in the wrong order|misses the key|a key it should not|text is wrong from"
       r"|should be an? \w+, not|wrong kind of value|not what it should be")


@pytest.mark.parametrize("check, wrong, words",
                         marked(NAMED_MISTAKES, [w.__name__ for _, w, _ in NAMED_MISTAKES]))
def test_a_designed_exercise_names_the_mistake_in_its_hint(check, wrong, words, capsys):
    result = check(wrong)
    assert result.attempted and not result.ok
    ex.hint()
    opened = capsys.readouterr().out
    tied, general = opened.rsplit("\nhint: ", 1)
    assert words in tied, opened  # said for the mistake, not only in the general hint
    # ... and no hint of the same exercise names a mistake this answer did not make
    others = {w for c, _, w in NAMED_MISTAKES if c is check and w != words}
    assert not [w for w in others if w in tied], opened


@pytest.mark.parametrize("check, solution, wrongs", marked(FUNCTION_CHECKS, IDS))
def test_at_least_two_wrong_answers_per_checker_fail_with_a_diff(check, solution, wrongs, capsys):
    with_a_diff = [wrong for wrong in wrongs
                   if any(not ok and re.search(WAY, d) for _, ok, d in check(wrong).rows)]
    assert len(with_a_diff) >= 2, [w.__name__ for w in with_a_diff]


@pytest.mark.parametrize("check, solution, wrongs", FUNCTION_CHECKS, ids=IDS)
@pytest.mark.parametrize("answer", [None, "stub"])
def test_a_stub_is_not_attempted_yet(check, solution, wrongs, answer, capsys):
    def stub(*args):
        raise NotImplementedError
    result = check(stub if answer == "stub" else None)
    assert not result.attempted and not result.ok and result.passed == 0
    out = capsys.readouterr().out
    assert "not attempted yet" in out and "run hint()" in out and "FAIL" not in out


@pytest.mark.parametrize("check, solution, wrongs", marked(FUNCTION_CHECKS, IDS))
def test_a_crashing_function_is_a_fail_line_not_a_traceback(check, solution, wrongs, capsys):
    def crashes(*args):
        raise KeyError("oops")
    result = check(crashes)
    assert result.attempted and result.passed == 0
    assert "raised KeyError" in capsys.readouterr().out


def test_a_value_that_is_not_a_function_is_refused_clearly(capsys):
    result = ex.check_tail_once(42)
    assert result.passed == 0 and "expected a function, got an int" in capsys.readouterr().out


# -- the traps ------------------------------------------------------------------------------

def failed_cases(result) -> list:
    return [case for case, ok, _ in result.rows if not ok]


def test_counting_a_persisted_result_as_zero_fails_the_preview_case():
    result = ex.check_largest_large_limit(lla_preview_as_zero)
    assert "the preview still counts" in failed_cases(result)
    assert "2,000-character preview" in dict(result.hints)["the preview still counts"]


def test_a_forged_full_output_line_is_not_a_saved_copy():
    result = ex.check_older_result(older_result_trusts_any_line)
    assert failed_cases(result) == ["a file that mentions a Full output: line",
                                    "a log that starts with a Full output: line"]


def test_a_message_the_cut_passes_through_is_seen_and_the_separators_move_the_cut():
    assert "one huge message in the middle" in failed_cases(ex.check_unseen(unseen_partly_counted))
    assert failed_cases(ex.check_unseen(unseen_without_separators)) == ["the separators decide"]


def test_a_tool_that_raises_is_answered_and_the_batch_goes_on():
    result = ex.check_run_batch_safely(run_batch_like_the_article)
    assert "a failure, then a read" in failed_cases(result)
    assert "one read, no failure" not in failed_cases(result)
    details = dict((case, d) for case, _, d in result.rows)
    assert "raised TimeoutError" in details["a failure, then a read"]
    assert "tool_uses = [bash (raises), read_file]" in details["a failure, then a read"]


def test_the_articles_cut_archives_on_every_call_once_over_the_trigger():
    # The seed profile's own step 2, call after call: what archive_the_articles_cut models.
    from compact_course.lessons.exercises import snip
    assert snip.simulate([1] * 60, 50, 51) == list(range(51, 61))
    assert ex.snip.reference([1] * 60, 50, 30) == [51]


def test_the_cases_are_the_same_on_every_run():
    first = ex.check_archive_calls(right.archive_calls).rows
    assert [case for case, _, _ in first] == [case for case, _, _ in
                                              ex.check_archive_calls(right.archive_calls).rows]


# -- the directions -------------------------------------------------------------------------
# Each says how the learner's value is off in its own terms; none quotes the expected value.

def test_a_wrong_type_names_the_type_it_should_be_unless_that_is_the_answer():
    assert machinery.direction(1, "1") == "should be an int, not a str"
    assert machinery.direction([1, 2], (1, 2)) == "should be a list, not a tuple"
    # An expected None (or bool) has one value: naming its type would give the answer.
    assert machinery.direction(None, 30_000) == "the wrong kind of value: yours is an int"
    assert machinery.direction(True, "yes") == "the wrong kind of value: yours is a str"


def test_a_text_says_where_it_goes_wrong_and_shows_the_learners_own_text_there():
    expected = "a" * 100 + "XYZ" + "b" * 100
    got = "a" * 100 + "XQZ" + "b" * 100
    text = machinery.direction(expected, got)
    assert text.startswith("the text is wrong from character 101 on; yours reads there: ")
    assert "XQZ" in text and "XYZ" not in text


def test_a_text_that_stops_early_or_goes_on_says_so():
    text = "a line of the file\n" * 6
    assert machinery.direction(text, text[:50]) == "the text is wrong from character 50 on; yours stops there"
    assert machinery.direction(text[:50], text).startswith(
        "the text is wrong from character 50 on; yours goes on")
    assert "abcdef" not in machinery.direction("abcdef", "abc")


def test_a_list_points_at_the_first_wrong_item_and_the_learners_extra_names():
    text = machinery.direction([{"a": "x"}, {"a": "long text"}], [{"a": "x"}, {"a": "long test"}])
    assert text.startswith("item 1 is wrong: at ['a']: the text is wrong from character 7 on")
    assert "long text" not in text
    # "1 items, should be 2": the count of the answer is the answer when it is 0 or 1
    text = machinery.direction(["snip_compact", "micro_compact"], ["micro_compact"])
    assert text == "too few items (yours has 1); misses an item" and "snip" not in text
    assert machinery.direction([], [1, 22]) == "too many items (yours has 2)"
    assert machinery.direction(["a.py"], ["a.py", "mine.py"]) == (
        "too many items (yours has 2); has an item it should not: 'mine.py'")
    text = machinery.direction(["tool_result_budget", "micro_compact"],
                               ["micro_compact", "tool_result_budget"])
    assert text == "the right items in the wrong order"


def test_a_partial_prediction_names_what_is_missing(capsys):
    result = machinery.check_prediction("p", {"placeholders": 2}, {"placeholders": 2, "omitted": 1},
                                        "h")
    assert not result.attempted
    assert "1 of 2 predictions given; still None: omitted" in capsys.readouterr().out


def test_hint_before_any_check_says_to_run_one(capsys, monkeypatch):
    monkeypatch.setattr(hints, "LAST", [])
    ex.hint()
    assert "No check has run yet" in capsys.readouterr().out


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
    assert "omitted\n      too high" in capsys.readouterr().out  # the direction
    machinery.check_prediction("p", (2, 2), expected, "h")
    assert "omitted\n      too high" in capsys.readouterr().out  # and again, never the value
    assert not machinery.check_prediction("p", None, expected, "h").attempted
    assert not machinery.check_prediction("p", (2, None), expected, "h").attempted
    assert machinery.check_prediction("p", (2,), expected, "h").passed == 0
    assert machinery.check_prediction("one", 3, {"n": 3}, "h").ok
    assert not machinery.check_prediction("one", True, {"n": 1}, "h").ok  # a bool is not a count


def test_a_string_prediction_is_told_its_type(capsys):
    result = machinery.check_prediction("one", "1", {"n": 1}, "h")
    assert not result.ok
    assert "should be an int, not a str" in capsys.readouterr().out
    machinery.check_prediction("one", "1", {"n": 1}, "h")
    assert "should be an int, not a str" in capsys.readouterr().out


def test_steps_that_act_follow_the_triggers():
    from compact_course.lessons.exercises import pipeline
    assert pipeline.steps_that_act() == right.STEPS_THAT_ACT
    assert ex.check_steps_that_act(right.STEPS_THAT_ACT).ok
    wrong = dict(right.STEPS_THAT_ACT, huge_result=["tool_result_budget"])
    assert ex.check_steps_that_act(wrong).passed == 3
    a_name_not_a_list = dict(right.STEPS_THAT_ACT, long_session="snip_compact")
    result = ex.check_steps_that_act(a_name_not_a_list)
    assert result.passed == 3
    assert dict((c, d) for c, _, d in result.rows)["long_session"] == "should be a list, not a str"


def test_placeholders_on_five_reads_match_the_article_rule():
    from compact_course.sessions.histories import load_history
    from context_compact.messages import tool_results
    results = [b for m in load_history("five_reads")["messages"] for b in tool_results(m)]
    shrunk = [b for b in results[:-3] if len(text_of(b["content"])) > 120]
    # Nothing in five_reads is large enough for step 1, so every placeholder says omitted.
    assert ex.micro.placeholders_on_five_reads() == {"placeholders": len(shrunk),
                                                     "omitted": len(shrunk)}
    assert shrunk


@pytest.mark.parametrize("wrong, words, not_words", [
    (instructions_inside_words, "whole words only", "whatever their case"),
    (instructions_case_sensitive, "whatever their case", None),  # it also finds "only" in "commonly"
])
def test_an_instructions_slip_gets_its_own_hint(wrong, words, not_words, capsys):
    # The reader's finding: the substring answer was told to mind the case.
    ex.check_instructions(wrong)
    ex.hint()
    tied = capsys.readouterr().out.rsplit("\nhint: ", 1)[0]
    assert words in tied and (not_words is None or not_words not in tied), tied


def test_notebook_12_shows_examples_of_every_cue_and_states_no_word_list():

    from compact_course.probes import CONSTRAINT_EN, CONSTRAINT_ZH
    kept = " ".join(s.lower() for _, sentences in ex.forgets.examples() for s in sentences)
    assert all(cue in kept for cue in CONSTRAINT_EN + CONSTRAINT_ZH)
    dropped = [t for t, sentences in ex.forgets.examples() if not sentences]
    assert "The commonly used helper is slow." in dropped  # a false friend, shown
    source = (ROOT / "notebooks/src/labs/05_what_each_design_forgets.py").read_text()
    exercise = source[source.index("## Check yourself"):source.index("**Recap.**")]
    assert "CONSTRAINT_EN" not in exercise and "whole word" not in exercise
    assert not set(ex.forgets.EXAMPLES) & {text for _, text in ex.forgets.CASES}


def test_the_likeliest_unread_mistake_gets_only_its_own_hint(capsys):
    # The reader's finding: "every unread result over 120" was told "read ones too" and
    # "exactly 120", neither of which it did.
    ex.check_unread_shrunk(unread_forgets_the_newest_three)
    ex.hint()
    tied = capsys.readouterr().out.rsplit("\nhint: ", 1)[0]
    assert "even unread ones" in tied
    assert "read ones too" not in tied and "is left alone" not in tied
    # and the other way round: counting the read ones is never told "even unread ones"
    ex.check_unread_shrunk(unread_counts_read_ones)
    ex.hint()
    tied = capsys.readouterr().out.rsplit("\nhint: ", 1)[0]
    assert "read ones too" in tied and "even unread ones" not in tied


def test_max_of_fresh_less_3_is_told_the_size_rule_not_read_ones(capsys):
    # The reviewer's finding: max(0, fresh - 3) was told "read ones too", which it did not do:
    # it counted the unread results past the newest 3 whatever their size.
    ex.check_unread_shrunk(unread_ignores_the_size)
    ex.hint()
    tied = capsys.readouterr().out.rsplit("\nhint: ", 1)[0]
    assert "whatever its size" in tied
    assert "read ones too" not in tied and "is left alone" not in tied


PREDICTIONS = [
    (ex.check_placeholders, ex.micro.placeholders_on_five_reads),
    (ex.check_order_loss, ex.order.order_loss_on_huge_result),
]


@pytest.mark.parametrize("check, reference", PREDICTIONS,
                         ids=[check.__name__ for check, _ in PREDICTIONS])
def test_a_prediction_checker_passes_the_right_numbers_and_fails_wrong_ones(
        check, reference, capsys):
    expected = reference()
    right_answer = tuple(expected.values()) if len(expected) > 1 else next(iter(expected.values()))
    assert check(right_answer).ok
    capsys.readouterr()
    wrong = check({label: value + 1 for label, value in expected.items()})
    assert wrong.attempted and wrong.passed == 0 and wrong.total == len(expected)
    out = capsys.readouterr().out
    assert out.count("too high") == len(expected)  # the direction, no value
    check({label: value + 1 for label, value in expected.items()})
    assert capsys.readouterr().out == out          # a second try: the same, still no value
    as_text = check({label: str(value) for label, value in expected.items()})
    assert as_text.attempted and as_text.passed == 0
    assert "should be an int, not a str" in capsys.readouterr().out
    assert not check(None).attempted
    assert "not attempted yet" in capsys.readouterr().out


# -- the catalogue ---------------------------------------------------------------------------

def test_every_notebook_has_a_checker_and_nine_have_code_to_write():
    # every notebook of the core path and every lab has its checker (08's is the build track's
    # check of prepare alone), and no checker names a missing notebook: "03" is
    # notebooks/src/03_*.py, "labs/01" notebooks/src/labs/01_*.py
    from compact_course.lessons.build_track import STEPS
    src = ROOT / "notebooks" / "src"
    notebooks = sorted([p.name[:2] for p in src.glob("[0-9][0-9]_*.py")]
                       + [f"labs/{p.name[:2]}" for p in (src / "labs").glob("[0-9][0-9]_*.py")])
    assert sorted({*ex.CHECKERS, STEPS["prepare"].NOTEBOOK}) == notebooks
    writes_code = {nb for nb, checks in ex.CHECKERS.items()
                   if any(c in ex.WRITES_CODE for c in checks)} | {step.NOTEBOOK for step in STEPS.values()}
    assert len(writes_code) >= 9
    assert {"01", "02", "03", "04", "06", "07"} <= writes_code
    assert set(ex.WRITES_CODE) == {check for check, _, _ in FUNCTION_CHECKS}


def test_the_lazy_table_names_each_checker_with_its_module():
    # exercises/__init__.py imports a checker when asked for, by its MODULES table: a
    # checker registered in the catalogue but missing from the table (or named with another
    # module) would be out of the notebooks' reach.
    registered = {c.__name__: c.__module__.rpartition(".")[2]
                  for checks in ex.CHECKERS.values() for c in checks}
    assert ex.MODULES == registered
    assert all(getattr(ex, name) is check for checks in ex.CHECKERS.values() for check in checks
               for name in [check.__name__])


def test_one_checker_loads_its_module_and_not_the_others():
    # Notebook 01's import loads budget.py; lab 06's checker (dropped.py, which pulls the
    # SDK) and the rest stay unloaded until asked for.
    code = ("import sys\nfrom compact_course.lessons.exercises import check_largest_large_limit\n"
            "print(sorted(m.rpartition('.')[2] for m in sys.modules "
            "if m.startswith('compact_course.lessons.exercises.')))\n"
            "print('anthropic' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded, sdk = done.stdout.splitlines()
    assert "budget" in loaded and "dropped" not in loaded and "tool" not in loaded
    assert sdk == "False"


def test_the_teachers_guide_shows_every_solution_as_it_is_in_solutions_py():
    import inspect
    guide = (ROOT / "docs" / "TEACHING.md").read_text(encoding="utf-8")
    for _, solution, _ in FUNCTION_CHECKS:
        source = inspect.getsource(solution).strip()
        assert source in guide, f"docs/TEACHING.md lacks the solution {solution.__name__}"


def test_the_checkers_speak_through_the_one_phrasebook():
    # What a checker says of a mistake is a row of compact_course/display/phrases.py ("<module>: ..."),
    # filled with the learner's values; no checker writes its own English and Chinese pair.
    # Only the hints are data of their own (texts.json), and the cases' labels (case_names.py).
    import ast

    from compact_course.display.phrases import PHRASES
    folder = ROOT / "compact_course" / "lessons" / "exercises"
    stems = {path.stem for path in folder.glob("*.py")}
    used = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            assert not (isinstance(node, ast.FunctionDef) and node.name == "say"), path.name
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and node.value.startswith(f"{path.stem}: ")):  # a row is "<module>: ..."
                used.add(node.value)
    rows = {key for key in PHRASES if key.split(": ")[0] in stems}
    assert used and used == rows, (sorted(used - rows), sorted(rows - used))


def test_the_pay_off_reference_replays_the_benchmarks_cache_and_agrees_with_the_closed_form():
    """The reference plays both futures through PromptCache and the price table; the
    solution reasons in closed form. They agree on every case, and the cases mix the steps."""
    from compact_course.lessons.exercises import payoff
    cases = payoff._cases()
    assert len(cases) >= 16
    for label, args, expected in cases:
        assert expected == right.calls_to_pay_off(*args) == payoff.calls(*payoff.closed_form(*args)), label
    answers = [expected for _, _, expected in cases]
    assert None in answers and 1 in answers and max(a for a in answers if a) > 20


def test_the_pay_off_figures_docs_teaching_names():
    from compact_course.lessons.exercises import payoff
    answers = {label: payoff.reference(*args) for label, args in payoff._canned()}
    assert answers["step 3 shrinks one old result"] == 45
    assert answers["step 2 keeps the first 3 and the newest 3"] == 6
    assert answers["step 4, with its summary call"] == 8
    assert answers["step 3 after a long pause"] == 1
    assert answers["a rewrite that saves nothing"] is None
    guide = (ROOT / "docs" / "TEACHING.md").read_text(encoding="utf-8")
    assert "45 calls for step 3 shrinking one old result, 6 for step 2's archive, 8\nfor step 4" in guide


def test_what_notebook_09s_recap_says_of_the_pay_off():
    """The recap: a small cut takes many calls to pay back; after a long pause a cut with no
    summary pays from the first call; the call after a rewrite reads nothing of it."""
    from compact_course.lessons.exercises import payoff
    canned = {label: (args, payoff.reference(*args)) for label, args in payoff._canned()}
    one = canned["step 3 shrinks one old result"][1]
    assert one > 5 * canned["step 2 keeps the first 3 and the newest 3"][1]
    assert one > 5 * canned["step 4, with its summary call"][1]
    every = [*payoff._canned(), *payoff.random_cases()]
    for label, args in every:
        before, after, summary, cold = args
        if cold and summary is None and sum(t for _, t in after) < sum(t for _, t in before):
            assert payoff.reference(*args) == 1, label
    # The call right after the step reads nothing, though the step left the start alone.
    before, after, _, _ = canned["step 3 shrinks the newest result it may"][0]
    with_step = next(payoff._future(before, after, None, False))
    assert with_step == 1.25 * (sum(t for _, t in after) + 500)


def test_the_articles_tail_fails_the_case_whose_request_is_in_the_tail(capsys):
    """The case named "the request is in the tail" once had its request before the tail,
    so the article's listing passed it; a request inside the article's tail is read twice."""
    result = ex.check_tail_once(tail_like_the_article)
    rows = {case: ok for case, ok, _ in result.rows}
    assert rows["the request is in the tail"] is False
    assert rows["the request is just before the tail"] is True


def test_every_fail_line_says_why_even_past_the_ones_shown_in_full(capsys):
    """A fourth failing case once printed `FAIL two_code_files` and nothing else."""
    ex.check_steps_that_act({name: ["snip_compact"] for name in
                             ("five_reads", "huge_result", "long_session", "two_code_files")})
    ex.check_tail_once(lambda kinds, keep, request_at: 0)
    lines = capsys.readouterr().out.splitlines()
    fails = [i for i, line in enumerate(lines) if line.strip().startswith("FAIL")]
    assert len(fails) > machinery.SHOWN_FAILS * 2
    for i in fails:
        reason = lines[i + 1] if i + 1 < len(lines) else ""
        assert reason.startswith("      ") and reason.strip(), lines[i]


def test_a_check_of_one_case_says_case_not_cases(capsys):
    ex.check_order_loss(0)
    out = capsys.readouterr().out
    assert "1 case\n" in out and "1 cases" not in out and "The case fails." in out
