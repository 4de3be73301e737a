"""`prepare` total on what a live agent's list holds (issue 51), beside tests/test_total.py.

Drawn here: images and PDFs with real headers (PNG, GIF, JPEG of any size; PDFs of 1 to 40
pages; images by URL), thinking, a last batch of calls still waiting for its results (a loop
may compact between a reply and its tools), the results that answer it on the next call, and
results whose call is not in the message right before them (orphans).

The waiting batch: at a854c46 step 4 and reactive_compact summarized it with the rest, so the
results that came next answered no call, and the next `prepare` (as the API) refused the list.
Now every entry point keeps it last and whole, the next call with its results is taken, and
the invariants hold (SPEC 4): pairs (the pipeline's rules and the API's), the request visible
exactly once and nothing lost (default profile), stable, contained. An orphan is a list the
API refuses: `prepare` refuses it with a one-line MessageFormatError naming the message,
writes nothing, and takes the next list as if it had never seen it.
"""

import base64
import itertools
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compact import ContextCompactor, MessageFormatError, validate_messages

from .helpers import PROFILES, Archive, files_under, request_count, user
from .test_total import EXAMPLES, assistant_content, check, configs, histories, summarize

REQUEST = "[task 7] Make the build pass and say what changed."


@st.composite
def real_media(draw) -> dict:
    """An image or a PDF whose header the measure reads, the rest of it junk."""
    width, height = draw(st.integers(1, 9000)), draw(st.integers(1, 9000))
    kind = draw(st.sampled_from(["png", "gif", "jpeg", "pdf", "url"]))
    junk = b"\x07" * draw(st.sampled_from([0, 10, 5_000]))
    header = {"png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + width.to_bytes(4, "big") + height.to_bytes(4, "big"),
              "gif": b"GIF89a" + (width % 65536).to_bytes(2, "little")
                     + (height % 65536).to_bytes(2, "little"),
              "jpeg": b"\xff\xd8\xff\xe0\0\x10JFIF" + b"\0" * 9 + b"\xff\xc0\0\x11\x08"
                      + (height % 65536).to_bytes(2, "big") + (width % 65536).to_bytes(2, "big"),
              "pdf": b"%PDF-1.4\n" + b"<</Type /Page>>\n" * (width % 40 + 1)}.get(kind, b"")
    if kind == "url":
        return {"type": "image", "source": {"type": "url", "url": f"https://example.com/{width}.png"}}
    media_type = "application/pdf" if kind == "pdf" else f"image/{kind}"
    return {"type": "document" if kind == "pdf" else "image",
            "source": {"type": "base64", "media_type": media_type,
                       "data": base64.b64encode(header + junk).decode()}}


@st.composite
def waiting_histories(draw) -> list:
    """test_total's histories, real media in some user turns, then the request, then a batch of
    calls (thinking and all) that waits for its results."""
    messages = draw(histories())
    for message in messages:
        if message["role"] == "user" and draw(st.integers(0, 3)) == 0:
            text = message["content"] if isinstance(message["content"], list) else [
                {"type": "text", "text": message["content"] or "."}]
            message["content"] = [*text, draw(real_media())]
    waiting = draw(assistant_content(itertools.count(900), tools=True))
    return [*messages, user(REQUEST), {"role": "assistant", "content": waiting}]


def answers(batch: dict) -> dict:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": b["id"], "content": "done"}
                                        for b in batch["content"] if b["type"] == "tool_use"]}


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=EXAMPLES)
@given(data=st.data())
def test_a_batch_waiting_for_its_results_stays_last_and_its_results_are_taken(profile, data):
    messages = data.draw(waiting_histories())
    config = data.draw(configs(profile))
    with tempfile.TemporaryDirectory() as root:
        compactor = ContextCompactor(root, summarize, config)
        archive, originals = Archive(compactor.store), [*messages, answers(messages[-1])]
        for entry in (compactor.prepare, compactor.reactive_compact, compactor.compact_history):
            out = entry(messages, REQUEST)
            validate_messages(out)
            assert out[-1] == messages[-1], f"{entry.__name__} left the waiting batch out"
            answered = compactor.prepare([*out, originals[-1]], REQUEST)
            check(answered)   # the pipeline's rules and the API's: every result answers its call
            if profile == "default":
                assert request_count(answered, REQUEST) == 1
                assert archive.lost(originals, answered) == []
        written = list(compactor.store.written)
        if profile == "default":   # the seed archives again past 50 messages: flaws 4, 5, 15
            assert compactor.prepare(answered, REQUEST) == answered and compactor.store.written == written
        assert sorted(set(written)) == files_under(root)


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=EXAMPLES)
@given(data=st.data())
def test_a_result_whose_call_is_not_right_before_it_is_refused_in_one_line(profile, data):
    messages = data.draw(histories())
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    at = data.draw(st.sampled_from(users))
    orphan = {"type": "tool_result", "tool_use_id": "toolu_orphan", "content": "a result of no call"}
    content = messages[at]["content"]
    broken = [*messages[:at], {"role": "user", "content": [orphan, *(
        content if isinstance(content, list) else [{"type": "text", "text": content or "."}])]},
              *messages[at + 1:]]
    with tempfile.TemporaryDirectory() as root:
        compactor = ContextCompactor(root, summarize, data.draw(configs(profile)))
        with pytest.raises(MessageFormatError) as caught:
            compactor.prepare(broken, REQUEST)
        assert str(caught.value).startswith(f"messages[{at}].content[0]: tool_result for id 'toolu_orphan'")
        assert "\n" not in str(caught.value) and files_under(root) == []
        check(compactor.prepare(messages, REQUEST))   # the next list, as if the refused one never came
