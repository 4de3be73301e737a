"""Codex CLI rollouts, Responses API request bodies and ATIF trajectories (issue 41),
and the error for a file no importer claims.

Each file is built here in its format's real shape: a rollout's lines are
`{"timestamp", "type", "payload"}` (openai/codex's RolloutItem), its
response items the Responses API's; an ATIF trajectory follows harbor's
RFC 0001 (schema_version, agent, steps with tool_calls and observation).
On 3fdc176 none of them was read, and the errors misled.
"""

import json

import pytest

from compact_course.sessions import SESSION_FORMATS, NotRead, detect, load_session
from compact_course.sessions.histories import HistoryError, load_history
from compact_course.sessions.odd import NO_RESULT
from context_compact.messages import tool_results, tool_uses
from tests.sessions.test_importers import assert_accepted, odd_lines, write_jsonl

STAMP = "2026-01-07T09:00:00.000Z"


def line(kind, payload):
    return {"timestamp": STAMP, "type": kind, "payload": payload}


def item(payload):
    return line("response_item", payload)


def text(role, words, part="input_text"):
    return item({"type": "message", "role": role, "content": [{"type": part, "text": words}]})


def call(call_id, name="shell", **arguments):
    return item({"type": "function_call", "name": name, "arguments": json.dumps(arguments),
                 "call_id": call_id})


def output(call_id, words):
    return item({"type": "function_call_output", "call_id": call_id, "output": words})


SUMMARY = "The user wants the failing test fixed; pytest showed test_parse failing on an empty line."


