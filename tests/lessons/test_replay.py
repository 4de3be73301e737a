"""Replay: a history through prepare or one step, call by call for a timeline, and the CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compact_course.lessons.replay import (
    STEPS,
    call_points,
    format_table,
    main,
    outputs_lost,
    replay,
    timeline,
)
from compact_course.sessions.histories import list_histories, load_history, model_calls
from context_compact import estimate_chars, formats
from context_compact.messages import tool_results
from context_compact.store import SEED, seeded_ids
from tests.helpers import EVERY_CALL, prepare_steps

ROOT = Path(__file__).resolve().parents[2]


# -- replay ----------------------------------------------------------------------------

def test_replay_runs_prepare_and_leaves_the_history_as_loaded():
    history = load_history("long_session")
    run = replay(history, profile="seed")
    assert run.before == history["messages"] == load_history("long_session")["messages"]
    assert [r.step for r in run.records] == EVERY_CALL
    assert run.records[0].chars_before == estimate_chars(run.before)
    assert run.records[-1].chars_after == estimate_chars(run.after)
    assert run.profile == "seed" and run.step == "prepare"


def test_replay_writes_only_into_its_scratch_folder(tmp_path):
    run = replay("long_session", profile="default", root=tmp_path / "scratch")
    assert run.root == (tmp_path / "scratch").resolve()
    written = sorted(p.relative_to(run.root).as_posix()
                     for p in run.root.rglob("*") if p.is_file())
    assert written == sorted(run.files) and len(written) == 1


def test_replay_names_are_the_same_every_time():
    first = replay("two_code_files", profile="seed")
    second = replay("two_code_files", profile="seed")
    assert first.files == second.files
    assert first.files[0].startswith(".transcripts/transcript_")
    assert first.after == second.after
    assert first.root != second.root


def test_seeded_ids_look_like_uuid4_hex_and_repeat_with_the_seed():
    one, two = seeded_ids(3), seeded_ids(3)
    names = [one() for _ in range(5)]
    assert names == [two() for _ in range(5)]
    assert len(set(names)) == 5
    assert all(len(n) == 32 and n[12] == "4" and int(n, 16) >= 0 for n in names)
    # No seed (the store's default): a new sequence each time.
    assert seeded_ids(None)() != seeded_ids(None)()


def test_a_replay_names_its_transcripts_from_the_fixed_seed():
    run = replay("long_session", profile="seed")
    first = seeded_ids(SEED)()
    assert run.files[0] == f".transcripts/transcript_{first}.jsonl"


@pytest.mark.parametrize("step", [s for s in STEPS if s != "prepare"])
def test_replay_of_one_step_keeps_one_record_for_that_step(step):
    run = replay("long_session", profile="seed", step=step)
    assert [r.step for r in run.records] == [step]


def test_replay_refuses_an_unknown_step_and_a_bad_threshold():
    with pytest.raises(ValueError, match="unknown step 'persist'"):
        replay("five_reads", step="persist")
    with pytest.raises(ValueError, match="snip_target_messages"):
        replay("five_reads", overrides={"snip_target_messages": 60})


def test_overrides_change_what_fires():
    # Under the default limit nothing happens; at 10,000 characters step 3 acts (step 2
    # instead, when it archives down to the target in the same call: flaw 17's switch).
    assert not any(r.fired for r in replay("five_reads").records)
    small = replay("five_reads", overrides={"context_char_limit": 10_000, "compact_in_one_call": False})
    micro = [r for r in small.records if r.step == "micro_compact"][0]
    # Lossless, oldest first, the newest 3 and the unanswered batch left whole:
    # the two older README reads are saved and shrunk (the glob is too short).
    assert micro.files == [".task_outputs/tool-results/toolu_0002.txt",
                           ".task_outputs/tool-results/toolu_0003.txt"]
    assert micro.chars_after < micro.chars_before
    assert small.config.context_char_limit == 10_000


# -- timeline ----------------------------------------------------------------------------

def test_timeline_has_one_point_per_model_call_plus_the_pending_one():
    history = load_history("five_reads")          # ends on results the model has not seen
    calls = timeline(history, profile="seed")
    assert len(calls.points) == model_calls(history) + 1
    assert [p.call for p in calls.points] == list(range(1, len(calls.points) + 1))
    assert calls.points[0].chars_before == estimate_chars(history["messages"][:1])
    assert calls.points[0].request == history["active_request"]


def test_timeline_points_agree_with_their_records():
    calls = timeline("timeline_150", profile="default")
    # The session ends on the model's answer: one point per model call, no pending one.
    assert len(calls.points) == model_calls(load_history("timeline_150"))
    for point in calls.points:
        assert point.fired == [r.step for r in point.records if r.fired]
        assert point.files == [f for r in point.records for f in r.files]
        if point.records:
            assert point.records[-1].chars_after == point.chars_after
    assert calls.summary()["calls"] == len(calls.points)
    assert calls.limit == 50_000


def test_timeline_sends_valid_lists_and_follows_the_typed_request():
    from context_compact import validate_messages
    seen = []
    calls = timeline("long_session", profile="seed",
                     observe=lambda point, sent: seen.append((point, sent)))
    for point, sent in seen:
        validate_messages(sent)
        assert point.chars_after == estimate_chars(sent)
    requests = [p.request for p in calls.points]
    assert requests[0] == load_history("long_session")["messages"][1]["content"]
    assert "status report to notes/status.md" in requests[-1]


def test_timeline_runs_the_compact_tool_after_its_batch():
    calls = timeline("timeline_150", profile="default")
    history = load_history("timeline_150")
    compact_calls = [p for p in calls.points if p.request.startswith("Save what we learned")]
    answered = compact_calls[1]          # the call after the batch that asked to compact
    assert answered.fired[0] == "compact_history" and answered.model_calls == 1
    assert answered.messages_after < answered.messages_before
    assert any(formats.COMPACT_TOOL_ACK == b["content"]
               for m in history["messages"] for b in tool_results(m))


def test_call_points_rebuild_a_timeline_from_its_records_alone():
    calls = timeline("long_session", profile="seed")
    rebuilt = call_points(calls.records)
    fields = ("call", "messages_before", "messages_after", "chars_before", "chars_after",
              "fired", "files", "model_calls")
    assert [[getattr(p, f) for f in fields] for p in rebuilt] == \
        [[getattr(p, f) for f in fields] for p in calls.points]
    assert any(p.fired for p in rebuilt)


def test_call_points_leave_out_steps_run_before_any_prepare():
    run = replay("long_session", profile="seed", step="snip_compact")   # call 0
    assert call_points(run.records) == []
    compactor = run.compactor
    compactor.prepare(run.after, run.history["active_request"])
    (point,) = call_points(compactor.records)
    assert point.call == 1 and point.records == compactor.records[1:]


def test_seed_profile_loses_outputs_for_good_and_the_default_none():
    assert outputs_lost("five_reads", profile="seed") == 2
    assert outputs_lost("long_session", profile="seed") > 0
    assert outputs_lost("long_session", profile="default") == 0


# -- the table -----------------------------------------------------------------------------

def test_table_has_a_row_per_step_a_total_and_every_file():
    run = replay("two_code_files", profile="default", overrides={"persist_oversized": False})
    table = run.table()
    lines = table.splitlines()
    assert lines[0].split()[:3] == ["step", "messages", "before"]
    rows = {line.split()[0]: line for line in lines[2:] if line.strip() and not line.startswith(" ")}
    # Persisting was enough: step 4 never ran.
    assert list(rows) == [*(step for step in prepare_steps(run.config) if step != "compact_history"), "all"]
    persisted = run.records[3]
    assert f"{persisted.chars_before:,d} -> {persisted.chars_after:,d}" in rows["persist_largest"]
    for path in run.files:
        assert sum(path in line for line in lines) == 1
    assert rows["all"].endswith("2 files")
    # Fixed width: the arrows of one column line up.
    arrows = {line.index("->") for line in lines[2:] if "->" in line}
    assert len(arrows) == 1


def test_table_of_nothing_says_so():
    assert format_table([]).endswith("(no steps ran)")


# -- python -m compact_course replay -------------------------------------------------------------------

@pytest.mark.parametrize("name", list_histories())
def test_cli_prints_the_table_for_every_history(name, capsys):
    assert main([name, "--profile", "seed"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{name}: ")
    assert "step" in out and "characters before -> after" in out
    for step in EVERY_CALL:
        assert step in out


def test_cli_single_step_and_thresholds(capsys):
    assert main(["five_reads", "--step", "micro_compact",
                 "--set", "context_char_limit=10000"]) == 0
    out = capsys.readouterr().out
    assert "micro_compact" in out and "tool_result_budget" not in out


@pytest.mark.parametrize("argv, words", [
    (["no_such_history"], "no such file"),
    (["README.md"], "not a history"),
    (["data/histories"], "not a file"),
    (["five_reads", "--step", "bogus"], "invalid choice"),
    (["five_reads", "--profile", "fancy"], "invalid choice"),
    (["five_reads", "--set", "context_char_limit=lots"], "not a number"),
    (["five_reads", "--set", "colour=blue"], "NAME=VALUE"),
    (["five_reads", "--set", "snip_max_messages=2"], "snip_max_messages"),
    (["five_reads", "--chart", "/no/such/folder/x.png"], "folder does not exist"),
    ([], "required"),
])
def test_cli_errors_are_one_line_on_stderr_with_status_2(argv, words, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("replay: error: ") and words in lines[0]


def test_cli_refuses_a_json_file_with_an_orphan_result(tmp_path, capsys):
    path = tmp_path / "orphan.json"
    path.write_text(json.dumps({"title": "x", "active_request": "y", "messages": [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9",
                                      "content": "z"}]}]}), encoding="utf-8")
    assert main([str(path)]) == 2
    assert "'t9'" in capsys.readouterr().err


def test_cli_chart_writes_a_png(tmp_path, capsys):
    target = tmp_path / "chart.png"
    assert main(["huge_result", "--chart", str(target)]) == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"chart saved to {target}" in capsys.readouterr().out


def test_python_dash_m_compact_replay_dispatches_here():
    done = subprocess.run([sys.executable, "-m", "compact_course", "replay", "five_reads",
                           "--profile", "seed"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "micro_compact" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "compact_course", "replay", "missing.json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1
