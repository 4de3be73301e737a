"""The offline model's working notes speak the request's language (issue 24, the Chinese edition).

Between its tool calls the offline model writes a one-line note ("Next I read ...").
For the article's Chinese prompts those notes are Chinese; for the English tasks they
are word for word what they were, so the English notebooks' stored outputs stay put.
The fact notes the model reads back later (`Lessons found: ...`, `<path>: title '...'`,
the code notes `<path>: N lines; context: ...; memory: ...`) are Chinese too, and the
model still reads them back: from its notes, and from the summary that kept them.
"""

import re
import shutil

import pytest

from compact_course.agent import tasks
from compact_course.agent.loop import run_task
from compact_course.lessons.replay import seeded_ids
from compact_course.sessions.histories import data_dir

CJK = re.compile(r"[\u3400-\u9fff]")
ENGLISH_NOTES = ("Next I read", "I'll read", "I'll find", "I'll list", "I'll look", "The result was saved",
                 "its text is no longer in context", "Writing ", "I found no", "I could not write")
# (task, profile): the English notes the run writes, in order (the fact notes left out)
RUNS = {
    ("titles", "seed"): ["I'll find the lesson folders first."]
    + [f"Next I read {name}/README.md." for name in ("s01_agent_loop", "s02_tool_use", "s03_planning",
                                                      "s04_subagents", "s05_todo_write")],
    ("docs-json", "default"): [
        "I'll read web/src/data/generated/docs.json first.",
        "The result was saved to .task_outputs/tool-results/"],
    ("compare-code", "seed"): [
        "Next I read s08_context_compact/code.py.", "Next I read s09_memory/code.py.",
        "I read s09_memory/code.py before, but its text is no longer in context; its outline is "
        "enough for the comparison."],
    ("compact-tool", "seed"): [
        "I'll list the lessons first.",
        "Writing notes/progress.md, then compacting in the same batch: this stage is done."],
}
# task: the Chinese notes its run must write, and what its answer says it read back from one
CHINESE = {"titles": ["接下来读取 s05_todo_write/README.md。", "找到的课程：s01_agent_loop, ",
                      "s01_agent_loop/README.md：标题 '# s01: The Agent Loop",
                      "信息来源：s01, s02 来自我自己的笔记"],
           "docs-json": ["先读取 web/src/data/generated/docs.json。", "结果已转存到 .task_outputs/"],
           "compare-code": ["我之前读过 s09_memory/code.py，",
                            "s08_context_compact/code.py：793 行；上下文：",
                            "s09_memory/code.py：大纲；上下文：before_compaction_reminder；记忆：MemoryStore",
                            "- s08_context_compact/code.py（793 行）——当前上下文：tool_result_budget"],
           "compact-tool": ["写入 notes/progress.md，", "笔记列出了 5 节课程："]}
FACT_NOTES = ("Lessons found: ", ": title '", " lines; context: ", ": outline; context: ")


def notes_of(name: str, lang: str, profile: str, tmp_path) -> list:
    """The notes the agent showed before each tool batch (`  (note)`), then its answer's lines."""
    workspace = tmp_path / f"{name}-{lang}"
    shutil.copytree(data_dir() / "workspace", workspace)
    shown = []
    agent = run_task(tasks.task_text(name, lang), workspace, profile=profile, echo=shown.append,
                     new_id=seeded_ids())
    notes = [line[3:-1] for line in shown if line.startswith("  (") and line.endswith(")")]
    return notes + agent.answer.splitlines()


@pytest.mark.parametrize("name,profile", sorted(RUNS))
def test_the_notes_of_a_chinese_request_are_chinese(name, profile, tmp_path):
    notes = notes_of(name, "zh", profile, tmp_path)
    english = [line for line in notes if any(phrase in line for phrase in ENGLISH_NOTES + FACT_NOTES)]
    assert english == [], english
    for expected in CHINESE[name]:
        assert any(line.startswith(expected) for line in notes), (expected, notes)
    if name == "compare-code":  # the summary's copy of the code note was read back
        assert any(line.startswith("- s08_") and line.endswith("（来自对话摘要。）") for line in notes), notes
        # Issue 34: "none" reads as a sentence, not as "memory relies on: no function named for it".
        assert any("；持久记忆：没有为此命名的函数或类。" in line for line in notes), notes


@pytest.mark.parametrize("name,profile", sorted(RUNS))
def test_the_notes_of_an_english_request_are_unchanged(name, profile, tmp_path):
    notes = notes_of(name, "en", profile, tmp_path)
    assert not any(CJK.search(line) for line in notes)
    if name == "compare-code":
        assert any(line.startswith("s09_memory/code.py: outline; context: before_compaction_reminder; "
                                   "memory: MemoryStore") for line in notes), notes
        assert any(line.startswith("- s08_") and line.endswith("(From the conversation summary.)")
                   for line in notes), notes
    assert [line for line in notes if any(p in line for p in ENGLISH_NOTES)] == [
        next(line for line in notes if line.startswith(e)) for e in RUNS[(name, profile)]]
