"""The agent of the article, end to end against the offline model: the three
experiments on the sample workspace, reactive compaction, the compact tool,
the command lines, and the tools' limits."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import anthropic
import pytest

from compact_course.agent import tasks
from compact_course.agent.loop import Agent, AgentError, main_agent, main_run
from compact_course.agent.tools import MAX_OUTPUT, run_tool
from compact_course.offline import MODEL_NAME
from context_compact import CompactionConfig, formats, validate_messages
from context_compact.messages import tool_results, tool_uses
from context_compact.store import seeded_ids
from tests.helpers import offline_model, sdk_error

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "workspace"
ENV = ("ANTHROPIC_API_KEY", "MODEL_ID", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN")

pytestmark = pytest.mark.usefixtures("no_network")  # nothing but loopback (conftest.py)


@pytest.fixture
def no_key(monkeypatch, tmp_path):
    """No key in the environment and no .env to find: the offline model."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def workspace(tmp_path):
    """A copy of the sample workspace: the agent writes into its workspace."""
    target = tmp_path / "workspace"
    shutil.copytree(SAMPLE, target,
                    ignore=shutil.ignore_patterns(".transcripts", ".task_outputs", ".memory"))
    return target


def lessons_workspace(root: Path, size: int = 4000) -> Path:
    """Five READMEs of exactly known size, so windows in tokens are exact."""
    names = ["s01_agent_loop", "s02_tool_use", "s03_planning", "s04_subagents", "s05_todo_write"]
    for n, name in enumerate(names, 1):
        title = f"# s0{n}: Lesson {n} - Subtitle {n}"
        body = (f"Line {n} of the lesson text, plain ASCII words only.\n" * 1000)
        (root / name).mkdir(parents=True)
        (root / name / "README.md").write_text(title + "\n" + body[: size - len(title) - 1])
    return root


def run(task, workspace, profile="default", window=200_000):
    """Run one task against a fresh offline model; the agent, its answer, what it printed."""
    lines = []
    with offline_model(window=window) as (offline, client):
        agent = Agent(workspace, client, MODEL_NAME, config=CompactionConfig.named(profile),
                      echo=lines.append, new_id=seeded_ids())
        agent.lines, agent.requests = lines, offline.requests
        agent.ask(tasks.task_text(task))
    return agent


def cli(capsys, *argv):
    code = main_run([*argv, "--offline"])
    out, err = capsys.readouterr()
    return code, out, err


def titles_in(workspace: Path) -> dict:
    return {folder: next(line for line in (workspace / folder / "README.md").read_text()
                         .splitlines() if line.startswith("# "))
            for folder in ("s01_agent_loop", "s02_tool_use", "s03_planning", "s04_subagents",
                           "s05_todo_write")}


def result_kinds(messages) -> list:
    return [formats.kind_of_result(b["content"]) for m in messages for b in tool_results(m)]


def all_tool_uses(agent) -> list:
    """Every tool call of the run: the current messages and every transcript."""
    seen = {}
    for rel in agent.compactor.store.written:
        if rel.startswith(".transcripts/"):
            for message in agent.compactor.store.read_transcript(rel):
                seen.update({u["id"]: u for u in tool_uses(message)})
    for message in agent.messages:
        seen.update({u["id"]: u for u in tool_uses(message)})
    return list(seen.values())


# -- experiment 1: five READMEs, the older results shrunk ---------------------------------

def test_experiment1_seed_profile_shrinks_older_results_and_names_five_titles(workspace):
    agent = run("titles", workspace, profile="seed")
    reads = [line for line in agent.lines if line.startswith("> read_file")]
    assert len(reads) == 5
    for folder, title in titles_in(workspace).items():
        assert f"- {folder}: {title}" in agent.answer
    kinds = result_kinds(agent.messages)
    assert kinds.count("omitted") >= 2 and kinds[-3:] == ["whole"] * 3
    assert any(r.step == "micro_compact" and r.fired for r in agent.compactor.records)
    assert "from my own notes" in agent.answer     # the titles of shrunk results survive as notes


