"""The sample workspace and the canned histories: reproducible, well formed, and each
one really makes its step fire.

The histories are the course's experiments: if `five_reads` stopped producing
placeholders or `long_session` stopped putting a tool pair at the cut, every
notebook built on them would teach the wrong thing without failing.
"""

import ast
import importlib.util
import json
import re
from pathlib import Path

import pytest

from compact_course.lessons.replay import replay
from compact_course.sessions.histories import (
    HISTORY_DIR,
    HistoryError,
    list_histories,
    load_history,
    model_calls,
)
from context_compact import CompactionConfig, estimate_chars, formats, validate_messages
from context_compact.messages import text_of, tool_results, tool_uses
from tests.helpers import ARTICLE_STEPS

ROOT = Path(__file__).resolve().parents[2]
WORKSPACE = ROOT / "data" / "workspace"
NAMES = ["compact_tool", "five_reads", "huge_result", "long_session", "overflow",
         "timeline_150", "two_code_files"]
LESSONS = ["s01_agent_loop", "s02_tool_use", "s03_planning", "s04_subagents", "s05_todo_write"]


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def results(messages) -> list:
    return [b for m in messages for b in tool_results(m)]


def kinds(messages) -> list:
    return [formats.kind_of_result(text_of(b.get("content", ""))) for b in results(messages)]


# -- the workspace ------------------------------------------------------------------

def test_lesson_readmes_have_distinct_first_level_titles_with_a_pattern():
    titles = []
    for lesson in LESSONS:
        text = (WORKSPACE / lesson / "README.md").read_text(encoding="utf-8")
        assert 2_000 <= len(text) <= 6_000, (lesson, len(text))
        first = text.splitlines()[0]
        assert re.fullmatch(rf"# {lesson[:3]}: [A-Z][\w ]+ - .+", first), first
        titles.append(first)
    assert len(set(titles)) == 5


def test_docs_json_is_a_large_json_file_of_lesson_records():
    text = (WORKSPACE / "web/src/data/generated/docs.json").read_text(encoding="utf-8")
    assert len(text) > 250_000
    data = json.loads(text)
    assert data["count"] == len(data["lessons"])
    record = data["lessons"][0]
    assert {"id", "title", "chapter", "summary", "sections", "code_refs"} <= set(record)


def test_the_two_code_files_are_python_and_together_well_over_50000_characters():
    sizes = []
    for path in ("s08_context_compact/code.py", "s09_memory/code.py"):
        text = (WORKSPACE / path).read_text(encoding="utf-8")
        ast.parse(text, filename=path)
        assert 28_000 <= len(text) <= 36_000, (path, len(text))
        sizes.append(len(text))
    assert sum(sizes) > 55_000


def test_the_test_log_is_long_and_ends_with_a_pytest_summary():
    text = (WORKSPACE / "logs/test_run.log").read_text(encoding="utf-8")
    assert 40_000 <= len(text) <= 80_000
    assert text.count(" FAILED ") == 3
    assert re.search(r"= 3 failed, \d+ passed", text.splitlines()[-1])


def test_the_workspace_names_no_key_and_no_address_to_fetch():
    for path in WORKSPACE.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert "sk-ant-" not in text, path
            assert not re.search(r"https?://", text), path


def test_make_workspace_reproduces_the_generated_files_byte_for_byte():
    module = load_script("make_workspace")
    assert module.docs_json() == (WORKSPACE / "web/src/data/generated/docs.json").read_text(
        encoding="utf-8")
    assert module.test_log() == (WORKSPACE / "logs/test_run.log").read_text(encoding="utf-8")


# -- the histories as files -----------------------------------------------------------

@pytest.mark.slow
def test_make_histories_reproduces_every_file_byte_for_byte():
    files = load_script("make_histories").build_all()
    assert sorted(files) == [f"{name}.json" for name in NAMES]
    for name, text in files.items():
        assert (HISTORY_DIR / name).read_text(encoding="utf-8") == text, name


