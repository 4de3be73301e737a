"""A wrong answer gets a direction, never the answer, on every run and in hint() (issues 40
and 52); a cell that shows a prediction's answer opens only once it was made (issue 40).

Each kind of value a checker compares is one row: the expected value, a wrong answer,
the direction every try prints in each language. The expected value is chosen so
its repr cannot appear by chance in the learner's own values.
(tests/lessons/test_no_answer_shown.py holds the same rule over every real checker.)
"""

import pytest

from compact_course.lessons import exercises as ex
from compact_course.lessons.exercises import check as machinery

KINDS = [
    # (kind, expected, wrong, English direction, Chinese direction)
    ("number", 4817, 5000, "too high", "偏大"),
    ("number low", 4817, 12, "too low", "偏小"),
    ("type", 4817, "a string", "should be an int, not a str", "应为 int，不是 str"),
    ("list count", [4817, 9391], [4817], "too few items (yours has 1); misses an item",
     "项太少（你的有 1 项）；少了一项"),
    ("list empty", [], [4817, 9391], "too many items (yours has 2)", "项太多（你的有 2 项）"),
    ("list extra", ["alpha.py", "zeta.py"], ["alpha.py", "mine.py"],
     "has an item it should not: 'mine.py'", "有一项不该有：'mine.py'"),
    ("list item", [[4817], [9391]], [[4817], [12]], "item 1 is wrong: item 0 is wrong: too low",
     "第 1 项不对：第 0 项不对：偏小"),
    ("list order", ["zeta.py", "alpha.py"], ["alpha.py", "zeta.py"],
     "the right items in the wrong order", "项目对，顺序不对"),
    ("dict value", {"reads": 4817, "writes": 9391}, {"reads": 4817, "writes": 10000},
     "at ['writes']: too high", "在 ['writes']：偏大"),
    ("dict key", {"reads": 4817, "secret_key": 9391}, {"reads": 4817, "mine": 1},
     "misses the key 'secret_key'", "缺少键 'secret_key'"),
    ("text", "the hidden answer is here", "the hidden words",
     "the text is wrong from character 11 on; yours reads there: 'the hidden words'",
     "文本从第 11 个字符起不对；你的在那里是：'the hidden words'"),
    ("none", None, 30000, "the wrong kind of value: yours is an int", "值的种类不对：你的是 int"),
    ("text short", "the hidden answer is here", "the hidden", "character 10 on; yours stops there",
     "第 10 个字符起不对；你的在那里就结束了"),
]
IDS = [kind for kind, *_ in KINDS]


def answers(expected, wrong) -> list:
    """What no try may show: the expected value, each part of it the learner did not
    write, its count, and for a text the expected words where the two part."""
    parts = list(expected.values()) if isinstance(expected, dict) else (
        expected if isinstance(expected, list) else [])
    hidden = [repr(expected), *(repr(p) for p in parts if repr(p) not in repr(wrong))]
    if isinstance(expected, list):
        hidden += [f"should be {len(expected)}", f"应为 {len(expected)}"]
    if expected is None:
        hidden.append("NoneType")
    if isinstance(expected, str):
        at = next(i for i, (a, b) in enumerate(zip(expected + "\0", wrong + "\1")) if a != b)
        hidden.append(expected[at:at + 6])
    return hidden


def run_function(expected, wrong):
    return machinery.check_function("kind", lambda n: wrong, [("a case", (1,), expected)],
                                    "the general hint")


@pytest.fixture(params=["en", "zh"])
def lang(request, monkeypatch):
    monkeypatch.setenv("COMPACT_LANG", request.param)
    return request.param


@pytest.mark.parametrize("kind, expected, wrong, en, zh", KINDS, ids=IDS)
def test_every_wrong_try_gets_a_direction_never_the_expected_value(
        kind, expected, wrong, en, zh, lang, capsys):
    for _ in range(3):   # the first try, the second (which once showed the value), the third
        result = run_function(expected, wrong)
        out = capsys.readouterr().out
        assert not result.ok and (en if lang == "en" else zh) in out, out
        assert not [a for a in answers(expected, wrong) if a in out], out
        assert ("input: n=1" if lang == "en" else "输入：n=1") in out  # the failing case's input


