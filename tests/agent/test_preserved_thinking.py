"""Preserved thinking, through the real SDK against the offline server (issue 42).

Each thinking block the server writes is bound to its model and its prefix (SPEC 9;
compact_course/offline/api/binding.py): an unchanged prefix is accepted; a shortened earlier
tool_result or a changed system is the documented 400; `drop_block` with the beta
header drops the failing block and every later one and lists them in
`input_transformations` (plain and streamed); `block_binding` without the header is
refused; a tampered signature is the other 400; blocks removed from the front are
fine; a model that cannot read a block drops it in silence. And a tool loop with
thinking on (the course's agent, the recipe) gets no prefix 400 with the default
profile in front while its steps act; the article's profile gets one.
"""

import copy
import itertools

import anthropic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compact_course.agent import tasks
from compact_course.agent.loop import THINKING, Agent
from compact_course.agent.tools import TOOLS
from compact_course.bench import probe, tables
from compact_course.bench.benchmark import run_session
from compact_course.bench.simulated import make_session
from compact_course.lessons import thinking_lab
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.binding import BETA
from context_compact.config import CompactionConfig
from context_compact.messages import to_plain
from context_compact.store import seeded_ids
from tests.agent.test_agent import lessons_workspace
from tests.agent.test_recipe import recipe
from tests.helpers import offline_model
from tests.offline.test_context_management import COMPACT, history
from tests.pipeline import test_invariants as inv

pytestmark = pytest.mark.usefixtures("no_network")

THINK = {"type": "enabled", "budget_tokens": 2000}
DROP = {**THINK, "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
SYSTEM = "You are a coding agent working in a workspace folder."
BOUND = "The block is bound to a different conversation."


@pytest.fixture(scope="module")
def model():
    with offline_model() as pair:
        yield pair


def ask(client, messages, thinking=THINK, system=SYSTEM, betas=None, model=MODEL_NAME, tools=TOOLS,
        **extra):
    request = dict(model=model, max_tokens=4000, system=system, tools=tools, messages=messages,
                   thinking=thinking, **extra)
    if betas is None:
        return client.messages.create(**request)
    return client.beta.messages.create(betas=betas, **request)


def session(client, turns: int = 3, model=MODEL_NAME) -> list:
    """A tool loop with thinking on: each assistant turn sent back exactly as received."""
    messages = [{"role": "user", "content": "What is the title of README.md? Read it."}]
    for n in range(turns):
        reply = ask(client, messages, model=model)
        assert reply.content[0].type == "thinking"
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True)
                                                          for b in reply.content]})
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses:
            messages.append({"role": "user", "content": f"Thanks. One more look, turn {n}."})
            continue
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": use.id, "content": f"# Title {n}\n" + "line\n" * 200}
            for use in uses]})
    return messages


shortened = thinking_lab.shrink_result   # step 3's edit of one message, in place


def thinking_at(messages) -> list[str]:
    return [f"messages.{i}.content.{j}" for i, m in enumerate(messages) if isinstance(m["content"], list)
            for j, b in enumerate(m["content"]) if b.get("type") in ("thinking", "redacted_thinking")]


def refused(call) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        call()
    assert caught.value.status_code == 400
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    return caught.value.body["error"]["message"]


def test_an_unchanged_prefix_is_accepted_and_cache_control_max_tokens_tool_choice_are_no_part_of_it(model):
    _, client = model
    messages = session(client)
    assert len(thinking_at(messages)) == 3
    assert ask(client, messages).content
    # Parameters outside the prefix may change; so may cache_control markers.
    marked = [*messages[:-1], {**messages[-1], "content": [{**messages[-1]["content"][0],
                                                            "cache_control": {"type": "ephemeral"}}]}]
    assert ask(client, marked, metadata={"user_id": "u1"}, tool_choice={"type": "auto"},
               cache_control={"type": "ephemeral"}).content


