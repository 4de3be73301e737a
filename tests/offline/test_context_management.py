"""The API's own context management on the offline server, through the real SDK.

`clear_tool_uses_20250919` with each knob, `count_tokens` with context management,
`compact_20260112` (trigger, pause, usage.iterations), the compaction block's round
trip and its signature, the block where clients send it back (pydantic-ai's request,
field for field, and the SDK's `to_param()` appended to the history), on-demand
`compaction={"type": "summarize"}`, the SDK's tool runner with
`compact_before_next_turn()`, and every refusal. Each response is also
validated against the SDK's Beta types with pydantic (the SDK itself builds its
objects without validation).
"""

import copy

import anthropic
import pytest
from anthropic import beta_tool
from anthropic.types import (
    CompactionBlockAmbiguousError,
    CompactionBlockMisplacedError,
    CompactionContentMismatchError,
    CompactionIncompleteTurnError,
    CompactionNothingToSummarizeError,
    CompactionSignatureInvalidError,
    CompactionToolChangesMismatchError,
)
from anthropic.types.beta import BetaCompactionBlock, BetaMessage, BetaMessageTokensCount

from compact_course.agent.model import offline_client
from compact_course.offline.api import context_edits
from compact_course.offline.api import server_compaction as sc
from compact_course.offline.api.server import start_offline_server
from compact_course.offline.tokens import estimate_text_tokens, estimate_tokens
from tests.helpers import body, call, offline_model, user

MODEL = "offline-s08"
CLEAR = "context-management-2025-06-27"
COMPACT = "compact-2026-01-12"
ON_DEMAND = "compact-2026-09-04"
pytestmark = pytest.mark.usefixtures("no_network")  # nothing but loopback (conftest.py)


@pytest.fixture(scope="module")
def model():
    with offline_model() as pair:
        yield pair


def history(turns: int, size: int = 8000, names=("read_file",)) -> list:
    """A request, then `turns` one-call turns whose results are `size` characters each."""
    messages = [user("Fix the failing test.")]
    for n in range(turns):
        messages += call({f"toolu_{n:02d}": body(f"toolu_{n:02d}", size)}, name=names[n % len(names)])
    return messages


def create(client, messages, betas, **extra) -> BetaMessage:
    """client.beta.messages.create, its JSON validated against BetaMessage."""
    raw = client.beta.messages.with_raw_response.create(model=MODEL, max_tokens=200, messages=messages,
                                                         betas=betas, **extra)
    BetaMessage.model_validate(raw.http_response.json())
    return raw.parse()


def clearing(client, messages, **edit) -> BetaMessage:
    return create(client, messages, [CLEAR],
                  context_management={"edits": [{"type": "clear_tool_uses_20250919", **edit}]})


def cleared(response) -> tuple[int, int]:
    (edit,) = response.context_management.applied_edits
    assert edit.type == "clear_tool_uses_20250919"
    return edit.cleared_tool_uses, edit.cleared_input_tokens


def results_seen(messages, edit) -> list[str]:
    """The tool_result texts the model reads after the edit, oldest first."""
    view, _ = context_edits.clear_tool_uses({"model": MODEL, "messages": messages},
                                            context_edits.read_edit("edit", edit))
    return [b["content"] for m in view if isinstance(m["content"], list)
            for b in m["content"] if b["type"] == "tool_result"]


# -- clear_thinking_20251015 ---------------------------------------------------------------

THINK = {"type": "enabled", "budget_tokens": 2000}


def thinking_turns(client, turns: int) -> list:
    """A conversation of `turns` answered turns, each answer sent back as the server gave it."""
    messages = [user("What is the title of s01_agent_loop/README.md?")]
    for n in range(turns):
        reply = create(client, messages, [CLEAR], thinking=THINK)
        answer = [b.model_dump(exclude_none=True) for b in reply.content]
        messages += [{"role": "assistant", "content": answer}, user(f"And again, turn {n + 2}?")]
    return messages


def test_with_thinking_on_the_reply_starts_with_a_signed_thinking_block(model):
    _, client = model
    reply = create(client, [user("Hello?")], [CLEAR], thinking=THINK)
    first = reply.content[0]
    assert first.type == "thinking" and first.signature and "does not think" in first.thinking
    assert reply.content[1].type != "thinking"
    plain = create(client, [user("Hello?")], [CLEAR])
    assert all(b.type != "thinking" for b in plain.content)