def rollout():
    """A Codex session: meta, context, the CLI's own user messages, a typed request,
    reasoning, two parallel shell calls, a patch (a custom tool), a web search, a
    compaction, then a call never answered."""
    return [
        line("session_meta", {"id": "0199a1b2", "timestamp": STAMP, "cwd": "/home/learner/proj",
                              "originator": "codex_cli_rs", "cli_version": "0.46.0",
                              "instructions": None}),
        text("developer", "<permissions instructions>sandbox: workspace-write</permissions instructions>"),
        text("user", "<environment_context>\n  <cwd>/home/learner/proj</cwd>\n</environment_context>"),
        line("turn_context", {"cwd": "/home/learner/proj", "approval_policy": "on-request",
                              "sandbox_policy": {"mode": "workspace-write"}, "model": "gpt-5-codex",
                              "summary": "auto"}),
        text("user", "Fix the failing test in parser.py"),
        line("event_msg", {"type": "user_message", "message": "Fix the failing test in parser.py",
                           "images": []}),
        item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Running tests**"}],
              "content": None, "encrypted_content": "gAAAAB..."}),
        call("call_1", command=["bash", "-lc", "pytest -q"]),
        call("call_2", command=["bash", "-lc", "cat parser.py"]),
        output("call_1", "1 failed, 4 passed"),
        output("call_2", "def parse(text):\n    return text.split()\n"),
        line("event_msg", {"type": "token_count", "info": None}),
        item({"type": "custom_tool_call", "status": "completed", "call_id": "call_3",
              "name": "apply_patch", "input": "*** Begin Patch\n*** Update File: parser.py\n*** End Patch"}),
        item({"type": "custom_tool_call_output", "call_id": "call_3",
              "output": "Success. Updated parser.py"}),
        item({"type": "web_search_call", "status": "completed",
              "action": {"type": "search", "query": "python str.split empty line"}}),
        text("assistant", "Fixed: parse skips empty lines.", "output_text"),
        line("compacted", {"message": SUMMARY, "replacement_history": [
            {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "Fix the failing test in parser.py"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": SUMMARY}]}]}),
        text("user", "Now run the whole suite"),
        line("event_msg", {"type": "user_message", "message": "Now run the whole suite", "images": []}),
        call("call_4", command=["bash", "-lc", "pytest"]),
    ]


def test_a_codex_rollout_is_read(tmp_path):
    path = write_jsonl(tmp_path / "rollout-2026-01-07T09-00-00-0199a1b2.jsonl", rollout())
    assert detect(path) == "codex"
    history = load_session(path)
    messages = history["messages"]
    assert history["format"] == "codex" and history["active_request"] == "Now run the whole suite"
    assert history["title"] == "Fix the failing test in parser.py"
    assert [b["id"] for b in tool_uses(messages[1])] == ["call_1", "call_2"]
    assert tool_uses(messages[1])[0]["input"] == {"command": ["bash", "-lc", "pytest -q"]}
    assert [b["tool_use_id"] for b in tool_results(messages[2])] == ["call_1", "call_2"]
    assert tool_uses(messages[3]) == [{"type": "tool_use", "id": "call_3", "name": "apply_patch", "input": {
        "input": "*** Begin Patch\n*** Update File: parser.py\n*** End Patch"}}]
    assert tool_results(messages[4])[0]["content"] == "Success. Updated parser.py"
    # The CLI's own user message is kept, as the model read it, but is not the request.
    assert "<environment_context>" in messages[0]["content"][0]["text"]
    left = history["import_report"]["left_out_lines"]
    assert left == {"developer (instructions)": [2], "turn_context": [4], "session_meta": [1],
                    "event_msg (user_message)": [6, 19], "reasoning": [7], "event_msg (token_count)": [12],
                    "web_search_call (no result in the file)": [15]}
    assert odd_lines(history) == {"call never answered": [20]}


def test_a_codex_compaction_is_kept_as_such(tmp_path):
    history = load_session(write_jsonl(tmp_path / "rollout-x.jsonl", rollout()))
    [compaction] = history["compactions"]
    assert compaction["format"] == "codex" and compaction["line"] == 17
    assert compaction["summary"] == SUMMARY and compaction["before_in_file"] is True
    assert [m["role"] for m in compaction["replacement_history"]] == ["user", "user"]
    assert history["messages"][compaction["at"]]["content"] == [
        {"type": "text", "text": "Now run the whole suite"}]
    assert SUMMARY not in json.dumps(history["messages"])


def test_a_call_never_answered_is_kept_with_a_result_saying_so(tmp_path):
    # Issue 51: a live session ends mid-batch; the call stays, and the API's pairing holds.
    history = load_session(write_jsonl(tmp_path / "rollout-x.jsonl", rollout()))
    assert_accepted(history["messages"])
    assert tool_uses(history["messages"][-2])[0]["id"] == "call_4"
    assert tool_results(history["messages"][-1]) == [
        {"type": "tool_result", "tool_use_id": "call_4", "content": NO_RESULT}]
    assert ("not as expected: 1 call never answered (line 20; call_4): kept, with a result saying "
            "the file has none" in history["import_notes"])


def test_a_server_compaction_says_its_summary_is_encrypted(tmp_path):
    lines = rollout()
    lines[16] = line("compacted", {"message": "", "replacement_history": [
        {"type": "compaction", "encrypted_content": "gAAAAB..."}]})
    history = load_session(write_jsonl(tmp_path / "rollout-x.jsonl", lines))
    [compaction] = history["compactions"]
    assert compaction["encrypted"] is True and compaction["summary"] == ""
    assert any("a summary encrypted by the server, not readable" in note for note in history["import_notes"])


@pytest.mark.parametrize("index, value, kind", [
    (7, call("call_1", command="x") | {"payload": {"type": "function_call", "name": "shell",
                                                   "arguments": "{oops", "call_id": "call_1"}},
     "arguments not JSON"),
    (9, output("call_9", "x"), "result without its call"),
    (4, {"type": "response_item"}, "unreadable record"),
    (4, item({"type": "message", "role": "user", "content": [{"type": "input_audio"}]}),
     "unknown content part"),
    (11, line("future_record", {"x": 1}), "unknown record type"),
    (11, item({"type": "future_item"}), "unknown item type"),
])
def test_codex_odd_lines_are_counted_with_their_line(tmp_path, index, value, kind):
    lines = rollout()
    lines[index] = value
    history = load_session(write_jsonl(tmp_path / "rollout-x.jsonl", lines))
    assert_accepted(history["messages"])
    assert index + 1 in odd_lines(history)[kind]


def today():
    """The line types and response items of a current rollout (openai/codex's RolloutItem and
    ResponseItem after token_usage_record came in): bookkeeping lines, another agent's message,
    a configuration update, an encrypted context compaction."""
    return [
        line("session_meta", {"id": "019f", "timestamp": STAMP, "cwd": "/w", "cli_version": "0.160.0"}),
        text("user", "Review the parser"),
        line("event_msg", {"type": "user_message", "message": "Review the parser"}),
        item({"type": "configuration_update", "reasoning": {"effort": "high"}}),
        line("world_state", {"full": True, "state": {}}),
        call("call_1", command=["bash", "-lc", "cat parser.py"]),
        output("call_1", "def parse(text): ..."),
        line("token_usage_record", {"response_id": "resp_1", "usage": {"total_tokens": 9}}),
        line("inter_agent_communication", {"author": "/root/reviewer", "recipient": "/root",
                                           "other_recipients": [], "content": "Looks fine.",
                                           "trigger_turn": True}),
        item({"type": "agent_message", "author": "/root/tester", "recipient": "/root",
              "content": [{"type": "input_text", "text": "Tests pass."},
                          {"type": "encrypted_content", "encrypted_content": "gAAA"}]}),
        item({"type": "context_compaction", "encrypted_content": "gAAA"}),
        text("assistant", "The parser is fine.", "output_text") | {"ordinal": 12},
    ]


def test_todays_rollout_lines_and_items_are_read(tmp_path):
    # On a854c46: "not a rollout line" on line 5 (world_state), the whole file refused.
    history = load_session(write_jsonl(tmp_path / "rollout-x.jsonl", today()))
    assert_accepted(history["messages"])
    texts = [b["text"] for m in history["messages"] if m["role"] == "user" and isinstance(m["content"], list)
             for b in m["content"] if b["type"] == "text"]
    assert "[message from /root/reviewer to /root]\nLooks fine." in texts
    assert "[message from /root/tester to /root]\nTests pass." in texts
    left = history["import_report"]["left_out_lines"]
    assert left["token_usage_record"] == [8] and left["world_state"] == [5]
    assert left["configuration_update (a request setting)"] == [4]
    assert left["compaction (encrypted)"] == [11]
    assert odd_lines(history) == {"unknown content part": [10]}      # the encrypted part


def test_a_rollout_that_starts_with_a_compaction_starts_with_its_replacement_history(tmp_path):
    lines = [line("session_meta", {"id": "019f", "timestamp": STAMP}),
             line("compacted", {"message": SUMMARY, "replacement_history": [
                 {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix it"}]},
                 {"type": "message", "role": "user", "content": [{"type": "input_text", "text": SUMMARY}]}]}),
             text("assistant", "Carrying on.", "output_text")]
    history = load_session(write_jsonl(tmp_path / "rollout-x.jsonl", lines))
    assert history["messages"][0]["content"] == [{"type": "text", "text": "Fix it"},
                                                 {"type": "text", "text": SUMMARY}]
    [compaction] = history["compactions"]
    assert compaction["at"] == 0 and compaction["before_in_file"] is False


def early_rollout():
    """A rollout from before the typed lines (openai/codex codex-rs/core/src/rollout.rs at
    89a151f): the session's meta with no type, then bare response items and state lines."""
    return [
        {"id": "5973b6c0", "timestamp": "2025-05-07T17:24:21.000Z", "instructions": "Be brief."},
        {"type": "message", "role": "user",
         "content": [{"type": "input_text", "text": "Why does parse fail?"}]},
        {"type": "function_call", "name": "shell", "call_id": "call_1",
         "arguments": json.dumps({"command": ["bash", "-lc", "pytest -q"]})},
        {"type": "function_call_output", "call_id": "call_1", "output": "1 failed"},
        {"record_type": "state"},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "An empty line."}]},
        {"record_type": "state", "previous_response_id": "resp_1"},
    ]


def test_an_early_codex_rollout_is_read(tmp_path):
    """On main before this, the file was taken for Messages API JSONL and refused."""
    path = write_jsonl(tmp_path / "rollout-2025-05-07T17-24-21-5973b6c0.jsonl", early_rollout())
    assert detect(path) == "codex"
    history = load_session(path)
    messages = history["messages"]
    assert history["active_request"] == "Why does parse fail?"
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert tool_uses(messages[1]) == [{"type": "tool_use", "id": "call_1", "name": "shell",
                                       "input": {"command": ["bash", "-lc", "pytest -q"]}}]
    assert tool_results(messages[2])[0]["content"] == "1 failed"
    assert history["import_report"]["left_out_lines"] == {"session_meta": [1], "state": [5, 7]}


@pytest.mark.parametrize("index, value, kind", [
    (4, {"role": "user", "content": "no type"}, "unreadable record"),
    (3, ["a", "list"], "unreadable record"),
    (3, {"type": "function_call_output", "call_id": "call_9", "output": "x"}, "result without its call"),
])
def test_early_codex_odd_lines_are_counted(tmp_path, index, value, kind):
    lines = early_rollout()
    lines[index] = value
    lines.insert(5, {"record_type": "state"})   # still an early rollout by its other lines
    history = load_session(write_jsonl(tmp_path / "rollout-x.jsonl", lines), "codex")
    assert_accepted(history["messages"])
    assert odd_lines(history)[kind] == [index + 1]


# -- Responses API request bodies ------------------------------------------------------------

BODY = {
    "model": "gpt-5",
    "instructions": "You are a coding agent.",
    "tools": [{"type": "function", "name": "read_file", "parameters": {"type": "object"}}],
    "input": [
        {"role": "user", "content": "What is in the log?"},
        {"type": "message", "role": "user", "content": [
            {"type": "input_image", "image_url": "data:image/png;base64,iVBO"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "fc_1", "name": "read_file", "arguments": '{"path": "a.log"}'},
        {"type": "function_call_output", "call_id": "fc_1", "output": "ERROR x"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "An error."}]},
        {"role": "user", "content": "Why?"},
    ],
}


def test_a_responses_body_is_read(tmp_path):
    path = tmp_path / "request.json"
    path.write_text(json.dumps(BODY, indent=1), encoding="utf-8")
    assert detect(path) == "responses"
    history = load_session(path)
    messages = history["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert messages[0]["content"][1] == {"type": "image", "source": {
        "type": "base64", "media_type": "image/png", "data": "iVBO"}}
    assert messages[1]["content"] == [{"type": "tool_use", "id": "fc_1", "name": "read_file",
                                       "input": {"path": "a.log"}}]
    assert history["active_request"] == "Why?"
    assert set(history["import_report"]["left_out"]) == {"instructions", "tools", "reasoning"}
    # Each item has the line it starts on: the reasoning item is the input's third element.
    lines = json.dumps(BODY, indent=1).splitlines()
    type_line = next(n for n, text in enumerate(lines, start=1) if '"reasoning"' in text)
    assert history["import_report"]["left_out_lines"]["reasoning"] == [type_line - 1]


