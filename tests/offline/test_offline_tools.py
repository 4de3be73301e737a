"""The offline model works with whatever tools a request offers (issue 33): it chooses a tool
by what it does (compact_course/offline/model/tools.py), calls it by its name with inputs shaped by
its schema, and without a fitting tool says which job it lacks and calls nothing.

Through the real SDK, a plain tool loop with the pipeline and tools named open_file,
run_shell and find_files gets the same answers to test_offline_truth's questions as the
same loop with the course's tools, once the tool names in "Looked at:" are read back.
"""

import json
import re
import shutil

import pytest

from compact_course.agent.tasks import EN
from compact_course.agent.tools import TOOLS, run_tool
from compact_course.offline import MODEL_NAME, respond
from compact_course.offline.model.tools import Tools
from context_compact import CompactionConfig, ContextCompactor
from context_compact.messages import tool_uses
from context_compact.store import seeded_ids
from tests.helpers import offline_model
from tests.offline.test_offline_truth import CANNOT, QUESTIONS, SAMPLE, SESSION, SETUP, grade

pytestmark = pytest.mark.usefixtures("no_network")


def schema(**props) -> dict:
    return {"type": "object", "properties": {k: {"type": "string"} for k in props},
            "required": [k for k, required in props.items() if required]}


# A practitioner's own tools: other names, other property names, the same jobs.
OWN = [
    {"name": "open_file", "description": "Open a text file and return its contents.",
     "input_schema": schema(file_path=True)},
    {"name": "run_shell", "description": "Execute a POSIX shell line in the project.",
     "input_schema": schema(cmd=True)},
    {"name": "find_files", "description": "List the project files whose path matches a glob.",
     "input_schema": schema(glob=True, root=False)},
]
# Each of OWN, run as the course's tool it stands for, with the course's input key.
AS_COURSE = {"open_file": ("read_file", "file_path", "path"), "run_shell": ("bash", "cmd", "command"),
             "find_files": ("glob", "glob", "pattern")}


def own_tool(workspace, name: str, tool_input: dict) -> str:
    course, key, course_key = AS_COURSE[name]
    return run_tool(workspace, course, {course_key: tool_input[key]})


def ask(client, compactor, messages, request, tools, run) -> str:
    """One user turn of a plain SDK tool loop with the pipeline (examples/own_loop.py's shape)."""
    messages.append({"role": "user", "content": request})
    for _ in range(20):
        messages[:] = compactor.prepare(messages, request)
        reply = client.messages.create(model=MODEL_NAME, max_tokens=4000, tools=tools, messages=messages)
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        calls = [b for b in content if b["type"] == "tool_use"]
        if not calls:
            return "".join(b.get("text", "") for b in content)
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": c["id"], "content": run(c["name"], c["input"])}
            for c in calls]})
    raise AssertionError(f"no answer to {request!r}")


def answers(tmp_path, tools, run) -> list:
    """(fact, question, answer, calls) for every question alone, then the session's in one list."""
    workspace = tmp_path / "workspace"   # one path for both runs: an error text may quote it
    shutil.rmtree(workspace, ignore_errors=True)
    shutil.copytree(SAMPLE, workspace, ignore=shutil.ignore_patterns(".transcripts", ".task_outputs",
                                                                      ".memory"))
    found = []
    with offline_model() as (_, client):
        def loop():
            return ContextCompactor(workspace, client=client, model=MODEL_NAME,
                                    config=CompactionConfig(), new_id=seeded_ids()), []
        for fact, english, chinese in QUESTIONS:
            for question in (english, chinese):
                compactor, messages = loop()
                answer = ask(client, compactor, messages, question, tools, lambda n, i: run(workspace, n, i))
                found.append((fact, question, answer, [u["name"] for m in messages
                                                       if m["role"] == "assistant" for u in tool_uses(m)]))
        compactor, messages = loop()
        for request in SETUP + [question for _, question in SESSION]:
            answer = ask(client, compactor, messages, request, tools, lambda n, i: run(workspace, n, i))
            fact = next((f for f, q in SESSION if q == request), "setup")
            found.append((fact, request, answer, []))
    return found


def course_names(answer: str) -> str:
    """The answer with each own tool's name read back as the course's, and tool ids (digests of
    the request, tool names included) alike."""
    for own, (course, _, _) in AS_COURSE.items():
        answer = answer.replace(f"{own}(", f"{course}(")
    return re.sub(r"toolu_[0-9a-f]{24}", "toolu_*", answer)


@pytest.mark.slow
def test_own_tools_get_the_same_answers_as_the_course_tools(tmp_path):
    course = answers(tmp_path, TOOLS, run_tool)
    own = answers(tmp_path, OWN, own_tool)
    assert len(own) == len(course) == 2 * len(QUESTIONS) + len(SETUP) + len(SESSION)
    called = set()
    for (fact, question, mine, calls), (_, _, theirs, _) in zip(own, course):
        assert course_names(mine) == course_names(theirs), question
        assert fact == "setup" or grade(fact, mine) != "wrong", (question, mine)
        called |= set(calls)
    assert called == set(AS_COURSE)     # each own tool was used, and no course name was called
    right = sum(1 for fact, _, answer, _ in own if fact != "setup" and grade(fact, answer) == "correct")
    assert right >= 0.8 * (len(own) - len(SETUP))


