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

from compact.messages import tool_results, tool_uses
from tests.test_importers import result, use, write_jsonl
from workbench.importers import load_session


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
    lines[11] = rec("assistant", "u5", "cs1", [{"type": "text", "text": "Going on: running the tests."}], "m7")
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
    from workbench.display.import_report import report_lines
    lines, _ = compacted_21()
    report = load_session(write_jsonl(tmp_path / "s.jsonl", lines))["import_report"]
    assert any(line.startswith(words) for line in report_lines(report, lang))


def test_replay_shows_the_recorded_compaction(tmp_path, capsys):
    from workbench.course.replay import main
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