def test_a_shortened_earlier_tool_result_is_the_documented_400(model):
    _, client = model
    messages = session(client)
    message = refused(lambda: ask(client, shortened(messages, 2)))
    # The first block after the edit is named: message 3's thinking block.
    assert message.startswith("messages.3.content.0: Invalid `signature` in `thinking` block. " + BOUND)
    assert "prefix_mismatch_behavior` to \"drop_block\"" in message and BETA in message


def test_a_changed_system_is_the_documented_400_naming_the_first_block(model):
    _, client = model
    messages = session(client)
    message = refused(lambda: ask(client, messages, system=SYSTEM + " Be brief."))
    assert message.startswith("messages.1.content.0: Invalid `signature` in `thinking` block. " + BOUND)
    # With the beta header the sentence about the header is not added.
    message = refused(lambda: ask(client, messages, system=SYSTEM + " Be brief.", betas=[BETA]))
    assert BOUND in message and BETA not in message
    assert "messages.1.content.0" in refused(lambda: ask(client, messages, tools=TOOLS[:-1]))


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_drop_block_with_the_header_drops_the_failing_block_and_every_later_one(model, stream):
    _, client = model
    messages = session(client)
    edited = shortened(messages, 2)
    request = dict(model=MODEL_NAME, max_tokens=4000, system=SYSTEM, tools=TOOLS, messages=edited,
                   thinking=DROP, betas=[BETA])
    if stream:
        with client.beta.messages.stream(**request) as events:
            first = next(iter(events))
            assert first.type == "message_start"
            started = first.message.input_transformations
            reply = events.get_final_message()
        assert [t.path for t in started] == ["messages.3.content.0", "messages.5.content.0"]
    else:
        reply = client.beta.messages.create(**request)
    assert [(t.type, t.path, t.reason) for t in reply.input_transformations] == [
        ("thinking_dropped", "messages.3.content.0", "prefix_binding_mismatch"),
        ("thinking_dropped", "messages.5.content.0", "prefix_binding_mismatch")]
    assert reply.content[0].type == "thinking"
    # The header alone, nothing to report: an empty list (what CI should see).
    assert client.beta.messages.create(**{**request, "messages": messages}).input_transformations == []


def test_block_binding_without_the_header_is_refused(model):
    _, client = model
    message = refused(lambda: ask(client, [{"role": "user", "content": "Hello?"}], thinking=DROP))
    assert "thinking.block_binding" in message and BETA in message


def test_a_tampered_signature_is_the_other_400_even_with_drop_block(model):
    _, client = model
    messages = session(client, turns=2)
    block = messages[1]["content"][0]
    for change in ({"signature": block["signature"][:-1] + ("0" if block["signature"][-1] != "0" else "1")},
                   {"thinking": block["thinking"] + " (edited)"}):
        forged = [messages[0], {**messages[1], "content": [{**block, **change}, *messages[1]["content"][1:]]},
                  *messages[2:]]
        for extra in ({}, {"thinking": DROP, "betas": [BETA]}):
            message = refused(lambda: ask(client, forged, **extra))  # noqa: B023 - called at once
            assert message == "messages.1.content.0: Invalid `signature` in `thinking` block"


def test_thinking_blocks_may_go_from_the_front_oldest_first_not_from_the_middle(model):
    _, client = model
    messages = session(client)

    def without(*indexes):
        return [{**m, "content": [b for b in m["content"] if b.get("type") != "thinking"]}
                if i in indexes else m for i, m in enumerate(messages)]

    assert ask(client, without(1)).content
    assert ask(client, without(1, 3)).content
    assert refused(lambda: ask(client, without(3))).startswith("messages.5.content.0: ")


def test_a_model_that_cannot_read_a_block_drops_it_without_an_error(model):
    _, client = model
    messages = session(client, turns=2, model="claude-fable-5-1")   # the docs' example models
    assert ask(client, messages, model="claude-fable-5-1").content
    reply = ask(client, messages, model="claude-opus-5", thinking=DROP, betas=[BETA])
    assert {t.reason for t in reply.input_transformations} == {"model_binding_mismatch"}
    assert ask(client, messages, model="claude-opus-5").content   # silently, without the header


