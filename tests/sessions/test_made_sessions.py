"""The made sample sessions in today's formats (data/sessions/, scripts/make_sessions.py):
each is labelled as made, fresh, in its format's real shape, and replayed, swept and
probed through the commands a practitioner runs (`python -m compact_course replay|sweep|probe FILE`).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compact_course.bench.probe import main as probe_main
from compact_course.lessons.replay import main as replay_main
from compact_course.lessons.sweep import main as sweep_main
from compact_course.sessions import detect, load_session
from context_compact.messages import tool_results, tool_uses

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = ROOT / "data" / "sessions"
CLAUDE = SESSIONS / "claude_code_2_1.jsonl"
LIVE = SESSIONS / "claude_code_2_1_live.jsonl"
AGENT = SESSIONS / "claude_code_2_1" / "subagents" / "agent-a3f9c2e1.jsonl"
[ROLLOUT] = sorted(SESSIONS.glob("rollout-2026-01-*.jsonl"))
[TODAY] = sorted(SESSIONS.glob("rollout-2026-07-*.jsonl"))     # a current CLI's lines and items
[EARLY_ROLLOUT] = sorted(SESSIONS.glob("rollout-2025-*.jsonl"))   # before the typed lines
RESPONSES = SESSIONS / "responses_request.json"
TRAJECTORY = SESSIONS / "atif_trajectory.json"
MADE = {CLAUDE: "claude-code", LIVE: "claude-code", AGENT: "claude-code", ROLLOUT: "codex",
        TODAY: "codex", EARLY_ROLLOUT: "codex", RESPONSES: "responses", TRAJECTORY: "atif"}


def records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_samples_are_fresh():
    done = subprocess.run([sys.executable, "scripts/make_sessions.py", "--check"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout


def test_each_sample_says_it_was_made():
    assert records(CLAUDE)[0]["summary"].startswith("MADE, NOT RECORDED")
    assert records(LIVE)[0]["summary"].startswith("MADE, NOT RECORDED")
    assert records(TODAY)[0]["payload"]["base_instructions"]["text"].startswith("MADE, NOT RECORDED")
    assert records(ROLLOUT)[0]["payload"]["instructions"].startswith("MADE, NOT RECORDED")
    assert records(EARLY_ROLLOUT)[0]["instructions"].startswith("MADE, NOT RECORDED")
    assert json.loads(RESPONSES.read_text())["metadata"]["note"].startswith("MADE, NOT RECORDED")
    assert json.loads(TRAJECTORY.read_text())["notes"].startswith("MADE, NOT RECORDED")


def test_the_claude_code_sample_has_2_1s_shapes():
    lines = records(CLAUDE)
    results = [r for r in lines if r.get("sourceToolAssistantUUID")]
    # A batch fans out: each result's parent is the record of its own tool_use.
    by_uuid = {r.get("uuid"): r for r in lines}
    for r in results:
        [block] = r["message"]["content"]
        [use] = by_uuid[r["parentUuid"]]["message"]["content"]
        assert r["parentUuid"] == r["sourceToolAssistantUUID"] and use["id"] == block["tool_use_id"]
    first_batch = [r for r in results if r["parentUuid"] in {x["uuid"] for x in lines[2:6]}]
    assert len(first_batch) == 3
    assert [r["subtype"] for r in lines if r["type"] == "system"] == ["compact_boundary"]
    assert sum(1 for r in lines if r.get("isCompactSummary")) == 1
    assert all(r["isSidechain"] and r["agentId"] == "a3f9c2e1" for r in records(AGENT))


def test_the_live_sample_has_a_kept_segment_and_ends_mid_batch():
    """Issue 51: the boundary names the records it kept; they stay where they were written,
    and the next prompt's parent is the summary; the last batch has one result of three."""
    lines = records(LIVE)
    [boundary] = [r for r in lines if r.get("subtype") == "compact_boundary"]
    segment = boundary["compactMetadata"]["preservedSegment"]
    at = {r.get("uuid"): n for n, r in enumerate(lines)}
    assert at[segment["headUuid"]] < at[segment["tailUuid"]] < at[boundary["uuid"]]
    assert lines[at[segment["anchorUuid"]] + 1]["parentUuid"] == segment["anchorUuid"]
    *_, last_reply, result = lines
    assert len([r for r in lines if r.get("message", {}).get("id") == last_reply["message"]["id"]]) == 4
    assert result["sourceToolAssistantUUID"] and len(result["message"]["content"]) == 1
    history = load_session(LIVE)
    [compaction] = history["compactions"]
    kept = json.dumps([history["messages"][i] for i in compaction["kept"]])
    assert "Keep the other lessons' files as they are." in kept and compaction["at"] == 6
    assert history["import_report"]["odd"] == {"call never answered": 2}


def test_todays_rollout_has_the_lines_and_items_of_a_current_cli():
    kinds = {(r["type"], r["payload"].get("type")) for r in records(TODAY)}
    assert {("token_usage_record", None), ("world_state", None), ("inter_agent_communication", None),
            ("response_item", "configuration_update"), ("response_item", "agent_message"),
            ("response_item", "context_compaction"), ("compacted", None)} <= kinds
    history = load_session(TODAY)
    assert history["import_report"]["odd"] == {} and history["compactions"][0]["encrypted"]
    assert "[message from /root/reviewer to /root]" in json.dumps(history["messages"])


def test_the_early_rollout_has_its_shapes():
    """openai/codex's rollout.rs at 89a151f: the meta with no type, then bare items and
    state lines; no line is typed and none has a payload."""
    meta, *rest = records(EARLY_ROLLOUT)
    assert set(meta) == {"id", "timestamp", "instructions"}
    assert all("payload" not in r and ("type" in r) != ("record_type" in r) for r in rest)
    assert {r["type"] for r in rest if "type" in r} == {"message", "function_call", "function_call_output"}


@pytest.mark.parametrize("path", list(MADE), ids=lambda p: p.name)
def test_each_sample_is_detected_and_imports_whole(path):
    assert detect(path) == MADE[path]
    history = load_session(path)
    uses = [b["id"] for m in history["messages"] for b in tool_uses(m)]
    answered = [b["tool_use_id"] for m in history["messages"] for b in tool_results(m)]
    assert uses and sorted(uses) == sorted(answered)


def test_the_recorded_compactions_are_kept():
    [claude] = load_session(CLAUDE)["compactions"]
    assert claude["line"] == 20 and claude["pre_tokens"] == 168_204 and claude["before_in_file"]
    assert claude["summary"].startswith("This session is being continued")
    [codex] = load_session(ROLLOUT)["compactions"]
    assert codex["summary"] == records(ROLLOUT)[codex["line"] - 1]["payload"]["message"]
    assert len(codex["replacement_history"]) == 2


@pytest.mark.parametrize("path", list(MADE), ids=lambda p: p.name)
def test_each_sample_is_replayed_swept_and_probed(path, capsys):
    assert replay_main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "all steps" in out
    if load_session(path)["compactions"]:
        assert "recorded compaction (" in out
    assert sweep_main([str(path), "--no-progress", "--grid", "context_char_limit=25000,100000"]) == 0
    assert "best (*):" in capsys.readouterr().out
    assert probe_main([str(path), "--no-ask", "--end"]) == 0
    assert "probes:" in capsys.readouterr().out