@pytest.mark.parametrize("keep, cleared_turns", [
    (None, 3), ({"type": "thinking_turns", "value": 2}, 2), ({"type": "thinking_turns", "value": 0}, 4),
    ("all", 0), ({"type": "all"}, 0)])
def test_clear_thinking_keeps_the_newest_turns_thinking(model, keep, cleared_turns):
    _, client = model
    messages = thinking_turns(client, 4)
    edit = {"type": "clear_thinking_20251015", **({} if keep is None else {"keep": keep})}
    reply = create(client, messages, [CLEAR], thinking=THINK, context_management={"edits": [edit]})
    applied = reply.context_management.applied_edits
    if not cleared_turns:
        assert applied == []
        return
    (done,) = applied
    assert (done.type, done.cleared_thinking_turns) == ("clear_thinking_20251015", cleared_turns)
    assert done.cleared_input_tokens > 0
    counted = client.beta.messages.count_tokens(model=MODEL, messages=messages, betas=[CLEAR], thinking=THINK,
                                                context_management={"edits": [edit]})
    original = counted.context_management.original_input_tokens
    assert original - counted.input_tokens == done.cleared_input_tokens


# -- clear_tool_uses_20250919 ---------------------------------------------------------------

def test_below_the_default_trigger_nothing_is_cleared(model):
    _, client = model
    response = clearing(client, history(4))
    assert response.context_management.applied_edits == []


def test_keep_spares_the_newest_tool_uses(model):
    _, client = model
    messages = history(10)
    for keep in (0, 3, 7):
        edit = {"trigger": {"type": "input_tokens", "value": 1}, "keep": {"type": "tool_uses", "value": keep}}
        uses, tokens = cleared(clearing(client, messages, **edit))
        assert uses == 10 - keep and tokens > 0
        seen = results_seen(messages, edit)
        assert seen[:10 - keep] == [context_edits.CLEARED_RESULT] * (10 - keep)
        assert all(text.startswith("<toolu_") for text in seen[10 - keep:])


def test_past_the_trigger_every_use_but_the_newest_keep_is_cleared(model):
    # keep is "Number of tool uses to retain in the conversation" (the SDK's docstring):
    # however little the prompt is over the trigger, every older use goes.
    _, client = model
    messages = history(10)
    whole = estimate_tokens({"model": MODEL, "messages": messages})
    trigger = {"type": "input_tokens", "value": whole - 500}   # a quarter of one result too many
    uses, tokens = cleared(clearing(client, messages, trigger=trigger))
    assert uses == 7 and whole - tokens < trigger["value"] - 10_000
    assert results_seen(messages, {"trigger": trigger})[6:8] == \
        [context_edits.CLEARED_RESULT, body("toolu_07", 8000)]
    at = {"type": "input_tokens", "value": whole}   # at the trigger, not over it: nothing
    assert clearing(client, messages, trigger=at).context_management.applied_edits == []


def test_a_tool_uses_trigger_counts_tool_uses(model):
    _, client = model
    uses, _ = cleared(clearing(client, history(8), trigger={"type": "tool_uses", "value": 5}))
    assert uses == 8 - 3
    response = clearing(client, history(5), trigger={"type": "tool_uses", "value": 5})
    assert response.context_management.applied_edits == []


def test_clear_at_least_is_a_gate_all_or_nothing(model):
    # "Context will only be modified if at least this many tokens can be removed."
    _, client = model
    messages = history(10)
    low = {"type": "input_tokens", "value": 1}
    uses, freed = cleared(clearing(client, messages, trigger=low))
    assert uses == 7
    enough = {"type": "input_tokens", "value": freed - 50}
    assert cleared(clearing(client, messages, trigger=low, clear_at_least=enough))[0] == 7
    too_much = {"type": "input_tokens", "value": freed + 50}
    response = clearing(client, messages, trigger=low, clear_at_least=too_much)
    assert response.context_management.applied_edits == []


def test_exclude_tools_are_never_cleared(model):
    _, client = model
    messages = history(10, names=("read_file", "bash"))
    edit = {"trigger": {"type": "input_tokens", "value": 1}, "exclude_tools": ["bash"]}
    uses, _ = cleared(clearing(client, messages, **edit))
    assert uses == 4   # the read_file uses among the 7 oldest
    seen = results_seen(messages, edit)
    assert all(text.startswith("<toolu_") for text in seen[1::2])


