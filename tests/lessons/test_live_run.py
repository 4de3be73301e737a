"""Notebook 09's live run of the learner's own prepare, its prediction's check, and its own loop.

`live_run` (compact_course/lessons/live_run.py) runs the article's agent with my_compact.py's
`prepare` before every model call, or the article's pipeline while the file's still raises
NotImplementedError (the starter, as the stored notebook is built), and says which in its first
line. With the solution of docs/TEACHING.md the learner's functions are the ones that fire; the
prediction's checker (`check_my_run`) holds the run's record back until it passes or a second
try; the dozen-line SDK loop of 09 (`my_agent`, read from the notebook's source) runs through
the real `anthropic` SDK against the offline server with the learner's prepare. The predicted
run is experiment 2, then experiment 3, in one conversation at the article's numbers: steps 1,
3 and 4 fire (step 2 would need over 50 messages), so the prediction needs each step's rule.

Left out: a real model's run (the cells are the same; the numbers differ).
"""

import ast
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from compact_course.agent.model import choose_model
from compact_course.agent.tasks import COMPARE_CODE, DOCS_JSON
from compact_course.lessons import live_run as live_run_module
from compact_course.lessons.exercises import check_my_run, hints
from compact_course.lessons.live_run import live_run, your_prepare
from compact_course.sessions.histories import data_dir
from context_compact.messages import text_of, tool_results

from .test_build_track import learner_file, solutions

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "notebooks" / "my_compact.py"
FALLBACK = "your prepare is not written yet: running the article's, compact_course/article.py"
RUN = (DOCS_JSON, COMPARE_CODE)   # 09's predicted run: experiment 2, then 3, one conversation
# The solution, with step 3 keeping the newest 2 results whole: a run only this file gives.
KEEP_TWO = """

_micro = micro_compact


def micro_compact(messages, root, keep_recent=3, min_chars=120):
    return _micro(messages, root, 2, min_chars)
"""
# Step 1 saves docs.json's result at call 2; at call 6 step 3 turns its preview into a pointer to
# that file (the fourth newest result) and the two code files still hold the list over 50,000, so
# step 4 summarizes it; call 7's list holds one result.
RIGHT = {"tool_result_budget": [2], "snip_compact": [], "micro_compact": [6], "compact_history": [6],
         "saved_results": 1, "transcripts": 1}


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("COMPACT_LANG", "en")
    hints.forget()


def test_the_starter_runs_the_articles_pipeline_and_says_so_first(capsys):
    run = live_run(*RUN, path=STARTER, offline=True)
    assert capsys.readouterr().out.splitlines()[0] == FALLBACK
    assert run.whose == "article" and run.model_calls == 7
    assert run.values() == RIGHT   # the article's steps 1, 3 and 4 fired


def test_the_chinese_editions_run_is_the_same(monkeypatch):
    # zh/09 asks the article's own Chinese prompts: the same calls, the same steps fired.
    from compact_course.agent.tasks import texts
    monkeypatch.setenv("COMPACT_LANG", "zh")
    zh = texts("zh")
    run = live_run(zh["DOCS_JSON"], zh["COMPARE_CODE"], path=STARTER, offline=True)
    assert run.model_calls == 7 and run.values() == RIGHT


def test_the_learners_prepare_is_the_one_called(tmp_path, capsys):
    run = live_run(*RUN, path=learner_file(tmp_path, solutions()), offline=True)
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "your prepare, from my_compact.py, before every model call"
    assert run.whose == "yours" and run.values() == RIGHT
    # A file whose step 3 keeps 2 results: its own run, not the article's.
    other = live_run(*RUN, path=learner_file(tmp_path / "two", solutions() + KEEP_TWO), offline=True)
    assert other.whose == "yours" and other.at_calls("micro_compact") == [5, 6]
    assert other.at_calls("compact_history") == [6]


def test_a_prepare_that_raises_is_the_learners_error(tmp_path):
    path = learner_file(tmp_path, "def prepare(messages, root, active_request, summarize, limit=50_000):\n"
                                  "    raise KeyError('mine')\n")
    with pytest.raises(KeyError, match="mine"):
        live_run(*RUN, path=path, offline=True)


