"""Replay (issue 33): the offline server answers from a cassette, through the SDK.

Runs are recorded against the offline server itself (it plays the live model)
and replayed by a fresh server holding only the cassette: the same agent run
gets the same replies, streamed or not; a request that differs gets a 400
naming the first difference. Last, the live notebook (09) recorded once and run again
from its cassette prints byte for byte what it printed, and what is stored.
"""

import copy
import json
import shutil

import anthropic
import nbformat
import pytest

from compact_course.agent.loop import Agent
from compact_course.agent.model import offline_client
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.cassette import Cassette, recording_client
from compact_course.offline.api.server import start_offline_server
from context_compact.config import CompactionConfig
from context_compact.store import seeded_ids
from tests.agent.test_agent import ROOT, SAMPLE, tasks
from tests.helpers import load_builder, offline_model

pytestmark = pytest.mark.usefixtures("no_network")


def fresh(workspace):
    """The sample workspace, copied again at the same path: a replay sends the same paths."""
    shutil.rmtree(workspace, ignore_errors=True)
    shutil.copytree(SAMPLE, workspace, ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
    return workspace


def run(client, workspace, stream: bool) -> Agent:
    agent = Agent(fresh(workspace), client, MODEL_NAME, config=CompactionConfig.seed(),
                  echo=None, new_id=seeded_ids())
    agent.stream = stream
    agent.ask(tasks.COMPARE_CODE)
    return agent


@pytest.mark.slow
@pytest.mark.parametrize("recorded_streamed, replayed_streamed", [
    (False, False), (True, True), (False, True)])
def test_a_recorded_run_is_replayed_through_the_sdk(tmp_path, recorded_streamed, replayed_streamed):
    cassette = tmp_path / "run.cassette.json"
    with offline_model() as (_, client):
        recording, recorder = recording_client(client, cassette, today="2026-12-01")
        live = run(recording, tmp_path / "workspace", recorded_streamed)
    assert len(recorder.exchanges) == live.model_calls + 1          # + the summary call (seed)
    with start_offline_server(cassette=cassette) as server:
        with offline_client(server.base_url, max_retries=0) as client:
            again = run(client, tmp_path / "workspace", replayed_streamed)
        assert [r["status"] for r in server.requests] == [200] * len(recorder.exchanges)
    assert again.answer == live.answer and again.messages == live.messages
    assert again.usage == live.usage


def test_a_request_the_cassette_does_not_hold_is_a_400_naming_the_difference(tmp_path):
    cassette = tmp_path / "run.cassette.json"
    with offline_model() as (_, client):
        recording, _ = recording_client(client, cassette)
        run(recording, tmp_path / "workspace", False)
    with start_offline_server(cassette=cassette) as server, \
            offline_client(server.base_url, max_retries=0) as client:
        agent = Agent(fresh(tmp_path / "workspace"), client, MODEL_NAME, echo=None,
                      config=CompactionConfig.seed(), new_id=seeded_ids())
        with pytest.raises(anthropic.BadRequestError) as caught:
            agent.ask(tasks.TITLES)
    assert caught.value.body["error"]["message"] == (
        f"not in the cassette run.cassette.json: request 1 of {len(Cassette.load(cassette).exchanges)} "
        f"differs at body.messages[0].content: recorded {json.dumps(tasks.COMPARE_CODE)[:57]}..., "
        f"sent {json.dumps(tasks.TITLES)[:57]}...")


def outputs(nb) -> list:
    return [json.dumps(cell.outputs, sort_keys=True) for cell in nb.cells if cell.cell_type == "code"]


@pytest.mark.slow
def test_the_live_notebook_replays_byte_for_byte_from_its_cassette(tmp_path, monkeypatch):
    builder = load_builder()
    [path] = (ROOT / "notebooks").glob("*_live_agent.ipynb")      # 09, the core path's last
    stored = nbformat.read(path, as_version=4)
    cassette = tmp_path / "notebook09.cassette.json"
    monkeypatch.setenv("COMPACT_OFFLINE", "1")
    monkeypatch.setenv("COMPACT_RECORD", str(cassette))
    recorded = builder.execute(copy.deepcopy(stored), "09 recorded")
    monkeypatch.delenv("COMPACT_RECORD")
    monkeypatch.setenv("COMPACT_CASSETTE", str(cassette))
    replayed = builder.execute(copy.deepcopy(stored), "09 replayed")
    # The cell that says which model and which cassette (live_run.page_model) differs by design.
    code = [cell.source for cell in stored.cells if cell.cell_type == "code"]
    model = which = next(i for i, source in enumerate(code) if "page_model(" in source)
    mine = [model]
    assert "replayed from the cassette notebook09.cassette.json" in outputs(replayed)[model]
    assert "replaying the cassette" in outputs(replayed)[which]
    assert "recording every API exchange" in outputs(recorded)[which]
    for index, (a, b, c) in enumerate(zip(outputs(recorded), outputs(replayed), outputs(stored))):
        if index not in mine:
            assert a == b == c, f"code cell {index}"
    assert len(Cassette.load(cassette).exchanges) > 5
