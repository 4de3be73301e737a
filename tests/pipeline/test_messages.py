"""context_compact.messages: plain dicts, the article's measure, text of content, and the pairing rules.

A list the API would refuse gets a MessageFormatError that names the message
index, the block and the id, and the compactor raises it before writing anything.
"""

import json

import pytest
from anthropic.types import TextBlock, ToolUseBlock

from context_compact import MessageFormatError, estimate_chars, to_plain, validate_messages
from context_compact.messages import request_positions, text_of, user_text, with_text
from context_compact.steps import NAMES
from tests.helpers import (
    IMAGE,
    assistant,
    call,
    files_under,
    make_compactor,
    tool_result,
    tool_use,
    user,
)


def sdk_reply():
    return {"role": "assistant", "content": [
        TextBlock(type="text", text="Let me look."),
        ToolUseBlock(id="toolu_9", name="bash", input={"command": "ls"}, type="tool_use")]}


# -- to_plain and the measure ------------------------------------------------------------

def test_to_plain_turns_sdk_blocks_into_api_dicts():
    plain = to_plain([sdk_reply()])
    assert plain == [{"role": "assistant", "content": [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "toolu_9", "name": "bash", "input": {"command": "ls"}}]}]
    assert json.loads(json.dumps(plain)) == plain


def test_to_plain_is_a_deep_copy():
    messages = [user("a"), *call({"t": [{"type": "text", "text": "x"}]})]
    copy = to_plain(messages)
    copy[2]["content"][0]["content"][0]["text"] = "changed"
    assert messages[2]["content"][0]["content"][0]["text"] == "x"


def test_to_plain_turns_tuples_into_lists():
    assert to_plain(({"role": "user", "content": ("a",)},)) == [{"role": "user", "content": ["a"]}]


def test_estimate_chars_measures_the_plain_json():
    messages = [user("读取"), sdk_reply()]
    assert estimate_chars(messages) == len(json.dumps(to_plain(messages), ensure_ascii=False))
    assert "TextBlock" not in json.dumps(to_plain(messages))


# -- text of content ---------------------------------------------------------------------

def test_text_of_a_string_and_of_blocks():
    assert text_of("plain") == "plain"
    assert text_of([{"type": "text", "text": "a"}, IMAGE, {"type": "text", "text": "b"}]) == "a\nb"
    assert text_of(None) == "" and text_of(42) == ""


def test_with_text_keeps_images_and_drops_old_text():
    assert with_text([{"type": "text", "text": "old"}, IMAGE], "new") == [
        {"type": "text", "text": "new"}, IMAGE]
    assert with_text([{"type": "text", "text": "old"}], "new") == "new"
    assert with_text("old", "new") == "new"


def test_request_positions_reads_only_what_a_person_typed():
    messages = [user("fix the parser"), assistant(note="fix the parser"),
                *call({"t": "fix the parser"}),
                {"role": "user", "content": [{"type": "text", "text": "then fix the parser too"}]}]
    assert request_positions(messages, "fix the parser") == [0, 4]
    assert request_positions(messages, "") == []
    assert user_text(messages[1]) == ""


# -- the pairing validator ------------------------------------------------------------------

def test_valid_lists_pass():
    validate_messages([])
    validate_messages([user("go"), *call({"a": "1", "b": [{"type": "text", "text": "2"}, IMAGE]}),
                       assistant(note="done")])
    # A final assistant turn may still wait for its results.
    validate_messages([user("go"), assistant(tool_use("waiting"))])
    validate_messages(to_plain([user("go"), sdk_reply(),
                                {"role": "user", "content": [tool_result("toolu_9", "a.py")]}]))