# -- a tool loop with thinking on: the default profile in front, and the article's --------

def agent_run(tmp_path, profile: str, **config):
    """The course's agent, thinking on, on the five-README task; (agent, the 400 or None)."""
    with offline_model() as (_, client):
        return thinking_lab.agent_session(client, lessons_workspace(tmp_path / profile), profile, **config)


def acted(agent) -> list:
    return [r for r in agent.compactor.records if r.fired]


def test_the_default_profile_keeps_every_thinking_block_valid_while_its_steps_act(tmp_path):
    agent, refusal = agent_run(tmp_path, "default", context_char_limit=12_000)
    assert refusal is None and "s05_todo_write" in agent.answer
    steps = acted(agent)
    assert [r.step for r in steps] == ["compact_history"]   # it acted, whole, and said what it cost
    (record,) = steps
    assert record.thinking_dropped >= 3 and record.thinking_invalidated == 0
    assert record.cache_restart_at == 0
    # Every step record of the session: no thinking block left behind an edit.
    assert all(r.thinking_invalidated == 0 for r in agent.compactor.records)


def test_the_articles_profile_meets_the_prefix_400_in_the_same_loop(tmp_path):
    agent, refusal = agent_run(tmp_path, "seed")
    assert refusal is not None and BOUND in refusal
    assert refusal.startswith("messages.") and ".content.0: Invalid `signature`" in refusal
    micro = [r for r in acted(agent) if r.step == "micro_compact"]
    assert micro and micro[-1].thinking_invalidated >= 1 and micro[-1].cache_restart_at is not None


def test_the_agent_sends_thinking_blocks_back_as_received_and_never_sets_tool_choice(tmp_path):
    sent = []

    class Recording:
        def __init__(self, client):
            self.messages = self
            self._client = client

        def create(self, **request):
            sent.append(copy.deepcopy(request))
            return self._client.messages.create(**request)

    workspace = lessons_workspace(tmp_path / "ws")
    with offline_model() as (_, client):
        agent = Agent(workspace, Recording(client), MODEL_NAME, echo=None, new_id=seeded_ids(),
                      thinking=THINKING)
        agent.ask(tasks.task_text("titles"))
    assert len(sent) >= 3 and all("tool_choice" not in r and r["thinking"] == THINKING for r in sent)
    replies = [m for m in agent.messages if m["role"] == "assistant"]
    assert all(m["content"][0]["type"] == "thinking" and m["content"][0]["signature"] for m in replies)


def test_the_recipe_runs_with_thinking_on(tmp_path):
    loop = recipe()
    workspace = lessons_workspace(tmp_path / "ws")
    with offline_model() as (_, client):
        compactor = loop.make_compactor(workspace, client, MODEL_NAME,
                                        CompactionConfig(context_char_limit=12_000), seeded_ids())
        messages = []
        answer = loop.ask(client, MODEL_NAME, compactor, messages, tasks.task_text("titles"), workspace,
                          thinking=THINKING)
    assert "s05_todo_write" in answer
    assert [r.step for r in compactor.records if r.fired] == ["compact_history"]


def test_with_server_side_compaction_the_prefix_starts_at_the_compaction_block(model):
    _, client = model
    reply = compacted(client, history(30))
    assert [b.type for b in reply.content][:2] == ["compaction", "thinking"]
    kept = [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]},
            {"role": "user", "content": "Go on."}]
    assert compacted(client, kept).content     # the 30 turns it replaced are no part of it
    assert BOUND in refused(lambda: compacted(client, kept, system="Another system."))


def compacted(client, messages, **extra):
    return client.beta.messages.create(
        model=MODEL_NAME, max_tokens=4000, messages=messages, thinking=THINK, betas=[COMPACT],
        context_management={"edits": [{"type": "compact_20260112",
                                       "trigger": {"type": "input_tokens", "value": 50_000}}]}, **extra)


# -- the bench and probe with thinking on ---------------------------------------------------

