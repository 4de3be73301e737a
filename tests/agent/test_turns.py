"""Each turn's own request (issue 51): the tool-runner middleware over a conversation.

A chat agent keeps one client, and so one `PrepareEveryRequest`, for every user turn. At
a854c46 the middleware took the request when it was made: kept for a second turn, its
compaction wrote turn 1's request as "Current user request", and the agent answered turn
1 again. Now each request's active request is read from its own history (the newest user
prompt, not a message of tool results alone), or given with `new_turn`; what cannot be
told is refused with a word. Through the real SDK's tool runner, sync and async, against
the offline server. At a854c46 the middleware was `PrepareEveryRequest(compactor, request)`:
the same two-turn run through it writes the first request in the second turn's summary.
"""

import asyncio
import json
import shutil
from pathlib import Path

import anthropic
import pytest
from anthropic import beta_async_tool, beta_tool

from compact_course.agent import tasks
from compact_course.agent.tools import run_tool
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.server import key_for
from context_compact import CompactionConfig, ContextCompactor, MessageFormatError, formats
from context_compact.runner import PrepareEveryRequest, last_prompt
from context_compact.store import seeded_ids
from tests.helpers import offline_model, short_summary, tool_result, user

ROOT = Path(__file__).resolve().parents[2]
TURNS = (tasks.EN["COMPARE_CODE"], "Read logs/test_run.log and say which tests failed.")
pytestmark = pytest.mark.usefixtures("no_network")


def tools_for(workspace: Path, kind: str) -> list:
    def read_file(path: str) -> str:
        """Read a text file of the workspace and return its contents.

        Args:
            path: the file's path, relative to the workspace.
        """
        return (workspace / path).read_text(encoding="utf-8")

    def bash(command: str) -> str:
        """Run a shell command in the workspace and return what it prints.

        Args:
            command: the command line.
        """
        return str(run_tool(workspace, "bash", {"command": command}))
    made = [beta_tool(read_file), beta_tool(bash)]
    if kind == "sync":
        return made

    def awaited(tool):
        async def call(**arguments) -> str:
            return tool.call(arguments)
        return beta_async_tool(call, name=tool.name, description=tool.description,
                               input_schema=tool.input_schema)
    return [awaited(tool) for tool in made]


def conversation(tmp_path, kind: str) -> tuple[list, list, PrepareEveryRequest]:
    """Two user turns through one client and one middleware, each turn a tool runner over the
    whole history so far: ([(turn, messages sent)], [each turn's final reply], middleware)."""
    workspace = tmp_path / "ws"
    shutil.copytree(ROOT / "data" / "workspace", workspace)
    sent, turn = [], [0]

    def record(request, call_next):   # after ours: what really goes out, and in which turn
        if isinstance(request.json, dict) and "messages" in request.json:
            sent.append((turn[0], json.loads(json.dumps(request.json["messages"]))))
        return call_next(request)

    async def record_async(request, call_next):
        record(request, lambda request: None)
        return await call_next(request)

    with offline_model() as (server, client):
        compactor = ContextCompactor(workspace, client=client, model=MODEL_NAME, new_id=seeded_ids(),
                                     config=CompactionConfig(context_char_limit=7_000))
        middleware = PrepareEveryRequest(compactor)
        if kind == "sync":
            client = client.with_options(middleware=[*client.middleware, middleware, record])
            finals = talk(client, workspace, turn, kind)
        else:
            finals = asyncio.run(talk_async(server, middleware, record_async, workspace, turn))
    return sent, finals, middleware


def talk(client, workspace, turn, kind) -> list:
    history, finals = [], []
    for turn[0], request in enumerate(TURNS, start=1):
        history.append(user(request))
        runner = client.beta.messages.tool_runner(model=MODEL_NAME, max_tokens=2000, thread=False,
                                                  tools=tools_for(workspace, kind), messages=history)
        for reply in runner:
            history.append({"role": "assistant", "content": [b.model_dump(mode="json", exclude_none=True)
                                                             for b in reply.content]})
            results = runner.generate_tool_call_response()
            if results:
                history.append(results)
        finals.append(reply)
    return finals


