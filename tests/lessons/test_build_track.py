"""The build track's checkers (issue 52): what they pass, what they fail, and what they never say.

Every checker of compact_course.lessons.build_track runs on: the solutions of docs/TEACHING.md
(the only copy, read from its code blocks: all pass, on cases drawn at random this run); the
learner's starter (each "not written yet", no traceback); the article's own code
(compact_course/article.py, copied whole into a learner's file, with a thin shim to the build
track's signatures: it fails exactly the cases a numbered flaw makes wrong, and names the flaw);
the solutions with the numbers ignored (a hard-coded limit fails); a file that imports the
package, and one that reaches it by a name put together at run time (both fail). A failure
never prints the package's output, on any run; hint() gives ideas, never code. The tests that
run several checks a case are marked slow (the quick loop leaves them to the full run).
"""

import json
import re
from pathlib import Path

import pytest

from compact_course.lessons import build_track
from compact_course.lessons.build_track import STEPS, check, hint, run

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "notebooks" / "my_compact.py"
# The article hard-codes these (head 3, preview 2000, minimum 120); its own constants it lets a caller set.
ARTICLE_LITERALS = {"preview_chars": 2_000, "keep_head": 3, "min_chars": 120}
SHIM = '''

# -- a thin shim: the article's methods at the build track's signatures -------------------------
def tool_result_budget(messages, root, batch_limit=200_000, large_limit=30_000, preview_chars=2_000):
    article = ArticleCompactor(root, None, TOOL_RESULT_BATCH_CHAR_LIMIT=batch_limit,
                               LARGE_RESULT_CHAR_LIMIT=large_limit)
    return article.tool_result_budget(messages)


def snip_compact(messages, root, max_messages=50, keep_head=3):
    return ArticleCompactor(root, None).snip_compact(messages, max_messages)


def micro_compact(messages, root, keep_recent=3, min_chars=120):
    return ArticleCompactor(root, None, KEEP_RECENT_RESULTS=keep_recent).micro_compact(messages)


def summary_input(messages, limit=80_000):
    return ArticleCompactor(".", None, SUMMARY_INPUT_CHAR_LIMIT=limit).summary_input(messages)


def compact_history(messages, root, active_request, summarize):
    article = ArticleCompactor(root, lambda system, text, max_tokens: summarize(text))
    return article.compact_history(messages, active_request)


def reactive_compact(messages, root, active_request, summarize, keep_recent=5):
    article = ArticleCompactor(root, lambda system, text, max_tokens: summarize(text),
                               KEEP_RECENT_MESSAGES=keep_recent)
    return article.reactive_compact(messages, active_request)


def is_prompt_too_long(error):   # the article's agent_loop (its section 9), which article.py leaves out
    message = str(error).lower()
    return "prompt_too_long" in message or "too many tokens" in message


def run_tool_batch(tool_uses, handlers):   # the article's batch loop (its section 10), on dicts
    from types import SimpleNamespace
    results = []
    compact_requested = False
    for block in [SimpleNamespace(**use) for use in tool_uses]:
        if block.type != "tool_use":
            continue
        if block.name == "compact":
            output = "Compaction requested after this tool batch."
            compact_requested = True
        else:
            output = handlers[block.name](block.input)
        results.append({"type": "tool_result", "tool_use_id": block.id, "content": output})
    return {"role": "user", "content": results}, compact_requested


def cheap_steps(messages, root):
    article = ArticleCompactor(root, None)
    return article.micro_compact(article.snip_compact(article.tool_result_budget(messages)))


def prepare(messages, root, active_request, summarize, limit=50_000):
    article = ArticleCompactor(root, lambda system, text, max_tokens: summarize(text),
                               CONTEXT_CHAR_LIMIT=limit)
    return article.prepare(messages, active_request)
'''
NO_NUMBERS = ("compact_history", "is_prompt_too_long", "cheap_steps", "run_tool_batch")   # none to hard-code
# The package has no batch function of its own (its agent loop has): nothing to delegate to.
NOTHING_TO_DELEGATE = ("run_tool_batch",)
STOPS_AT_COMPACT = """
def run_tool_batch(tool_uses, handlers):
    results = []
    for use in tool_uses:
        if use["name"] == "compact":
            results.append({"type": "tool_result", "tool_use_id": use["id"],
                            "content": "Compaction requested after this tool batch."})
            return {"role": "user", "content": results}, True
        results.append({"type": "tool_result", "tool_use_id": use["id"],
                        "content": handlers[use["name"]](use["input"])})
    return {"role": "user", "content": results}, False
"""
# The solutions with every number ignored: each step at the article's defaults, whatever it is given.
HARD_CODED = '''

NUMBERED = ("tool_result_budget", "snip_compact", "micro_compact", "summary_input", "reactive_compact",
            "prepare")
_built = {name: globals()[name] for name in NUMBERED}


def tool_result_budget(messages, root, *numbers):
    return _built["tool_result_budget"](messages, root)


def snip_compact(messages, root, *numbers):
    return _built["snip_compact"](messages, root)


def micro_compact(messages, root, *numbers):
    return _built["micro_compact"](messages, root)


def summary_input(messages, *numbers):
    return _built["summary_input"](messages)


def reactive_compact(messages, root, active_request, summarize, *numbers):
    return _built["reactive_compact"](messages, root, active_request, summarize)


def prepare(messages, root, active_request, summarize, *numbers):
    return _built["prepare"](messages, root, active_request, summarize)
'''
DELEGATE = '''
import importlib

package = importlib.import_module("context_" + "compact")
captured = importlib.import_module("context_" + "compact.summary").summary_input   # before the trap


def tool_result_budget(messages, root, batch_limit=200_000, large_limit=30_000, preview_chars=2_000):
    config = package.CompactionConfig.seed(tool_result_batch_char_limit=batch_limit,
                                           large_result_char_limit=large_limit, preview_chars=preview_chars)
    return package.ContextCompactor(root, None, config).tool_result_budget(messages)


def snip_compact(messages, root, max_messages=50, keep_head=3):
    config = package.CompactionConfig.seed(snip_max_messages=max_messages, snip_keep_head=keep_head)
    return package.ContextCompactor(root, None, config).snip_compact(messages)


def micro_compact(messages, root, keep_recent=3, min_chars=120):
    config = package.CompactionConfig.seed(keep_recent_results=keep_recent, micro_min_chars=min_chars)
    return package.ContextCompactor(root, None, config).micro_compact(messages)


def summary_input(messages, limit=80_000):
    return captured(messages, limit)


def compact_history(messages, root, active_request, summarize):
    compactor = package.ContextCompactor(root, lambda m: summarize(captured(m, 80_000)),
                                         package.CompactionConfig.seed())
    return compactor.compact_history(messages, active_request)


def reactive_compact(messages, root, active_request, summarize, keep_recent=5):
    compactor = package.ContextCompactor(root, lambda m: summarize(captured(m, 80_000)),
                                         package.CompactionConfig.seed(keep_recent_messages=keep_recent))
    return compactor.reactive_compact(messages, active_request)


def is_prompt_too_long(error):
    return package.is_prompt_too_long(error)


def cheap_steps(messages, root):
    config = package.CompactionConfig.seed(context_char_limit=10 ** 12)
    return package.ContextCompactor(root, None, config).prepare(messages, "Go on.")


def prepare(messages, root, active_request, summarize, limit=50_000):
    compactor = package.ContextCompactor(root, lambda m: summarize(captured(m, 80_000)),
                                         package.CompactionConfig.seed(context_char_limit=limit))
    return compactor.prepare(messages, active_request)
'''


