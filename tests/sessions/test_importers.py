"""The importers (compact_course/sessions/): other agents' session files as histories.

Each format is tested on files made here with the awkward cases of real ones:
an assistant reply split over several records, a subagent's sidechain, meta
lines, a tool result holding an image, a pair broken across a compaction the
other agent did, malformed lines. A record that cannot be read is counted, with
its line and what is wrong, and the rest is read (issue 51); a file is refused
only when nothing can be read, and the error names the file and, where there is
one, the line.
"""

import json

import pytest

from compact_course.offline.api import rules
from compact_course.sessions import SESSION_FORMATS, SessionFileError, detect, load_session
from compact_course.sessions.histories import HistoryError, load_history
from compact_course.sessions.odd import NO_CALL, NO_RESULT
from context_compact.messages import tool_results, tool_uses, validate_messages
from tests.helpers import IMAGE


def assert_accepted(messages):
    """The messages pass the pipeline's validator and the API's rules (shapes and pairs)."""
    validate_messages(messages)
    for i, message in enumerate(messages):
        rules.check_message(i, message, rules.API, last=i == len(messages) - 1)
    rules.check_pairs(messages)


def odd_lines(history) -> dict:
    return history["import_report"]["odd_lines"]

# -- Claude Code records ---------------------------------------------------------------

def record(kind, uuid, parent, content, **extra):
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message = {"id": extra.pop("message_id", f"msg_{uuid}"), "model": "claude", **message}
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": False,
            "sessionId": "s1", "message": message, **extra}


def use(tool_id, name="Read", **tool_input):
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input or {"file_path": "a.py"}}


def result(tool_id, content="file text"):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content}


def claude_session():
    """A task; a reply split over three records with two parallel reads; a sidechain;
    a meta line; a summary and a file-history line."""
    return [
        {"type": "summary", "summary": "Fix the parser", "leafUuid": "u9"},
        {"type": "file-history-snapshot", "messageId": "m0", "snapshot": {"trackedFileBackups": {}}},
        record("user", "u0", None, "Caveat: local commands below.", isMeta=True),
        record("user", "u1", "u0", "Fix the parser in a.py"),
        record("assistant", "u2", "u1", [{"type": "text", "text": "Reading both."}], message_id="m1"),
        record("assistant", "u3", "u2", [use("t1")], message_id="m1"),
        record("user", "u4", "u3", [result("t1", "def parse(): ...")],
               toolUseResult={"file": {"content": "def parse(): ..."}}),
        record("assistant", "u5", "u4", [use("t2", file_path="b.py")], message_id="m1"),
        record("user", "u6", "u5", [result("t2", [{"type": "text", "text": "screenshot"}, IMAGE])]),
        {**record("user", "s1", None, "Subagent: look for tests"), "isSidechain": True},
        {**record("assistant", "s2", "s1", [{"type": "text", "text": "found none"}]), "isSidechain": True},
        record("assistant", "u7", "u6", [{"type": "text", "text": "Fixed."}], message_id="m2"),
        record("user", "u8", "u7", "Now add a test"),
        record("assistant", "u9", "u8", [{"type": "text", "text": "Added."}], message_id="m3"),
    ]


def write_jsonl(path, values):
    path.write_text("".join(json.dumps(v) + "\n" for v in values), encoding="utf-8")
    return path