def test_a_responses_body_with_a_string_input(tmp_path):
    path = tmp_path / "request.json"
    path.write_text(json.dumps({"model": "gpt-5", "input": "Count the lessons"}), encoding="utf-8")
    history = load_history(path)
    assert history["messages"] == [{"role": "user",
                                    "content": [{"type": "text", "text": "Count the lessons"}]}]
    assert history["import_report"]["read"] == {"input (a string)": 1}


# -- ATIF ----------------------------------------------------------------------------------------

TRAJECTORY = {
    "schema_version": "ATIF-v1.4",
    "session_id": "6a1f-made",
    "agent": {"name": "made-agent", "version": "0.1", "model_name": "offline"},
    "steps": [
        {"step_id": 1, "source": "system", "message": "You are a coding agent."},
        {"step_id": 2, "source": "user", "message": "Find the failing test"},
        {"step_id": 3, "source": "agent", "message": "Running both.", "reasoning_content": "Two calls.",
         "tool_calls": [{"tool_call_id": "c1", "function_name": "bash", "arguments": {"command": "pytest"}},
                        {"tool_call_id": "c2", "function_name": "read_file", "arguments": {"path": "t.py"}}],
         "observation": {"results": [{"source_call_id": "c1", "content": "1 failed"},
                                     {"source_call_id": "c2", "content": "def test_parse(): ..."}]},
         "metrics": {"prompt_tokens": 520, "completion_tokens": 80}},
        {"step_id": 4, "source": "agent", "message": "test_parse fails.",
         "tool_calls": [{"tool_call_id": "c3", "function_name": "bash", "arguments": {"command": "ls"}}]},
    ],
    "final_metrics": {"total_steps": 4},
}