def test_the_bench_counts_the_thinking_blocks_each_design_invalidates():
    session = make_session("tool-heavy", 60, 0)
    rows = {design: run_session(session, design, thinking=True) for design in ("seed", "default")}
    assert rows["seed"]["thinking_invalid"] > 0 and rows["default"]["thinking_invalid"] == 0
    assert run_session(session, "default")["thinking_invalid"] is None
    table = tables.format_table(list(rows.values()), columns=("design", "lost", "missed", "thinking"))
    assert f"{rows['seed']['thinking_invalid']}/60" in table and "0/60" in table
    assert "thinking" not in tables.STABLE_COLUMNS   # a column of its own, as the probes' is


def test_probe_with_thinking_says_what_each_design_invalidates(capsys):
    assert probe.main(["--bench", "tool-heavy", "--turns", "40", "--no-ask", "--end", "--thinking",
                       "--designs", "seed", "default"]) == 0
    out = capsys.readouterr().out
    seed_line = next(line for line in out.splitlines() if line.startswith("seed:"))
    assert int(seed_line.rsplit(": ", 1)[1]) > 0
    assert "default: " in out and out.split("default: ", 1)[1].splitlines()[0].endswith("invalid: 0")


# -- lab 06's prediction ------------------------------------------------------------------

def test_lab_06s_checker_passes_the_servers_own_paths_and_names_the_two_slips(capsys):
    from compact_course.lessons import exercises as ex
    from compact_course.lessons.exercises import dropped as exercise
    expected = exercise.expected()
    assert expected["remove the two oldest thinking blocks"] == []
    assert expected["shrink messages.4"] == ["messages.5.content.0", "messages.7.content.0",
                                             "messages.9.content.0"]
    assert ex.check_dropped_paths(expected).ok
    assert not ex.check_dropped_paths(None).attempted
    first_only = {**expected, "shrink messages.4": ["messages.5.content.0"]}
    assert ex.check_dropped_paths(first_only).passed == 2
    ex.hint()
    assert "every later thinking block goes too" in capsys.readouterr().out


# -- the default profile is append-only while thinking is live: a property ---------------

@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_with_thinking_the_default_only_appends_shrinks_the_newest_batch_or_compacts_whole(tmp_path_factory,
                                                                                            data):
    chunks, _, _, c, check = inv.new_case(data, "default", tmp_path_factory.mktemp("thinking"))
    made = itertools.count(1)
    thinking_on = [[{**m, "content": [{"type": "thinking", "thinking": f"step {next(made)}",
                                       "signature": f"sig-{next(made)}"}, *to_plain(m["content"])]}
                    if m["role"] == "assistant" and isinstance(m["content"], list) else m for m in chunk]
                   for chunk in chunks]
    messages = []
    for chunk in thinking_on:
        sent = messages + chunk
        check.originals = check.originals + chunk
        messages = c.prepare(sent, inv.active_request(check.originals))
        check(messages, inv.active_request(check.originals))                # pairs, request once, lossless
        plain = to_plain(sent)
        whole = not any(b.get("type") == "thinking" for m in messages if isinstance(m["content"], list)
                        for b in m["content"])
        # Everything but the newest message as it was sent, or a compaction that kept no thinking.
        assert messages[:-1] == plain[:-1] or (whole and c.records[-1].thinking_invalidated == 0), \
            [r.step for r in c.records[-6:] if r.fired]
    assert all(r.thinking_invalidated == 0 for r in c.records)


def test_with_thinking_on_a_forced_tool_choice_is_refused_and_auto_is_not(model):
    _, client = model
    question = [{"role": "user", "content": "What is the title of README.md?"}]
    for forced in ({"type": "any"}, {"type": "tool", "name": "read_file"}):
        assert "tool_choice" in refused(lambda: ask(client, question, tool_choice=forced))  # noqa: B023
        assert ask(client, question, thinking={"type": "disabled"}, tool_choice=forced).content  # noqa: B023
    assert ask(client, question, tool_choice={"type": "auto"}).content