def test_claude_code_keeps_the_main_thread_and_joins_a_split_reply(tmp_path):
    history = load_session(write_jsonl(tmp_path / "s.jsonl", claude_session()))
    assert history["format"] == "claude-code" and history["title"] == "Fix the parser"
    roles = [m["role"] for m in history["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant"]
    reply = history["messages"][1]
    # Three records of message m1: its text and both tool calls, in one message.
    assert [b["type"] for b in reply["content"]] == ["text", "tool_use", "tool_use"]
    assert [b["tool_use_id"] for b in tool_results(history["messages"][2])] == ["t1", "t2"]
    text = json.dumps(history["messages"])
    assert "Subagent" not in text and "found none" not in text and "Caveat" not in text
    assert "toolUseResult" not in text
    assert history["active_request"] == "Now add a test"
    assert history["lines"][:3] == [4, 5, 7]    # the line of each message's first record


def test_claude_code_keeps_an_image_in_a_tool_result(tmp_path):
    history = load_session(write_jsonl(tmp_path / "s.jsonl", claude_session()))
    images = [b for m in history["messages"] for r in tool_results(m) if isinstance(r["content"], list)
              for b in r["content"] if b["type"] == "image"]
    assert images == [IMAGE]


def test_claude_code_leaves_a_rewound_branch_out(tmp_path):
    lines = claude_session()
    # A rewind: a second answer to u8, written later; the first one is abandoned.
    lines[-1:] = [record("assistant", "u9", "u8", [{"type": "text", "text": "Abandoned."}]),
                  record("assistant", "u10", "u8", [{"type": "text", "text": "Kept."}])]
    text = json.dumps(load_session(write_jsonl(tmp_path / "s.jsonl", lines))["messages"])
    assert "Kept." in text and "Abandoned." not in text


def compacted_session(with_history=True):
    """Claude Code compacted between a tool call and its result."""
    before = [record("user", "u1", None, "Port the build"),
              record("assistant", "u2", "u1", [use("t1", "Bash", command="make")])]
    boundary = {"type": "system", "subtype": "compact_boundary", "uuid": "b1", "parentUuid": None,
                "logicalParentUuid": "u2", "content": "Conversation compacted",
                "compactMetadata": {"trigger": "auto", "preTokens": 155000}}
    after = [record("user", "c1", "b1", "This session is being continued. Summary: porting.",
                    isCompactSummary=True),
             record("user", "c2", "c1", [result("t1", "make: ok")]),
             record("assistant", "c3", "c2", [{"type": "text", "text": "Built."}])]
    return (before if with_history else []) + [boundary, *after]


def test_a_pair_broken_by_claude_codes_compaction_is_joined_again(tmp_path):
    history = load_session(write_jsonl(tmp_path / "s.jsonl", compacted_session()))
    messages = history["messages"]
    assert [b["id"] for b in tool_uses(messages[1])] == ["t1"]
    assert [b["tool_use_id"] for b in tool_results(messages[2])] == ["t1"]
    # The other agent's summary is kept apart, in `compactions`: the messages it summarized are back.
    assert "Summary: porting" not in json.dumps(messages)
    assert [c["summary"] for c in history["compactions"]] == [
        "This session is being continued. Summary: porting."]


def test_a_result_whose_call_was_compacted_away_is_kept_as_text(tmp_path):
    # The boundary's logical parent is not in the file: the summary stands in for it, and
    # the result on line 3 answers a call the file does not hold (on a854c46: refused).
    history = load_session(write_jsonl(tmp_path / "s.jsonl", compacted_session(with_history=False)))
    assert_accepted(history["messages"])
    assert odd_lines(history) == {"result without its call": [3], "no typed request": []}
    [marked] = [b["text"] for m in history["messages"] for b in m["content"]
                if isinstance(b, dict) and b.get("text", "").startswith(NO_CALL.format(id="t1"))]
    assert marked.endswith("make: ok")          # the result's text, kept
    assert history["active_request"] == ""      # the summary is no request; nothing typed after it


@pytest.mark.parametrize("breakage, line, kind, words", [
    (lambda lines: lines.insert(3, "{not json"), 4, "not JSON", "Expecting property name"),
    (lambda lines: lines.insert(3, "[1, 2]"), 4, "unreadable record", "expected a JSON object, found list"),
    (lambda lines: lines.__setitem__(3, json.dumps({**json.loads(lines[3]), "message": "hi"})), 4,
     "unreadable record", "a user record without a user 'message'"),
])
def test_a_claude_code_record_that_cannot_be_read_is_counted_with_its_line(tmp_path, breakage, line,
                                                                           kind, words):
    lines = [json.dumps(v) for v in claude_session()]
    breakage(lines)
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    history = load_session(path)
    assert_accepted(history["messages"])
    assert odd_lines(history)[kind] == [line]
    [note] = [n for n in history["import_notes"] if n.startswith("not as expected: ")]
    assert f"(line {line}; " in note and words in note and "\n" not in note


def test_a_result_for_another_call_is_marked_and_its_call_answered(tmp_path):
    # The read's result now answers another id: the call (in the reply that starts on
    # line 5) has no result, and the result on line 7 no call.
    lines = claude_session()
    lines[6] = record("user", "u4", "u3", [result("t9", "def parse(): ...")])
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    assert_accepted(history["messages"])
    assert odd_lines(history) == {"call never answered": [5], "result without its call": [7]}
    answers = {b["tool_use_id"]: b["content"] for b in tool_results(history["messages"][2])}
    assert answers == {"t1": NO_RESULT, "t2": [{"type": "text", "text": "screenshot"}, IMAGE]}


def test_a_loop_of_parents_starts_the_chain_where_it_loops_not_a_hang(tmp_path):
    lines = claude_session()
    lines[3] = {**lines[3], "parentUuid": "u9"}
    history = load_session(write_jsonl(tmp_path / "s.jsonl", lines))
    assert odd_lines(history) == {"parent loop": [4]}
    assert history["messages"][0]["content"] == "Fix the parser in a.py"


# -- plain Messages API ------------------------------------------------------------------

MESSAGES = [
    {"role": "user", "content": "Count the lessons"},
    {"role": "assistant", "content": [{"type": "text", "text": "Listing."}, use("t1", "glob", pattern="s*")]},
    {"role": "user", "content": [result("t1", [{"type": "text", "text": "shot"}, IMAGE])]},
    {"role": "assistant", "content": [{"type": "text", "text": "Five."}]},
]


@pytest.mark.parametrize("name, text, fmt", [
    ("m.json", json.dumps(MESSAGES, indent=1), "messages"),
    ("m.json", json.dumps({"model": "x", "system": "s", "messages": MESSAGES}, indent=1), "messages"),
    ("m.jsonl", "".join(json.dumps(m) + "\n" for m in MESSAGES), "messages-jsonl"),
])
def test_messages_api_in_each_shape(tmp_path, name, text, fmt):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert detect(path) == fmt
    history = load_session(path)
    assert history["messages"] == MESSAGES and history["active_request"] == "Count the lessons"


def test_a_messages_list_names_the_line_of_an_orphan_result(tmp_path):
    broken = [*MESSAGES[:2], {"role": "user", "content": [result("t1"), result("t7")]}, MESSAGES[3]]
    path = tmp_path / "m.json"
    path.write_text(json.dumps(broken, indent=1), encoding="utf-8")
    line = json.dumps(broken, indent=1).split("\n").index(" {", 10) + 1   # where messages[2] starts
    history = load_session(path)
    assert_accepted(history["messages"])
    assert odd_lines(history) == {"result without its call": [line]}
    assert [b["tool_use_id"] for b in tool_results(history["messages"][2])] == ["t1"]


@pytest.mark.parametrize("value, words", [
    ({"role": "system", "content": "x"}, "role 'system'"),
    ({"role": "user", "content": 3}, "content must be a text or a list"),
    ("hello", "expected a message object, found str"),
])
def test_a_messages_jsonl_line_that_cannot_be_read_is_counted(tmp_path, value, words):
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps(MESSAGES[0]) + "\n\n" + json.dumps(value) + "\n", encoding="utf-8")
    history = load_session(path, "messages-jsonl")
    assert history["messages"] == [MESSAGES[0]]
    assert odd_lines(history) == {"unreadable record": [3]}
    assert any(words in note for note in history["import_notes"])