def test_an_atif_trajectory_is_read_by_its_specification(tmp_path):
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps(TRAJECTORY, indent=2), encoding="utf-8")
    assert detect(path) == "atif"
    history = load_session(path)
    messages = history["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert [b["id"] for b in tool_uses(messages[1])] == ["c1", "c2"]
    assert [b["content"] for b in tool_results(messages[2])] == ["1 failed", "def test_parse(): ..."]
    assert messages[3]["content"][0] == {"type": "text", "text": "test_parse fails."}
    report = history["import_report"]
    assert report["read"] == {"system step": 1, "user step": 1, "agent step": 2}
    assert set(report["left_out"]) == {"system step", "reasoning_content"}
    assert report["odd"] == {"call never answered": 1}
    # The user message starts where its step does: the line before '"step_id": 2'.
    lines = json.dumps(TRAJECTORY, indent=2).splitlines()
    assert history["lines"][0] == next(n for n, text in enumerate(lines) if '"step_id": 2' in text)


def test_an_atif_step_of_an_unknown_source_is_counted_with_its_line(tmp_path):
    bad = {**TRAJECTORY, "steps": [*TRAJECTORY["steps"][:2], {"step_id": 3, "source": "tool", "message": ""}]}
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps(bad, indent=2), encoding="utf-8")
    history = load_session(path)
    [line_number] = odd_lines(history)["unreadable record"]
    assert json.dumps(bad, indent=2).splitlines()[line_number - 1].strip() == "{"
    assert any("a step of source 'tool'" in note for note in history["import_notes"])


