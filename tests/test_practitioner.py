"""What a practitioner's own agent takes from `compact` (issue 51).

A compactor is refused
when it is made without a way to summarize (at a854c46 it was made, and failed only at the
first call over the limit, maybe hours into a session). The pipeline's validator refuses
empty content as the API does (at a854c46 it took it, and the API refused the request).
"""

import pytest

from compact import CompactionConfig, ContextCompactor, MessageFormatError, validate_messages
from workbench.offline.api import rules

from .helpers import pairs_history, short_summary, user
from .test_seed_formats import FakeClient


def test_a_compactor_with_no_way_to_summarize_is_refused_when_it_is_made(tmp_path):
    with pytest.raises(ValueError, match=r"needs summarizer= .*or client= and model="):
        ContextCompactor(tmp_path)
    with pytest.raises(ValueError, match="this client has no model name"):
        ContextCompactor(tmp_path, client=FakeClient())
    assert list(tmp_path.iterdir()) == []
    client = FakeClient()   # a client and a model still make the summarizer
    compactor = ContextCompactor(tmp_path, client=client, model="m",
                                 config=CompactionConfig(context_char_limit=500))
    out = compactor.prepare(pairs_history(3), "x")
    assert out[0]["content"].startswith("[Compacted]") and client.kwargs["model"] == "m"


@pytest.mark.parametrize("messages, where", [
    ([user("go"), {"role": "assistant", "content": []}, user("go on")], 1),
    ([user("go"), {"role": "assistant", "content": ""}, user("go on")], 1),
    ([{"role": "user", "content": []}], 0),
    ([user("go"), {"role": "assistant", "content": "ok"}, {"role": "user", "content": ""}], 2),
])
def test_empty_content_is_refused_as_the_api_refuses_it(tmp_path, messages, where):
    with pytest.raises(MessageFormatError, match=rf"messages\[{where}\] has empty content"):
        validate_messages(messages)
    with pytest.raises(rules.RequestError,
                       match=rf"messages.{where}: all messages must have non-empty content"):
        rules.check_message(where, messages[where], last=where == len(messages) - 1)


def test_only_a_last_assistant_message_may_be_empty_and_a_later_call_sees_it_is_no_longer_last(tmp_path):
    compactor = ContextCompactor(tmp_path, short_summary)
    prefill = [user("go"), {"role": "assistant", "content": []}]
    assert compactor.prepare(prefill, "go") == prefill   # the API takes it too: a final assistant turn
    with pytest.raises(MessageFormatError, match=r"messages\[1\] has empty content"):
        compactor.prepare([*prefill, user("go on")], "go on")   # unchanged, and no longer last