def solutions() -> str:
    """The code blocks of docs/TEACHING.md's build-track section, in order."""
    text = (ROOT / "docs" / "TEACHING.md").read_text(encoding="utf-8")
    section = text.split("## The build track: solutions", 1)[1].split("\n## ", 1)[0]
    return "\n\n".join(re.findall(r"```python\n(.*?)```", section, re.DOTALL))


def learner_file(tmp_path, source: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "my_compact.py"
    path.write_text(source, encoding="utf-8")
    return path


def article_file(tmp_path) -> Path:
    return learner_file(tmp_path, (ROOT / "compact_course" / "article.py").read_text(encoding="utf-8") + SHIM)


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("COMPACT_LANG", "en")
    run.forget()


# The quick loop (bash scripts/test.sh quick, <= 45 s: issue 50) grades the whole pipeline,
# `prepare`, in each family below (it runs every step's reference); CI grades every step.
QUICK_STEPS = ("prepare",)


def some_quick(names):
    return [pytest.param(name, marks=() if name in QUICK_STEPS else pytest.mark.slow)
            for name in names]


@pytest.mark.parametrize("step", some_quick(STEPS))
def test_the_solutions_in_teaching_pass_every_case_drawn_this_run(tmp_path, step, capsys):
    path = learner_file(tmp_path, solutions())
    for seed in (None, 1):
        result = check(step, path, seed=seed)
        assert result.ok, capsys.readouterr().out
        assert result.total >= 8


@pytest.mark.parametrize("step", STEPS)
def test_the_starter_is_not_written_yet_said_plainly(step, capsys):
    result = check(step, STARTER)
    out = capsys.readouterr().out
    assert not result.attempted and not result.ok
    assert out.strip() == (f"{step}: not written yet: my_compact.py's {step} still raises "
                           "NotImplementedError. Write it, save the file, and run this cell again.")


@pytest.mark.parametrize("step", some_quick(STEPS))
def test_the_article_fails_exactly_the_cases_a_flaw_makes_wrong_and_names_it(tmp_path, step, capsys):
    fixed, drawn, _ = run.cases(STEPS[step], seed=3, pin=ARTICLE_LITERALS)
    flawed = {run.words.pick(case.label): case.flaw for case in [*fixed, *drawn] if case.flaw}
    # Every step the article gets wrong somewhere has a case for it; the batch it gets right.
    assert any(case.flaw for case in fixed) == bool(STEPS[step].FLAW_HINTS)
    result = check(step, article_file(tmp_path), seed=3, pin=ARTICLE_LITERALS)
    out = capsys.readouterr().out
    assert {label: flaw for label, flaw, _ in result.failing} == flawed, out
    assert result.ok == (not flawed)
    for _, flaw, _ in result.failing[:run.SHOWN]:   # the failures explained in full
        assert f"flaw {flaw}: " in out and "docs/DESIGN.md" in out


@pytest.mark.parametrize("step, source", [
    ("tool_result_budget", "def tool_result_budget(messages, root, *numbers):\n    return messages\n"),
    ("micro_compact", "def micro_compact(messages, root, *numbers):\n    return messages\n"),
    ("snip_compact", "def snip_compact(messages, root, *numbers):\n    return messages\n"),
    ("summary_input", "def summary_input(messages, limit=80_000):\n    return ''\n"),
])
def test_a_flaw_is_named_only_when_the_same_case_without_it_passes(tmp_path, step, source, capsys):
    result = check(step, learner_file(tmp_path, source), seed=14)
    out = capsys.readouterr().out
    assert result.failing and not result.flaws and "flaw " not in out   # it fails the twins too


@pytest.mark.parametrize("step, given", [("tool_result_budget", "preview_chars given: 500"),
                                         ("snip_compact", "keep_head given: 5"),
                                         ("micro_compact", "min_chars given: 1,000")])
def test_the_articles_literals_fail_the_cases_that_give_another_number(tmp_path, step, given, capsys):
    result = check(step, article_file(tmp_path), seed=3)
    failing = {label: flaw for label, flaw, _ in result.failing}
    assert given in failing and failing[given] is None   # a constant, not a flaw


@pytest.mark.parametrize("step", some_quick([name for name in STEPS if name not in NO_NUMBERS]))
def test_a_hard_coded_number_fails(tmp_path, step, capsys):
    path = learner_file(tmp_path, solutions() + HARD_CODED)
    for seed in (4, 5):
        result = check(step, path, seed=seed)
        assert not result.ok and result.attempted
        assert any("given" in label or "drawn" in label for label, _, _ in result.failing)


def test_a_file_that_imports_the_package_runs_nothing(tmp_path, capsys):
    path = learner_file(tmp_path, "from context_compact.budget import tool_result_budget\n")
    result = check("tool_result_budget", path)
    out = capsys.readouterr().out
    assert not result.ok and result.total == 0
    assert "my_compact.py imports context_compact.budget (line 1)" in out
    assert run.learner.forbidden("import compact_course.article as a\n__import__('context_compact')\n") == [
        (1, "compact_course.article"), (2, "context_compact")]


@pytest.mark.parametrize("step", some_quick([name for name in STEPS if name not in NOTHING_TO_DELEGATE]))
def test_a_delegate_by_a_name_made_at_run_time_meets_the_trap(tmp_path, step, capsys):
    result = check(step, learner_file(tmp_path, DELEGATE), seed=6)
    out = capsys.readouterr().out
    assert result.attempted and result.passed == 0, out
    assert "called the package's own code, which refuses" in out
    # The trap is lifted afterwards: the package runs again.
    from context_compact.summary import summary_input
    assert summary_input([{"role": "user", "content": "hi"}], 80_000) == '[{"role": "user", "content": "hi"}]'


def reference_only(value, given: set) -> set:
    """Strings of the package's output the input does not hold: what a failure must never print."""
    if isinstance(value, str):
        return set() if value in given or len(value) < 12 else {value}
    if isinstance(value, dict):
        return set().union(*(reference_only(v, given) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(reference_only(v, given) for v in value))
    return set()


def strings(value) -> set:
    if isinstance(value, str):
        return {value}
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return set().union(set(), *(strings(v) for v in items))


# is_prompt_too_long answers True or False: saying what is wrong with a bool names the other one.
@pytest.mark.slow   # four checks a step, seconds each
@pytest.mark.parametrize("step", [name for name in STEPS if name != "is_prompt_too_long"])
def test_a_failure_never_prints_the_packages_output_not_on_a_second_run(tmp_path, step, monkeypatch, capsys):
    module, secrets, plain = STEPS[step], set(), build_track.looking.plain
    given = {"run_tool_batch": lambda case: strings(case.data["uses"])}.get(step, lambda case: set())
    reference = module.reference

    def recorded(case, root):
        out = reference(case, root)
        secrets.update(reference_only(plain(out), strings(plain(case.messages)) | given(case)))
        return out
    monkeypatch.setattr(module, "reference", recorded)
    wrong = [article_file(tmp_path / "article")]
    if step not in NO_NUMBERS:
        wrong.append(learner_file(tmp_path / "hard", solutions() + HARD_CODED))
    if step == "run_tool_batch":   # the article gets it right: a harness that stops at compact
        wrong = [learner_file(tmp_path / "stops", STOPS_AT_COMPACT)]
    for path in wrong:
        results = [check(step, path, seed=7) for _ in range(2)]
        assert not results[0].ok and not results[1].ok
    out = capsys.readouterr().out
    assert secrets
    shown = [secret for secret in secrets if secret in out or len(secret) > 60 and secret[:40] in out]
    assert not shown, shown[:3]


@pytest.mark.parametrize("step", some_quick(STEPS))
def test_hint_gives_the_next_idea_never_code(tmp_path, step, capsys):
    module = STEPS[step]
    code_lines = {line.strip() for line in solutions().splitlines() if len(line.strip()) > 12}
    wrong = learner_file(tmp_path, STOPS_AT_COMPACT) if step == "run_tool_batch" else article_file(tmp_path)
    assert not check(step, wrong, seed=8, pin=ARTICLE_LITERALS).ok
    capsys.readouterr()
    given = []
    for _ in range(len(module.HINTS) + len(module.FLAW_HINTS) + 1):
        hint()
        given.append(capsys.readouterr().out)
    flaws = run.LAST[0].flaws
    if flaws:   # the flaw's idea comes first
        assert run.words.pick(module.FLAW_HINTS[flaws[0]]) in given[0]
    assert "last idea" in given[-1]
    for text in given:
        assert text.startswith(f"Next idea for {step}: ")
        assert not any(line in text for line in code_lines)
        assert not re.search(r"\bdef \w+\(|\bimport \w+|\w+ = \w+|\bfor \w+ in \w+|\w\[[^\]]*:", text)


def test_hint_before_any_check_and_after_a_pass(tmp_path, capsys):
    hint()
    assert capsys.readouterr().out.startswith("Run a check first")
    check("summary_input", learner_file(tmp_path, solutions()), seed=9)
    capsys.readouterr()
    hint()
    said = capsys.readouterr().out.strip()
    assert said == "summary_input passes every case: nothing to hint. On to the next step."


def test_the_drawn_cases_differ_from_run_to_run():
    drawn = [[json.dumps([case.numbers, len(case.messages), case.data, case.request])
              for case in run.cases(STEPS[step])[1]] for step in STEPS for _ in range(2)]
    assert all(drawn[k] != drawn[k + 1] for k in range(0, len(drawn), 2))


@pytest.mark.parametrize("answer, said", [
    ("def snip_compact(messages, root, max_messages=50, keep_head=3):\n    return None\n",
     "your function returned NoneType, not the list of messages"),
    ("def snip_compact(messages, root, max_messages=50, keep_head=3):\n    return [1, 2]\n",
     "your function returned list, not the list of messages"),
    ("def snip_compact(messages, root, max_messages=50, keep_head=3):\n    return messages[0]['nope']\n",
     "your function raised KeyError: 'nope'"),
    ("def snip_compact(messages, root, max_messages=50, keep_head=3):\n    return [{'role': 'user'}]\n",
     "there is no archive marker"),
    ("def snip_compact(messages, root\n", "could not be read: SyntaxError at line 1"),
    ("raise ValueError('at import')\n", "could not be read: ValueError: at import"),
    ("x = 1\n", "has no function named snip_compact"),
])
def test_a_broken_answer_is_a_line_never_a_traceback(tmp_path, answer, said, capsys):
    result = check("snip_compact", learner_file(tmp_path, answer), seed=10)
    out = capsys.readouterr().out
    assert not result.ok and said in out and "Traceback" not in out


def test_the_chinese_notebook_hears_chinese(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COMPACT_LANG", "zh")
    check("micro_compact", article_file(tmp_path), seed=11, pin=ARTICLE_LITERALS)
    out = capsys.readouterr().out
    assert "缺陷 6：" in out and "失败" in out and "通过" in out
    assert "stays whole" not in out and "FAIL" not in out


PREPARE_WRONG = {   # 08's checker rejects each (issue 52's acceptance)
    "step 3 before step 1": """
def prepare(messages, root, active_request, summarize, limit=50_000):
    messages = snip_compact(tool_result_budget(micro_compact(messages, root), root), root)
    if len(json.dumps(plain(messages), ensure_ascii=False)) > limit:
        messages = compact_history(messages, root, active_request, summarize)
    return messages
""",
    "a hard-coded 50,000": """
def prepare(messages, root, active_request, summarize, limit=50_000):
    messages = cheap_steps(messages, root)
    if len(json.dumps(plain(messages), ensure_ascii=False)) > 50_000:
        messages = compact_history(messages, root, active_request, summarize)
    return messages
""",
    "step 4 measured before steps 1-3": """
def prepare(messages, root, active_request, summarize, limit=50_000):
    over = len(json.dumps(plain(messages), ensure_ascii=False)) > limit
    messages = cheap_steps(messages, root)
    return compact_history(messages, root, active_request, summarize) if over else messages
""",
}


@pytest.mark.slow   # three checks each, seconds each
@pytest.mark.parametrize("wrong", PREPARE_WRONG)
def test_prepare_rejects_the_usual_wrong_pipelines_on_every_run(tmp_path, wrong, capsys):
    path = learner_file(tmp_path, solutions() + PREPARE_WRONG[wrong])
    for seed in (None, 12, 13):
        result = check("prepare", path, seed=seed)
        assert result.attempted and not result.ok, capsys.readouterr().out
        assert not result.flaws   # none of these is an article's flaw: no flaw is named
    out = capsys.readouterr().out
    said = {"step 3 before step 1": "no file holds it: step 1 saves a large result before step 3 shrinks it",
            "a hard-coded 50,000": "after steps 1-3 the list is still over the limit (30,000)",
            "step 4 measured before steps 1-3": "you paid for a summary, but after steps 1-3"}
    assert said[wrong] in out


def test_the_trap_covers_the_pipeline_the_article_and_the_agent_and_lifts_after():
    from compact_course.agent.loop import Agent
    from compact_course.agent.tools import is_secret_file
    from compact_course.article import ArticleCompactor
    from context_compact.store import sanitize_id
    calls = [lambda: sanitize_id("call/1"), lambda: is_secret_file(".env"),
             lambda: ArticleCompactor.estimate_chars([]), lambda: Agent.run_batch(None, [], "")]
    hits = []
    with build_track.trap.package_refuses(hits):
        for made in calls:
            with pytest.raises(RuntimeError, match="context_compact refused to run"):
                made()
        assert "characters read" in build_track.compact_history.stand_in("x")   # the stand-in model runs
    assert len(hits) == len(calls)
    assert sanitize_id("call/1") == "call_1" and is_secret_file(".env") is True
    assert ArticleCompactor.estimate_chars([]) == 2
