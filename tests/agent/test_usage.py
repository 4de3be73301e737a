"""The offline model's `usage` (compact_course/offline/api/usage.py) and the agent's report of it.

The three input counts add up to `count_tokens`; a breakpoint writes its prefix
once and the next request reads it; a prefix under the minimum, or more than 20
blocks back from every breakpoint, is never read; a fifth breakpoint is refused;
1-hour writes are reported as such; an entry lives 5 minutes from its last use;
`python -m compact_course run` prints one usage line per model call.
"""

import shutil
from pathlib import Path

import anthropic
import pytest

from compact_course.agent import tasks
from compact_course.agent.loop import Agent, main_run
from compact_course.agent.usage import FIELDS, total, usage_line, usage_of
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.usage import (
    LOOKBACK,
    MIN_CACHEABLE,
    MINIMUM_TOKENS,
    PromptCache,
    minimum_for,
    request_blocks,
)
from context_compact import CompactionConfig
from context_compact.store import seeded_ids
from tests.helpers import offline_model

pytestmark = pytest.mark.usefixtures("no_network")
SAMPLE = Path(__file__).resolve().parents[2] / "data" / "workspace"
LONG = "The same long opening text, read on every call. " * 120   # ~1,450 tokens


def turns(n: int, opening: str = LONG) -> list:
    messages = [{"role": "user", "content": opening}]
    for k in range(n):
        messages += [{"role": "assistant", "content": f"answer {k}"},
                     {"role": "user", "content": f"question {k + 1}"}]
    return messages


def create(client, messages, **extra):
    return client.messages.create(model=MODEL_NAME, max_tokens=100, messages=messages, **extra)


def test_usage_has_the_apis_fields_and_adds_up_to_count_tokens():
    with offline_model() as (_, client):
        for extra in ({}, {"cache_control": {"type": "ephemeral"}}):
            messages = turns(2)
            reply = create(client, messages, **extra)
            counted = client.messages.count_tokens(model=MODEL_NAME, messages=messages).input_tokens
            usage = reply.usage
            assert usage.input_tokens + usage.cache_creation_input_tokens \
                + usage.cache_read_input_tokens == counted
            assert usage.output_tokens > 0


def test_no_breakpoint_no_cache():
    with offline_model() as (_, client):
        for _ in range(2):
            usage = create(client, turns(3)).usage
            assert usage.cache_creation_input_tokens == usage.cache_read_input_tokens == 0


def test_a_breakpoint_writes_once_and_the_next_request_reads_it():
    auto = {"cache_control": {"type": "ephemeral"}}
    with offline_model() as (_, client):
        first = create(client, turns(1), **auto).usage
        again = create(client, turns(1), **auto).usage
        longer = create(client, turns(2), **auto).usage
    assert first.cache_read_input_tokens == 0 and first.cache_creation_input_tokens > MIN_CACHEABLE
    assert first.cache_creation.ephemeral_5m_input_tokens == first.cache_creation_input_tokens
    # The same request again: all of it read, nothing written.
    assert again.cache_read_input_tokens == first.cache_creation_input_tokens
    assert again.cache_creation_input_tokens == 0
    # One more turn: the old prefix read, only the new turn written.
    assert longer.cache_read_input_tokens == first.cache_creation_input_tokens
    assert 0 < longer.cache_creation_input_tokens < 50  # two short messages