def test_clear_tool_inputs_clears_the_calls_too(model):
    _, client = model
    messages = history(6, names=("read_file", "bash"))
    low = {"type": "input_tokens", "value": 1}
    _, plain = cleared(clearing(client, messages, trigger=low))
    _, with_inputs = cleared(clearing(client, messages, trigger=low, clear_tool_inputs=True))
    assert with_inputs > plain
    view, _ = context_edits.clear_tool_uses(
        {"messages": messages},
        context_edits.read_edit("edit", {"trigger": low, "clear_tool_inputs": ["bash"]}))
    inputs = [b["input"] for m in view if m["role"] == "assistant" for b in m["content"]]
    assert inputs[:3] == [messages[1]["content"][0]["input"], {}, messages[5]["content"][0]["input"]]


def test_clearing_leaves_the_request_as_sent_whole():
    messages = history(8)
    before = copy.deepcopy(messages)
    edit = context_edits.read_edit("edit", {"trigger": {"type": "input_tokens", "value": 1},
                                            "clear_tool_inputs": True})
    view, applied = context_edits.clear_tool_uses({"messages": messages}, edit)
    assert applied["cleared_tool_uses"] == 5 and view != messages and messages == before


def test_past_the_trigger_each_new_turn_clears_one_more_use(model):
    """The cleared results before the newly cleared one stay as they were; the one that
    changed sits 3 tool uses back (keep 3)."""
    edit = {"trigger": {"type": "input_tokens", "value": 12_000}}
    seen = [results_seen(history(turns), edit) for turns in range(6, 16)]
    counts = [s.count(context_edits.CLEARED_RESULT) for s in seen]
    assert counts == [max(0, n - 3) if estimate_tokens({"messages": history(n)}) > 12_000 else 0
                      for n in range(6, 16)]
    for shorter, longer in zip(seen, seen[1:]):
        gone = shorter.count(context_edits.CLEARED_RESULT)
        assert longer[:gone] == shorter[:gone]


def test_count_tokens_reports_the_original_count(model):
    _, client = model
    messages = history(10)
    edits = {"edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1}}]}
    raw = client.beta.messages.with_raw_response.count_tokens(model=MODEL, messages=messages, betas=[CLEAR],
                                                               context_management=edits)
    counted = BetaMessageTokensCount.model_validate(raw.http_response.json())
    assert counted.context_management.original_input_tokens == \
        client.messages.count_tokens(model=MODEL, messages=messages).input_tokens
    _, tokens = cleared(create(client, messages, [CLEAR], context_management=edits))
    assert counted.input_tokens == counted.context_management.original_input_tokens - tokens


# -- compact_20260112 ---------------------------------------------------------------------------

def compacting(client, messages, **edit) -> BetaMessage:
    return create(client, messages, [COMPACT], context_management={"edits": [
        {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}, **edit}]})


def test_below_its_trigger_nothing_is_compacted(model):
    _, client = model
    response = compacting(client, history(10))
    assert [b.type for b in response.content] != [] and response.content[0].type == "text"
    assert response.usage.iterations is None and response.context_management.applied_edits == []


def test_past_its_trigger_the_reply_starts_with_the_block(model):
    _, client = model
    messages = history(30)
    response = compacting(client, messages)
    block = response.content[0]
    assert isinstance(block, BetaCompactionBlock)
    assert block.content.startswith("Current goal:\nFix the failing")
    assert block.tool_changes == [] and response.content[1].type == "text"
    first, second = response.usage.iterations
    assert (first.type, second.type) == ("compaction", "message")
    assert (response.usage.input_tokens, response.usage.output_tokens) == \
        (second.input_tokens, second.output_tokens)
    # The compaction entry reports the compaction itself, not the context it closed (the
    # SDK's docstring: a ~200k-token context "can report only a few thousand tokens").
    assert first.input_tokens == estimate_text_tokens(sc.COMPACTION_PROMPT)
    assert first.input_tokens + first.output_tokens < 5_000 < 50_000 < estimate_tokens({"messages": messages})
    assert second.input_tokens < 5_000


