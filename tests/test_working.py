"""`prepare` near one `json.dumps` (compact/working.py, issues 20 and 41): each message's
JSON made once, the size kept per change, a message copied only when a step edits it or it
is output (copy on write), and only what changed since the last output checked.

Speed itself is `python -m workbench bench-prepare`'s to print; these tests check that the
short cuts change nothing a caller can see: every rule is still enforced on any message
that is not exactly the compactor's own last output, the caller's list is never changed,
and every size recorded is exact.
"""

import copy
import errno
import os

import pytest
from anthropic.types import TextBlock

from compact import (
    CompactionConfig,
    ContextCompactor,
    MessageFormatError,
    estimate_chars,
    formats,
)
from compact import messages as messages_module
from compact import store as store_module
from compact.messages import blocks

from .helpers import (
    body,
    call,
    make_compactor,
    pairs_history,
    replay,
    short_summary,
    tool_heavy_session,
    user,
)

REQUEST = "Fix the failing test."


def settled(root, profile="default"):
    c = make_compactor(root, profile)
    return c, c.prepare(pairs_history(6), REQUEST)


def test_an_earlier_message_changed_in_place_is_still_refused(root, profile):
    c, out = settled(root, profile)
    out[4]["content"][0]["tool_use_id"] = "toolu_99"   # the same dict, now answering no tool_use
    with pytest.raises(MessageFormatError, match=r"messages\[3\]: tool_use ids \['toolu_01'\]"):
        c.prepare(out, REQUEST)


def test_a_tool_use_renamed_in_place_breaks_its_pair_and_is_refused(root):
    c, out = settled(root)
    out[3]["content"][0]["id"] = "toolu_renamed"   # its result in messages[4] now answers nothing
    with pytest.raises(MessageFormatError, match=r"messages\[3\]: tool_use ids \['toolu_renamed'\]"):
        c.prepare(out, REQUEST)


def test_a_value_json_cannot_hold_put_in_place_is_refused(root):
    c, out = settled(root)
    out[6]["content"][0]["content"] = {1, 2}   # a set, in a block that was fine a call ago
    with pytest.raises(MessageFormatError, match=r"messages\[6\].*set"):
        c.prepare(out, REQUEST)


def test_an_allowed_change_in_place_is_taken_not_the_old_copy(root):
    c, out = settled(root)
    out[0]["content"] = "A new request."
    out[2]["content"][0]["content"] = "a shorter result"
    again = c.prepare(out, "A new request.")
    assert again[0]["content"] == "A new request."
    assert again[2]["content"][0]["content"] == "a shorter result"
    assert c.records[-1].chars_after == estimate_chars(again)


def test_an_sdk_object_in_place_of_a_dict_becomes_a_dict(root):
    c, out = settled(root)
    out[1]["content"].insert(0, TextBlock(type="text", text="Reading it."))
    again = c.prepare(out, REQUEST)
    assert again[1]["content"][0] == {"type": "text", "text": "Reading it."}
    assert type(again[1]["content"][0]) is dict


def test_only_the_new_messages_are_checked_on_a_quiet_call(root, monkeypatch):
    c, out = settled(root)
    checked = []
    real = messages_module.check_message
    monkeypatch.setattr(messages_module, "check_message",
                        lambda i, message: checked.append(i) or real(i, message))
    grown = [*out, *call({"toolu_new": body("toolu_new", 300)})]
    c.prepare(grown, REQUEST)
    assert checked == [len(out), len(out) + 1]
    checked.clear()
    fresh = [user("Something else entirely."), *call({"toolu_x": "ok"})]
    c.prepare(fresh, "Something else entirely.")
    assert checked == [0, 1, 2]   # a list that is not the last output is checked whole


def test_encode_writes_what_json_dumps_writes_and_a_cycle_is_named(root):
    import json

    from compact.messages import encode
    block = {"type": "text", "text": "é\u2028\ud800 \x00", "n": [1.5, float("inf"), None, True]}
    for value in ({"role": "user", "content": [block]}, "é", 3, [block, block]):
        assert encode(value) == json.dumps(value, ensure_ascii=False)
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        encode({"a": {1}})
    looped = {"type": "text", "text": "x"}
    looped["self"] = looped
    with pytest.raises(MessageFormatError, match=r"messages\[1\]\.content\[0\] is nested more than"):
        make_compactor(root).prepare([user(REQUEST), {"role": "assistant", "content": [looped]}], REQUEST)