def prose_numbers(edition: str) -> list[int]:
    """The figures of 09's prediction cell, in order, as the page states them."""
    source = (ROOT / "notebooks" / "src" / edition / "09_live_agent.py").read_text(encoding="utf-8")
    cell = source.split('id="predict-your-prepare"', 1)[1].split("# %%", 1)[0]
    return [int(n.replace(",", "")) for n in re.findall(r"\b\d{1,3}(?:,\d{3})+\b", cell)]


def test_what_the_prediction_cell_says_of_the_run(monkeypatch):
    """09 states each reply of calls 1 to 7 and each tool result's size as the model is sent it
    (one less than each file's: the read drops its last newline, finding 3 of the review)."""
    replies, sizes = [], []

    class Recorded(live_run_module.Agent):
        def call_model(self):
            response = super().call_model()
            replies.append([(b.name, b.input.get("path", ""))
                            for b in response.content if b.type == "tool_use"])
            return response

        def run_batch(self, content, request):
            super().run_batch(content, request)
            sizes.extend(len(text_of(b["content"])) for b in tool_results(self.messages[-1]))
    monkeypatch.setattr(live_run_module, "Agent", Recorded)
    live_run(*RUN, path=STARTER, offline=True)
    assert replies == [[("read_file", "web/src/data/generated/docs.json")], [("bash", "")], [],
                       [("read_file", "s08_context_compact/code.py")], [("read_file", "s09_memory/code.py")],
                       [("bash", "")], []]
    assert sizes == [287_938, 8_000, 30_765, 30_166, 2_822]
    docs = data_dir() / "workspace" / "web" / "src" / "data" / "generated" / "docs.json"
    assert len(docs.read_text(encoding="utf-8")) == 287_939   # the file; the model sees one less
    for edition in ("", "zh"):
        assert prose_numbers(edition) == sizes, edition


def test_the_prediction_is_checked_against_the_run_and_its_record_held_back(capsys):
    run = live_run(*RUN, path=STARTER, offline=True)
    capsys.readouterr()
    assert not check_my_run(None, run).attempted
    assert "not attempted yet" in capsys.readouterr().out
    wrong = {**RIGHT, "micro_compact": [5, 6]}
    assert not check_my_run(wrong, run).ok
    assert "call 6:" not in capsys.readouterr().out   # a wrong try: no record
    check_my_run(wrong, run)
    assert "call 6:" not in capsys.readouterr().out   # nor on the second (issue 52)
    assert check_my_run(RIGHT, run).ok
    record = "  call 2: tool_result_budget\n  call 6: micro_compact, compact_history\n"
    assert record in capsys.readouterr().out
    assert not check_my_run(RIGHT, None).attempted


@pytest.mark.parametrize("edition", ["", "zh/"])
def test_the_stored_notebook_says_the_fallback_and_holds_the_record_back(edition):
    nb = nbformat.read(ROOT / "notebooks" / f"{edition}09_live_agent.ipynb", as_version=4)
    [cell] = [c for c in nb.cells if c.cell_type == "code" and
              "live_run(DOCS_JSON, COMPARE_CODE)" in c.source]
    out = "".join(o.get("text", "") for o in cell.outputs)
    said = FALLBACK if not edition else "你的 prepare 还没有写：运行文章的 prepare，compact_course/article.py"
    assert out.splitlines()[0] == said
    assert "micro_compact" not in out


