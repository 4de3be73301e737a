"""The recipe (examples/own_loop.py, docs/RECIPE.md) run against the offline model.

A plain SDK loop with the four lines of the pipeline: prepare before each
call, reactive_compact once on the refusal, compact_history after the whole
batch when the model called the compact tool, and the current request passed
to each. The file is loaded as it is, so the recipe cannot go stale.
"""

import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from compact_course.agent import tasks
from compact_course.offline import MODEL_NAME
from context_compact import CompactionConfig, formats, validate_messages
from context_compact.messages import estimate_chars, tool_results, tool_uses
from context_compact.store import seeded_ids
from tests.agent.test_agent import lessons_workspace
from tests.helpers import offline_model

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("no_network")


def recipe():
    spec = importlib.util.spec_from_file_location("own_loop", ROOT / "examples" / "own_loop.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(workspace, request, window=200_000):
    loop = recipe()
    with offline_model(window=window) as (server, client):
        compactor = loop.make_compactor(workspace, client, MODEL_NAME, CompactionConfig(), seeded_ids())
        messages = []
        answer = loop.ask(client, MODEL_NAME, compactor, messages, request, workspace)
        return answer, messages, compactor, list(server.requests)


def fired(compactor, step):
    return [r for r in compactor.records if r.step == step and r.fired]


def test_the_refusal_gets_one_reactive_compaction_and_the_turn_completes(tmp_path):
    answer, messages, compactor, requests = run(lessons_workspace(tmp_path), tasks.TITLES, window=6000)
    assert [r["status"] for r in requests].count(400) == 1
    assert len(fired(compactor, "reactive_compact")) == 1
    first = formats.SUMMARY_RE.match(messages[0]["content"])
    # The current request is what reactive_compact was given: the summary carries it.
    assert first and first["kind"] == "Reactive compact" and first["request"] == tasks.TITLES
    for n in range(1, 6):
        assert f"# s0{n}: Lesson {n} - Subtitle {n}" in answer
    validate_messages(messages)


def test_a_second_refusal_in_a_row_is_raised(tmp_path):
    import anthropic
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        run(lessons_workspace(tmp_path), tasks.TITLES, window=3000)


def test_at_a_tiny_window_a_retry_that_would_grow_is_not_sent(tmp_path):
    # The summary of a short head outgrows the head: the recipe raises the refusal, saying
    # why, instead of sending a larger list the API could only refuse again.
    import anthropic
    loop, workspace = recipe(), lessons_workspace(tmp_path)
    with offline_model(window=3000) as (server, client):
        compactor = loop.make_compactor(workspace, client, MODEL_NAME, CompactionConfig(), seeded_ids())
        messages = []
        with pytest.raises(anthropic.BadRequestError) as caught:
            loop.ask(client, MODEL_NAME, compactor, messages, tasks.TITLES, workspace)
        statuses = [r["status"] for r in server.requests]
    found = re.match(r"reactive_compact would send ([\d,]+) characters, not fewer than the ([\d,]+) "
                     r"the API refused, so it did not retry\. The refusal: .*prompt is too long",
                     caught.value.message)
    assert found, caught.value.message
    sent, refused = (int(n.replace(",", "")) for n in found.groups())
    assert sent >= refused == estimate_chars(messages)   # the refused list is kept, nothing lost
    assert statuses.count(400) == 1 and statuses[-2:] == [400, 200]   # the summary call, no retry


def test_the_compact_tool_compacts_after_the_whole_batch(tmp_path):
    workspace = tmp_path / "workspace"
    shutil.copytree(ROOT / "data" / "workspace", workspace)
    answer, messages, compactor, _ = run(workspace, tasks.COMPACT_TOOL)
    [summary] = fired(compactor, "compact_history")
    assert summary.model_calls == 1
    # The note was written in the same batch as the compact call, before compact_history ran.
    assert (workspace / tasks.NOTES_PATH).is_file()
    archived = compactor.store.read_transcript(summary.files[0])
    batch = next(m for m in archived if any(u["name"] == "compact" for u in tool_uses(m)))
    answered = archived[archived.index(batch) + 1]
    assert {b["tool_use_id"] for b in tool_results(answered)} == {u["id"] for u in tool_uses(batch)}
    marker = formats.SUMMARY_RE.match(messages[0]["content"])
    assert marker and marker["kind"] == "Compacted" and marker["request"] == tasks.COMPACT_TOOL
    assert tasks.NOTES_PATH in answer
    validate_messages(messages)


def test_prepare_runs_before_every_call(tmp_path):
    _, _, compactor, requests = run(lessons_workspace(tmp_path), tasks.TITLES)
    calls = [r for r in requests if r["path"] == "/v1/messages"]
    assert compactor.calls == len(calls) > 1


def test_the_script_runs_offline_from_the_command_line(tmp_path, capsys):
    workspace = lessons_workspace(tmp_path)
    assert recipe().main([tasks.TITLES, "--workspace", str(workspace)]) == 0
    assert "# s05: Lesson 5 - Subtitle 5" in capsys.readouterr().out