@pytest.mark.parametrize("messages, expected", [
    ("not a list", ["messages must be a list", "str"]),
    ([user("go"), "hello"], ["messages[1] must be a dict", "str"]),
    ([user("go"), {"content": "no role"}], ["messages[1] has no role"]),
    ([{"role": "system", "content": "x"}], ["messages[0]", "'system'"]),
    ([user("go"), {"role": "assistant", "content": 42}], ["messages[1].content", "int"]),
    ([{"role": "user", "content": None}], ["messages[0].content", "NoneType"]),
    ([{"role": "user", "content": ["bare string"]}], ["messages[0].content[0]", "'type'"]),
    ([{"role": "user", "content": [tool_use("u1")]}], ["messages[0].content[0]", "tool_use", "user"]),
    ([user("go"), {"role": "assistant", "content": [tool_result("r1", "x")]}],
     ["messages[1].content[0]", "tool_result", "assistant"]),
    ([user("go"), {"role": "assistant", "content": [{"type": "tool_use", "name": "bash"}]}],
     ["messages[1].content[0]", "without an id"]),
    ([{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}],
     ["messages[0].content[0]", "without a tool_use_id"]),
    ([user("go"), assistant(tool_use("t1")),
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": 7}]}],
     ["messages[2].content[0]", "'t1'", "int"]),
    ([{"role": "assistant", "content": [{"type": "text", "text": None}]}],
     ["messages[0].content[0]", "text"]),
])
def test_bad_shapes_name_the_message_and_block(messages, expected):
    with pytest.raises(MessageFormatError) as error:
        validate_messages(messages)
    for part in expected:
        assert part in str(error.value)


def test_orphan_tool_result_names_index_block_and_id():
    messages = [user("go"), *call({"t1": "ok"}), assistant(note="hm"),
                {"role": "user", "content": [{"type": "text", "text": "and"}, tool_result("t1", "again")]}]
    with pytest.raises(MessageFormatError) as error:
        validate_messages(messages)
    text = str(error.value)
    assert "messages[4].content[1]" in text and "'t1'" in text and "messages[3]" in text


def test_orphan_tool_result_in_the_first_message():
    with pytest.raises(MessageFormatError) as error:
        validate_messages([{"role": "user", "content": [tool_result("t0", "x")]}])
    assert "messages[0].content[0]" in str(error.value) and "'t0'" in str(error.value)
    assert "messages[-1]" not in str(error.value)


def test_tool_use_without_its_result_names_the_ids():
    messages = [user("go"), assistant(tool_use("t1"), tool_use("t2")),
                {"role": "user", "content": [tool_result("t1", "ok")]}]
    with pytest.raises(MessageFormatError) as error:
        validate_messages(messages)
    assert "messages[1]" in str(error.value) and "'t2'" in str(error.value)


def test_tool_use_followed_by_a_plain_user_message():
    with pytest.raises(MessageFormatError) as error:
        validate_messages([user("go"), assistant(tool_use("t1")), user("never mind")])
    assert "messages[1]" in str(error.value) and "'t1'" in str(error.value)


def test_message_format_error_is_a_value_error():
    assert issubclass(MessageFormatError, ValueError)


@pytest.mark.parametrize("step", ["prepare", *NAMES])
def test_compactor_refuses_bad_input_before_writing(root, step):
    c = make_compactor(root, context_char_limit=10)
    messages = [user("go"), assistant(tool_use("t1")), user("x" * 100)]
    method = getattr(c, step)
    with pytest.raises(MessageFormatError, match="'t1'"):
        method(messages, "go") if step in ("prepare", "compact_history", "reactive_compact") \
            else method(messages)
    assert files_under(root) == [] and c.records == []


def test_compactor_does_not_change_the_callers_list(root):
    c = make_compactor(root, "seed")
    messages = [user("go"), sdk_reply(), {"role": "user", "content": [tool_result("toolu_9", "x" * 500)]},
                *call({"a": "1"}), *call({"b": "2"}), *call({"c": "3"})]
    snapshot = json.dumps(to_plain(messages))
    out = c.prepare(messages, "go")
    assert json.dumps(to_plain(messages)) == snapshot
    assert out[2]["content"][0]["content"] == "[Earlier tool result omitted.]"
    assert isinstance(out[1]["content"][0], dict)


# -- hostile shapes (issue 12): a clear error, never a TypeError or a RecursionError ----------

def nested(depth: int, leaf="x"):
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def deep_cases():
    deep_result = [user("go"), assistant(tool_use("t1")),
                   {"role": "user", "content": [tool_result("t1", [{"type": "text", "text": "ok",
                                                                    "extra": nested(500)}])]}]
    deep_input = [user("go"), assistant(tool_use("t2"), tool_use("t1", payload=nested(500))),
                  {"role": "user", "content": [tool_result("t2", "a"), tool_result("t1", "b")]}]
    deep_list = [user("go"), assistant(tool_use("t1")),
                 {"role": "user", "content": [tool_result("t1", "fine"), nested(500)]}]
    return [(deep_result, "messages[2].content[0]", "'t1'"),
            (deep_input, "messages[1].content[1]", "'t1'"),
            (deep_list, "messages[2].content[1]", "nested")]


@pytest.mark.parametrize("messages, where, named", deep_cases())
def test_500_levels_of_nesting_are_a_format_error(messages, where, named):
    for check in (validate_messages, to_plain, estimate_chars):
        with pytest.raises(MessageFormatError) as error:
            check(messages)
        assert where in str(error.value) and named in str(error.value), str(error.value)
        assert "levels" in str(error.value)


@pytest.mark.parametrize("messages, where, named", deep_cases())
def test_prepare_refuses_deep_nesting_before_writing(root, messages, where, named):
    c = make_compactor(root, context_char_limit=10)
    with pytest.raises(MessageFormatError, match=named):
        c.prepare(messages, "go")
    assert files_under(root) == [] and c.records == []


def test_nesting_a_real_history_uses_is_accepted():
    validate_messages([user("go"), assistant(tool_use("t1", payload=nested(40))),
                       {"role": "user", "content": [tool_result("t1", "ok")]}])


def answered(content):
    return [user("go"), assistant(tool_use("t1")), {"role": "user", "content": [tool_result("t1", content)]}]


@pytest.mark.parametrize("messages, expected", [
    (answered([{"type": "text", "text": 5}]), ["messages[2].content[0].content[0]", "'t1'", "text"]),
    (answered([{"type": "text"}]), ["messages[2].content[0].content[0]", "'t1'", "text"]),
    (answered(["bare"]), ["messages[2].content[0].content[0]", "'t1'", "'type'"]),
    (answered([{"type": 3}]), ["messages[2].content[0].content[0]", "'t1'", "'type'"]),
    (answered([{"type": "text", "text": "ok"}, {"type": "text", "text": ["a"]}]),
     ["messages[2].content[0].content[1]", "'t1'"]),
    (answered({1, 2}), ["messages[2].content[0]", "'t1'", "set"]),
    (answered([{"type": "text", "text": "ok", "extra": b"bytes"}]),
     ["messages[2].content[0]", "'t1'", "bytes"]),
    ([user("go"), assistant(tool_use("t1", payload=object())),
      {"role": "user", "content": [tool_result("t1", "ok")]}], ["messages[1].content[0]", "'t1'", "object"]),
    ([user("go"), assistant(tool_use("t1", payload={(1, 2): "tuple key"})),
      {"role": "user", "content": [tool_result("t1", "ok")]}], ["messages[1].content[0]", "'t1'", "key"]),
    ([{"role": "user", "content": "ok", "extra": {1.5: "x"}}], ["messages[0]", "key"]),
])
def test_malformed_inner_shapes_name_message_block_and_id(messages, expected):
    with pytest.raises(MessageFormatError) as error:
        validate_messages(messages)
    for part in expected:
        assert part in str(error.value), str(error.value)


@pytest.mark.parametrize("content", [[{"type": "text", "text": 5}],
                                     [{"type": "text", "text": "a", "x": {2}}]])
def test_prepare_raises_a_format_error_not_a_type_error(root, content):
    c = make_compactor(root)
    messages = answered(content) + [assistant(note="ok"), user("again " * 20000)]
    with pytest.raises(MessageFormatError, match="'t1'"):
        c.prepare(messages, "again")
    assert files_under(root) == []
