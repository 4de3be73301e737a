"""A learner's own questions about the sample workspace, in English and in Chinese, asked
through the real agent loop and the offline model over HTTP (the SDK), each answer
checked against the files themselves; and how a compaction changes what it can answer."""

import itertools
import re
import shutil
from pathlib import Path

import pytest

from compact import CompactionConfig, formats
from compact.agent.loop import Agent
from compact.agent.tools import TOOLS
from compact.offline import MODEL_NAME, respond
from compact.offline.question import parse

from .helpers import offline_model

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "workspace"
CJK = re.compile(r"[\u4e00-\u9fff]")

pytestmark = pytest.mark.usefixtures("no_network")  # nothing but loopback (conftest.py)

# (kind, English, Chinese): the same question in both languages.
QUESTIONS = [
    ("folder", "What does the logs folder contain?", "logs 文件夹里有什么？"),
    ("mention", "Which file mentions snip_cut?", "哪个文件提到了 snip_cut？"),
    ("value", "What is KEEP_RECENT_RESULTS set to in s08_context_compact/code.py?",
     "s08_context_compact/code.py 里 KEEP_RECENT_MESSAGES 的值是多少？"),
    ("failures", "Which tests failed in the last test run?", "上次测试运行中哪些测试失败了？"),
    ("count", "How many tests passed in the last test run?", "上次测试运行中有多少个测试通过了？"),
    ("packages", "Which packages does requirements.txt list?", "requirements.txt 列出了哪些包？"),
    ("search", "What is the capital of France?", "法国的首都是哪里？"),
]


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    """Every question asked once, each by a fresh agent on one copy of the workspace."""
    workspace = tmp_path_factory.mktemp("q") / "workspace"
    shutil.copytree(SAMPLE, workspace,
                    ignore=shutil.ignore_patterns(".transcripts", ".task_outputs", ".memory"))
    found, ids = {}, itertools.count(1)
    with offline_model() as (_, client):
        for kind, english, chinese in QUESTIONS:
            for lang, question in (("en", english), ("zh", chinese)):
                lines = []
                agent = Agent(workspace, client, MODEL_NAME, config=CompactionConfig(),
                              echo=lines.append, new_id=lambda: f"{next(ids):032x}")
                found[kind, lang] = agent.ask(question), lines
    return found


def workspace_files():
    return sorted(p for p in SAMPLE.rglob("*") if p.is_file() and not any(
        part.startswith(".") for part in p.relative_to(SAMPLE).parts))


def rel(path: Path) -> str:
    return path.relative_to(SAMPLE).as_posix()




@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_answer_is_in_the_language_of_its_question(answers, lang):
    for kind, _, _ in QUESTIONS:
        answer, _ = answers[kind, lang]
        assert bool(CJK.search(answer)) == (lang == "zh"), (kind, answer)


def test_different_questions_never_get_the_same_answer(answers):
    texts = [answer for answer, _ in answers.values()]
    assert len(texts) == len(QUESTIONS) * 2 >= 10
    assert len(set(texts)) == len(texts)


def test_both_languages_read_a_question_as_the_same_kind():
    for kind, english, chinese in QUESTIONS:
        assert parse(english).kind == parse(chinese).kind == kind


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_what_a_folder_contains(answers, lang):
    answer, lines = answers["folder", lang]
    assert any(line.startswith("> glob") for line in lines)
    for entry in sorted((SAMPLE / "logs").iterdir()):
        assert entry.name in answer
        count = len(entry.read_text().splitlines())
        assert f"{count} " in answer and f"logs/{entry.name}" in answer
        assert first_nonblank(entry.read_text()) in answer   # the line is quoted


def first_nonblank(text: str) -> str:
    return next(line.strip() for line in text.splitlines() if line.strip())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_which_file_mentions_a_word(answers, lang):
    answer, lines = answers["mention", lang]
    assert any(line.startswith("> bash") and "grep" in line for line in lines)
    holders = {}
    for path in workspace_files():
        numbers = [n for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
                   if "snip_cut" in line]
        if numbers:
            holders[rel(path)] = numbers
    assert holders
    for path, numbers in holders.items():
        assert path in answer
        for n in numbers[:3]:
            assert re.search(rf"(line|第) {n}\b", answer)
    others = {rel(p) for p in workspace_files()} - set(holders)
    assert not any(f"- {path}" in answer for path in others)