def test_experiment1_default_profile_leaves_a_small_context_whole(workspace):
    agent = run("titles", workspace, profile="default")
    assert set(result_kinds(agent.messages)) == {"whole"}
    assert not any(r.fired for r in agent.compactor.records)
    for folder, title in titles_in(workspace).items():
        assert f"- {folder}: {title}" in agent.answer
    assert "s01, s02, s03, s04, s05 from the files as read in this context" in agent.answer


def test_experiment1_runs_from_the_command_line(workspace, capsys, no_key):
    code, out, err = cli(capsys, "titles", "--workspace", str(workspace), "--profile", "seed")
    assert code == 0, err
    assert out.splitlines()[0].startswith("Model: the offline model offline-s08 at "
                                          "http://127.0.0.1:")
    assert out.count("> read_file") == 5 and "How they are named" in out
    for title in titles_in(workspace).values():
        assert title in out


# -- experiment 2: a large JSON file persisted ------------------------------------------------

@pytest.mark.parametrize("profile", ["default", "seed"])
def test_experiment2_large_json_is_persisted_and_its_fields_explained(workspace, capsys, no_key,
                                                                      profile):
    path = workspace / "web/src/data/generated/docs.json"
    code, out, err = cli(capsys, "docs-json", "--workspace", str(workspace), "--profile", profile)
    assert code == 0, err
    saved = list((workspace / ".task_outputs/tool-results").glob("*.txt"))
    assert len(saved) == 1
    assert saved[0].read_text() == run_tool(workspace, "read_file", {"path": str(
        path.relative_to(workspace))}) and len(saved[0].read_text()) > 200_000
    record = json.loads(path.read_text())["lessons"][0]
    answer = out.split("\n\n", 1)[1]
    assert f"has {len(record)} main fields" in answer
    for key in record:
        assert f"- {key} (" in answer


# -- experiment 3: two large code files -------------------------------------------------------

def memory_names(workspace) -> list:
    code = (workspace / "s09_memory/code.py").read_text()
    return [n for n in re.findall(r"^\s*(?:def|class)\s+(\w+)", code, re.MULTILINE)
            if "memor" in n.lower()]


def test_experiment3_seed_profile_auto_compacts_and_still_answers(workspace, capsys, no_key):
    code, out, err = cli(capsys, "compare-code", "--workspace", str(workspace),
                         "--profile", "seed")
    assert code == 0, err
    assert out.count("[auto compact]") == 1
    saved = re.findall(r"^\[transcript saved: (\.transcripts/transcript_[0-9a-f]{32}\.jsonl)\]$",
                       out, re.MULTILINE)
    assert len(saved) == 1
    transcript = [json.loads(line) for line in (workspace / saved[0]).read_text().splitlines()]
    whole = [b["content"] for m in transcript for b in tool_results(m)]
    assert whole == [run_tool(workspace, "read_file", {"path": p}) for p in (
        "s08_context_compact/code.py", "s09_memory/code.py")]
    answer = out.split("\n\n", 1)[1]
    assert "Comparing s08_context_compact/code.py and s09_memory/code.py" in answer
    assert "(From the conversation summary.)" in answer
    assert any(name in answer for name in memory_names(workspace))
    assert "In short:" in answer


def test_experiment3_default_profile_completes_without_a_summary(workspace):
    agent = run("compare-code", workspace, profile="default")
    assert "[auto compact]" not in agent.lines
    assert not (workspace / ".transcripts").exists()
    assert sum(r.model_calls for r in agent.compactor.records) == 0
    # Saved instead: as they arrive (flaw 18, step 1) or before a summary (flaw 8).
    assert any(r.step in ("tool_result_budget", "persist_largest") and r.files
               for r in agent.compactor.records)
    assert len(list((workspace / ".task_outputs/tool-results").glob("*.txt"))) >= 1
    assert "In short:" in agent.answer and "From my own note" in agent.answer
    assert any(name in agent.answer for name in memory_names(workspace))


