"""The helpers that hold the core notebooks' set-up and bookkeeping (issue 52, clarity), so a
lesson cell shows the step at work: each returns what the notebook used to compute in place.

Covered: replay.py's batch_table, shortened, results_table, result_changes, every_order with
order_table, growth; charts.growth_figure; offline_room's fresh_workspace and OfflineRoom.
Left out: the notebooks' own output (nbval compares it with the stored one).
"""

import json

from compact_course.agent.workspace import fresh_workspace
from compact_course.lessons import charts
from compact_course.lessons.offline_room import OfflineRoom
from compact_course.lessons.replay import (
    CHEAP_STEPS,
    batch_table,
    every_order,
    growth,
    order_table,
    replay,
    result_changes,
    results_table,
    shortened,
    timeline,
)
from compact_course.sessions.histories import load_history
from context_compact import CompactionConfig, estimate_chars
from context_compact.formats import OMITTED
from context_compact.messages import text_of, tool_results


def use(use_id, name, **given):
    return {"type": "tool_use", "id": use_id, "name": name, "input": given}


def result(use_id, text):
    return {"type": "tool_result", "tool_use_id": use_id, "content": text}


MESSAGES = [
    {"role": "user", "content": "read two files"},
    {"role": "assistant", "content": [use("a", "glob", pattern="*")]},
    {"role": "user", "content": [result("a", "x.py\ny.py")]},
    {"role": "assistant", "content": [use("b", "read_file", path="x.py"),
                                      use("c", "bash", command="wc -c y.py")]},
    {"role": "user", "content": [result("b", "z" * 12_345), result("c", "7 y.py")]},
]


def test_batch_table_lists_the_newest_batch_alone_with_tool_size_and_what_was_asked():
    assert batch_table(MESSAGES).splitlines() == [
        "read_file   12,345  x.py",
        "bash             6  wc -c y.py"]
    assert batch_table([]) == ""


def test_shortened_keeps_the_head_and_the_last_line_of_a_long_block():
    block = "\n".join(f"line {n}" for n in range(10))
    assert shortened(block, head=2) == "line 0\nline 1\n    ... preview continues ...\nline 9"
    assert shortened("one\ntwo", head=2) == "one\ntwo"   # nothing to cut


def test_results_table_numbers_every_result_and_marks_the_newest():
    assert results_table(MESSAGES, keep_recent=2).splitlines() == [
        "#  tool      characters",
        "1  glob           9",
        "2  read_file 12,345  newest 2",
        "3  bash           6  newest 2"]


def test_result_changes_pairs_each_result_with_what_step_3_left():
    run = replay("five_reads", profile="seed", step="micro_compact")
    labels, before, after, kinds = result_changes(run.before, run.after)
    assert labels[0] == "1 glob" and all(label.endswith("read_file") for label in labels[1:])
    assert before == [len(text_of(b["content"])) for m in run.before for b in tool_results(m)]
    assert after == [text_of(b["content"]) for m in run.after for b in tool_results(m)]
    # The seed's step 3: the newest 3 and the 119-character glob whole, the two older reads
    # omitted (nothing saved them).
    assert kinds == ["whole", "omitted", "omitted", "whole", "whole", "whole"]
    assert after[1] == after[2] == OMITTED


def test_every_order_loses_the_read_only_when_step_3_runs_before_step_1_in_the_seed():
    runs = every_order("huge_result")
    assert len(runs) == 6 and all(set(run) == {"seed", "default"} for run in runs.values())
    lost = {order: len(run["seed"]["lost"]) for order, run in runs.items()}
    before_3 = {order: order.index("tool_result_budget") < order.index("micro_compact") for order in runs}
    assert all(lost[order] == (0 if before_3[order] else 1) for order in runs), lost
    assert all(not run["default"]["lost"] for run in runs.values())
    right = runs[CHEAP_STEPS]["seed"]
    assert [r.step for r in right["records"]] == list(CHEAP_STEPS)
    assert right["records"][-1].chars_after == estimate_chars(right["context"])
    table = order_table(runs).splitlines()
    assert table[0].split() == ["order", "lost,", "seed", "lost,", "default", "characters", "after,", "seed"]
    assert table[1].split() == ["1", "->", "2", "->", "3", "0", "0", f"{estimate_chars(right['context']):,d}"]
    assert table[-1].split()[:7] == ["3", "->", "2", "->", "1", "1", "0"]


def test_growth_counts_the_list_before_each_call_and_projects_the_refusal():
    history = load_history("timeline_150")
    messages = history["messages"]
    session = growth(history, window_tokens=200_000)
    calls = timeline(history, profile="seed").points
    assert len(session.grown) == len(calls)
    # Before call 1 the list is what came before the first assistant reply.
    first = next(i for i, m in enumerate(messages) if m["role"] == "assistant")
    assert session.grown[0] == len(json.dumps(messages[:first], ensure_ascii=False))
    assert session.grown == sorted(session.grown)           # it only grows
    assert session.sent == [point.chars_after for point in calls]
    assert max(session.sent) < CompactionConfig.seed().context_char_limit < session.grown[-1]
    # Projected at the session's average growth a call, the window is passed at refused_at.
    step = session.grown[-1] / len(session.grown)
    window = session.window_chars(200_000)
    assert session.grown[-1] + (session.refused_at - len(session.grown) - 1) * step <= window
    assert session.grown[-1] + (session.refused_at - len(session.grown)) * step > window
    assert session.window_chars(100_000) == session.chars_per_token * 100_000


def test_growth_figure_draws_the_session_its_projection_and_both_limits():
    session = growth("timeline_150", window_tokens=200_000)
    ax = charts.growth_figure(session, 50_000, 200_000, title="growth").axes[0]
    grey, projected, sent = ax.lines[:3]
    assert list(grey.get_ydata()) == session.grown and list(sent.get_ydata()) == session.sent
    assert list(projected.get_xdata()) == [len(session.grown), session.refused_at]
    assert [line.get_ydata()[0] for line in ax.lines[3:]] == [50_000, session.window_chars(200_000)]
    assert ax.get_title() == "growth"


def test_fresh_workspace_copies_the_sample_without_what_a_run_left(tmp_path):
    workspace = fresh_workspace(tmp_path)
    assert workspace == tmp_path / "workspace"
    assert (workspace / "s08_context_compact" / "code.py").is_file()
    assert not (workspace / ".transcripts").exists() and not (workspace / ".task_outputs").exists()


def test_the_offline_room_answers_a_valid_list_and_refuses_orphaned_results():
    room = OfflineRoom()
    try:
        asked = [{"role": "user", "content": "hi"},
                 {"role": "assistant", "content": [use("t1", "glob", pattern="*")]},
                 {"role": "user", "content": [result("t1", "README.md")]}]
        assert room.send(asked) == "HTTP 200"
        orphan = [{"role": "user", "content": "hi"}, {"role": "user", "content": [result("t1", "x")]}]
        answer = room.send(orphan)
        assert answer.startswith("HTTP 400 ") and "tool_use_id" in answer and "t1" in answer
        agent = room.agent(asked)
        assert agent.messages == asked and agent.messages[1] is not asked[1]   # a copy
        assert agent.workspace == room.workspace.resolve()
        compactor = room.compactor("seed")
        assert compactor.config.profile == "seed"
        assert room.workspace not in compactor.store.root.parents   # never in the workspace
    finally:
        room.close()
    assert not room.workspace.exists()