def my_agent_from_the_notebook():
    """09's `my_agent`, compiled from notebooks/src/09_live_agent.py as the notebook holds it."""
    source = (ROOT / "notebooks" / "src" / "09_live_agent.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    [function] = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "my_agent"]
    assert function.end_lineno - function.lineno + 1 <= 20   # about a dozen lines
    space = {}
    exec(compile(ast.Module(body=[*imports, function], type_ignores=[]), "09_live_agent.py", "exec"), space)
    return space["my_agent"]


def test_the_notebooks_own_loop_runs_the_learners_prepare_through_the_sdk(tmp_path, capsys):
    import anthropic
    my_agent = my_agent_from_the_notebook()
    prepare, called = your_prepare(learner_file(tmp_path / "mine", solutions())), []

    def counted(messages, *rest):
        called.append(len(messages))
        return prepare(messages, *rest)
    root = tmp_path / "workspace"
    shutil.copytree(data_dir() / "workspace", root,
                    ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
    choice = choose_model(offline=True, echo=None, record=False)
    try:
        assert isinstance(choice.client, anthropic.Anthropic)
        answer = my_agent(choice.client, choice.model, root, DOCS_JSON, counted)
    finally:
        choice.close()
    assert capsys.readouterr().out.startswith("your prepare, from my_compact.py")
    assert answer.strip() and len(called) >= 2
    saved = list((root / ".task_outputs" / "tool-results").glob("*.txt"))
    assert len(saved) == 1 and saved[0].stat().st_size > 200_000   # step 1 of the learner's file


def test_the_notebooks_own_loop_sends_the_guard_and_no_tool_it_would_not_run(tmp_path):
    """Review finding 2 of issue 52: a copied loop must not offer `compact` (nothing runs it), and
    sends the system prompt whose rule follows instructions only from "Current user request"."""
    from context_compact.formats import AGENT_SYSTEM_RULE
    my_agent = my_agent_from_the_notebook()
    root = tmp_path / "workspace"
    shutil.copytree(data_dir() / "workspace", root,
                    ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
    choice, sent = choose_model(offline=True, echo=None, record=False), []
    create = choice.client.messages.create

    def recorded(**request):
        sent.append(request)
        return create(**request)
    choice.client.messages.create = recorded
    try:
        my_agent(choice.client, choice.model, root, DOCS_JSON, lambda messages, *rest: messages)
    finally:
        choice.close()
    agent_calls = [r for r in sent if "tools" in r]
    assert len(agent_calls) >= 2
    for request in agent_calls:
        assert AGENT_SYSTEM_RULE in request.get("system", "")
        assert "compact" not in {tool["name"] for tool in request["tools"]}


def test_no_wrong_prediction_and_no_hint_show_an_expected_value(capsys):
    """Review finding 8 of issue 52: the first wrong try printed "2 items, should be 3"-like
    counts and hint() the expected lists; later the second try showed them (fix-reveal): no
    try shows them now, and the record follows a PASS only."""
    run = live_run(*RUN, path=STARTER, offline=True)
    wrong = {**RIGHT, "micro_compact": [], "saved_results": 3}
    capsys.readouterr()
    check_my_run(wrong, run)
    hints.hint()
    first = capsys.readouterr().out
    assert "should be" not in first and "[6]" not in first and "answer (" not in first, first
    assert "FAIL  micro_compact" in first and "too few items (yours has 0)" in first
    assert "Only steps 1, 2 and 4" not in first
    check_my_run(wrong, run)
    hints.hint()
    assert capsys.readouterr().out == first   # the second try shows no more than the first


@pytest.mark.parametrize("edition, lang", [("", "en"), ("zh/", "zh")])
def test_the_first_cell_sets_up_through_page_model_and_still_says_the_model_and_cassette(edition, lang):
    """Review finding 2 (fix-09): 09's first cell was ~40 lines of set-up; a helper does it now
    and prints the two lines the page must say: which model answers, and the cassette line."""
    from compact_course.display.phrases import say
    nb = nbformat.read(ROOT / "notebooks" / f"{edition}09_live_agent.ipynb", as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert "page_model()" in first.source and len(first.source.splitlines()) <= 20
    said = "".join(o.get("text", "") for o in first.outputs).splitlines()
    assert said[0].startswith("Model: the offline model") and "127.0.0.1:<port>" in said[0]
    assert said[1:] == [say("cassette none", lang)]


def test_page_model_says_a_recording(tmp_path, monkeypatch, capsys):
    from compact_course.display.phrases import say
    from compact_course.lessons.live_run import page_model
    monkeypatch.setenv("COMPACT_OFFLINE", "1")
    monkeypatch.delenv("COMPACT_CASSETTE", raising=False)
    monkeypatch.setenv("COMPACT_RECORD", str(tmp_path / "run.cassette.json"))
    choice = page_model()
    choice.close()
    model, cassette = capsys.readouterr().out.splitlines()
    assert model.startswith("Model: the offline model") and "127.0.0.1:<port> " in model
    assert cassette == say("cassette recording", path=choice.recorder.path)