# -- reactive compaction: a small window --------------------------------------------------------

def refusals(agent) -> list:
    return [r for r in agent.requests if r["status"] == 400]


def test_one_refusal_one_reactive_compaction_then_the_run_completes(tmp_path):
    agent = run("titles", lessons_workspace(tmp_path), window=6000)
    assert agent.lines.count("[reactive compact]") == 1 and agent.reactive_compactions == 1
    assert len(refusals(agent)) == 1
    assert refusals(agent)[0]["message"].startswith("prompt is too long: ")
    assert refusals(agent)[0]["message"].endswith(" tokens > 6000 maximum")
    first = formats.SUMMARY_RE.match(agent.messages[0]["content"])
    assert first and first["kind"] == "Reactive compact" and first["request"] == tasks.TITLES
    for n in range(1, 6):
        assert f"# s0{n}: Lesson {n} - Subtitle {n}" in agent.answer
    validate_messages(agent.messages)


def test_the_reactive_counter_starts_over_after_a_successful_call(tmp_path):
    agent = run("titles", lessons_workspace(tmp_path), window=4500)
    assert agent.reactive_compactions == 2 and len(refusals(agent)) == 2
    statuses = [r["status"] for r in agent.requests]
    assert statuses[statuses.index(400) + 1:].index(400) > 1   # successes in between
    assert "# s05: Lesson 5 - Subtitle 5" in agent.answer


def test_two_refusals_in_a_row_surface_the_error(tmp_path):
    workspace = lessons_workspace(tmp_path)
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        run("titles", workspace, window=3000)
    assert len(list((workspace / ".transcripts").glob("*.jsonl"))) == 1   # one reactive try


def test_two_refusals_in_a_row_end_the_command_with_an_error(tmp_path, capsys, no_key):
    workspace = lessons_workspace(tmp_path / "ws")
    code, out, err = cli(capsys, "titles", "--workspace", str(workspace), "--window", "3000")
    assert code == 1
    assert out.count("[reactive compact]") == 1
    assert "error:" in err and "prompt is too long" in err and "> 3000 maximum" in err


# -- the compact tool: a batch of write_file + compact ---------------------------------------------

def test_write_and_compact_in_one_batch(workspace):
    agent = run("compact-tool", workspace)
    note = (workspace / tasks.NOTES_PATH).read_text()
    assert "s01_agent_loop" in note and "s05_todo_write" in note
    assert agent.lines.index("> compact {}") < agent.lines.index("[compact tool]")
    transcript = next(r for r in agent.compactor.store.written if r.startswith(".transcripts/"))
    archived = agent.compactor.store.read_transcript(transcript)
    batch, answers = archived[-2], archived[-1]
    assert [u["name"] for u in tool_uses(batch)] == ["write_file", "compact"]
    assert [b["tool_use_id"] for b in tool_results(answers)] == [u["id"] for u in tool_uses(batch)]
    assert tool_results(answers)[1]["content"] == formats.COMPACT_TOOL_ACK
    assert tool_results(answers)[0]["content"].startswith("Wrote ")
    compacted = formats.SUMMARY_RE.match(agent.messages[0]["content"])
    assert compacted["kind"] == "Compacted" and compacted["request"] == tasks.COMPACT_TOOL
    validate_messages(agent.messages)
    assert [u["name"] for u in all_tool_uses(agent)].count("write_file") == 1
    assert agent.answer.startswith("Done: Wrote ")


# -- the loop's rules, with a scripted client ----------------------------------------------------

class ScriptedClient:
    """Answers the agent's calls from a list: an exception is raised, a reply returned."""

    def __init__(self, *script):
        self.script, self.calls = list(script), []
        self.messages = SimpleNamespace(create=self.create)

    def create(self, **request):
        self.calls.append(request)
        if request.get("system") == formats.SUMMARY_SYSTEM:
            return reply("a summary")
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step


def reply(text, *uses, stop="end_turn"):
    content = [{"type": "text", "text": text}, *uses]
    return SimpleNamespace(content=content, stop_reason="tool_use" if uses else stop)