def test_a_block_breakpoint_caches_the_system_prompt_and_tools():
    system = [{"type": "text", "text": LONG, "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    with offline_model() as (_, client):
        first = create(client, turns(0, "Hi."), system=system).usage
        second = create(client, turns(1, "Hi."), system=system).usage
    assert first.cache_creation.ephemeral_1h_input_tokens == first.cache_creation_input_tokens > 0
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens == 0


def test_short_prefixes_and_far_ones_are_not_read():
    cache = PromptCache()
    auto = {"cache_control": {"type": "ephemeral"}}
    short = {"messages": turns(1, "A short opening."), **auto}
    assert cache.usage(short, [])["cache_creation_input_tokens"] == 0
    assert cache.usage(short, [])["cache_read_input_tokens"] == 0
    cache.usage({"messages": turns(1), **auto}, [])
    # 2 blocks a turn (the role and the text): 11 more turns put the old prefix 22 blocks back.
    far = {"messages": turns(12), **auto}
    assert len(request_blocks(far)) - len(request_blocks({"messages": turns(1)})) > LOOKBACK
    assert cache.usage(far, [])["cache_read_input_tokens"] == 0


AUTO = {"cache_control": {"type": "ephemeral"}}


class Clock:
    """The server's clock in a test: seconds, moved by hand."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_under_the_models_minimum_nothing_is_cached_through_the_sdk():
    short = turns(1, "A short opening.")
    with offline_model() as (_, client):
        for _ in range(2):
            usage = create(client, short, **AUTO).usage
            assert usage.cache_creation_input_tokens == usage.cache_read_input_tokens == 0
    # The minimum depends on the model: a dated id takes its family's row.
    assert minimum_for("claude-opus-4-5-20251101") == MINIMUM_TOKENS["claude-opus-4-5"] == 4096
    assert minimum_for("claude-opus-5") == 512
    assert minimum_for("offline-s08") == MIN_CACHEABLE == 1024
    cache = PromptCache()
    request = {"messages": turns(1, "word " * 1000), **AUTO}   # ~1,260 tokens
    assert cache.usage({**request, "model": "claude-opus-4-5"}, [])["cache_creation_input_tokens"] == 0
    assert cache.usage({**request, "model": "claude-sonnet-5"}, [])["cache_creation_input_tokens"] > 0


def blocks(n: int) -> list:
    """One user message of n text blocks, the first long enough to cache."""
    return [{"role": "user", "content": [{"type": "text", "text": LONG if k == 0 else f"block {k}"}
                                         for k in range(n)]}]


@pytest.mark.parametrize("back, reads", [(25, False), (10, True)])
def test_an_entry_is_found_only_within_20_blocks_of_the_breakpoint(back, reads):
    with offline_model() as (_, client):
        first = create(client, blocks(5), **AUTO).usage
        later = create(client, blocks(5 + back), **AUTO).usage
    assert first.cache_creation_input_tokens > MIN_CACHEABLE
    assert (later.cache_read_input_tokens == first.cache_creation_input_tokens) is reads
    assert (later.cache_read_input_tokens == 0) is not reads


def test_a_fifth_breakpoint_is_refused_in_the_apis_words():
    marked = [{"type": "text", "text": f"part {k}", "cache_control": {"type": "ephemeral"}}
              for k in range(5)]
    with offline_model() as (_, client):
        create(client, [{"role": "user", "content": marked[:4]}])   # four: accepted
        with pytest.raises(anthropic.BadRequestError) as refused:
            create(client, [{"role": "user", "content": marked}])
        # The request's own cache_control is one more breakpoint (here on a fresh block).
        with pytest.raises(anthropic.BadRequestError):
            create(client, [{"role": "user", "content": [*marked[:4], {"type": "text", "text": "x"}]}],
                   **AUTO)
    assert refused.value.status_code == 400
    assert refused.value.body["error"]["message"] == \
        "A maximum of 4 blocks with cache_control may be provided. Found 5."


def test_one_hour_writes_are_reported_as_such():
    with offline_model() as (_, client):
        usage = create(client, turns(1), cache_control={"type": "ephemeral", "ttl": "1h"}).usage
    assert usage.cache_creation.ephemeral_1h_input_tokens == usage.cache_creation_input_tokens > 0
    assert usage.cache_creation.ephemeral_5m_input_tokens == 0


def test_an_entry_read_within_5_minutes_lives_on_and_one_left_6_minutes_is_gone():
    clock = Clock()
    with offline_model() as (server, client):
        server.prompt_cache.clock = clock
        written = create(client, turns(1), **AUTO).usage.cache_creation_input_tokens
        for _ in range(3):            # read every 4 minutes: 12 minutes after the write, alive
            clock.now += 4 * 60
            assert create(client, turns(1), **AUTO).usage.cache_read_input_tokens == written
        clock.now += 6 * 60           # left alone 6 minutes: gone, written again
        cold = create(client, turns(1), **AUTO).usage
        assert (cold.cache_read_input_tokens, cold.cache_creation_input_tokens) == (0, written)
        # A 1-hour entry outlives the same pause.
        hour = {"cache_control": {"type": "ephemeral", "ttl": "1h"}}
        long = turns(2)
        create(client, long, **hour)
        clock.now += 50 * 60
        assert create(client, long, **hour).usage.cache_read_input_tokens > 0


def test_usage_of_reads_an_sdk_message_or_a_dict():
    plain = {"usage": {"input_tokens": 3, "output_tokens": 4, "cache_read_input_tokens": None}}
    assert usage_of(plain) == {"input_tokens": 3, "cache_creation_input_tokens": 0,
                               "cache_read_input_tokens": 0, "output_tokens": 4}
    assert usage_line(usage_of(plain)) == ("[usage: input 3, cache write 0, cache read 0, "
                                           "output 4]")
    assert total([usage_of(plain)] * 2)["output_tokens"] == 8


def test_the_agent_keeps_each_calls_usage_and_reads_the_cache(tmp_path):
    workspace = tmp_path / "workspace"
    shutil.copytree(SAMPLE, workspace, ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
    with offline_model() as (_, client):
        agent = Agent(workspace, client, MODEL_NAME, config=CompactionConfig(), echo=None,
                      new_id=seeded_ids())
        agent.ask(tasks.task_text("titles"))
    assert len(agent.usage) == agent.model_calls > 2
    assert all(set(u) == set(FIELDS) for u in agent.usage)
    # Once a request is long enough to cache, each call reads what the previous one wrote.
    wrote = [u["cache_creation_input_tokens"] > 0 for u in agent.usage]
    assert any(wrote)
    for before, now in zip(agent.usage, agent.usage[1:]):
        if before["cache_creation_input_tokens"]:
            assert now["cache_read_input_tokens"] >= before["cache_creation_input_tokens"]


def test_compact_run_prints_a_usage_line_per_call(tmp_path, capsys, monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "MODEL_ID", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    workspace = tmp_path / "workspace"
    shutil.copytree(SAMPLE, workspace, ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
    assert main_run(["titles", "--workspace", str(workspace), "--offline"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("[usage: input ")]
    # One search, five reads and the answer: seven calls, seven lines.
    assert len(lines) == out.count("\n> ") + 1 == 7
