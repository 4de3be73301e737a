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


def test_a_retry_is_a_call_of_its_own_and_the_cap_keeps_summaries_in_the_window(overflow):
    # What 06 says where it first numbers calls: "call 2 is call 1's retry", and its settings
    # let requests outgrow the window "but not summary calls".
    history, model = overflow
    agent = model.agent(CompactionConfig(summary_input_char_limit=20_000, persist_oversized=False))
    agent.messages = copy.deepcopy(history["messages"])
    with pytest.raises(anthropic.BadRequestError):
        agent.loop(history["active_request"])
    steps = [(r.call, r.step) for r in agent.compactor.records]
    after_first = steps[steps.index((1, "reactive_compact")) + 1]
    assert after_first == (2, "tool_result_budget")   # the retry's prepare: call 2
    assert [call for call, step in steps if step == "reactive_compact"] == [1, 3]
    assert agent.model_calls == 4 and model.answers() == [400, 200, 200, 400, 200, 400]
    # The summarizer's default cap (80,000 characters) would send a summary over the window.
    uncapped = model.agent(CompactionConfig(persist_oversized=False))
    assert uncapped.config.summary_input_char_limit > 20_000
    uncapped.messages = copy.deepcopy(history["messages"])
    with pytest.raises(anthropic.BadRequestError):
        uncapped.loop(history["active_request"])
    assert uncapped.model_calls == 1 and model.answers() == [400, 400]   # the summary refused