def test_a_compaction_fires_once_the_prompt_has_reached_its_trigger(model):
    _, client = model
    messages = history(30)
    tokens = client.messages.count_tokens(model=MODEL, messages=messages).input_tokens
    for trigger, fires in ((tokens, True), (tokens + 1, False)):
        response = compacting(client, messages, trigger={"type": "input_tokens", "value": trigger})
        assert (response.content[0].type == "compaction") is fires


def test_pause_after_compaction_returns_the_block_alone(model):
    _, client = model
    response = compacting(client, history(30), pause_after_compaction=True)
    assert response.stop_reason == "compaction" and [b.type for b in response.content] == ["compaction"]
    assert (response.usage.input_tokens, response.usage.output_tokens) == (0, 0)
    assert [i.type for i in response.usage.iterations] == ["compaction"]


def test_the_block_sent_back_stands_for_everything_it_replaced(model):
    _, client = model
    messages = history(30)
    paused = compacting(client, messages, pause_after_compaction=True)
    later = [paused.to_param(), user("Which files did you read?")]
    assert sc.block_meta(paused.content[0].model_dump()) == {
        "messages": len(messages), "input_tokens": estimate_tokens({"model": MODEL, "messages": messages}),
        "request": "Fix the failing test."}
    counted = client.beta.messages.count_tokens(model=MODEL, messages=later, betas=[COMPACT]).input_tokens
    assert counted < 2_000
    response = compacting(client, later)
    assert response.usage.input_tokens == counted and response.usage.iterations is None


def test_the_model_reads_the_block_as_the_summary_it_holds():
    block = sc.make_block("Current goal:\nShip it.", [user("Ship it.")], 10, b"key")
    seen = sc.adopt([{"role": "assistant", "content": [block]}, user("And now?")], b"key")
    assert seen[0]["content"].startswith("[Compacted]\n\nCurrent user request:\nShip it.\n")
    assert '"Current goal:\\nShip it."' in seen[0]["content"] and seen[1] == user("And now?")
    # Unsigned, nothing vouches for its encrypted_content: the request it names is not read.
    unsigned = {**block, "signature": None}
    assert sc.block_meta(unsigned)["request"] == "Ship it."
    assert sc.adopt([{"role": "assistant", "content": [unsigned]}], b"key")[0]["content"].startswith(
        "[Compacted]\n\nCurrent user request:\n\n\nConversation summary")


REMOVAL = {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "bash"}}


def flip(text: str) -> str:
    return text[:-1] + ("1" if text[-1] == "0" else "0")


def tampered(block, **change):
    return [{"role": "assistant", "content": [{**block.model_dump(), **change}]}, user("Go on.")]


def test_the_signature_is_checked(model):
    _, client = model
    block = compacting(client, history(30), pause_after_compaction=True).content[0]
    cases = [
        (tampered(block, content=block.content.replace("Fix", "Delete")), CompactionContentMismatchError),
        (tampered(block, signature=flip(block.signature)), CompactionSignatureInvalidError),
        (tampered(block, encrypted_content=block.encrypted_content[::-1]), CompactionSignatureInvalidError),
        (tampered(block, tool_changes=[REMOVAL]), CompactionToolChangesMismatchError),
        ([{"role": "system", "content": [block.model_dump()]}, user("Go on.")],
         CompactionBlockMisplacedError),
        ([{"role": "assistant", "content": [block.model_dump(), block.model_dump()]}, user("Go on.")],
         CompactionBlockAmbiguousError),
    ]
    for messages, error in cases:
        with pytest.raises(error) as caught:
            create(client, messages, [COMPACT])
        assert caught.value.status_code == 400 and caught.value.api_message.startswith("messages.")


def test_another_server_does_not_take_the_block(model):
    _, client = model
    block = compacting(client, history(30), pause_after_compaction=True).content[0]
    with start_offline_server() as other:
        with pytest.raises(CompactionSignatureInvalidError):
            create(offline_client(other.base_url, max_retries=0), tampered(block), [COMPACT])


# -- where the block goes back (issue 51: the offline server refused a request the API answered) --

