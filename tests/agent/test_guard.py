"""The guard against compaction that makes no progress (context_compact/guard.py, issue 41).

The reported case: `context_char_limit` below one file's preview. Every call
saved the file, summarized, and the model read the file again: 15 calls, 14
summaries, no answer (3fdc176). With the guard, the course's agent and the
recipe stop at the third summary with an error that names the setting, what
fills the context, and what to raise.
"""

import shutil
from pathlib import Path

import pytest

from compact_course.agent import tasks
from compact_course.agent.loop import Agent
from compact_course.offline import MODEL_NAME
from context_compact import CompactionConfig, CompactionGuard, ContextCompactor, NoProgress
from context_compact.messages import estimate_chars
from context_compact.store import seeded_ids
from tests.agent.test_recipe import recipe
from tests.helpers import body, call, offline_model, pairs_history, short_summary

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("no_network")
BELOW_A_PREVIEW = 1_500   # a saved result keeps a 2,000-character preview in context


def workspace(tmp_path) -> Path:
    folder = tmp_path / "ws"
    shutil.copytree(ROOT / "data" / "workspace", folder)
    return folder


def assert_names_the_way_out(error: NoProgress, compactor) -> None:
    text = str(error)
    assert "3 summaries within the last 5 calls" in text
    assert f"context_char_limit={BELOW_A_PREVIEW:,} characters" in text
    assert "Raise context_char_limit above " in text and "preview_chars=2,000" in text
    # What fills it: the file read again after each summary, by its tool_use id.
    saved = [r for r in compactor.records if r.step in ("tool_result_budget", "persist_largest")
             and r.files]
    assert saved and "tool_result 'toolu_" in text


def test_the_agent_stops_at_the_third_summary(tmp_path):
    with offline_model() as (server, client):
        agent = Agent(workspace(tmp_path), client, MODEL_NAME, echo=None, max_turns=15,
                      config=CompactionConfig(context_char_limit=BELOW_A_PREVIEW))
        with pytest.raises(NoProgress) as caught:
            agent.ask(tasks.EN["COMPARE_CODE"])
    summaries = [r for r in agent.compactor.records if r.model_calls]
    assert len(summaries) == 3 and agent.model_calls <= 3   # at 3fdc176: 15 calls, 14 summaries
    assert_names_the_way_out(caught.value, agent.compactor)


def test_the_recipe_stops_at_the_third_summary(tmp_path):
    loop, folder = recipe(), workspace(tmp_path)
    with offline_model() as (server, client):
        compactor = loop.make_compactor(folder, client, MODEL_NAME,
                                        CompactionConfig(context_char_limit=BELOW_A_PREVIEW),
                                        seeded_ids())
        with pytest.raises(NoProgress) as caught:
            loop.ask(client, MODEL_NAME, compactor, [], tasks.EN["COMPARE_CODE"], folder)
        assert len(server.requests) <= 6   # 3 answers asked for, 3 summaries
    assert_names_the_way_out(caught.value, compactor)


def test_a_session_that_compacts_now_and_then_runs_on(tmp_path):
    """One summary every few calls is progress: the guard stays silent for 40 calls."""
    config = CompactionConfig(context_char_limit=6_000, snip_target_messages=20)
    compactor = ContextCompactor(tmp_path, short_summary, config, new_id=seeded_ids())
    guard, messages = CompactionGuard(compactor), pairs_history(0)
    for n in range(40):
        messages = guard.prepare(messages, "Fix the failing test.")
        messages += call({f"toolu_{n:03d}": body(f"toolu_{n:03d}", 1_500 if n % 4 else 9_000)})
    assert sum(1 for r in compactor.records if r.model_calls) >= 3


def test_a_token_limit_is_the_setting_named(tmp_path):
    def measure(messages):   # a stand-in token measure: a quarter of the characters
        return estimate_chars(messages) // 4
    measure.unit = "tokens"
    config = CompactionConfig(context_token_limit=50)
    compactor = ContextCompactor(tmp_path, short_summary, config, measure=measure)
    guard = CompactionGuard(compactor, max_summaries=2, within_calls=2)
    messages = pairs_history(3, size=400)
    with pytest.raises(NoProgress, match=r"context_token_limit=50 tokens.*Raise context_token_limit"):
        for _ in range(3):
            messages = guard.prepare(messages, "Fix the failing test.") + call({"toolu_9": "x"})


def test_the_numbers_are_checked():
    with pytest.raises(ValueError, match="max_summaries"):
        CompactionGuard(None, max_summaries=6, within_calls=5)
