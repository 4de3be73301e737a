"""Recorded compactions (issue 44): latest-value probes, the audit of the compactions a session
file records (Claude Code and Codex), the designs at the same point, and rounds.

The made samples (scripts/make_recorded_sessions.py) were written so that every
probe's place is known without the code under test: the summary the script wrote
keeps the request, the instruction, the edited file and its new retries, the error
(Claude Code's only) and the next step; it keeps the first timeout and the first
test result, stale by then; after it the agent runs both logs again and re-reads
requirements.txt.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import assistant, tool_result, tool_use, user
from workbench.bench.benchmark import DESIGN_TABLE
from workbench.bench.probe_ask import Asker
from workbench.bench.probe_walk import walk
from workbench.bench.rounds import ROUNDS, rounds_table, session_rounds, shares
from workbench.course.probe import main as probe_main
from workbench.course.recorded import PLACES, audit, designs_at, read_recorded, sample_paths
from workbench.importers import load_session
from workbench.importers.source import SessionFileError
from workbench.probes import FACT_WORDS, KINDS, Probe, make_probes, question_for, read_question, score

pytestmark = pytest.mark.usefixtures("no_network")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def asker():
    with Asker.offline() as model:
        yield model


@pytest.fixture(scope="module")
def audited(asker):
    return {name: audit(read_recorded(path), asker) for name, path in sample_paths().items()}


def places(row) -> dict:
    """(kind, detail, expected) -> place, for every probe of an audit row."""
    return {(p.kind, p.detail, p.expected): where for p, where in zip(row["_probes"], row["_places"])}


# -- latest-value probes -----------------------------------------------------------

def changing_session() -> tuple[list, str]:
    """A setting the user changes, a value overwritten in a file, a test failing then passing."""
    messages = [user("Fix the cart tests. Set the timeout to 30.")]
    for n in range(30):
        text = (f"retries = {1 + n // 10}\nname = cart\n" + "x" * 3000 +
                f"\ntests/test_cart.py::test_total {'FAILED' if n < 20 else 'PASSED'}")
        messages += [assistant(tool_use(f"t{n}", "read_file", path=f"cfg{n}.ini"),
                               note=f"Let me read config {n}."),
                     {"role": "user", "content": [tool_result(f"t{n}", text)]}]
        if n == 15:
            messages += [assistant(note="Done with the first half."), user("Change the timeout to 60.")]
    return messages, "Change the timeout to 60."


def test_latest_value_probes_name_the_fact_count_its_values_and_keep_the_stale_ones():
    messages, request = changing_session()
    latest = {p.detail: p for p in make_probes(messages, request) if p.kind == "latest value"}
    assert set(latest) == {"setting", "value", "test"}
    assert (latest["setting"].cue, latest["setting"].expected, latest["setting"].stale) == \
        ("timeout", "Change the timeout to 60.", ("Set the timeout to 30.",))
    assert (latest["value"].expected, latest["value"].stale) == \
        ("retries = 3", ("retries = 1", "retries = 2"))
    assert latest["test"].expected == "tests/test_cart.py::test_total PASSED"
    assert read_question(latest["value"].question) == ("latest", "retries", ("value", 3))
    for detail in FACT_WORDS:
        question = question_for("latest", "a b", detail, values=4)
        assert read_question(question) == ("latest", "a b", (detail, 4))


def test_a_key_with_many_values_in_one_output_is_a_list_not_a_fact():
    rows = "\n".join(f"id = {k}" for k in range(5))
    messages = [user("List them."), assistant(tool_use("a", "bash", command="ls")),
                {"role": "user", "content": [tool_result("a", rows)]},
                assistant(tool_use("b", "bash", command="ls")),
                {"role": "user", "content": [tool_result("b", "id = 9")]}]
    assert not [p for p in make_probes(messages, "List them.") if p.kind == "latest value"]


def test_a_stale_answer_is_wrong_not_cant_tell():
    probe = Probe("latest value", "setting", question_for("latest", "timeout", "setting", values=2),
                  "Change the timeout to 60.", "timeout", "sentence", 3, stale=("Set the timeout to 30.",))
    assert score(probe, "From the summary: Set the timeout to 30.") == "wrong"
    assert score(probe, "I can't tell for sure; it was: Set the timeout to 30.") == "wrong"
    assert score(probe, "I can't tell from what I read.") == "can't tell"
    assert score(probe, "It was 30, then: Change the timeout to 60.") == "right"


def test_the_offline_model_never_answers_a_stale_value(asker, tmp_path):
    messages, request = changing_session()
    probe = next(p for p in make_probes(messages, request) if p.detail == "setting")
    stale_only = [user("Fix the cart tests. Set the timeout to 30."), assistant(note="Noted.")]
    answer = asker.ask(stale_only, str(tmp_path), probe, "gone")
    assert answer["score"] == "can't tell" and "30" not in answer["answer"], answer
    both = [*stale_only, user("Change the timeout to 60.")]
    assert asker.ask(both, str(tmp_path), probe, "in context")["score"] == "right"


def test_the_offline_model_is_never_wrong_on_any_design_latest_values_included(asker):
    messages, request = changing_session()
    for design in DESIGN_TABLE:
        run = walk(messages, request, design, ask=asker, every_call=False,
                   limits={"context_char_limit": 20000})
        scores = [(p.kind, tries[0]["score"]) for p, tries in zip(run["probes"], run["answers"])]
        assert not [s for s in scores if s[1] == "wrong"], (design, scores)
        if design == "none":   # everything in context: every latest value answered
            assert all(s == "right" for k, s in scores if k == "latest value"), scores


# -- recorded compactions ----------------------------------------------------------

def test_each_sample_records_one_compaction_where_the_importer_finds_it():
    claude, codex = (read_recorded(path) for path in sample_paths().values())
    assert [(r.line, r.kind, r.trigger) for r in claude] == [(24, "claude-code compact_boundary", "auto")]
    assert [(r.line, r.kind) for r in codex] == [(25, "codex compacted")]
    assert claude[0].summary.startswith("This session is being continued from a previous conversation")
    assert "Next I will check the discount code in cart/NOTES.md." in codex[0].summary
    imported = load_session(sample_paths()["claude-code"])["compactions"]
    assert [(c["line"], c["summary"]) for c in imported] == [(24, claude[0].summary)]


EXPECTED = {   # (kind, detail, expected) -> place, the same in both samples but where noted
    ("decision", "constraint", "Do not edit anything under web/."): "in summary",
    ("decision", "decision", "I decided to raise the retries before touching the code."): "gone",
    ("continuation", "next step", "Next I will check the discount code in cart/NOTES.md."): "in summary",
    ("latest value", "setting", "Change the timeout to 45."): "gone",
    ("latest value", "test", "tests/test_cart.py::test_total PASSED"): "re-read",
}


@pytest.mark.parametrize("name", ["claude-code", "codex"])
def test_every_probe_stands_where_the_sample_put_it(audited, name):
    [row] = audited[name]
    found = places(row)
    for key, where in EXPECTED.items():
        assert found[key] == where, (key, found)
    recall = {p.expected: w for p, w in zip(row["_probes"], row["_places"]) if p.kind == "recall"}
    error = "E   AssertionError: expected total 42.50, got 40.00 after the discount"
    assert recall[error] == ("in summary" if name == "claude-code" else "re-read")
    retries = next(w for (k, d, e), w in found.items() if k == "latest value" and d == "value")
    assert retries == "in summary"
    artifacts = {p.cue: w for p, w in zip(row["_probes"], row["_places"]) if p.kind == "artifact"}
    assert artifacts["cart/settings.ini"] == "in summary"
    if name == "claude-code":   # Claude Code's Read and Edit are file tools; Codex reads with cat
        assert (artifacts["requirements.txt"], artifacts["README.md"]) == ("re-read", "gone")
    assert row["stale"] == 2    # the first timeout and the first test result
    assert {k for k in KINDS if sum(row["by_kind"][k].values())} == set(KINDS)
    assert row["in_summary"] + row["re_read"] + row["gone"] == row["probes"] == len(row["_probes"])


def test_every_place_and_kind_appears_in_the_samples(audited):
    rows = [row for found in audited.values() for row in found]
    for kind in KINDS:
        # What the user and the assistant wrote comes back only from a file that holds it:
        # no tool call fetches a sentence of the conversation again in these samples.
        wanted = PLACES if kind in ("recall", "artifact", "latest value") else ("in summary", "gone")
        for where in wanted:
            assert any(row["by_kind"][kind][where] for row in rows), (kind, where)


def test_the_offline_model_answers_from_the_summary_alone_and_is_never_wrong(audited):
    for name, [row] in audited.items():
        scores = {(p.kind, p.expected): a["score"] for p, a in zip(row["_probes"], row["answers"])}
        assert "wrong" not in scores.values(), (name, scores)
        assert scores[("decision", "Do not edit anything under web/.")] == "right"
        # Not in the summary: the model can't tell, though the request held it before.
        assert scores[("latest value", "Change the timeout to 45.")] == "can't tell"
        for p, where, a in zip(row["_probes"], row["_places"], row["answers"]):
            if where != "in summary":
                assert a["score"] == "can't tell", (name, p.expected, a)


def test_the_designs_at_the_same_point_are_billed_with_misses_priced(audited):
    [row] = audited["claude-code"]
    found = read_recorded(sample_paths()["claude-code"])[0]
    designs = designs_at(row, found, ("none", "seed", "default"))
    assert designs["recorded"]["misses"] == 2 and designs["recorded"]["misses_cost"] > 0
    assert designs["none"]["gone"] == 0 and designs["none"]["misses"] == 0
    for d in ("none", "seed", "default"):
        assert designs[d]["cost"] > 0
        assert designs[d]["total"] == designs[d]["cost"] + designs[d]["misses_cost"]
    # The seed profile's step 3 leaves an output with no copy: a miss, priced.
    assert designs["seed"]["misses"] >= 1 and designs["seed"]["misses_cost"] > 0


def test_probe_recorded_json_gives_each_compaction(capsys):
    assert probe_main([str(sample_paths()["codex"]), "--recorded", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)["recorded"]
    assert (row["line"], row["kind"], row["probes"]) == (25, "codex compacted", 12)
    assert set(row) >= {"line", "kind", "probes", "in_summary", "re_read", "gone", "by_kind"}
    assert set(row["by_kind"]) == set(KINDS) and set(row["by_kind"]["recall"]) == set(PLACES)


def test_probe_recorded_prints_the_audit_and_the_designs(capsys):
    assert probe_main([str(sample_paths()["claude-code"]), "--recorded", "--designs", "none", "default"]) == 0
    out = capsys.readouterr().out
    assert "line 24: claude-code compact_boundary (auto)" in out
    assert "the course's designs at the same point" in out and "misses cost" in out
    assert "\ntime: " in out


def test_a_file_that_is_not_a_session_is_named(tmp_path, capsys):
    bad = tmp_path / "notes.jsonl"
    bad.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(SessionFileError, match="notes.jsonl"):
        read_recorded(bad)
    assert probe_main([str(bad), "--recorded"]) == 2
    assert "notes.jsonl" in capsys.readouterr().err
    assert probe_main(["--bench", "tool-heavy", "--recorded"]) == 2


def test_the_samples_are_up_to_date():
    done = subprocess.run([sys.executable, "scripts/make_recorded_sessions.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


# -- rounds ------------------------------------------------------------------------

def test_rounds_locate_the_probes_made_before_each_compaction():
    messages, request = changing_session()
    runs = session_rounds(messages, request, ("none", "summary", "seed", "default"),
                          limits={"context_char_limit": 20000})
    assert runs["none"]["rounds"] == []
    for design in ("summary", "seed", "default"):
        rounds = runs[design]["rounds"]
        assert 1 <= len(rounds) <= ROUNDS, design
        calls = [r["call"] for r in rounds]
        assert calls == sorted(set(calls)) and [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
        totals = [shares(r)[2] for r in rounds]
        assert totals == sorted(totals)            # a later round asks of more messages
        for r in rounds:
            held, reachable, _ = shares(r)
            assert held <= reachable
    # By its last round the summary holds fewer latest values than its transcripts reach.
    last = runs["summary"]["rounds"][-1]
    assert shares(last, "latest value")[0] < shares(last, "latest value")[1] == 1
    table = rounds_table(runs)
    assert "never compacts" in table and "latest value" in table


@pytest.mark.parametrize("name, line", [("claude_code_2_1.jsonl", 20),
                                        ("rollout-2026-01-08T10-00-00-596847f1-a179-5af5-9870-67aac8fa33c8.jsonl",
                                         19)])
def test_the_importers_samples_audit_too_and_the_offline_model_is_never_wrong(asker, name, line):
    [row] = audit(read_recorded(ROOT / "data" / "sessions" / name), asker)
    assert row["line"] == line and row["probes"] > 0
    assert row["in_summary"] + row["re_read"] + row["gone"] == row["probes"]
    assert not [a for a in row["answers"] if a["score"] == "wrong"]