def test_a_broken_json_list_names_its_line(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('[\n {"role": "user", "content": "a"},\n {"role": "user" "content": 1}\n]',
                    encoding="utf-8")
    with pytest.raises(SessionFileError) as caught:
        load_session(path, "messages")
    assert caught.value.line == 3 and "not JSON" in str(caught.value)


# -- OpenAI chat format --------------------------------------------------------------------

CHAT = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": [{"type": "text", "text": "What is in the logs?"},
                                 {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}}]},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.log"}'}},
        {"id": "c2", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "ERROR x"},
    {"role": "tool", "tool_call_id": "c2", "content": "a.log"},
    {"role": "user", "content": "and the cause?"},
    {"role": "assistant", "content": "A missing file."},
]


def test_openai_chat_becomes_messages_api_blocks(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(CHAT), encoding="utf-8")
    assert detect(path) == "openai"
    messages = load_session(path)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[0]["content"][1] == {"type": "image", "source": {
        "type": "base64", "media_type": "image/png", "data": "iVBO"}}
    assert messages[1]["content"] == [use("c1", "read_file", path="a.log"), use("c2", "bash", command="ls")]
    # Both results and the user's next words in one user message, results first.
    assert messages[2]["content"] == [result("c1", "ERROR x"), result("c2", "a.log"),
                                      {"type": "text", "text": "and the cause?"}]
    assert messages[3]["content"] == [{"type": "text", "text": "A missing file."}]
    assert load_session(path)["active_request"] == "What is in the logs?"