def test_the_course_tools_keep_their_own_names_and_keys():
    tools = Tools({"tools": TOOLS})
    assert tools.jobs == {"bash": ("bash", {"command": "command"}),
                          "read_file": ("read_file", {"path": "path"}),
                          "write_file": ("write_file", {"path": "path", "content": "content"}),
                          "glob": ("glob", {"pattern": "pattern"}), "compact": ("compact", {})}
    # The API's own bash tool has no schema: it is known by its name, as before.
    assert Tools({"tools": [{"type": "bash_20250124", "name": "bash"}]}).names == {"bash"}


def test_a_tool_is_chosen_by_what_it_does():
    tools = Tools({"tools": OWN + [
        {"name": "save", "description": "Write text to a file.", "input_schema": schema(target_path=True,
                                                                                        text=True)}]})
    assert tools.to_tool("read_file", {"path": "a.md"}) == ("open_file", {"file_path": "a.md"})
    assert tools.to_tool("bash", {"command": "ls"}) == ("run_shell", {"cmd": "ls"})
    assert tools.to_tool("glob", {"pattern": "*.py"}) == ("find_files", {"glob": "*.py"})
    assert tools.to_tool("write_file", {"path": "n.md", "content": "x"}) == (
        "save", {"target_path": "n.md", "text": "x"})
    assert tools.to_model("open_file", {"file_path": "a.md"}) == ("read_file", {"path": "a.md"})
    assert "compact" not in tools.names      # the article's tool is known by its name only


def test_a_course_name_keeps_its_job_and_the_first_fitting_tool_wins():
    viewer = {"name": "view_file", "description": "Show a file.", "input_schema": schema(path=True)}
    # A tool named `glob` is the file search by its name, even with a reader's schema.
    named = {"name": "glob", "description": "Read a file.", "input_schema": schema(path=True)}
    tools = Tools({"tools": [named, OWN[0], viewer]})
    assert tools.jobs["glob"] == ("glob", {"pattern": "pattern"})
    assert tools.jobs["read_file"] == ("open_file", {"path": "file_path"})
    assert Tools({"tools": [viewer, OWN[0]]}).jobs["read_file"] == ("view_file", {"path": "path"})


def test_any_model_id_is_answered_and_echoed():
    with offline_model() as (_, client):
        for model in (MODEL_NAME, "claude-anything"):
            reply = client.messages.create(model=model, max_tokens=100, tools=OWN, messages=[
                {"role": "user", "content": "Read README.md and tell me its title."}])
            assert reply.model == model and reply.content[-1].name == "open_file"
    assert MODEL_NAME == "offline-s08"


@pytest.mark.parametrize("tool", [
    {"name": "grep", "description": "Search file contents with a regular expression.",
     "input_schema": schema(pattern=True)},
    {"name": "open_file", "description": "Open a file.", "input_schema": schema(path=True, encoding=True)},
    {"name": "delete_file", "description": "Delete a file.", "input_schema": schema(path=True)},
    {"name": "weather", "description": "Today's weather.", "input_schema": schema(city=True)},
])
def test_a_tool_that_does_another_job_or_needs_other_inputs_is_not_used(tool):
    assert Tools({"tools": [tool]}).names == set()


@pytest.mark.parametrize("request_text,job", [
    ("Which tests failed in logs/test_run.log?", "no tool that reads a file or runs a shell command"),
    ("上次测试运行中有多少个测试通过了？", "没有提供能按模式查找文件的工具"),
    ("Which file mentions snip_cut?", "no tool that runs a shell command"),
    (EN["COMPARE_CODE"], "next I would need to read a file"),
    (EN["COMPACT_TOOL"], "next I would need to find files by a pattern"),
])
def test_with_no_fitting_tool_no_tool_use_comes_back_and_the_lack_is_said(request_text, job):
    weather = {"name": "weather", "description": "Today's weather.", "input_schema": schema(city=True)}
    with offline_model() as (_, client):
        reply = client.messages.create(model=MODEL_NAME, max_tokens=1000, tools=[weather],
                                       messages=[{"role": "user", "content": request_text}])
    text = reply.content[0].text
    assert reply.stop_reason == "end_turn" and [b.type for b in reply.content] == ["text"]
    assert text.startswith(("I can't tell", "我无法确定", *CANNOT)) and job in text, text


def test_the_lack_is_said_in_the_requests_language():
    zh = respond({"model": MODEL_NAME, "tools": [], "messages": [{"role": "user", "content": (
        "比较 s08_context_compact/code.py 和 s09_memory/code.py，说明它们各自如何管理上下文和记忆。")}]})
    assert "读一个文件" in zh["content"][0]["text"] and zh["stop_reason"] == "end_turn"
    assert json.dumps(zh).count("tool_use\"") == 0
