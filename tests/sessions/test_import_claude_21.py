"""Claude Code sessions as 2.1.x writes them (issue 41): a parallel batch that fans
out, a reply split over several lines, a subagent's own file, and the records of
Claude Code's own compaction kept as such.

Each file is built here in the shape 2.1.x writes: every content block of a reply
its own record under one `message.id`, chained one to the next; each tool_result
record's `parentUuid` (and `sourceToolAssistantUUID`) the record of its own
tool_use; the next reply's parent the last result. On 3fdc176 the walk from the
newest leaf kept one branch of the batch, and the pair check refused the file.
"""

import json

import pytest

from compact_course.sessions import SessionFileError, load_session
from compact_course.sessions.odd import NO_CALL, NO_RESULT
from context_compact.messages import tool_results, tool_uses
from tests.sessions.test_importers import assert_accepted, result, use, write_jsonl


def rec(kind, uuid, parent, content, message_id=None, **extra):
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message = {"id": message_id or f"msg_{uuid}", "type": "message", "model": "claude-sonnet-4-5",
                   **message, "usage": {"input_tokens": 10, "output_tokens": 5}}
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "sessionId": "s1",
            "version": "2.1.9", "type": kind, "message": message, "uuid": uuid,
            "timestamp": f"2026-01-05T10:00:{len(uuid):02d}.000Z", **extra}


def tool_result_rec(uuid, source, tool_id, text="ok"):
    return rec("user", uuid, source, [result(tool_id, text)], sourceToolAssistantUUID=source,
               toolUseResult={"stdout": text})


def fan_out_session():
    """A task; a reply of a text and three parallel reads (four records, one message.id);
    three results each on its own tool_use record; a final answer; a second task."""
    return [
        rec("user", "u1", None, "Fix the parser in a.py"),
        rec("assistant", "a1", "u1", [{"type": "text", "text": "Reading all three."}], "m1"),
        rec("assistant", "a2", "a1", [use("t1")], "m1"),
        rec("assistant", "a3", "a2", [use("t2", file_path="b.py")], "m1"),
        rec("assistant", "a4", "a3", [use("t3", file_path="c.py")], "m1"),
        tool_result_rec("r1", "a2", "t1", "def parse(): ..."),
        tool_result_rec("r2", "a3", "t2", "import a"),
        tool_result_rec("r3", "a4", "t3", "import b"),
        rec("assistant", "b1", "r3", [{"type": "text", "text": "Fixed the parser."}], "m2"),
        rec("user", "u2", "b1", "Now add a test"),
        rec("assistant", "b2", "u2", [{"type": "text", "text": "Added."}], "m3"),
    ]