def test_every_recorded_size_is_the_measure_of_the_list(root, profile):
    c = make_compactor(root, profile)
    sizes = []

    def check(after, active):
        sizes.append(estimate_chars(after))

    replay(c, tool_heavy_session(60, seed=3), check)
    calls = {}
    for record in c.records:
        calls.setdefault(record.call, []).append(record)
    assert len(calls) == len(sizes)
    for after, records in zip(sizes, calls.values()):
        assert records[-1].chars_after == after
        assert all(a.chars_after == b.chars_before for a, b in zip(records, records[1:]))
    assert any(r.fired for r in c.records if r.step in ("snip_compact", "micro_compact"))


def test_a_taken_name_is_never_replaced(root):
    store = store_module.Store(root)
    first = store.persist_result("call/1", "the first text")
    second = store.persist_result("call/1", "another text")
    assert first != second
    assert store.saved_text(first) == "the first text" and store.saved_text(second) == "another text"
    assert [p.name for p in (root / store_module.TOOL_RESULTS).iterdir() if p.suffix == ".tmp"] == []


def test_a_link_that_fails_leaves_no_temporary_file(root, monkeypatch):
    def refused(*args, **kwargs):
        raise OSError(errno.EIO, os.strerror(errno.EIO))
    monkeypatch.setattr(store_module.os, "link", refused)
    store = store_module.Store(root)
    with pytest.raises(store_module.StoreError, match="could not write .*toolu_1.txt"):
        store.persist_result("toolu_1", "x" * 100)
    assert list((root / store_module.TOOL_RESULTS).iterdir()) == []


# -- copy on write: the working list holds the caller's messages until a step edits one ----

def editable_parts(listed) -> set:
    """The ids of what a step may edit: each message, its content list, its blocks."""
    return {id(part) for m in listed for part in (m, *([m["content"], *blocks(m)] if blocks(m) else []))}


def test_a_step_edits_its_own_copy_never_the_callers_message(root):
    """Step 1 saves both results of one message: the second is still the block the step read
    from the caller's message before the first edit copied it. The caller's list is
    unchanged; the edited message shares no content list or block with the caller's, and
    the others are the caller's own (issue 51: a quiet call copies nothing)."""
    c = make_compactor(root, tool_result_batch_char_limit=30_000, large_result_char_limit=20_000)
    history = [user(REQUEST), *call({"toolu_a": body("toolu_a", 40_000), "toolu_b": body("toolu_b", 40_000)})]
    before = copy.deepcopy(history)
    out = c.tool_result_budget(history)
    assert history == before
    assert all(formats.PERSISTED_RE.match(b["content"]) for b in out[2]["content"])
    assert c.records[-1].chars_after == estimate_chars(out)
    assert not editable_parts(out[2:]) & editable_parts(history) and out[2] is not history[2]
    assert out[0] is history[0] and out[1] is history[1] and out is not history
    again = c.prepare(out, REQUEST)   # nothing to do: the same messages, in a list of its own
    assert again == out and again is not out and all(a is b for a, b in zip(again, out))


def test_until_a_step_edits_one_the_working_list_holds_the_callers_messages(root):
    """CONTRIBUTING's rule for a step, edit through replace_content, and why: the working list
    holds the caller's own messages until then, so a block changed any other way is the
    caller's block."""
    history, seen = [user(REQUEST), *call({"toolu_a": "ok"})], []

    def measure(listed):
        seen.append(listed)
        return estimate_chars(listed)

    ContextCompactor(root, short_summary, CompactionConfig(), measure=measure).prepare(history, REQUEST)
    assert seen and all(m is theirs for m, theirs in zip(seen[0], history, strict=True))
    seen[0][2]["content"][0]["content"] = "changed"   # not through replace_content
    assert history[2]["content"][0]["content"] == "changed"


def test_blocks_given_as_a_tuple_are_taken_as_a_list_as_before(root):
    """The caller's dict is checked as it is; blocks given as a tuple fail that check, so the
    list is checked again as copied (tuples made lists), and passes or fails as it did."""
    text = {"type": "text", "text": REQUEST}
    listed = [{"role": "user", "content": (text,)}, *call({"toolu_01": (text,)})]
    out = make_compactor(root).prepare(listed, REQUEST)
    assert out[0]["content"] == [text] and out[2]["content"][0]["content"] == [text]
    listed[2]["content"][0]["content"] = ({"type": "text", "text": 5},)
    with pytest.raises(MessageFormatError, match=r"messages\[2\]\.content\[0\]\.content\[0\] \(tool_use_id"):
        make_compactor(root).prepare(listed, REQUEST)