# -- a file no importer claims ---------------------------------------------------------------

@pytest.mark.parametrize("name, content, looks", [
    ("other.jsonl", [{"type": "init", "agent": "x"}, {"type": "step", "n": 1}],
     "JSONL records typed init, step"),
    ("reply.json", {"id": "chatcmpl-1", "object": "chat.completion", "choices": []},
     "an OpenAI Chat Completions response"),
    ("response.json", {"id": "resp_1", "object": "response", "output": []}, "a Responses API response"),
    ("gemini.json", [{"role": "user", "parts": [{"text": "hi"}]}, {"role": "model", "parts": []}],
     "a Gemini conversation"),
])
def test_a_file_no_importer_claims_says_what_it_looks_like(tmp_path, name, content, looks):
    path = tmp_path / name
    if name.endswith(".jsonl"):
        write_jsonl(path, content)
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(NotRead) as caught:
        load_session(path)
    said = str(caught.value)
    assert said.startswith(f"{path}") and f"this looks like {looks}" in said
    assert ", which is not read; these are: claude-code: " in said
    assert all(f"; {fmt}: " in said for fmt in list(SESSION_FORMATS)[1:])
    with pytest.raises((NotRead, HistoryError), match="this looks like"):
        load_history(path)


def test_the_recipe_has_a_row_for_each_format_read():
    from pathlib import Path
    recipe = (Path(__file__).resolve().parents[2] / "docs" / "RECIPE.md").read_text(encoding="utf-8")
    table = recipe[recipe.index("| format | read | left out, and said so |"):].split("\n\n")[0]
    rows = [row.split(" | ")[0].lstrip("| ") for row in table.splitlines()[2:]]
    # One row a format; a format's JSONL shape shares its row.
    assert len(rows) == len({name.removesuffix("-jsonl") for name in SESSION_FORMATS})
    for words in ("Claude Code", "Codex CLI", "Responses API", "ATIF", "Messages API", "OpenAI chat"):
        assert sum(words in row for row in rows) == 1, words


def test_the_recipe_says_what_is_done_with_each_odd_kind():
    # docs/RECIPE.md's table of odd records is odd.ODD, row for row.
    from pathlib import Path

    from compact_course.sessions.odd import ODD
    recipe = (Path(__file__).resolve().parents[2] / "docs" / "RECIPE.md").read_text(encoding="utf-8")
    table = recipe[recipe.index("| kind | what the importer does |"):].split("\n\n")[0]
    rows = [tuple(cell.strip() for cell in row.strip("|").split(" | ")) for row in table.splitlines()[2:]]
    assert rows == list(ODD.items())