def test_list_histories_names_all_seven():
    assert list_histories() == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_each_history_is_well_formed(name):
    history = load_history(name)
    assert history["name"] == name
    for key in ("title", "lesson", "step", "active_request", "notes"):
        assert isinstance(history[key], str) and history[key], key
    validate_messages(history["messages"])
    ids = [u["id"] for m in history["messages"] for u in tool_uses(m)]
    assert ids == [f"toolu_{n:04d}" for n in range(1, len(ids) + 1)]
    # The request of the turn is what a user typed, and it is in the history.
    typed = [m["content"] for m in history["messages"]
             if m["role"] == "user" and isinstance(m["content"], str)]
    assert history["active_request"] in typed
    # Real tool output from a scratch copy: no absolute path leaks in.
    for block in results(history["messages"]):
        assert "/tmp/" not in text_of(block["content"])


def test_the_histories_include_the_realistic_variants():
    everything = [m for name in NAMES for m in load_history(name)["messages"]]
    list_contents = [b for b in results(everything) if isinstance(b["content"], list)]
    batches = [m for m in everything if len(tool_uses(m)) > 1]
    text_first = [m for m in everything if m["role"] == "assistant" and tool_uses(m)
                  and m["content"][0]["type"] == "text"]
    assert list_contents and batches and text_first


def test_load_history_refuses_a_bad_path_in_one_line(tmp_path):
    with pytest.raises(HistoryError) as caught:
        load_history(tmp_path / "missing.json")
    assert "no such file" in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("content, reason", [
    ("not json at all", "invalid JSON"),
    ('["a", "list"]', "this looks like a JSON list of strings, which is not read"),
    ('{"title": "x", "messages": []}', "missing active_request"),
    ('{"title": "x", "active_request": "y", "messages": [{"role": "user", "content": '
     '[{"type": "tool_result", "tool_use_id": "t1", "content": "z"}]}]}', "'t1'"),
])
def test_load_history_refuses_a_file_that_is_not_a_history(tmp_path, content, reason):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(HistoryError) as caught:
        load_history(path)
    assert reason in str(caught.value) and "\n" not in str(caught.value)


def test_load_history_gives_a_copy_of_a_dict():
    original = load_history("five_reads")
    copy = load_history(original)
    copy["messages"].clear()
    assert original["messages"]


# -- each history makes its step fire -----------------------------------------------------

def test_five_reads_in_the_seed_profile_turns_older_results_into_placeholders():
    run = replay("five_reads", profile="seed")
    before, after = kinds(run.before), kinds(run.after)
    assert before == ["whole"] * 6
    assert after[-3:] == ["whole"] * 3                     # the newest 3 stay whole
    assert after[1:3] == ["omitted", "omitted"]            # s01 and s02: no copy anywhere
    assert after[0] == "whole"                             # the glob is only 119 characters
    assert [r.step for r in run.records if r.fired] == ["micro_compact"]


def test_five_reads_in_the_default_profile_is_left_alone_under_the_limit():
    run = replay("five_reads", profile="default")
    assert run.after == run.before
    assert not any(r.fired for r in run.records) and not run.files


def test_huge_result_makes_step_1_persist_the_read_with_a_preview(profile):
    run = replay("huge_result", profile=profile)
    budget = run.records[0]
    assert budget.step == "tool_result_budget" and budget.fired
    assert budget.files == [".task_outputs/tool-results/toolu_0002.txt"]
    original = text_of(results(run.before)[1]["content"])
    assert len(original) > CompactionConfig().tool_result_batch_char_limit
    assert run.compactor.store.saved_text(budget.files[0]) == original
    # Only the read moved; the three small commands of the batch stayed whole.
    assert kinds(run.after)[2:] == ["whole"] * 3
    assert budget.chars_after < 10_000


def test_huge_result_shows_why_step_1_runs_before_step_3():
    from compact_course.lessons.replay import wrong_order_loss
    assert wrong_order_loss("huge_result", profile="seed") == 1
    assert wrong_order_loss("huge_result", profile="default") == 0