def test_every_result_of_a_parallel_batch_is_read(tmp_path):
    history = load_session(write_jsonl(tmp_path / "s.jsonl", fan_out_session()))
    messages = history["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert [b["id"] for b in tool_uses(messages[1])] == ["t1", "t2", "t3"]
    assert [b["tool_use_id"] for b in tool_results(messages[2])] == ["t1", "t2", "t3"]
    assert history["import_report"]["left_out"] == {}
    assert not history["import_report"]["warnings"]


def test_a_rewound_branch_beside_a_fanned_out_batch_stays_out(tmp_path):
    lines = fan_out_session()
    # The user rewound to before "Now add a test" and asked something else.
    lines += [rec("user", "u3", "b1", "Rather explain the fix"),
              rec("assistant", "b3", "u3", [{"type": "text", "text": "It was an off-by-one."}], "m4")]
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    text = json.dumps(history["messages"])
    assert "Now add a test" not in text and "Added." not in text and "off-by-one" in text
    assert history["import_report"]["left_out_lines"] == {"off the parent chain": [10, 11]}
    assert len(tool_results(history["messages"][2])) == 3


def test_a_batch_whose_results_came_back_out_of_order_keeps_its_pairs(tmp_path):
    lines = fan_out_session()
    lines[5], lines[7] = lines[7], lines[5]           # t3 finished first
    lines[8] = {**lines[8], "parentUuid": "r1"}       # the reply follows the last result written
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    assert sorted(b["tool_use_id"] for b in tool_results(history["messages"][2])) == ["t1", "t2", "t3"]


def test_a_subagents_own_file_with_a_parallel_batch_is_read(tmp_path):
    lines = [{**r, "isSidechain": True, "agentId": "a5f2"} for r in fan_out_session()]
    history = load_session(write_jsonl(tmp_path / "agent-a5f2.jsonl", lines))
    assert len(tool_results(history["messages"][2])) == 3
    assert [w["kind"] for w in history["import_report"]["warnings"]] == ["subagent file"]


def test_a_split_reply_is_joined_once(tmp_path):
    lines = fan_out_session()
    # A writer that repeats the reply so far on each line: every block is still read once.
    lines[3] = rec("assistant", "a3", "a2", [use("t1"), use("t2", file_path="b.py")], "m1")
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    assert [b["id"] for b in tool_uses(history["messages"][1])] == ["t1", "t2", "t3"]
    assert history["import_report"]["joined_lines"] == [3, 4, 5]
    assert "joined: 3 records continuing the reply before (lines 3-5)" in history["import_notes"]


def compacted_21():
    """A session Claude Code compacted, then went on; a batch after the compaction."""
    before = fan_out_session()[:9]
    boundary = {"parentUuid": None, "logicalParentUuid": "b1", "isSidechain": False, "type": "system",
                "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": False,
                "level": "info", "uuid": "cb1", "timestamp": "2026-01-05T10:05:00.000Z",
                "compactMetadata": {"trigger": "auto", "preTokens": 156032}}
    summary = ("This session is being continued from a previous conversation that ran out of "
               "context. The conversation is summarized below:\n1. The parser in a.py was fixed.")
    after = [rec("user", "cs1", "cb1", summary, isCompactSummary=True, isVisibleInTranscriptOnly=True),
             rec("user", "u5", "cs1", "Now run the tests"),
             rec("assistant", "d1", "u5", [use("t8", "Bash", command="pytest")], "m8"),
             tool_result_rec("d2", "d1", "t8", "3 passed"),
             rec("assistant", "d3", "d2", [{"type": "text", "text": "All pass."}], "m9")]
    return before + [boundary, *after], summary


def test_claude_codes_own_compaction_is_kept_as_such(tmp_path):
    lines, summary = compacted_21()
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    messages = history["messages"]
    [compaction] = history["compactions"]
    assert compaction == {"format": "claude-code", "line": 10, "summary_line": 11, "summary": summary,
                          "trigger": "auto", "pre_tokens": 156032, "at": 4, "before_in_file": True}
    # What came before it is read whole; the summary is kept apart, not as a message.
    assert [m["role"] for m in messages[:4]] == ["user", "assistant", "user", "assistant"]
    assert messages[4]["content"] == "Now run the tests"
    assert summary not in json.dumps(messages)
    assert history["import_report"]["left_out"] == {}
    assert ("compaction recorded (line 10, summary on line 11): a summary of 156 characters, kept "
            "apart in the history's compactions; the messages before it are read") in history["import_notes"]


def test_a_compaction_right_after_a_reply_counts_that_reply_as_before_it(tmp_path):
    # Compacted after "Fixed the parser." and the model went on with a reply of its own:
    # without the summary the two replies join into one message, and that message holds
    # the reply from before the compaction, so messages[:at] must include it.
    lines, summary = compacted_21()
    going_on = [{"type": "text", "text": "Going on: running the tests."}]
    lines[11] = rec("assistant", "u5", "cs1", going_on, "m7")
    lines[12] = {**lines[12], "message": {**lines[12]["message"], "id": "m7b"}}
    lines[13:] = [tool_result_rec("d2", "d1", "t8", "3 passed"), rec("user", "u6", "d2", "Thanks")]
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    [compaction] = history["compactions"]
    before = json.dumps(history["messages"][:compaction["at"]])
    assert "Fixed the parser." in before
    assert compaction["at"] == 4


def test_a_compaction_whose_start_is_not_in_the_file_keeps_its_summary_as_a_message(tmp_path):
    lines, summary = compacted_21()
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines[9:]))
    [compaction] = history["compactions"]
    assert compaction["before_in_file"] is False and compaction["at"] == 0 and compaction["line"] == 1
    assert history["messages"][0]["content"][0]["text"] == summary