def pydantic_ai_round_trip(first_turn: str) -> dict:
    """The request pydantic-ai's Anthropic model sends after a compaction, field for field:
    the history as its messages, the block it keeps (`content` alone, no signature) first in
    the assistant message that brought it, the answer's text after it; the edit still on."""
    return {
        "max_tokens": 4096, "system": "Answer in one line.", "stream": False,
        "context_management": {"edits": [{"type": "compact_20260112"}]},
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": first_turn}]},
            {"role": "assistant", "content": [
                {"type": "compaction", "content": "The user asked for the capital of France."},
                {"type": "text", "text": "Paris."}]},
            {"role": "user", "content": [{"type": "text", "text": "What did I ask you before?"},
                                         {"type": "text", "text": "What did I ask you before?"}]},
        ]}


def test_pydantic_ais_compaction_round_trip_is_answered(model):
    _, client = model
    request = pydantic_ai_round_trip("What is the capital of France? " + "Some context. " * 3000)
    response = client.beta.messages.create(model=MODEL, betas=[COMPACT], **request)
    assert response.stop_reason == "end_turn" and response.content[0].type == "text"
    # The block stands for what came before it: the long first turn is not read again.
    everything = estimate_tokens({"model": MODEL, **request})
    assert response.usage.input_tokens < 300 < 10_000 < everything
    counted = client.beta.messages.count_tokens(model=MODEL, betas=[COMPACT], messages=request["messages"],
                                                 system=request["system"])
    assert counted.input_tokens == response.usage.input_tokens
    seen = sc.adopt(request["messages"], b"any server")
    assert [m["role"] for m in seen] == ["user", "assistant", "user"]
    assert seen[0]["content"].startswith("[Compacted]\n\nCurrent user request:\n\n\nConversation summary")
    assert "The user asked for the capital of France." in seen[0]["content"]
    assert "Some context." not in seen[0]["content"]
    assert seen[1:] == [{"role": "assistant", "content": [{"type": "text", "text": "Paris."}]},
                        request["messages"][2]]


def test_a_reply_sent_back_where_the_sdk_puts_it_round_trips(model):
    _, client = model
    messages = history(30)
    for pause in (False, True):
        reply = compacting(client, messages, pause_after_compaction=pause)
        assert reply.content[0].type == "compaction"
        later = [*messages, reply.to_param(), user("Which files did you read?")]
        assert later[-2]["role"] == "assistant" and later[-2]["content"][0].type == "compaction"
        response = compacting(client, later)
        assert response.content[0].type == "text" and response.usage.iterations is None
        whole = estimate_tokens({"model": MODEL, "messages": messages})
        assert response.usage.input_tokens < 5_000 < 50_000 < whole


def test_where_the_block_stands_it_is_still_checked(model):
    _, client = model
    messages = history(30)
    reply = compacting(client, messages)
    block = reply.content[0]

    def sent_back(**change):
        return [*messages, {"role": "assistant", "content": [{**block.model_dump(), **change},
                                                             *reply.to_param()["content"][1:]]},
                user("Go on.")]

    cases = [(sent_back(signature=flip(block.signature)), CompactionSignatureInvalidError),
             (sent_back(signature=""), CompactionSignatureInvalidError),
             (sent_back(content=block.content.replace("Fix", "Delete")), CompactionContentMismatchError),
             (sent_back(content=""), anthropic.BadRequestError)]
    for sent, error in cases:
        with pytest.raises(error) as caught:
            create(client, sent, [COMPACT])
        assert caught.value.api_message.startswith(f"messages.{len(messages)}.content.0")
    # What the block replaced is checked as the API reads it: a malformed message is refused.
    broken = copy.deepcopy(pydantic_ai_round_trip("Hello."))
    broken["messages"][0]["content"][0].pop("text")
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.beta.messages.create(model=MODEL, betas=[COMPACT], **broken)
    assert caught.value.api_message.startswith("messages.0.content.0.text: Field required")


def test_a_null_block_is_a_no_op(model):
    _, client = model
    messages = [{"role": "assistant", "content": [{"type": "compaction", "content": None}]}, user("Hello.")]
    assert create(client, messages, [COMPACT]).content[0].type == "text"
    # With encrypted_content too, and after the history: nothing before it is dropped.
    failed = {"type": "compaction", "content": None, "encrypted_content": "opaque"}
    later = [user("Fix the failing test. " * 400), {"role": "assistant", "content": [failed]}, user("Go on.")]
    response = create(client, later, [COMPACT])
    assert response.usage.input_tokens == estimate_tokens({"model": MODEL, "messages": [later[0], later[2]]})


# -- compaction={"type": "summarize"} and the tool runner ----------------------------------

