"""The course speaks the notebook's language (issue 15): lang.py, the checkers, the tasks,
and the offline model's answers to the article's Chinese prompts.

- `language()` is $COMPACT_LANG when set (en or zh, anything else a clear error),
  else "zh" in a folder named zh or in its labs/ (notebooks/zh/labs/), else "en"
  (notebooks/labs/ is English);
- the checkers' frame and hints are Chinese in Chinese and unchanged in English;
- the task constants are the article's Chinese prompts (docs/ZH_PROMPTS.md,
  word for word) in the Chinese edition, the English tasks otherwise;
- each of the four scripted experiments answers a Chinese request in Chinese,
  with the same facts (paths, field names, counts) as in English.
"""

import re
import shutil
from pathlib import Path

import pytest

from compact_course.agent import tasks
from compact_course.agent.loop import run_task
from compact_course.display.lang import language
from compact_course.lessons.exercises import WRITES_CODE, check_archive_calls, check_largest_large_limit, hint
from compact_course.lessons.replay import seeded_ids
from compact_course.sessions.histories import data_dir

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u3400-\u9fff]")


def test_language_comes_from_the_variable_then_the_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("COMPACT_LANG", raising=False)
    (tmp_path / "zh").mkdir()
    monkeypatch.chdir(tmp_path)
    assert language() == "en"
    monkeypatch.chdir(tmp_path / "zh")
    assert language() == "zh"
    monkeypatch.setenv("COMPACT_LANG", "en")
    assert language() == "en"
    monkeypatch.setenv("COMPACT_LANG", "fr")
    with pytest.raises(ValueError, match="COMPACT_LANG='fr': use one of en, zh"):
        language()


def test_a_labs_folder_speaks_its_editions_language(monkeypatch, tmp_path):
    # The labs run in notebooks/labs/ and notebooks/zh/labs/: the folder above decides.
    monkeypatch.delenv("COMPACT_LANG", raising=False)
    for folder in ("labs", "zh/labs", "zh/other"):
        (tmp_path / folder).mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "labs")
    assert language() == "en"
    monkeypatch.chdir(tmp_path / "zh" / "labs")
    assert language() == "zh"
    monkeypatch.chdir(tmp_path / "zh" / "other")
    assert language() == "en"
    for edition in ("", "zh/"):
        assert (ROOT / "notebooks" / edition / "labs").is_dir()


def the_size_itself(sizes, batch_limit):
    """Forgets that only results longer than the limit move: one too many."""
    from compact_course.lessons.exercises.solutions import largest_large_limit
    answer = largest_large_limit(sizes, batch_limit)
    return None if answer is None else answer + 1


def test_the_checkers_speak_chinese_in_the_chinese_edition(monkeypatch, capsys):
    monkeypatch.setenv("COMPACT_LANG", "zh")
    check_largest_large_limit(the_size_itself)
    out = capsys.readouterr().out
    assert "largest_large_limit：18 个用例" in out and "  通过  " in out and "  失败  " in out
    assert "      输入：sizes=[288000, 300, 240, 300], batch_limit=200000\n" in out
    assert "18 个用例中通过 1 个。需要提示时，运行 hint()。" in out
    assert not re.search(r"\b(PASS|FAIL|Hint|hint:|expected|got|input)\b", out)
    hint()
    out = capsys.readouterr().out
    assert "提示（文章的那一批：一次超大的读取）：正好 288,000 个字符的结果不比阈值 288,000 长" in out
    assert "提示：在心里按从大到小重演第一步" in out
    check_archive_calls(None)
    assert capsys.readouterr().out == ("archive_calls：还没有作答（答案还是 None）。"
                                       "需要提示时，运行 hint()。\n")


def test_the_checkers_english_lines_are_unchanged(monkeypatch, capsys):
    monkeypatch.setenv("COMPACT_LANG", "en")
    check_largest_large_limit(the_size_itself)
    out = capsys.readouterr().out
    assert "largest_large_limit: 18 cases" in out and "  PASS  nothing large enough" in out
    assert "      input: sizes=[288000, 300, 240, 300], batch_limit=200000\n" in out
    assert "1 of 18 cases pass. For a hint, run hint()." in out
    hint()
    assert "hint (the article's batch: one huge read): a result of exactly 288,000" in \
        capsys.readouterr().out
    assert not CJK.search(out)


def quoted_prompts() -> dict:
    """The article's prompts as docs/ZH_PROMPTS.md quotes them, by task name."""
    text = (ROOT / "docs" / "ZH_PROMPTS.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^([\w-]+) \(实验[一二三]\):\n\n    (.+)$", text, re.M))


def test_the_chinese_tasks_are_the_articles_prompts_word_for_word(monkeypatch):
    quoted = quoted_prompts()
    assert sorted(quoted) == ["compare-code", "docs-json", "titles"]
    for name, prompt in quoted.items():
        assert tasks.task_text(name, "zh") == prompt
    monkeypatch.setenv("COMPACT_LANG", "zh")
    assert tasks.COMPARE_CODE == quoted["compare-code"] and tasks.DOCS_JSON == quoted["docs-json"]
    assert tasks.BY_NAME["titles"] == quoted["titles"]
    monkeypatch.setenv("COMPACT_LANG", "en")
    assert tasks.COMPARE_CODE.startswith("Compare s08_context_compact/code.py")
    assert tasks.task_text("a question of my own") == "a question of my own"


# task: facts the answer must hold in both languages
FACTS = {
    "titles": ["# s01: The Agent Loop", "s05_todo_write"],
    "docs-json": ["lessons", "chapter_slug", "code_refs"],
    "compare-code": ["s08_context_compact/code.py", "MemoryStore", "tool_result_budget"],
    "compact-tool": ["notes/progress.md", "s05_todo_write"],
}


def answer(name: str, lang: str, tmp_path) -> str:
    workspace = tmp_path / f"{name}-{lang}"
    shutil.copytree(data_dir() / "workspace", workspace)
    agent = run_task(tasks.task_text(name, lang), workspace, profile="seed", echo=None,
                     new_id=seeded_ids())
    last = agent.messages[-1]["content"]
    return "\n".join(b["text"] for b in last if b.get("type") == "text") \
        if isinstance(last, list) else last


@pytest.mark.parametrize("name", sorted(FACTS))
def test_the_offline_model_answers_a_chinese_request_in_chinese(name, tmp_path):
    english, chinese = answer(name, "en", tmp_path), answer(name, "zh", tmp_path)
    # The final answer (after the machine's one-line note, if any) is Chinese ...
    body = chinese.split("\n", 1)[-1] if not CJK.search(chinese.split("\n")[0]) else chinese
    assert len(CJK.findall(body)) > 20, body
    assert not CJK.search(english)
    # ... and holds the same facts as the English one.
    for fact in FACTS[name]:
        assert fact in english and fact in chinese, (name, fact)


def broken(*args):
    raise ValueError("a learner's bug")


@pytest.mark.parametrize("checker", WRITES_CODE, ids=lambda c: c.__name__)
def test_every_case_line_is_named_in_chinese(checker, monkeypatch, capsys):
    # A function that raises fails every case: one line per case, each with its name.
    monkeypatch.setenv("COMPACT_LANG", "zh")
    checker(broken)
    lines = [line for line in capsys.readouterr().out.splitlines()
             if line.startswith(("  通过  ", "  失败  "))]
    assert lines
    names = [line[6:].strip() for line in lines]
    assert [n for n in names if not CJK.search(n) and n != "micro_compact"] == []