@pytest.mark.parametrize("kind, expected, wrong, en, zh", KINDS, ids=IDS)
def test_hint_gives_the_hints_and_never_the_expected_value(kind, expected, wrong, en, zh, lang,
                                                         capsys):
    run_function(expected, wrong)
    capsys.readouterr()
    ex.hint()
    opened = capsys.readouterr().out
    assert "the general hint" in opened
    assert not [a for a in answers(expected, wrong) if a in opened], opened


@pytest.mark.parametrize("kind, expected, wrong, en, zh", KINDS, ids=IDS)
def test_a_wrong_prediction_gets_a_direction_on_every_try(kind, expected, wrong, en, zh, lang,
                                                          capsys):
    for _ in range(3):
        machinery.check_prediction("guess", {"it": wrong}, {"it": expected}, "h")
        out = capsys.readouterr().out
        assert (en if lang == "en" else zh) in out
        assert not [a for a in answers(expected, wrong) if a in out], out


def test_a_wrong_try_says_how_to_get_a_hint_and_a_pass_is_unchanged(lang, capsys):
    run_function(4817, 5000)
    told = {"en": "The case fails. For a hint, run hint().",
            "zh": "这个用例没有通过。需要提示时，运行 hint()。"}[lang]
    assert capsys.readouterr().out.splitlines()[-1] == told  # nothing said of values held back
    result = run_function(4817, 4817)
    out = capsys.readouterr().out
    assert result.ok and "hint()" not in out
    assert out.splitlines()[-1] == {"en": "The case passes.", "zh": "这个用例通过。"}[lang]


def test_no_try_of_a_real_prediction_shows_its_answer(capsys):
    from compact_course.lessons.exercises import micro
    expected = micro.placeholders_on_five_reads()
    for _ in range(2):
        ex.check_placeholders({"placeholders": 0, "omitted": 0})
        ex.hint()
        out = capsys.readouterr().out
        assert "too low" in out and "expected" not in out and "should be" not in out
        assert expected["placeholders"] > 0 and expected["omitted"] > 0  # "too low" is all it says


HELD = {"en": "Held back until you make the prediction above",
        "zh": "先做上面的预测"}


def test_revealed_opens_only_after_the_prediction_is_made(lang, capsys):
    assert ex.revealed("placeholders") is False
    assert HELD[lang] in capsys.readouterr().out
    ex.check_placeholders({"placeholders": 2, "omitted": None})  # one value left as None
    capsys.readouterr()
    assert ex.revealed("placeholders") is False
    ex.check_placeholders(None)
    assert ex.revealed("placeholders") is False
    capsys.readouterr()
    ex.check_placeholders({"placeholders": 9, "omitted": 9})  # wrong, but made
    assert ex.revealed("placeholders") is True
    assert HELD[lang] not in capsys.readouterr().out
    assert ex.revealed("steps_that_act") is False  # each prediction on its own


def test_revealed_refuses_a_name_no_prediction_has():
    with pytest.raises(ValueError, match="revealed\\('my_runs'\\): no prediction has that name"):
        ex.revealed("my_runs")
    # A function's checker never opens a cell: gating on one would hold it back for ever.
    with pytest.raises(ValueError, match="no prediction has that name"):
        ex.revealed("largest_large_limit")


def test_the_prediction_names_are_the_ones_check_prediction_is_given():
    import ast
    from pathlib import Path

    from compact_course.lessons.exercises import hints
    names = set()
    for path in Path(machinery.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "check_prediction"
                    and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)
    assert names == hints.PREDICTIONS


def test_a_none_inside_a_value_is_a_prediction_not_made_yet(capsys):
    ex.check_steps_that_act({"five_reads": [None], "huge_result": [], "long_session": [],
                             "two_code_files": []})
    assert ex.revealed("steps_that_act") is False
    ex.check_steps_that_act({"five_reads": ["micro_compact"], "huge_result": [],
                             "long_session": [], "two_code_files": []})
    assert ex.revealed("steps_that_act") is True
