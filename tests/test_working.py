"""`prepare` near one pass (compact/working.py, issue 20): each message's JSON made once, the
size kept per change, one copy, and only what changed since the last output checked.

Speed itself is `python -m compact bench-prepare`'s to print; these tests check that the
short cuts change nothing a caller can see: every rule is still enforced on any message
that is not exactly the compactor's own last output, and every size recorded is exact.
"""

import errno
import os

import pytest
from anthropic.types import TextBlock

from compact import MessageFormatError, estimate_chars
from compact import messages as messages_module
from compact import store as store_module

from .helpers import body, call, make_compactor, pairs_history, replay, tool_heavy_session, user

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
    real = messages_module._check_shape
    monkeypatch.setattr(messages_module, "_check_shape",
                        lambda i, message: checked.append(i) or real(i, message))
    grown = [*out, *call({"toolu_new": body("toolu_new", 300)})]
    c.prepare(grown, REQUEST)
    assert checked == [len(out), len(out) + 1]
    checked.clear()
    real_all = messages_module._check_all
    monkeypatch.setattr(messages_module, "_check_all",
                        lambda listed: checked.append("all") or real_all(listed))
    c.prepare([user("Something else entirely.")], "Something else entirely.")
    assert checked == ["all"]   # a list that is not the last output is checked whole, in one pass


def test_the_encoder_made_once_writes_what_json_dumps_writes_even_after_a_cycle():
    """The C encoder is made once, so its cycle marks outlive a call: a failed call must
    leave none behind, or the same dict, fixed, would be refused as a cycle."""
    import json

    from compact.working import encode
    block = {"type": "text", "text": "é\u2028\ud800 \x00", "n": [1.5, float("inf"), None, True]}
    block["self"] = block
    with pytest.raises(ValueError, match="Circular"):
        encode({"role": "user", "content": [block]})
    del block["self"]
    for value in ({"role": "user", "content": [block]}, "é", 3, [block, block]):
        assert encode(value) == json.dumps(value, ensure_ascii=False)
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        encode({"a": {1}})


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


def test_a_call_opens_and_renames_once_per_file(root, monkeypatch):
    """One open (the temporary file) and one rename per file saved, the folders walked once."""
    opened, renamed = [], []
    real_open, real_rename = os.open, store_module._rename_noreplace

    def counting_open(path, flags, *args, **kwargs):
        opened.append("folder" if flags & os.O_DIRECTORY else "file")
        return real_open(path, flags, *args, **kwargs)

    def counting_rename(*args):
        renamed.append(args[2])
        return real_rename(*args)

    c = make_compactor(root)
    (root / store_module.TOOL_RESULTS).mkdir(parents=True)  # made earlier: here it is only opened
    history = pairs_history(40, size=3000)  # 120,000 characters: step 3 saves most results
    monkeypatch.setattr(store_module.os, "open", counting_open)
    monkeypatch.setattr(store_module, "_rename_noreplace", counting_rename)
    c.micro_compact(history)
    saved = len(c.store.written)
    assert saved > 20
    assert opened.count("file") == saved and len(renamed) == saved
    assert opened.count("folder") == 3   # the root, .task_outputs, tool-results: once each


def test_without_the_rename_a_hard_link_still_never_replaces(root, monkeypatch):
    monkeypatch.setattr(store_module, "_rename_noreplace", lambda *args: None)
    store = store_module.Store(root)
    first = store.persist_result("call/1", "the first text")
    second = store.persist_result("call/1", "another text")
    assert first != second
    assert store.saved_text(first) == "the first text" and store.saved_text(second) == "another text"
    assert [p.name for p in (root / store_module.TOOL_RESULTS).iterdir() if p.suffix == ".tmp"] == []


def test_a_rename_that_fails_leaves_no_temporary_file(root, monkeypatch):
    def refused(*args):
        raise OSError(errno.EIO, os.strerror(errno.EIO))
    monkeypatch.setattr(store_module, "_rename_noreplace", refused)
    store = store_module.Store(root)
    with pytest.raises(store_module.StoreError, match="could not write .*toolu_1.txt"):
        store.persist_result("toolu_1", "x" * 100)
    assert list((root / store_module.TOOL_RESULTS).iterdir()) == []