@pytest.mark.parametrize("message", ["prompt is too long: 210445 tokens > 200000 maximum",
                                     "prompt_too_long", "Too many tokens in the request"])
def test_every_spelling_of_the_refusal_triggers_one_reactive_compaction(tmp_path, message):
    client = ScriptedClient(sdk_error(400, message), reply("done"))
    agent = Agent(tmp_path, client, "m", echo=None)
    # An earlier turn long enough that its summary is smaller: a retry must shrink the list.
    agent.messages = [{"role": "user", "content": "earlier"},
                      {"role": "assistant", "content": [{"type": "text", "text": "x" * 5000}]}]
    assert agent.ask("hello") == "done" and agent.reactive_compactions == 1


@pytest.mark.parametrize("error", [
    sdk_error(400, "messages.0: something else"),
    RuntimeError("prompt_too_long"),   # not the SDK's error: not the API's refusal
])
def test_other_errors_are_raised_without_reactive_compaction(tmp_path, error):
    agent = Agent(tmp_path, ScriptedClient(error), "m", echo=None)
    with pytest.raises(type(error)):
        agent.ask("hello")
    assert agent.reactive_compactions == 0


def test_a_batch_runs_whole_even_when_the_reply_stopped_early(tmp_path):
    (tmp_path / "a.txt").write_text("alpha")
    use = {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.txt"}}
    client = ScriptedClient(reply("reading", use, stop="max_tokens"), reply("done"))
    client.script[0].stop_reason = "max_tokens"
    agent = Agent(tmp_path, client, "m", echo=None)
    assert agent.ask("read a.txt") == "done"
    assert tool_results(agent.messages[2])[0]["content"] == "alpha"
    validate_messages(agent.messages)


def test_a_loop_without_an_answer_stops_at_the_turn_limit(tmp_path):
    def use(n):
        return {"type": "tool_use", "id": f"toolu_{n}", "name": "glob",
                         "input": {"pattern": "*"}}
    agent = Agent(tmp_path, ScriptedClient(*(reply("again", use(n)) for n in range(5))), "m",
                  echo=None, max_turns=3)
    with pytest.raises(AgentError, match="no final answer after 3 model calls"):
        agent.ask("loop")


def test_bad_requests_and_workspaces_are_refused(tmp_path):
    with pytest.raises(ValueError, match="workspace is not a folder"):
        Agent(tmp_path / "missing", ScriptedClient(), "m")
    with pytest.raises(ValueError, match="non-empty"):
        Agent(tmp_path, ScriptedClient(), "m").ask("  ")


# -- the REPL and the commands -----------------------------------------------------------------

def test_the_repl_answers_each_line_and_quits_on_q(workspace, capsys, monkeypatch, no_key):
    lines = iter(["titles", "", "What is in this workspace?", "q", "never read"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    assert main_agent(["--workspace", str(workspace), "--offline"]) == 0
    out = capsys.readouterr().out
    assert "How they are named" in out and "The workspace holds" in out
    assert next(lines) == "never read"


def test_the_repl_ends_on_end_of_input(workspace, capsys, monkeypatch, no_key):
    def end(prompt=""):
        raise EOFError
    monkeypatch.setattr("builtins.input", end)
    assert main_agent(["--workspace", str(workspace), "--offline"]) == 0


@pytest.mark.slow
def test_python_m_compact_run_works_as_a_command(workspace, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ENV}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "compact_course", "run", "titles", "--workspace",
                           str(workspace), "--profile", "seed"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Model: the offline model")
    assert "How they are named" in done.stdout


@pytest.mark.slow
def test_python_m_compact_serve_answers_any_client(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ENV}
    env["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen([sys.executable, "-m", "compact_course", "serve", "--port", "0"],
                               cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True)
    try:
        first, second = process.stdout.readline(), process.stdout.readline()
        base_url = re.search(r"http://127\.0\.0\.1:\d+", first).group()
        key = Path(re.search(r"Its key is in (\S+) ", second).group(1)).read_text()   # issue 29
        client = anthropic.Anthropic(api_key=key, base_url=base_url, max_retries=0)
        count = client.messages.count_tokens(model=MODEL_NAME,
                                             messages=[{"role": "user", "content": "abcd"}])
        client.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert count.input_tokens > 0


# -- the tools: inside the workspace, careful with bash ------------------------------------------

def test_file_tools_stay_inside_the_workspace(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "secret.txt").write_text("outside")
    (workspace / "link.txt").symlink_to(tmp_path / "secret.txt")
    for name, tool_input in [("read_file", {"path": "../secret.txt"}),
                             ("read_file", {"path": "link.txt"}),
                             ("read_file", {"path": str(tmp_path / "secret.txt")}),
                             ("write_file", {"path": "../x.txt", "content": "x"}),
                             ("edit_file", {"path": "../secret.txt", "old_text": "o",
                                            "new_text": "x"}),
                             ("glob", {"pattern": "../*"})]:
        assert run_tool(workspace, name, tool_input).startswith("Error: ")
    assert "secret" not in run_tool(workspace, "glob", {"pattern": "[.][.]/*"})
    assert not (tmp_path / "x.txt").exists() and (tmp_path / "secret.txt").read_text() == "outside"


def test_the_compactors_folders_can_be_read_but_not_written(tmp_path):
    saved = tmp_path / ".task_outputs/tool-results/toolu_1.txt"
    saved.parent.mkdir(parents=True)
    saved.write_text("the full text")
    rel = ".task_outputs/tool-results/toolu_1.txt"
    assert run_tool(tmp_path, "read_file", {"path": rel}) == "the full text"
    assert "do not write there" in run_tool(tmp_path, "write_file", {"path": rel, "content": "x"})
    assert "do not write there" in run_tool(tmp_path, "edit_file", {
        "path": rel, "old_text": "full", "new_text": "forged"})
    assert saved.read_text() == "the full text"


def test_bash_refuses_the_deny_list_and_asks_before_destructive_commands(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    assert "deny list" in run_tool(tmp_path, "bash", {"command": "sudo ls"})
    for command in ("rm a.txt", "ls; rm a.txt", "ls\nrm a.txt", "true && mv a.txt b.txt",
                    "echo x > a.txt", "find . -name a.txt -delete"):
        assert "not confirmed" in run_tool(tmp_path, "bash", {"command": command}), command
        assert "not confirmed" in run_tool(tmp_path, "bash", {"command": command},
                                           confirm=lambda c: False), command
    assert (tmp_path / "a.txt").read_text() == "a"
    asked = []
    run_tool(tmp_path, "bash", {"command": "rm a.txt"}, confirm=lambda c: asked.append(c) or True)
    assert asked == ["rm a.txt"] and not (tmp_path / "a.txt").exists()
    assert run_tool(tmp_path, "bash", {"command": "echo hi 2>/dev/null"}) == "hi"


def test_tools_answer_bad_input_with_an_error_text(tmp_path):
    (tmp_path / "a.txt").write_text("alpha")
    assert run_tool(tmp_path, "compact", {}) == formats.COMPACT_TOOL_ACK
    assert run_tool(tmp_path, "fly", {}).startswith("Error: unknown tool")
    assert run_tool(tmp_path, "read_file", {"path": "a.txt", "nope": 1}).startswith("Error: ")
    assert run_tool(tmp_path, "read_file", {}).startswith("Error: ")
    assert run_tool(tmp_path, "edit_file", {"path": "a.txt", "old_text": "",
                                            "new_text": "x"}).startswith("Error: ")
    assert run_tool(tmp_path, "write_file", {"path": "b.txt", "content": 5}).startswith("Error: ")
    assert (tmp_path / "a.txt").read_text() == "alpha"


def test_a_large_file_arrives_whole(tmp_path):
    text = "\n".join(f"line {n:06d} " + "x" * 40 for n in range(6000))
    (tmp_path / "big.txt").write_text(text)
    assert 200_000 < len(text) < MAX_OUTPUT
    assert run_tool(tmp_path, "read_file", {"path": "big.txt"}) == text


def test_run_task_runs_offline_and_closes_its_model(workspace):
    from compact_course.agent.loop import run_task
    lines = []
    agent = run_task("titles", workspace, profile="seed", echo=lines.append)
    assert lines[0].startswith("Model: the offline model")
    assert "How they are named" in agent.answer
    with pytest.raises(anthropic.APIConnectionError):
        agent.client.with_options(max_retries=0).messages.create(
            model=MODEL_NAME, max_tokens=5, messages=[{"role": "user", "content": "x"}])


# -- any file name, any bytes: what enters the messages can always be sent ------------------------

def test_safe_text_writes_out_lone_surrogates_and_leaves_real_text_alone():
    from compact_course.agent.loop import safe_text, safe_value
    assert safe_text("caf\udcff.txt") == "caf\\xff.txt"      # one undecodable byte, 0xff
    assert safe_text("a\ud800b\udfffc") == "a\\ud800b\\udfffc"
    for text in ("plain", "café 上下文 🙂", "tab\tnew\nline", ""):
        assert safe_text(text) == text
    nested = {"role": "user", "content": [{"type": "text", "text": "x\udc80"}, 3, None]}
    assert safe_value(nested) == {"role": "user",
                                  "content": [{"type": "text", "text": "x\\x80"}, 3, None]}


def non_utf8_file(workspace: Path) -> bytes:
    name = b"caf\xff.txt"
    with open(os.path.join(os.fsencode(workspace), name), "wb") as handle:
        handle.write(b"bytes that are not UTF-8 either: \xfe\xff\n")
    return name


class FirstTurnScripted:
    """The first call answers with the given tool calls; every later call goes to
    the real SDK, so the tool results travel through its JSON encoder."""

    def __init__(self, sdk, *uses):
        self.sdk, self.uses, self.calls = sdk, list(uses), 0
        self.messages = SimpleNamespace(create=self.create)

    def create(self, **request):
        self.calls += 1
        if self.calls == 1:
            return reply("looking", *self.uses)
        return self.sdk.messages.create(**request)


def test_a_file_name_that_is_not_utf8_reaches_the_model_through_the_real_sdk(workspace):
    non_utf8_file(workspace)
    uses = [{"type": "tool_use", "id": "toolu_g", "name": "glob", "input": {"pattern": "caf*.txt"}},
            {"type": "tool_use", "id": "toolu_b", "name": "bash",
             "input": {"command": "ls; printf 'raw \\377\\376 bytes\\n'"}}]
    lines = []
    with offline_model() as (offline, sdk):
        agent = Agent(workspace, FirstTurnScripted(sdk, *uses), MODEL_NAME, echo=lines.append)
        answer = agent.ask("Which text files are here?")
    assert answer and [r["status"] for r in offline.requests] == [200] * (agent.model_calls - 1)
    results = {b["tool_use_id"]: b["content"] for m in agent.messages for b in tool_results(m)}
    assert results["toolu_g"] == "caf\\xff.txt"
    assert "caf\\xff.txt" in " ".join(lines)     # shown on the terminal too, without a crash
    for message in agent.messages:                # every message encodes as the SDK sends it
        json.dumps(message, ensure_ascii=False).encode("utf-8")
    validate_messages(agent.messages)


def test_the_repl_survives_a_workspace_with_a_non_utf8_file_name(workspace, capsys, monkeypatch,
                                                                 no_key):
    non_utf8_file(workspace)
    lines = iter(["What is in this workspace?", "Read the file caf\udcff.txt", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    assert main_agent(["--workspace", str(workspace), "--offline"]) == 0
    out, err = capsys.readouterr()
    assert "error" not in err.lower() and "Traceback" not in out
    assert "caf\\xff.txt" in out
    out.encode("utf-8")                       # what was printed is text a terminal can show


# -- task names: a near miss is an error, anything else a question --------------------------------

def test_a_mistyped_task_name_is_an_error_that_names_the_known_tasks():
    from compact_course.agent.loop import UnknownTask, resolve_task
    assert resolve_task("titles") == tasks.TITLES
    assert resolve_task(" docs-json ") == tasks.DOCS_JSON
    for typo, meant in (("titels", "titles"), ("docs_json", "docs-json"),
                        ("compare-cod", "compare-code"), ("compact", "compact-tool")):
        with pytest.raises(UnknownTask) as caught:
            resolve_task(typo)
        assert str(caught.value).startswith(f"unknown task {typo!r}; did you mean {meant!r}?")
        assert "(known: titles, docs-json, compare-code, compact-tool;" in str(caught.value)
    for question in ("hello", "Titels", "What is titels?", "what does the logs folder contain",
                     "日志文件夹里有什么？"):
        assert resolve_task(question) == question


def test_run_with_a_mistyped_task_exits_2_before_starting_a_model(workspace, capsys, no_key):
    code, out, err = cli(capsys, "titels", "--workspace", str(workspace))
    assert code == 2 and out == ""
    assert err.startswith("error: unknown task 'titels'; did you mean 'titles'?")


def test_the_repl_answers_a_mistyped_task_with_the_error_and_goes_on(workspace, capsys,
                                                                      monkeypatch, no_key):
    lines = iter(["titels", "titles", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    assert main_agent(["--workspace", str(workspace), "--offline"]) == 0
    out = capsys.readouterr().out
    assert "error: unknown task 'titels'; did you mean 'titles'?" in out
    assert "How they are named" in out


def test_the_repl_banner_says_offline_model_or_names_the_model_never_the_key(
        workspace, capsys, monkeypatch, no_key):
    def end(prompt=""):
        raise EOFError
    monkeypatch.setattr("builtins.input", end)
    assert main_agent(["--workspace", str(workspace), "--offline"]) == 0
    offline_banner = capsys.readouterr().out
    assert offline_banner.startswith("Model: the offline model ")
    assert "deterministic program, not a language model" in offline_banner
    secret = "sk-ant-test-0123456789-never-shown"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    monkeypatch.setenv("MODEL_ID", "claude-example-1")
    assert main_agent(["--workspace", str(workspace)]) == 0   # no call is made before a line
    real_banner = capsys.readouterr()
    assert "claude-example-1" in real_banner.out and "offline model" not in real_banner.out
    assert secret not in real_banner.out + real_banner.err
    assert "q quits" in real_banner.out


# -- a prepare of one's own (notebook 09 runs the learner's) ------------------------------------

def test_the_agent_runs_a_prepare_of_its_own_before_every_model_call(workspace):
    # A prepare of one's own in the live agent (notebook 09's live_run hands it the learner's):
    # called before each model call with the agent's compactor, its steps recorded call by
    # call; made of the compactor's four steps in the article's order, the run is the package's.
    seen = []

    def mine(compactor, messages, request):
        seen.append((compactor.calls, len(messages), request))
        messages = compactor.tool_result_budget(messages)
        messages = compactor.snip_compact(messages, request)
        messages = compactor.micro_compact(messages)
        if compactor.size(messages) > compactor.config.context_limit:
            messages = compactor.compact_history(messages, request)
        return messages

    with offline_model() as (_, client):
        own = Agent(workspace, client, MODEL_NAME, config=CompactionConfig.seed(), echo=None,
                    new_id=seeded_ids(), prepare=mine)
        answer = own.ask(tasks.COMPARE_CODE)
    again = workspace.parent / "again"
    shutil.copytree(SAMPLE, again, ignore=shutil.ignore_patterns(".transcripts", ".task_outputs", ".memory"))
    package = run("compare-code", again, profile="seed")
    assert [call for call, _, _ in seen] == list(range(1, own.model_calls + 1))
    assert {request for _, _, request in seen} == {tasks.COMPARE_CODE}
    assert answer == package.answer and own.model_calls == package.model_calls
    assert {r.step for r in own.compactor.records if r.fired} == \
        {r.step for r in package.compactor.records if r.fired}