@pytest.mark.parametrize("profile, kept", [("seed", 53), ("default", 32)])
def test_long_session_snips_with_a_tool_pair_at_each_cut(profile, kept):
    run = replay("long_session", profile=profile, step="snip_compact")
    before, after = run.before, run.after
    assert len(before) == 64 and len(after) == kept
    validate_messages(after)                                # no orphan on either side
    config = run.config
    head = config.snip_keep_head
    # Head: it ended on a tool_use, so its results came along.
    assert tool_uses(after[head - 1]) and tool_results(after[head])
    marker = after[head + 1]
    match = formats.ARCHIVE_RE.match(marker["content"])
    assert match
    # Tail: the naive cut opened on results; the tail starts at their tool_use.
    naive = len(before) - (config.snip_keep_total - head - 1)
    assert tool_results(before[naive]) and after[head + 2] == before[naive - 1]
    assert tool_uses(after[head + 2])
    archived = run.compactor.store.read_transcript(match["path"])
    assert archived == before
    assert int(match["count"]) == (naive - 1) - (head + 1)


def test_long_session_request_stays_visible_once_after_the_snip():
    run = replay("long_session", profile="seed")
    typed = [m["content"] for m in run.after if m["role"] == "user" and isinstance(m["content"], str)]
    assert sum(run.history["active_request"] in t for t in typed) == 1


def test_two_code_files_in_the_seed_profile_pays_for_a_summary():
    run = replay("two_code_files", profile="seed")
    assert run.before and estimate_chars(run.before) > run.config.context_char_limit
    assert [r.step for r in run.records if r.fired] == ["compact_history"]
    assert run.echo[0] == "[auto compact]"
    assert len(run.after) == 1
    match = formats.SUMMARY_RE.match(run.after[0]["content"])
    assert match and match["kind"] == "Compacted"
    assert match["request"] == run.history["active_request"]
    assert run.compactor.store.read_transcript(match["path"]) == run.before


@pytest.mark.parametrize("oversized, step", [(True, "tool_result_budget"), (False, "persist_largest")])
def test_two_code_files_in_the_default_profile_persists_instead_of_summarizing(oversized, step):
    # Each file is over 40% of the limit: step 1 saves it as it arrives (flaw 18); without
    # that switch, the pass before the summary does (flaw 8).
    run = replay("two_code_files", profile="default", overrides={"persist_oversized": oversized})
    fired = [r.step for r in run.records if r.fired]
    assert fired == [step]
    assert sum(r.model_calls for r in run.records) == 0
    assert estimate_chars(run.after) <= run.config.target_chars
    assert kinds(run.after)[1:] == ["persisted", "persisted"]


def test_overflow_stays_over_its_window_after_prepare_and_fits_after_reactive_compact():
    history = load_history("overflow")
    window = history["window_tokens"]
    run = replay(history, profile="default")
    assert not any(r.fired for r in run.records)
    chars = estimate_chars(run.after)
    assert chars <= run.config.context_char_limit          # the character measure is happy
    assert chars / 4 > window * 1.25                       # ...the token window is not
    reactive = replay(history, profile="default", step="reactive_compact")
    assert reactive.records[0].fired
    assert estimate_chars(reactive.after) / 3 < window * 0.75
    validate_messages(reactive.after)


def test_compact_tool_ends_on_a_batch_with_the_compact_call_answered():
    history = load_history("compact_tool")
    last_uses = tool_uses(history["messages"][-2])
    assert [u["name"] for u in last_uses] == ["write_file", "compact"]
    answers = [text_of(b["content"]) for b in tool_results(history["messages"][-1])]
    assert answers[0].startswith("Wrote ") and answers[1] == formats.COMPACT_TOOL_ACK
    run = replay(history, profile="default", step="compact_history")
    assert run.records[0].fired and run.records[0].model_calls == 1
    assert len(run.after) == 1
    assert formats.SUMMARY_RE.match(run.after[0]["content"])["request"] == history["active_request"]


def test_timeline_150_has_at_least_150_model_calls_and_every_step_fires():
    from compact_course.lessons.replay import timeline
    history = load_history("timeline_150")
    assert model_calls(history) >= 150
    seed = timeline(history, profile="seed")
    for step in ARTICLE_STEPS:
        assert seed.calls_where(step), step
    default = timeline(history, profile="default")
    assert timeline(history, profile="default", overrides={"persist_oversized": False}
                    ).calls_where("persist_largest")
    # The default profile's snip has hysteresis: far fewer archives than the seed's.
    assert len(default.calls_where("snip_compact")) * 3 < len(seed.calls_where("snip_compact"))