@pytest.mark.parametrize("lang, name", [("en", "KEEP_RECENT_RESULTS"), ("zh", "KEEP_RECENT_MESSAGES")])
def test_the_value_of_a_constant(answers, lang, name):
    answer, _ = answers["value", lang]
    lines = (SAMPLE / "s08_context_compact/code.py").read_text().splitlines()
    number, value = next((n, line.split("=", 1)[1].strip()) for n, line in enumerate(lines, 1)
                         if re.match(rf"{name}\s*=", line))
    assert name in answer and "s08_context_compact/code.py" in answer
    sentence = f"is set to {value} in" if lang == "en" else f"第 {number} 行设为 {value}"
    assert sentence in answer
    assert f"'{lines[number - 1].strip()}'" in answer     # the line itself, quoted


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_tests_that_failed_come_from_the_log(answers, lang):
    answer, _ = answers["failures", lang]
    log = (SAMPLE / "logs/test_run.log").read_text()
    failed = re.findall(r"^FAILED (\S+)", log, re.MULTILINE)
    assert len(failed) >= 2
    for test in failed:
        assert test in answer
    assert "logs/test_run.log" in answer
    assert (f"{len(failed)} test(s) failed" if lang == "en" else f"{len(failed)} 个测试失败") in answer
    passed = re.findall(r"^\S+::\S+ PASSED", log, re.MULTILINE)
    assert not any(line.split()[0] in answer for line in passed)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_count_stated_in_a_file(answers, lang):
    answer, _ = answers["count", lang]
    log = (SAMPLE / "logs/test_run.log").read_text().splitlines()
    number, line = next((n, line) for n, line in reversed(list(enumerate(log, 1)))
                        if re.search(r"\d+ passed", line))
    count = re.search(r"(\d+) passed", line)[1]
    assert answer.startswith(f"{count} passed")
    assert re.search(rf"(line|第) {number}\b", answer) and "logs/test_run.log" in answer


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_packages_a_requirements_file_lists(answers, lang):
    answer, lines = answers["packages", lang]
    assert any(line.startswith("> read_file") and "requirements.txt" in line for line in lines)
    wanted = [re.match(r"[A-Za-z0-9_.-]+", line)[0]
              for line in (SAMPLE / "requirements.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    assert wanted
    for name in wanted:
        assert name in answer
    assert (f"lists {len(wanted)} package(s)" if lang == "en" else f"列出了 {len(wanted)} 个包") \
        in answer


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_question_the_workspace_cannot_answer_says_so_and_where_it_looked(answers, lang):
    answer, lines = answers["search", lang]
    word = "france" if lang == "en" else "法国"
    assert not any(word in p.read_text(errors="replace").lower() for p in workspace_files())
    assert answer.startswith("The workspace does not answer this" if lang == "en"
                             else "工作区回答不了这个问题")
    assert word in answer.lower() and "grep" in answer       # where it looked
    assert any(line.startswith("> bash") for line in lines)


# -- what a compaction leaves: re-read a saved copy, or say the text is gone ----------------------

def asked_before(result_text: str) -> dict:
    """The mention question, after its grep ran and its result became `result_text`."""
    question = "Which file mentions snip_cut?"
    first = respond({"model": MODEL_NAME, "tools": TOOLS,
                     "messages": [{"role": "user", "content": question}]})
    use = next(b for b in first["content"] if b["type"] == "tool_use")
    return {"model": MODEL_NAME, "tools": TOOLS, "messages": [
        {"role": "user", "content": question},
        {"role": "assistant", "content": first["content"]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"],
                                      "content": result_text}]}]}


def test_a_saved_placeholder_is_read_back_from_its_copy():
    saved = ".task_outputs/tool-results/toolu_x.txt"
    reply = respond(asked_before(formats.saved_placeholder(saved)))
    assert reply["stop_reason"] == "tool_use"
    assert [b["input"] for b in reply["content"] if b["type"] == "tool_use"] == [{"path": saved}]


def test_an_omitted_result_means_the_text_is_gone_and_the_answer_says_so():
    reply = respond(asked_before(formats.OMITTED))
    text = reply["content"][0]["text"]
    assert reply["stop_reason"] == "end_turn"
    assert text.startswith("The workspace does not answer this")
    assert formats.OMITTED in text and "s08_context_compact/code.py" not in text


def test_the_same_result_whole_gives_the_answer():
    hit = "./s08_context_compact/code.py:229:def snip_cut(messages) -> tuple:"
    text = respond(asked_before(hit))["content"][0]["text"]
    assert "s08_context_compact/code.py, line 229: 'def snip_cut(messages) -> tuple:'" in text


def test_a_log_the_question_names_is_read_whole_and_its_failures_listed(tmp_path):
    workspace = tmp_path / "workspace"
    shutil.copytree(SAMPLE, workspace)
    lines = []
    with offline_model() as (_, client):
        answer = Agent(workspace, client, MODEL_NAME, echo=lines.append).ask(
            "Which tests failed in logs/test_run.log?")
    assert [line for line in lines if line.startswith("> ")] == [
        '> read_file {"path": "logs/test_run.log"}']
    for test in re.findall(r"^FAILED (\S+)", (SAMPLE / "logs/test_run.log").read_text(),
                           re.MULTILINE):
        assert test in answer


def test_after_a_summary_the_question_is_looked_up_again_not_guessed():
    question = "Which file mentions snip_cut?"
    summary = "Current goal:\n" + question + "\n\nDone:\n- bash(grep ...) -> 2 lines"
    message = formats.summary_message("Compacted", question, summary, ".transcripts/t.jsonl")
    reply = respond({"model": MODEL_NAME, "tools": TOOLS, "messages": [message]})
    assert reply["stop_reason"] == "tool_use"
    assert "snip_cut" in next(b for b in reply["content"] if b["type"] == "tool_use")["input"][
        "command"]


def test_one_very_long_word_is_read_in_linear_time():
    """Path patterns anchored at a word's start: a 200,000-letter word once kept the
    policy busy for minutes (every start position backtracked to the word's end).
    A subprocess, because a regex holds the GIL: the 60 s bound is a hang guard."""
    import subprocess
    import sys

    code = ("from compact.offline import respond; "
            "r = respond({'model': 'm', 'max_tokens': 100, 'messages': "
            "[{'role': 'user', 'content': 'x' * 200000 + ' in notes.md'}]}); "
            "print(r['content'][0]['type'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "text", done.stderr