@pytest.mark.parametrize("lang, words", [("en", "compaction recorded (line 10)"),
                                         ("zh", "记录了一次压缩（第 10 行）")])
def test_the_report_says_where_the_compaction_is_in_both_languages(tmp_path, lang, words):
    from compact_course.sessions.import_report import report_lines
    lines, _ = compacted_21()
    report = load_session(write_jsonl(tmp_path / "s.jsonl", lines))["import_report"]
    assert any(line.startswith(words) for line in report_lines(report, lang))


def test_replay_shows_the_recorded_compaction(tmp_path, capsys):
    from compact_course.lessons.replay import main
    lines, _ = compacted_21()
    assert main([str(write_jsonl(tmp_path / "s.jsonl", lines))]) == 0
    out = capsys.readouterr().out
    assert ("recorded compaction (claude-code, line 10, auto, 156,032 tokens before): "
            "after message 4 of 8: This session is being continued") in out


def test_a_second_result_for_a_call_already_answered_is_not_put_back(tmp_path):
    lines = fan_out_session()
    # A result written twice for t3 (a retry): the chain holds one, the other stays out.
    lines.insert(8, tool_result_rec("r3b", "a4", "t3", "import b (again)"))
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    assert [b["tool_use_id"] for b in tool_results(history["messages"][2])] == ["t1", "t2", "t3"]
    assert history["import_report"]["left_out_lines"] == {"off the parent chain": [9]}


# -- issue 51: files as practitioners have them (a live session, lost records, older shapes,
#    the compactions of today's Claude Code) ---------------------------------------------------

def test_a_session_that_ends_mid_batch_keeps_every_call(tmp_path):
    # A live session's file: two of the three parallel reads have their result yet. On
    # a854c46 the pair check refused the whole file.
    lines = fan_out_session()[:7]
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    assert_accepted(history["messages"])
    assert [b["id"] for b in tool_uses(history["messages"][1])] == ["t1", "t2", "t3"]
    assert [(b["tool_use_id"], b["content"]) for b in tool_results(history["messages"][2])] == [
        ("t3", NO_RESULT), ("t1", "def parse(): ..."), ("t2", "import a")]
    assert history["import_report"]["odd_lines"] == {"call never answered": [2]}
    assert history["active_request"] == "Fix the parser in a.py"


def test_a_result_whose_call_record_was_lost_is_kept_as_marked_text(tmp_path):
    # The record of t2's call is not in the file: the next call's parent and t2's result's
    # parent are missing. Both are read where they were written; the result, whose call is
    # gone, as marked text. On a854c46 the file was refused.
    lines = fan_out_session()
    del lines[3]
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    assert_accepted(history["messages"])
    marked = [b["text"] for m in history["messages"] if m["role"] == "user" and isinstance(m["content"], list)
              for b in m["content"] if b["type"] == "text"]
    assert marked == [NO_CALL.format(id="t2") + "\nimport a"]
    assert history["import_report"]["odd_lines"] == {"parent not in the file": [4, 6],
                                                     "result without its call": [6]}
    assert history["messages"][0]["content"] == "Fix the parser in a.py"