def test_on_demand_compaction_returns_the_block_alone(model):
    _, client = model
    response = create(client, history(3, size=200), [ON_DEMAND], compaction={"type": "summarize"})
    assert response.stop_reason == "compaction" and [b.type for b in response.content] == ["compaction"]
    assert response.usage.input_tokens == 0 and response.usage.iterations[0].type == "compaction"
    assert create(client, [response.to_param(), user("Go on.")], [ON_DEMAND]).content[0].type == "text"


def test_on_demand_compaction_refuses_an_unfinished_turn(model):
    _, client = model
    messages = history(2, size=200)[:-1]
    with pytest.raises(CompactionIncompleteTurnError):
        create(client, messages, [ON_DEMAND], compaction={"type": "summarize"})


def test_on_demand_compaction_needs_something_to_summarize(model):
    _, client = model
    messages = [{"role": "assistant", "content": [{"type": "compaction", "content": None}]}]
    with pytest.raises(CompactionNothingToSummarizeError):
        create(client, messages, [ON_DEMAND], compaction={"type": "summarize"})


@beta_tool
def read_file(path: str) -> str:
    """Read a file of the workspace.

    Args:
        path: the file's path
    """
    return f"# {path}\n" + "a line of the file\n" * 20


@beta_tool
def bash(command: str) -> str:
    """Run a shell command in the workspace.

    Args:
        command: the command line
    """
    return "README.md:1:# The title"


def test_the_tool_runner_compacts_before_the_next_turn(model):
    server, client = model
    runner = client.beta.messages.tool_runner(
        model=MODEL, max_tokens=500, tools=[read_file, bash], betas=[ON_DEMAND],
        messages=[user("What is the title of README.md?")])
    stops = []
    for message in runner:
        stops.append(message.stop_reason)
        if len(stops) == 1:
            assert message.stop_reason == "tool_use"
            runner.compact_before_next_turn()
        assert len(stops) < 10
    assert stops[1] == "compaction" and stops[-1] == "end_turn"
    first = runner._thread.messages[0]   # what the runner sends first from now on
    assert first["role"] == "assistant" and first["content"][0].type == "compaction"


# -- refusals ---------------------------------------------------------------------------------------

REFUSALS = [
    ("no beta", [], {"context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]}},
     "needs the beta 'context-management-2025-06-27'"),
    ("no compaction beta", [CLEAR], {"context_management": {"edits": [{"type": "compact_20260112"}]}},
     "needs the beta 'compact-2026-01-12'"),
    ("no on-demand beta", [COMPACT], {"compaction": {"type": "summarize"}},
     "needs the beta 'compact-2026-09-04'"),
    ("unknown edit", [CLEAR], {"context_management": {"edits": [{"type": "clear_everything"}]}},
     "unknown context management edit 'clear_everything'"),
    ("clear_thinking without thinking", [CLEAR],
     {"context_management": {"edits": [{"type": "clear_thinking_20251015"}]}},
     "`clear_thinking_20251015` strategy requires `thinking` to be enabled or adaptive"),
    ("low trigger", [COMPACT], {"context_management": {"edits": [
        {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 49_999}}]}},
     "at least 50000 input tokens, got 49999"),
    ("bad keep", [CLEAR], {"context_management": {"edits": [
        {"type": "clear_tool_uses_20250919", "keep": {"type": "input_tokens", "value": 3}}]}},
     "edits.0.keep.type"),
    ("extra field", [CLEAR], {"context_management": {"edits": [
        {"type": "clear_tool_uses_20250919", "keep_all": True}]}}, "keep_all: Extra inputs"),
    ("both", [CLEAR, ON_DEMAND], {"compaction": {"type": "summarize"},
                                  "context_management": {"edits": []}}, "cannot be combined"),
    ("block without beta", [], {"messages": [{"role": "assistant", "content": [
        {"type": "compaction", "content": "x", "signature": "y"}]}]}, "a compaction block needs the beta"),
]


@pytest.mark.parametrize("name, betas, extra, words", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusals_name_the_problem(model, name, betas, extra, words):
    _, client = model
    messages = extra.pop("messages", [user("Hello.")])
    with pytest.raises(anthropic.BadRequestError) as caught:
        create(client, messages, betas, **extra)
    assert caught.value.status_code == 400 and caught.value.type == "invalid_request_error"
    assert words in caught.value.api_message
