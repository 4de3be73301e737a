"""The pipeline's one list of steps (compact/steps.py): prepare runs it, everything else reads it."""

import pytest

from compact import CompactionConfig, ContextCompactor
from compact import compactor as compactor_module
from compact.steps import NAMES, ON_REFUSAL, STEPS, Step, step_named
from workbench.course import charts, pipeline_picture, replay

from .helpers import pairs_history, short_summary


def test_everything_that_names_the_steps_reads_the_list():
    assert replay.STEPS == ("prepare", *NAMES)
    assert charts.STEP_ORDER == list(NAMES)
    numbered = [s.name for s in STEPS if s.number is not None]
    assert [row["name"] for row in pipeline_picture.pipeline_steps()] == numbered
    assert [row["number"] for row in pipeline_picture.pipeline_steps()] == [1, 2, 3, 4]
    for step in STEPS:
        assert getattr(ContextCompactor, step.name).__name__ == step.name


def test_each_step_is_a_method_written_out_by_its_name(tmp_path):
    # `grep -n "def snip_compact" compact/compactor.py` finds the method the article names:
    # defined in the class body, not made at import.
    import ast
    import inspect
    tree = ast.parse(inspect.getsource(compactor_module))
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ContextCompactor").body
    defined = {n.name: [a.arg for a in n.args.args] for n in body if isinstance(n, ast.FunctionDef)}
    for step in STEPS:
        assert step.name in defined, f"ContextCompactor has no `def {step.name}`"
        takes = ["self", "messages", *(["active_request"] if "request" in step.needs else [])]
        assert defined[step.name] == takes, step.name
    # Each runs its own row, and records it under its name.
    c = ContextCompactor(tmp_path, short_summary)
    for step in STEPS:
        if step.name not in ("compact_history", "reactive_compact"):   # those need a model
            getattr(c, step.name)(pairs_history(2))
    assert [r.step for r in c.records] == [s.name for s in STEPS if s.name not in
                                           ("compact_history", "reactive_compact")]


def test_prepare_runs_the_rows_in_order_each_when_its_row_says(tmp_path, monkeypatch):
    seen = []

    def noted(name):
        def run(messages, compactor, *needs):
            seen.append((name, needs))
            return messages
        return run

    rows = (Step("first", noted("first"), None, needs=("size", "request")),
            Step("never", noted("never"), None, when=ON_REFUSAL),
            Step("switched off", noted("switched off"), None, switch="persist_before_summary"),
            Step("over", noted("over"), None, when="over limit"),
            Step("last", noted("last"), None))
    monkeypatch.setattr(compactor_module, "STEPS", rows)
    c = ContextCompactor(tmp_path, short_summary, CompactionConfig.seed())
    messages = [{"role": "user", "content": "hello"}]
    c.prepare(messages, "hello")
    size = c.measure(messages)
    assert seen == [("first", (size, "hello")), ("last", ())]
    assert [r.step for r in c.records] == ["first", "last"]


def test_a_step_alone_is_an_entry_method_and_an_unknown_name_is_refused(tmp_path):
    c = ContextCompactor(tmp_path, short_summary)
    messages = pairs_history(2)
    out = c.persist_largest(messages)
    assert out == messages and [r.step for r in c.records] == ["persist_largest"]
    with pytest.raises(ValueError, match="unknown step 'tidy'.*tool_result_budget"):
        step_named("tidy")
    with pytest.raises(ValueError, match="unknown step"):
        replay.run_step(c, "tidy", messages, "")