def test_content_of_an_older_shape_is_read_as_text(tmp_path):
    # Older writers: a content list of plain texts, a text part with no type, no content.
    lines = [rec("user", "u1", None, ["Fix the parser", {"text": "in a.py"}]),
             rec("assistant", "a1", "u1", [{"type": "text", "text": "On it."}], "m1"),
             {**rec("user", "u2", "a1", "x"), "message": {"role": "user", "content": None}},
             rec("user", "u3", "u2", "Now add a test")]
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    assert history["messages"][0]["content"] == [{"type": "text", "text": "Fix the parser"},
                                                 {"type": "text", "text": "in a.py"}]
    assert history["active_request"] == "Now add a test"
    assert history["import_report"]["odd_lines"] == {"empty message": [3]}


def preserved_session():
    """Claude Code compacted and kept its last exchange word for word (a suffix-preserving
    compaction): the kept records stay where they were written, with their first parents;
    the boundary names them (`preservedSegment`); what follows goes on from the summary."""
    lines = fan_out_session()[:9] + [rec("user", "u2", "b1", "Keep the tests green")]
    boundary = {"parentUuid": None, "logicalParentUuid": "u2", "isSidechain": False, "type": "system",
                "subtype": "compact_boundary", "content": "Conversation compacted", "uuid": "cb1",
                "compactMetadata": {"trigger": "auto", "preTokens": 150000,
                                    "preservedSegment": {"headUuid": "b1", "anchorUuid": "cs1",
                                                         "tailUuid": "u2"}}}
    after = [rec("user", "cs1", "cb1", "Summary: the parser in a.py was fixed.", isCompactSummary=True),
             rec("user", "u5", "cs1", "Now run the tests"),
             rec("assistant", "d1", "u5", [{"type": "text", "text": "All pass."}], "m9")]
    return lines + [boundary, *after]


def test_a_compaction_names_the_messages_it_kept_word_for_word(tmp_path):
    history = load_session(write_jsonl(tmp_path / "s.jsonl", preserved_session()))
    assert_accepted(history["messages"])
    [compaction] = history["compactions"]
    kept = [history["messages"][i] for i in compaction["kept"]]
    # "Fixed the parser." and "Keep the tests green", from before the compaction, kept verbatim.
    assert [m["role"] for m in kept] == ["assistant", "user"]
    assert "Fixed the parser." in json.dumps(kept) and "Keep the tests green" in json.dumps(kept)
    assert compaction["at"] == 5 and compaction["before_in_file"] is True
    assert history["active_request"] == "Now run the tests"


def test_a_kept_message_written_after_the_summary_is_read_once_where_it_is(tmp_path):
    # A writer that put the relinked tail after the summary, as Claude Code reads it back, with
    # the boundary's logical parent that tail (a loop on a854c46: "loops back to a later record").
    lines = preserved_session()
    tail = lines.pop(9)
    lines[9] = {**lines[9], "logicalParentUuid": "u2",
                "compactMetadata": {**lines[9]["compactMetadata"],
                                    "preservedMessages": {"anchorUuid": "cs1", "uuids": ["b1", "u2"]}}}
    lines.insert(11, {**tail, "parentUuid": "cs1"})            # right after the summary
    lines[12] = {**lines[12], "parentUuid": "u2"}              # "Now run the tests" follows it
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    assert_accepted(history["messages"])
    text = json.dumps(history["messages"])
    assert text.count("Keep the tests green") == 1 and "Fixed the parser." in text
    [compaction] = history["compactions"]
    assert len(compaction["kept"]) == 2 and history["import_report"]["odd"] == {}


def test_a_jsonl_file_that_is_one_json_document_is_read(tmp_path):
    # Issue 51: a .jsonl file holding one pretty-printed JSON document was refused on a854c46.
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(fan_out_session(), indent=2), encoding="utf-8")
    history = load_session(path)
    assert [b["id"] for b in tool_uses(history["messages"][1])] == ["t1", "t2", "t3"]
    assert history["import_report"]["odd"] == {"one JSON document": 1}
    path.write_text(json.dumps({"title": "t", "note": "not a session"}, indent=2), encoding="utf-8")
    with pytest.raises(SessionFileError, match=r"s\.jsonl: this looks like one JSON document \(not one "
                                               r"record a line\): a JSON object with keys title, note"):
        load_session(path)
