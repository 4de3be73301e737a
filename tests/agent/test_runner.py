"""The pipeline in front of every request of the SDK's tool runner (context_compact/runner.py).

Through the real SDK (`client.beta.messages.tool_runner`, anthropic 2.17.0) and
the offline server: the task reads s08_context_compact/code.py (30,766
characters, over the default's 20,000 saved as it arrives). The request right
after that read carries the result as a saved preview, not one call late; no
request repeats a tool_use id; the runner's own history is left whole; and the
runner's `compact_before_next_turn()` (the API's compaction) goes through too.
Each test runs twice: with the sync client (`Anthropic`) and with the async one
(`AsyncAnthropic`, whose runner calls the middleware's `handle_async`). The
middleware is new: at 3fdc176 there is nothing to import, so every test here
fails there; before its `handle_async`, AsyncAnthropic refuses it ("does not
implement `handle_async()`"), so every async run fails.
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
from context_compact import CompactionConfig, ContextCompactor, NoProgress, formats, validate_messages
from context_compact.messages import text_of, tool_results
from context_compact.runner import PrepareEveryRequest
from context_compact.store import seeded_ids
from tests.helpers import offline_model

ROOT = Path(__file__).resolve().parents[2]
BIG_FILE = "s08_context_compact/code.py"
pytestmark = pytest.mark.usefixtures("no_network")
KINDS = ("sync", "async")


def tools_for(workspace: Path) -> list:
    @beta_tool
    def read_file(path: str) -> str:
        """Read a text file of the workspace and return its contents.

        Args:
            path: the file's path, relative to the workspace.
        """
        return (workspace / path).read_text(encoding="utf-8")

    @beta_tool
    def bash(command: str) -> str:
        """Run a shell command in the workspace and return what it prints.

        Args:
            command: the command line.
        """
        return str(run_tool(workspace, "bash", {"command": command}))
    return [read_file, bash]


def async_tools_for(workspace: Path) -> list:
    """The same two tools for the async runner: each calls the sync one."""
    return [beta_async_tool(_awaited(tool), name=tool.name, description=tool.description,
                            input_schema=tool.input_schema) for tool in tools_for(workspace)]


def _awaited(tool):
    async def call(**arguments) -> str:
        return tool.call(arguments)
    return call


def run(tmp_path, compact_after: int | None = None, thread=False, window: int = 200_000,
        config: CompactionConfig | None = None, kind: str = "sync"):
    """(replies, what each request sent, the runner's history at the end, middleware, server log)."""
    workspace = tmp_path / "ws"
    shutil.copytree(ROOT / "data" / "workspace", workspace)
    sent = []

    def record(request, call_next):   # after ours: what really goes out
        if isinstance(request.json, dict) and "messages" in request.json:
            sent.append(json.loads(json.dumps(request.json["messages"])))
        return call_next(request)

    async def record_async(request, call_next):
        record(request, lambda request: None)
        return await call_next(request)

    with offline_model(window=window) as (server, client):
        compactor = ContextCompactor(workspace, client=client, model=MODEL_NAME,
                                     config=config or CompactionConfig(), new_id=seeded_ids())
        middleware = PrepareEveryRequest(compactor)
        start = {"model": MODEL_NAME, "max_tokens": 2000, "thread": thread,
                 "betas": ["compact-2026-09-04"],
                 "messages": [{"role": "user", "content": tasks.EN["COMPARE_CODE"]}]}
        if kind == "async":
            replies, history = asyncio.run(run_async(server, middleware, record_async, start,
                                                     async_tools_for(workspace), compact_after))
            return replies, sent, history, middleware, list(server.requests)
        client = client.with_options(middleware=[*client.middleware, middleware, record])
        runner = client.beta.messages.tool_runner(tools=tools_for(workspace), **start)
        replies = []
        try:
            for reply in runner:
                replies.append(reply)
                if len(replies) == compact_after:
                    runner.compact_before_next_turn()
        except NoProgress:
            pass   # a test that expects it looks at what was sent
        history = list(runner._params["messages"])
        return replies, sent, history, middleware, list(server.requests)


async def run_async(server, middleware, record, start: dict, tools: list, compact_after):
    """The same run through AsyncAnthropic's tool runner: (replies, the runner's history)."""
    http = anthropic.DefaultAsyncHttpxClient(mounts={"all://127.0.0.1": None})
    async with anthropic.AsyncAnthropic(api_key=key_for(server.base_url), base_url=server.base_url,
                                        max_retries=0, http_client=http,
                                        middleware=[middleware, record]) as client:
        runner = client.beta.messages.tool_runner(tools=tools, **start)
        replies = []
        try:
            async for reply in runner:
                replies.append(reply)
                if len(replies) == compact_after:
                    runner.compact_before_next_turn()
        except NoProgress:
            pass
        return replies, list(runner._params["messages"])


def big_result(messages) -> str | None:
    for message in messages:
        for block in tool_results(message):
            text = text_of(block["content"]) if not isinstance(block["content"], str) \
                else block["content"]
            if "CONTEXT_CHAR_LIMIT = 50_000" in text or "<persisted-output>" in text:
                return text
    return None


@pytest.mark.parametrize("kind", KINDS)
def test_each_request_carries_its_own_newest_results_budgeted(tmp_path, kind):
    replies, sent, history, middleware, log = run(tmp_path, kind=kind)
    assert replies[-1].stop_reason == "end_turn" and "s09_memory/code.py" in replies[-1].content[-1].text
    assert [entry["status"] for entry in log] == [200] * len(sent) and len(sent) == len(replies)
    # The request right after the read holds the file as a saved preview: not one call late.
    first_read = next(n for n, messages in enumerate(sent) if big_result(messages))
    assert formats.PERSISTED_RE.match(big_result(sent[first_read]))
    oversized = CompactionConfig().oversized_chars
    for messages in sent:
        validate_messages(messages)   # pairs, and no tool_use id twice
        assert all(len(text_of(b["content"]) if not isinstance(b["content"], str) else b["content"])
                   <= oversized for m in messages for b in tool_results(m))
    # The runner's own history is left as the runner made it: the whole file is there.
    assert "CONTEXT_CHAR_LIMIT = 50_000" in big_result(history)
    assert middleware.compactor.calls == len(sent)


@pytest.mark.parametrize("kind", KINDS)
def test_the_runners_own_compaction_goes_through(tmp_path, kind):
    replies, sent, history, _, log = run(tmp_path, compact_after=2, kind=kind)
    assert [r.stop_reason for r in replies][2] == "compaction"
    assert replies[-1].stop_reason == "end_turn"
    assert all(entry["status"] == 200 for entry in log)
    after = sent[3]   # the history the compaction left: its block first, then the turn
    assert after[0]["role"] == "assistant" and after[0]["content"][0]["type"] == "compaction"
    for messages in sent:
        validate_messages(messages)


@pytest.mark.parametrize("kind", KINDS)
def test_a_threaded_runner_is_refused_with_a_word(tmp_path, kind):
    with pytest.raises(ValueError, match="thread=False"):
        run(tmp_path, thread=None, kind=kind)


@pytest.mark.parametrize("kind", KINDS)
def test_a_refusal_gets_one_reactive_compaction_and_the_same_request_again(tmp_path, kind):
    """Nothing budgeted (limits far above the list), a 16,000-token window: the request with
    both files whole is refused, and the retry, its reactive summary and the newest read,
    is accepted; the run goes on to its answer."""
    roomy = CompactionConfig(context_char_limit=10 ** 6, persist_oversized=False,
                             keep_recent_messages=2)
    replies, sent, _, middleware, log = run(tmp_path, window=16_000, config=roomy, kind=kind)
    assert [entry["status"] for entry in log].count(400) == 1
    assert middleware.reactive_compactions == 1
    summaries = [isinstance(m[0]["content"], str) and formats.SUMMARY_RE.match(m[0]["content"])
                 for m in sent]
    retry = next(i for i, found in enumerate(summaries) if found)
    assert summaries[retry]["kind"] == "Reactive compact"
    assert len(json.dumps(sent[retry])) < len(json.dumps(sent[retry - 1]))
    assert replies[-1].stop_reason == "end_turn"