@pytest.mark.parametrize("bad, kind, words", [
    ({"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{oops"}}]},
     "arguments not JSON", "c1"),
    ({"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "[1]"}}]},
     "arguments not JSON", "c1"),
    ({"role": "tool", "content": "x"}, "unreadable record", "a tool message without a tool_call_id"),
    ({"role": "assistant", "function_call": {"name": "f"}}, "unreadable record", "older function_call form"),
    ({"role": "user", "content": [{"type": "input_audio"}]}, "unknown content part", "input_audio"),
    ({"role": "tool", "tool_call_id": "zz", "content": "x"}, "result without its call", "zz"),
])
def test_openai_odd_records_are_counted_with_their_line(tmp_path, bad, kind, words):
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps(CHAT[1]) + "\n" + json.dumps(CHAT[-1]) + "\n" + json.dumps(bad) + "\n",
                    encoding="utf-8")
    history = load_session(path, "openai-jsonl")
    assert_accepted(history["messages"])
    assert 3 in odd_lines(history)[kind]
    [note] = [n for n in history["import_notes"] if n.startswith("not as expected: ")]
    assert words in note


def test_arguments_that_are_not_json_are_kept_raw(tmp_path):
    # Issue 51: one Codex call with arguments cut short refused a whole file on a854c46.
    chat = [CHAT[1], {"role": "assistant", "tool_calls": [
        {"id": "c1", "function": {"name": "bash", "arguments": '{"command": "ls'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "a.log"}]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat), encoding="utf-8")
    [call] = tool_uses(load_session(path)["messages"][1])
    assert call["input"] == {"arguments": '{"command": "ls'}


def test_a_tool_call_content_part_of_a_converted_file_is_a_call(tmp_path):
    # Issue 51: a file converted from another format put the call among the content parts.
    chat = [CHAT[1], {"role": "assistant", "content": [
        {"type": "text", "text": "Listing."},
        {"type": "tool_call", "id": "c1", "name": "bash", "arguments": '{"command": "ls"}'}]},
            {"role": "tool", "tool_call_id": "c1", "content": "a.log"}, CHAT[-1]]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat), encoding="utf-8")
    history = load_session(path)
    assert_accepted(history["messages"])
    assert history["messages"][1]["content"] == [{"type": "text", "text": "Listing."},
                                                 use("c1", "bash", command="ls")]
    assert history["import_report"]["odd"] == {}


# -- detection and the course's loader -----------------------------------------------------

def test_the_course_loader_reads_every_format_and_the_canned_one(tmp_path):
    path = write_jsonl(tmp_path / "s.jsonl", claude_session())
    assert load_history(path)["format"] == "claude-code"
    assert load_history("five_reads")["name"] == "five_reads"
    with pytest.raises(SessionFileError, match="format 'yaml' is not one of auto, claude-code"):
        load_history(path, "yaml")