async def talk_async(server, middleware, record, workspace, turn) -> list:
    http = anthropic.DefaultAsyncHttpxClient(mounts={"all://127.0.0.1": None})
    async with anthropic.AsyncAnthropic(api_key=key_for(server.base_url), base_url=server.base_url,
                                        max_retries=0, http_client=http,
                                        middleware=[middleware, record]) as client:
        history, finals = [], []
        for turn[0], request in enumerate(TURNS, start=1):
            history.append(user(request))
            runner = client.beta.messages.tool_runner(model=MODEL_NAME, max_tokens=2000, thread=False,
                                                      tools=tools_for(workspace, "async"), messages=history)
            async for reply in runner:
                history.append({"role": "assistant", "content": [b.model_dump(mode="json", exclude_none=True)
                                                                 for b in reply.content]})
                results = await runner.generate_tool_call_response()
                if results:
                    history.append(results)
            finals.append(reply)
        return finals


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_each_turn_compacts_with_its_own_request(tmp_path, kind):
    sent, finals, middleware = conversation(tmp_path, kind)
    made = {}   # each summary by its transcript, with the turn whose request first carried it
    for turn, messages in sent:
        found = isinstance(messages[0]["content"], str) and formats.SUMMARY_RE.match(messages[0]["content"])
        if found and found["path"] not in made:
            made[found["path"]] = (turn, found["request"])
    assert {turn for turn, _ in made.values()} == {1, 2}, "each turn compacts at least once"
    for turn, request in made.values():
        assert request == TURNS[turn - 1], f"turn {turn} compacted with another turn's request"
    assert middleware.request == TURNS[1]
    assert [reply.stop_reason for reply in finals] == ["end_turn", "end_turn"]
    assert "s09_memory/code.py" in finals[0].content[-1].text   # each turn answers its own question
    assert "failed in the run logged in logs/test_run.log" in finals[1].content[-1].text


# -- what the middleware reads, and what it refuses to guess ------------------------------

def test_the_newest_prompt_is_a_user_text_never_a_message_of_results_alone():
    call = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]}
    results = {"role": "user", "content": [tool_result("t1", "a result")]}
    assert last_prompt([user("first"), call, results]) == (0, "first")
    assert last_prompt([user("first"), call, results, user("second")]) == (3, "second")
    # Text after the results, as the API allows: a prompt of its own.
    said = {"role": "user", "content": [tool_result("t1", "r"), {"type": "text", "text": "stop there"}]}
    assert last_prompt([user("first"), call, said]) == (2, "stop there")
    # The compactor's own markers: the request they carry.
    summary = formats.summary_message("Compacted", "the task", "facts", ".transcripts/t.jsonl")
    assert last_prompt([summary, call, results]) == (0, "the task")
    assert last_prompt([user(formats.archive_marker(3, ".transcripts/t.jsonl", "carried"))]) == (0, "carried")
    assert last_prompt([user(formats.archive_marker(3, ".transcripts/t.jsonl"))]) == (0, "")
    assert last_prompt([{"role": "assistant", "content": "hello"}]) is None


class Request:
    """What the SDK hands a middleware, as far as PrepareEveryRequest reads it; `copy` returns
    the body that would go out, and the rest of the chain answers 200."""
    method, url, status_code = "post", "/v1/messages", 200

    def __init__(self, messages):
        self.json = {"model": "m", "max_tokens": 9, "messages": messages}

    def copy(self, body):
        return self


def test_new_turn_holds_until_a_newer_prompt_and_nothing_is_guessed(tmp_path):
    compactor = ContextCompactor(tmp_path, short_summary, CompactionConfig())
    middleware = PrepareEveryRequest(compactor)
    send = lambda messages: middleware.handle(Request(messages), lambda request: request)   # noqa: E731
    picture = [user([{"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}])]
    with pytest.raises(MessageFormatError,
                       match=r"messages\[0\], the newest prompt, holds no text.*new_turn"):
        send(picture)
    middleware.new_turn("What is on the screenshot?")
    send(picture)
    assert middleware.request == "What is on the screenshot?"
    call = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]}
    send([*picture, call, {"role": "user", "content": [tool_result("t1", "ok")]}])
    assert middleware.request == "What is on the screenshot?"   # the same turn goes on
    send([*picture, call, {"role": "user", "content": [tool_result("t1", "ok")]}, user("And now?")])
    assert middleware.request == "And now?"   # a newer prompt: new_turn's request was the last turn's
    fresh = PrepareEveryRequest(ContextCompactor(tmp_path / "b", short_summary))
    with pytest.raises(MessageFormatError, match="no user prompt"):
        fresh.handle(Request([{"role": "assistant", "content": "a compaction's reply"}]), lambda r: r)
    with pytest.raises(TypeError):
        PrepareEveryRequest(compactor, "a request fixed for every turn")   # a854c46's form, refused
