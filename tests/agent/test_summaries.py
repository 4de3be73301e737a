"""The offline model's summaries follow the summary prompt's structure (goal, files with key
facts, decisions, done, pending), are built from the messages they replace, in the
request's language, for step 4, reactive compaction and the compact tool alike."""

import itertools
import re

import pytest

from compact_course.agent.loop import Agent
from compact_course.offline import MODEL_NAME
from compact_course.offline.model.extractive import extractive_summary
from compact_course.sessions.histories import load_history
from context_compact import CompactionConfig, ContextCompactor, formats
from context_compact.messages import text_of, tool_results, tool_uses
from tests.agent.test_agent import lessons_workspace, workspace  # noqa: F401 - the fixture
from tests.helpers import offline_model

pytestmark = pytest.mark.usefixtures("no_network")  # nothing but loopback (conftest.py)

EN = ["Current goal:", "Files read or changed:", "Decisions:", "Done:", "Pending:"]
ZH = ["当前目标：", "读过或改过的文件：", "决定：", "已完成：", "待完成："]


def headings(summary: str) -> list:
    return [line for line in summary.splitlines() if line in EN + ZH]


def reads(messages) -> dict:
    """path -> the text each read_file returned, from the messages themselves."""
    found, uses = {}, {}
    for message in messages:
        uses.update({u["id"]: u for u in tool_uses(message)})
        for result in tool_results(message):
            use = uses[result["tool_use_id"]]
            if use["name"] == "read_file":
                found[use["input"]["path"]] = text_of(result["content"])
    return found


def compact_with_model(messages, request, tmp_path, reactive=False):
    with offline_model() as (_, client):
        compactor = ContextCompactor(tmp_path, client=client, model=MODEL_NAME,
                                     config=CompactionConfig.seed(), echo=None)
        if reactive:
            return compactor.reactive_compact(messages, request)
        return compactor.compact_history(messages, request)


def summary_of(message) -> str:
    match = formats.SUMMARY_RE.match(message["content"])
    assert match, message["content"][:200]
    return formats.summary_text(match["summary"])


def test_step4_summary_has_the_structure_and_the_facts_of_the_dropped_files(tmp_path):
    history = load_history("two_code_files")
    messages = history["messages"]
    after = compact_with_model(messages, history["active_request"], tmp_path)
    summary = summary_of(after[0])
    assert headings(summary) == EN
    assert summary.split("\n")[1] == history["active_request"]          # the goal, as typed
    for path, text in reads(messages).items():
        count = len(text.splitlines())
        first_def = re.search(r"^def (\w+)", text, re.MULTILINE)[1]
        assert f"- {path} (read): {count} lines; defines " in summary
        assert first_def in summary
        assert f"read_file({path}) -> {count} lines" in summary     # done
    for note in [text_of(m["content"]) for m in messages if m["role"] == "assistant"]:
        if note.strip():
            assert f"- {note.strip().splitlines()[0]}" in summary   # decisions
    assert "#!/usr/bin/env python3" not in summary
    pending = summary.split("Pending:\n", 1)[1]
    assert pending == "- answer the current goal"


def test_a_chinese_request_gets_chinese_headings(tmp_path):
    history = load_history("two_code_files")
    messages = [dict(m) for m in history["messages"]]
    request = "比较 s08_context_compact/code.py 和 s09_memory/code.py 如何管理上下文和记忆。"
    messages[0] = {"role": "user", "content": request}
    summary = summary_of(compact_with_model(messages, request, tmp_path)[0])
    assert headings(summary) == ZH
    assert not any(heading in summary for heading in EN)
    assert request in summary
    for path in reads(messages):
        assert f"- {path} (read): " in summary   # facts are copied as they are


def test_reactive_compaction_summarizes_only_the_dropped_part(tmp_path):
    history = load_history("overflow")
    messages = history["messages"]
    after = compact_with_model(messages, history["active_request"], tmp_path, reactive=True)
    summary = summary_of(after[0])
    assert headings(summary) == EN and history["active_request"] in summary
    kept = after[1:]
    dropped = messages[: len(messages) - len(kept)]
    assert kept == messages[len(dropped):]
    dropped_calls = [u for m in dropped for u in tool_uses(m)]
    kept_calls = [u for m in kept for u in tool_uses(m)]
    assert dropped_calls and kept_calls
    for use in dropped_calls:
        arg = use["input"].get("path") or use["input"].get("command")
        assert f"{use['name']}({' '.join(arg.split())[:60]}" in summary
    for use in kept_calls:
        assert use["input"].get("command", "@@") not in summary


def test_the_compact_tool_summary_records_the_write(workspace):  # noqa: F811
    lines, ids = [], itertools.count(1)
    with offline_model() as (_, client):
        agent = Agent(workspace, client, MODEL_NAME, echo=lines.append,
                      new_id=lambda: f"{next(ids):032x}")
        agent.ask("List the lesson folders, then write a short progress note to "
                  "notes/progress.md and, in the same tool batch, call the compact tool.")
    summary = summary_of(agent.messages[0])
    assert headings(summary) == EN
    written = (workspace / "notes/progress.md").read_text()
    assert f"- notes/progress.md (written): Wrote {len(written)} characters" in summary
    assert "- compact -> Compaction requested after this tool batch." in summary


def test_an_earlier_summary_is_folded_in_section_by_section():
    first = [{"role": "user", "content": "Read a.md"},
             {"role": "assistant", "content": [
                 {"type": "text", "text": "Reading it."},
                 {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.md"}}]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                           "content": "# Alpha\nbody"}]}]
    earlier = extractive_summary(first)
    second = [formats.summary_message("Compacted", "Read a.md", earlier, ".transcripts/t.jsonl"),
              {"role": "assistant", "content": [
                  {"type": "tool_use", "id": "t2", "name": "read_file", "input": {"path": "b.md"}}]},
              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2",
                                            "content": "# Beta\nbody"}]}]
    summary = extractive_summary(second)
    assert headings(summary) == EN                     # one set of headings, not two
    files = summary.split("Files read or changed:\n")[1].split("\n\n")[0].splitlines()
    assert files == ["- a.md (read): 2 lines; title '# Alpha'",
                     "- b.md (read): 2 lines; title '# Beta'"]
    assert "- Reading it." in summary


def test_a_result_already_shrunk_stays_gone_in_the_summary():
    messages = [{"role": "user", "content": "Read a.md"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.md"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                              "content": formats.OMITTED}]}]
    summary = extractive_summary(messages)
    assert f"- a.md (read): result shrunk to {formats.OMITTED}" in summary
    assert "title" not in summary
