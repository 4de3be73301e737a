"""A reply cut at the window: `stop_reason` "model_context_window_exceeded", through the SDK.

The offline server cuts a reply where the window ends when the prompt fits and the
reply does not (compact_course/offline/api/window.py). `reactive_compact`, the agent loop
and examples/own_loop.py take such a reply as a sign to compact and ask again, not
as an answer.
"""

import pytest

from compact_course.agent.loop import CACHE_CONTROL, SYSTEM, Agent
from compact_course.agent.tools import TOOLS
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.window import STOP_REASON
from compact_course.offline.model.extractive import extractive_summary
from context_compact import CompactionConfig, ContextCompactor, hit_the_window
from context_compact.store import seeded_ids
from tests.agent.test_agent import lessons_workspace
from tests.agent.test_recipe import recipe
from tests.helpers import offline_model

pytestmark = pytest.mark.usefixtures("no_network")
QUESTION = "What is the first-level title of s01_agent_loop/README.md?"
FILLER = "An old note about an earlier task, no longer needed. " * 400   # about 5,300 tokens


def history() -> list:
    """An earlier task, long, then nothing pending: room a summary can free."""
    return [{"role": "user", "content": "Tell me about the old task."},
            {"role": "assistant", "content": [{"type": "text", "text": FILLER}]}]


def tight(client, server, messages, room: int = 3, **extra) -> None:
    """Set the window so the prompt fits with `room` tokens to spare."""
    counted = client.messages.count_tokens(model=MODEL_NAME, messages=messages, **extra).input_tokens
    server.window = counted + room


def test_a_reply_that_does_not_fit_is_cut_with_the_apis_stop_reason():
    messages = [*history(), {"role": "user", "content": QUESTION}]
    with offline_model() as (server, client):
        whole = client.messages.create(model=MODEL_NAME, max_tokens=1000, messages=messages)
        assert whole.stop_reason != STOP_REASON and not hit_the_window(whole)
        tight(client, server, messages)
        cut = client.messages.create(model=MODEL_NAME, max_tokens=1000, messages=messages)
    assert cut.stop_reason == "model_context_window_exceeded" == STOP_REASON and hit_the_window(cut)
    assert cut.usage.output_tokens <= 3 < whole.usage.output_tokens
    assert hit_the_window(cut.model_dump()) and not hit_the_window({"stop_reason": "end_turn"})


def test_reactive_compact_makes_room_for_the_reply(tmp_path):
    messages = [*history(), {"role": "user", "content": QUESTION}]
    with offline_model() as (server, client):
        tight(client, server, messages, room=10)
        first = client.messages.create(model=MODEL_NAME, max_tokens=1000, messages=messages)
        assert hit_the_window(first)
        # The summary comes from the offline extractive summarizer: no model call, no window.
        compactor = ContextCompactor(tmp_path, extractive_summary, new_id=seeded_ids())
        smaller = compactor.reactive_compact(messages, QUESTION)
        again = client.messages.create(model=MODEL_NAME, max_tokens=1000, messages=smaller)
    assert not hit_the_window(again) and again.content


def test_the_agent_compacts_and_goes_on(tmp_path):
    workspace = lessons_workspace(tmp_path / "ws")
    lines = []
    with offline_model() as (server, client):
        agent = Agent(workspace, client, MODEL_NAME, config=CompactionConfig(), echo=lines.append,
                      new_id=seeded_ids())
        agent.messages.extend(history())
        pending = [*agent.messages, {"role": "user", "content": QUESTION}]
        tight(client, server, pending, room=10, system=SYSTEM, tools=TOOLS, cache_control=CACHE_CONTROL)
        answer = agent.ask(QUESTION)
    assert "[reactive compact: the reply hit the window]" in lines and agent.reactive_compactions == 1
    assert "# s01: Lesson 1 - Subtitle 1" in answer


def test_the_recipe_compacts_and_goes_on(tmp_path):
    loop = recipe()
    workspace = lessons_workspace(tmp_path / "ws")
    with offline_model() as (server, client):
        compactor = loop.make_compactor(workspace, client, MODEL_NAME, CompactionConfig(), seeded_ids())
        messages = history()
        pending = [*messages, {"role": "user", "content": QUESTION}]
        tight(client, server, pending, room=10, system=loop.SYSTEM, tools=TOOLS)
        answer = loop.ask(client, MODEL_NAME, compactor, messages, QUESTION, workspace)
    assert any(r.step == "reactive_compact" and r.fired for r in compactor.records)
    assert "# s01: Lesson 1 - Subtitle 1" in answer
