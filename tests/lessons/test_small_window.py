"""Notebook 06's small window (compact_course/lessons/small_window.py): what each call returns
on the overflow history, against the offline server.

Left out: the notebook's prose (tests/lessons/test_core_notebooks_show_what_they_say.py).
"""

import copy

import anthropic
import pytest

from compact_course.agent.workspace import SAMPLE
from compact_course.lessons.replay import replay
from compact_course.lessons.small_window import SmallWindow
from compact_course.sessions.histories import load_history
from context_compact import CompactionConfig, estimate_chars


@pytest.fixture(scope="module")
def overflow():
    history = load_history("overflow")
    model = SmallWindow(history["window_tokens"])
    yield history, model
    model.server.stop()


def test_the_window_refuses_the_defaults_context_and_not_the_seeds(overflow):
    history, model = overflow
    seed, default = (replay(history, profile=p).after for p in ("seed", "default"))
    assert model.window == 8_000
    assert model.tokens(seed) < model.window < model.tokens(default)
    assert model.ask(seed).stop_reason in {"tool_use", "end_turn"}
    with pytest.raises(anthropic.BadRequestError) as refused:
        model.ask(default)
    assert refused.value.status_code == 400
    assert f"{model.tokens(default)} tokens > 8000 maximum" in refused.value.body["error"]["message"]


def test_the_window_in_characters_is_at_the_messages_own_rate(overflow):
    history, model = overflow
    default = replay(history, profile="default").after
    chars, tokens = estimate_chars(default), model.tokens(default)
    assert model.window_chars(default) == pytest.approx(model.window * chars / tokens)
    assert model.window_chars(default) < chars     # over the window: fewer characters fit


def test_the_agent_works_in_a_fresh_copy_and_its_answers_are_its_own(overflow, capsys):
    history, model = overflow
    model.ask([{"role": "user", "content": "hello"}])     # a request before the agent: not its own
    agent = model.agent(CompactionConfig(summary_input_char_limit=20_000, persist_oversized=False))
    assert agent.workspace != SAMPLE.resolve()
    assert sorted(p.name for p in agent.workspace.iterdir()) == sorted(p.name for p in SAMPLE.iterdir())
    assert agent.config.summary_input_char_limit == 20_000 and not agent.config.persist_oversized
    agent.messages = copy.deepcopy(history["messages"])
    with pytest.raises(anthropic.BadRequestError):
        agent.loop(history["active_request"])
    assert model.answers() == [400, 200, 200, 400, 200, 400]
    echoed = capsys.readouterr().out.splitlines()
    assert echoed == ["[reactive compact]", '> read_file {"path": "logs/test_run.log"}',
                      "[reactive compact]"]
