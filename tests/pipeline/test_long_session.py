"""A 120-turn, tool-heavy session replayed turn by turn through both profiles.

Before every model call the agent runs `prepare`, then appends the model's next
turn and its tool results. With the default profile every tool output stays
readable, whole in context or verbatim on disk; with the seed profile some are
gone for good ([Earlier tool result omitted.]).
"""

import json

import pytest

from context_compact import formats, validate_messages
from context_compact.messages import estimate_chars
from tests.helpers import (
    Archive,
    files_under,
    make_compactor,
    replay,
    request_count,
    result_texts,
    tool_heavy_session,
    whole_results,
)

pytestmark = pytest.mark.slow

TURNS = 120


@pytest.fixture(scope="module")
def session():
    chunks = tool_heavy_session(TURNS, seed=8)
    assert sum(len(chunk) for chunk in chunks) > 200
    return chunks


def readable(archive, context):
    """{tool_use_id: full texts} that can still be read, from context or disk."""
    found = {}
    for message in archive.reachable(context):
        for block in json.loads(message)["content"] or []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found.setdefault(block["tool_use_id"], set()).add(block["text"])
    return found


def run(tmp_path, profile, session):
    root = tmp_path / profile
    c = make_compactor(root, profile)

    def check(messages, active):
        validate_messages(messages)
        assert request_count(messages, active) == 1
        assert estimate_chars(messages) <= c.config.context_char_limit

    context, originals, _ = replay(c, session, check)
    archive = Archive(c.store)
    found = readable(archive, context)
    lost = [i for i, text in whole_results(originals).items() if text not in found.get(i, ())]
    return c, root, context, originals, lost


def test_default_profile_loses_no_tool_output(tmp_path, session):
    c, root, context, originals, lost = run(tmp_path, "default", session)
    assert lost == []
    assert Archive(c.store).lost(originals, context) == []
    assert Archive(c.store).dangling(context) == []
    assert sorted(c.store.written) == files_under(root)
    steps = {r.step for r in c.records if r.fired}
    assert {"tool_result_budget", "snip_compact"} <= steps   # step 2 archives in one call (flaw 17)


def test_seed_profile_loses_some(tmp_path, session):
    c, root, context, originals, lost = run(tmp_path, "seed", session)
    assert len(lost) >= 10
    shrunk = result_texts(context)
    assert Archive(c.store).dangling(context) == []
    # What is lost was turned into the placeholder that has no copy anywhere.
    all_saved_texts = [(root / p).read_text(encoding="utf-8") for p in c.store.written
                       if p.startswith(".task_outputs")]
    texts = whole_results(originals)
    assert not any(texts[i] in all_saved_texts for i in lost)
    assert formats.OMITTED in shrunk or any(r.step == "compact_history" and r.fired for r in c.records)


def test_the_default_profile_pays_for_fewer_summaries(tmp_path, session):
    seed = run(tmp_path, "seed", session)[0]
    default = run(tmp_path, "default", session)[0]
    calls = {name: sum(r.model_calls for r in c.records) for name, c in
             (("seed", seed), ("default", default))}
    # The default archives instead (flaw 17: one transcript per compaction, no model call).
    assert calls["default"] < calls["seed"]