def test_a_last_result_without_its_call_is_counted_and_kept(tmp_path):
    lines = claude_session() + [record("user", "u10", "u9", [result("t404")])]
    history = load_history(write_jsonl(tmp_path / "s.jsonl", lines))
    assert odd_lines(history) == {"result without its call": [len(lines)]}
    assert history["messages"][-1]["content"][0]["text"].startswith(NO_CALL.format(id="t404"))


@pytest.mark.parametrize("text, words", [
    ("", "this looks like an empty file, which is not read; these are: claude-code: "),
    ('{"a": 1}\n', "this looks like records with neither a 'role' nor a 'type', which is not read"),
    ("hello\nworld\n", r"x.jsonl:1: not JSON \(Expecting value at column 1\)"),
    (json.dumps({"role": "user", "content": ""}) + "\n", "no conversation in the file"),
])
def test_a_file_with_nothing_to_replay_says_so(tmp_path, text, words):
    path = tmp_path / "x.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises((SessionFileError, HistoryError), match=words):
        load_history(path)


def test_every_format_has_a_row_and_a_description():
    assert set(SESSION_FORMATS) == {"claude-code", "codex", "messages", "messages-jsonl", "openai",
                                    "openai-jsonl", "responses", "atif"}
    assert all(callable(load) and text for load, text in SESSION_FORMATS.values())


def test_openai_split_replies_and_an_image_in_a_tool_result(tmp_path):
    chat = [CHAT[1],
            {"role": "assistant", "content": "Looking."},       # one reply logged as two messages
            {"role": "assistant", "content": None, "tool_calls": [CHAT[2]["tool_calls"][0]]},
            {"role": "tool", "tool_call_id": "c1", "content": [
                {"type": "text", "text": "a chart"},
                {"type": "image_url", "image_url": {"url": "https://example.org/chart.png"}}]},
            CHAT[-1]]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": chat}), encoding="utf-8")
    messages = load_session(path)["messages"]
    assert [b["type"] for b in messages[1]["content"]] == ["text", "tool_use"]
    [block] = tool_results(messages[2])
    assert block["content"] == [{"type": "text", "text": "a chart"},
                                {"type": "image", "source": {"type": "url", "url": "https://example.org/chart.png"}}]


@pytest.mark.parametrize("name, fmt, shape", [
    ("chat.jsonl", "openai-jsonl", lambda ms: "".join(json.dumps(m) + "\n" for m in ms)),
    ("m.jsonl", "messages-jsonl", lambda ms: "".join(json.dumps(m) + "\n" for m in ms)),
])
def test_a_log_that_starts_after_the_other_agents_compaction_keeps_the_orphan(tmp_path, name, fmt, shape):
    # The other agent summarized its history away, the call with it: the result is an orphan.
    if fmt.startswith("openai"):
        log = [{"role": "user", "content": "Summary of earlier work: reading logs."},
               {"role": "tool", "tool_call_id": "c0", "content": "ERROR x"}, CHAT[-1]]
    else:
        log = [{"role": "user", "content": "Summary of earlier work: reading logs."},
               {"role": "user", "content": [result("t0")]}, MESSAGES[3]]
    path = tmp_path / name
    path.write_text(shape(log), encoding="utf-8")
    history = load_session(path)
    assert_accepted(history["messages"])
    assert odd_lines(history) == {"result without its call": [2]}
    assert history["active_request"] == "Summary of earlier work: reading logs."
    assert detect(path) == fmt


def test_messages_api_split_reply_is_joined_and_results_come_first(tmp_path):
    log = [MESSAGES[0],
           {"role": "assistant", "content": [{"type": "text", "text": "Listing."}]},
           {"role": "assistant", "content": [use("t1", "glob", pattern="s*")]},
           {"role": "user", "content": "(the user typed while the tool ran)"},
           {"role": "user", "content": [result("t1", "s01\ns02")]},
           MESSAGES[3]]
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in log), encoding="utf-8")
    messages = load_session(path)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert [b["type"] for b in messages[1]["content"]] == ["text", "tool_use"]
    # The API reads a batch's results only before any other block of the user message.
    assert [b["type"] for b in messages[2]["content"]] == ["tool_result", "text"]
    assert load_session(path)["lines"] == [1, 2, 4, 6]
