"""reactive_compact never grows the list (issue 33).

At a tiny window the summary of a short head can be longer than the head: the
retry would be larger than what the API refused, and refused again. The
agent then raises the refusal at once, saying why, and sends nothing more.
"""

import re

import anthropic
import pytest

from compact_course.agent.loop import Agent
from context_compact.config import CompactionConfig
from context_compact.messages import estimate_chars
from context_compact.store import seeded_ids
from tests.agent.test_agent import MODEL_NAME, lessons_workspace, tasks
from tests.helpers import offline_model, sdk_error

pytestmark = pytest.mark.usefixtures("no_network")

GREW = re.compile(r"^reactive_compact would send ([\d,]+) characters, not fewer than the ([\d,]+) "
                  r"the API refused, so it did not retry\. The refusal: .*prompt is too long: "
                  r"\d+ tokens > 3000 maximum")


def test_at_a_tiny_window_the_refusal_is_raised_instead_of_a_larger_retry(tmp_path):
    lines = []
    with offline_model(window=3000) as (offline, client):
        agent = Agent(lessons_workspace(tmp_path), client, MODEL_NAME,
                      config=CompactionConfig.named("default"), echo=lines.append, new_id=seeded_ids())
        with pytest.raises(anthropic.BadRequestError) as caught:
            agent.ask(tasks.task_text("titles"))
        statuses = [r["status"] for r in offline.requests]
    found = GREW.match(caught.value.message)
    assert found, caught.value.message
    sent, refused = (int(n.replace(",", "")) for n in found.groups())
    assert sent >= refused
    # One refusal (then the summary call), and no second request that could only
    # be refused again (before: two refusals).
    assert statuses.count(400) == 1 and statuses[-2:] == [400, 200]
    # Nothing was lost: the agent holds the list that was refused.
    assert estimate_chars(agent.messages) == refused
    assert caught.value.status_code == 400 and isinstance(caught.value.__cause__, anthropic.BadRequestError)


def test_a_smaller_retry_is_returned_and_a_plain_error_gets_a_note():
    from context_compact.reactive import smaller_or_raise
    refusal = sdk_error(400, "prompt is too long: 9 tokens > 5 maximum")
    big, small = [{"role": "user", "content": "x" * 100}], [{"role": "user", "content": "x"}]
    assert smaller_or_raise(refusal, big, small) is small
    with pytest.raises(anthropic.BadRequestError, match="^reactive_compact would send 34 characters, "
                                                        "not fewer than the 34 the API refused"):
        smaller_or_raise(refusal, small, list(small))
    with pytest.raises(RuntimeError) as caught:
        smaller_or_raise(RuntimeError("prompt_too_long"), small, big)
    assert caught.value.__notes__ == ["reactive_compact would send 133 characters, not fewer than "
                                      "the 34 the API refused, so it did not retry"]
