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

from compact_course.bench.benchmark import DESIGN_TABLE
from compact_course.bench.probe import main as probe_main
from compact_course.bench.probe_ask import Asker
from compact_course.bench.probe_walk import walk
from compact_course.bench.recorded import PLACES, audit, designs_at, key, read_recorded, sample_paths
from compact_course.bench.rounds import ROUNDS, rounds_table, session_rounds, shares
from compact_course.probes import FACT_WORDS, KINDS, Probe, make_probes, question_for, read_question, score
from compact_course.sessions import load_session
from compact_course.sessions.source import SessionFileError
from tests.helpers import assistant, tool_result, tool_use, user

pytestmark = pytest.mark.usefixtures("no_network")
ROOT = Path(__file__).resolve().parents[2]


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
    ("decision", "decision", "I decided to raise the retries before touching the code."): "gone",
    ("continuation", "next step", "Next I will check the discount code in cart/NOTES.md."): "summary only",
    ("latest value", "setting", "Change the timeout to 45."): "gone",
    ("latest value", "test", "tests/test_cart.py::test_total PASSED"): "re-read",
}


@pytest.mark.parametrize("name", ["claude-code", "codex"])
def test_every_probe_stands_where_the_sample_put_it(audited, name):
    [row] = audited[name]
    found = places(row)
    for probe_key, where in EXPECTED.items():
        assert found[probe_key] == where, (probe_key, found)
    # The instruction: in Claude Code's summary; Codex keeps the user's message word for word.
    constraint = found[("decision", "constraint", "Do not edit anything under web/.")]
    assert constraint == ("summary only" if name == "claude-code" else "in context")
    recall = {p.expected: w for p, w in zip(row["_probes"], row["_places"]) if p.kind == "recall"}
    error = "E   AssertionError: expected total 42.50, got 40.00 after the discount"
    assert recall[error] == ("summary only" if name == "claude-code" else "re-read")
    retries = next(w for (k, d, e), w in found.items() if k == "latest value" and d == "value")
    assert retries == "summary only"
    artifacts = {(p.tool, p.cue): w for p, w in zip(row["_probes"], row["_places"]) if p.kind == "artifact"}
    # Claude Code's Read, Edit and Bash, Codex's apply_patch and shell (`cat`): one table of file tools.
    read, edit, shell = ("Read", "Edit", "Bash") if name == "claude-code" else \
        ("shell", "apply_patch", "shell")
    assert artifacts[(edit, "cart/settings.ini")] == "summary only"
    assert (artifacts[(read, "requirements.txt")], artifacts[(read, "README.md")]) == ("re-read", "gone")
    assert artifacts[(shell, "logs/cart_run1.log")] == "re-read"     # run again after the compaction
    assert row["stale"] == 2    # the first timeout and the first test result
    assert {k for k in KINDS if sum(row["by_kind"][k].values())} == set(KINDS)
    assert sum(row[key(where)] for where in PLACES) == row["probes"] == len(row["_probes"])
    assert (row["on_disk"], row["transcript"]) == (0, "")    # neither summary names a transcript


def test_every_place_but_on_disk_and_every_kind_appear_in_the_samples(audited):
    rows = [row for found in audited.values() for row in found]
    for kind in KINDS:
        # What the user and the assistant wrote comes back only from a file that holds it:
        # no tool call fetches a sentence of the conversation again in these samples.
        fetched = kind in ("recall", "artifact", "latest value")
        for where in ("summary only", "gone", *(("re-read",) if fetched else ())):
            assert any(row["by_kind"][kind][where] for row in rows), (kind, where)
    assert rows[1]["by_kind"]["decision"]["in context"] == 1     # Codex's replacement history
    # On disk: a summary that names its transcript (test_a_transcript_the_summary_names_...).


def test_the_offline_model_answers_from_what_the_compaction_left_and_is_never_wrong(audited):
    for name, [row] in audited.items():
        scores = {(p.kind, p.expected): a["score"] for p, a in zip(row["_probes"], row["answers"])}
        assert "wrong" not in scores.values(), (name, scores)
        assert scores[("decision", "Do not edit anything under web/.")] == "right"
        # Not in the summary: the model can't tell, though the request held it before.
        assert scores[("latest value", "Change the timeout to 45.")] == "can't tell"
        for p, where, a in zip(row["_probes"], row["_places"], row["answers"]):
            if where not in ("in context", "summary only"):
                assert a["score"] == "can't tell", (name, p.expected, a)


def test_the_designs_at_the_same_point_are_billed_with_misses_priced(audited):
    [row] = audited["claude-code"]
    found = read_recorded(sample_paths()["claude-code"])[0]
    designs = designs_at(row, found, ("none", "seed", "default"))
    # A miss is a tool's output not in context, for the recorded compaction as for a design:
    # here the two output lines, the retries and the test result (none kept word for word).
    assert designs["recorded"]["misses"] == 4 and designs["recorded"]["misses_cost"] > 0
    assert designs["none"]["in context"] == row["probes"] and designs["none"]["misses"] == 0
    for d in ("none", "seed", "default"):
        assert designs[d]["cost"] > 0
        assert designs[d]["total"] == designs[d]["cost"] + designs[d]["misses_cost"]
    # The seed profile's step 3 leaves an output with no copy: a miss, priced; the agent ran
    # that log again after the compaction, so it is re-read, as the recorded compaction's is.
    assert designs["seed"]["misses"] >= 1 and designs["seed"]["misses_cost"] > 0
    assert designs["seed"]["re-read"] == 1 and designs["seed"]["gone"] == 0


def test_probe_recorded_json_gives_each_compaction(capsys):
    assert probe_main([str(sample_paths()["codex"]), "--recorded", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)["recorded"]
    assert (row["line"], row["kind"], row["probes"]) == (25, "codex compacted", 17)
    assert set(row) >= {"line", "kind", "probes", *map(key, PLACES), "summary_says", "by_kind", "tokens",
                        "slice_tokens", "transcript", "kept"}
    assert set(row["by_kind"]) == set(KINDS) and set(row["by_kind"]["recall"]) == set(PLACES)


def test_probe_recorded_prints_the_audit_and_the_designs(capsys):
    assert probe_main([str(sample_paths()["claude-code"]), "--recorded", "--designs", "none", "default"]) == 0
    out = capsys.readouterr().out
    assert "line 24: claude-code compact_boundary (auto)" in out
    assert "the course's designs at the same point" in out and "misses cost" in out
    assert "this file's slice before it is" in out and "the compaction was made at 31,000" in out
    # One table of places: the recorded compaction is a row beside the designs.
    header = next(line.split() for line in out.splitlines() if line.strip().startswith("design"))
    assert " ".join(header).startswith("design " + " ".join(PLACES))
    assert any(line.split()[:1] == ["recorded"] for line in out.splitlines())
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
    assert sum(row[key(where)] for where in PLACES) == row["probes"]
    assert not [a for a in row["answers"] if a["score"] == "wrong"]


# -- a fair audit (issue 51): the transcript on disk, what was kept, the token counts, the request --

SESSION = "5f0c2a1e-7a1b-4c2d-9e3f-00000000abcd"
LOG = ("== cart run 1 ==\ncollecting 3 items\ntests/test_cart.py::test_total FAILED\n"
       "E   AssertionError: expected total 42.50, got 40.00 after the discount\n1 failed, 2 passed in 0.31s")
USAGE = {"input_tokens": 3, "cache_creation_input_tokens": 500, "cache_read_input_tokens": 150000,
         "output_tokens": 200}
# Claude Code 2.x ends its summaries with where the full transcript is (the path is made).
TRANSCRIPT_AT = ("\n\nIf you need specific details from before compaction (like exact code snippets, error "
                 "messages, or content you generated), read the full transcript at: "
                 "/home/u/.claude/projects/-home-u-cart/{session}.jsonl\nContinue the conversation from "
                 "where it left off without asking the user any further questions.")
SUMMARY_2 = ("This session is being continued from a previous conversation that ran out of context. "
             "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
             "1. Primary Request and Intent:\n   Fix the cart tests.\n"
             "2. Files and Code Sections:\n   - cart/settings.ini: retries raised")


class ClaudeFile:
    """A small Claude Code 2.x session file, record by record, in the shapes real files have:
    a reply a record a block, a result a record, harness texts in the user's turn, a
    `compact_boundary` (`logicalParentUuid`, `compactMetadata`), then the summary."""

    def __init__(self):
        self.records, self.parent = [], None

    def add(self, kind: str, message=None, **extra) -> None:
        uid = f"00000000-0000-4000-8000-{len(self.records) + 1:012d}"
        record = {"parentUuid": self.parent, "isSidechain": False, "userType": "external",
                  "cwd": "/home/u/cart", "sessionId": SESSION, "version": "2.1.100", "type": kind,
                  "uuid": uid, "timestamp": f"2026-05-01T10:{len(self.records):02d}:00.000Z", **extra}
        if message is not None:
            record["message"] = message
        self.records.append(record)
        self.parent = uid

    def typed(self, text: str, **extra) -> None:
        self.add("user", {"role": "user", "content": text}, **extra)

    def reply(self, text, *calls) -> None:
        """calls: (tool, input, output)"""
        n = len(self.records)
        uses = [{"type": "tool_use", "id": f"toolu_{n:03d}_{k}", "name": name, "input": data}
                for k, (name, data, _) in enumerate(calls)]
        for block in ([{"type": "text", "text": text}] if text else []) + uses:
            self.add("assistant", {"id": f"msg_{n:03d}", "type": "message", "role": "assistant",
                                   "model": "claude-made", "content": [block], "usage": USAGE})
        for use, (_, _, output) in zip(uses, calls):
            self.add("user", {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": use["id"], "content": output}]})

    def compact(self, summary: str, pre_tokens: int | None = None) -> None:
        meta = {"trigger": "auto", **({"preTokens": pre_tokens} if pre_tokens else {})}
        before, self.parent = self.parent, None
        self.add("system", content="Conversation compacted", subtype="compact_boundary", level="info",
                 isMeta=False, logicalParentUuid=before, compactMetadata=meta)
        self.typed(summary, isCompactSummary=True, isVisibleInTranscriptOnly=True)

    def write(self, path) -> Path:
        path.write_text("".join(json.dumps(r) + "\n" for r in self.records), encoding="utf-8")
        return path


def cart_session(summary: str, pre_tokens: int | None = 155_000) -> ClaudeFile:
    """Before the compaction: a request, a read, an edit, a log, a changed setting, then
    the harness's own texts in the user's turn (a task's notification, /context and its
    output, a caveat); after it, one more read."""
    s = ClaudeFile()
    s.typed("Fix the cart tests. Do not edit anything under web/.")
    s.reply("I'll read the settings first.",
            ("Read", {"file_path": "cart/settings.ini"}, "     1\ttimeout = 30\n     2\tretries = 2"))
    s.reply("I decided to raise the retries before touching the code.",
            ("Edit", {"file_path": "cart/settings.ini", "old_string": "retries = 2",
                      "new_string": "retries = 5"}, "The file cart/settings.ini has been updated."))
    s.reply(None, ("Bash", {"command": "sed -n '1,40p' logs/cart_run1.log"}, LOG))
    s.typed("Change the timeout to 45.")
    s.reply("Next I will check the discount code in cart/NOTES.md.",
            ("Grep", {"pattern": "discount", "path": "cart/NOTES.md"}, "cart/NOTES.md:3:one discount code"))
    s.typed("<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n"
            "<summary>Background command finished</summary>\n</task-notification>")
    s.typed("Caveat: The messages below were generated by the user while running local commands. "
            "DO NOT respond to these messages.", isMeta=True)
    s.typed("<command-name>/context</command-name>\n<command-message>context</command-message>\n"
            "<command-args></command-args>")
    s.typed("<local-command-stdout>Context usage: 155k tokens</local-command-stdout>")
    s.compact(summary, pre_tokens)
    s.reply("I'll look at the notes.", ("Read", {"file_path": "cart/NOTES.md"}, "# Cart\none discount code"))
    return s


def test_a_transcript_the_summary_names_is_on_disk_as_a_designs_transcript_is(asker, tmp_path):
    # Named as Claude Code names it (<sessionId>.jsonl), the file found under another name.
    summary = SUMMARY_2 + TRANSCRIPT_AT.format(session=SESSION)
    path = cart_session(summary).write(tmp_path / "claude-session.jsonl")
    [found] = read_recorded(path)
    [row] = audit([found], asker)
    # Every probe of the messages before it is in the transcript: none is gone, as none is
    # for the course's summary design, whose transcript is on disk too.
    assert (row["gone"], row["re_read"]) == (0, 0)
    assert row["on_disk"] > 0 and row["on_disk"] + row["summary_only"] == row["probes"]
    assert found.transcript.endswith(f"{SESSION}.jsonl") and found.transcript_here
    designs = designs_at(row, found, ("summary",))
    assert designs["recorded"]["gone"] == designs["summary"]["gone"] == 0
    # Asked, the offline model re-reads the transcript: on disk, and answered right.
    right = [p.expected for p, where, a in zip(row["_probes"], row["_places"], row["answers"])
             if where == "on disk" and a["score"] == "right" and a["reads"]]
    assert "E   AssertionError: expected total 42.50, got 40.00 after the discount" in right
    assert not [a for a in row["answers"] if a["score"] == "wrong"]


def test_a_transcript_that_is_not_this_file_is_named_and_not_read(tmp_path, capsys):
    other = "9d1e0000-0000-4000-8000-000000000000"
    path = cart_session(SUMMARY_2 + TRANSCRIPT_AT.format(session=other)).write(tmp_path / "s.jsonl")
    assert probe_main([str(path), "--recorded", "--designs", "default"]) == 0
    out = capsys.readouterr().out
    assert f"a transcript that is not this file, /home/u/.claude/projects/-home-u-cart/{other}.jsonl" in out
    [row] = audit(read_recorded(path))
    assert (row["transcript_here"], row["on_disk"]) == (False, 0) and row["gone"] > 0


def test_messages_the_compaction_kept_word_for_word_are_in_context(tmp_path, monkeypatch):
    from compact_course.bench import recorded

    path = cart_session(SUMMARY_2).write(tmp_path / "s.jsonl")
    history = load_session(path)
    [compaction] = history["compactions"]
    at = compaction["at"]
    # The importer's `kept`: the indices of the messages the compaction kept verbatim (here
    # the typed change of the timeout and the reply after it, as a preservedSegment would).
    typed = next(i for i, m in enumerate(history["messages"][:at]) if "Change the timeout to 45." in str(m))
    monkeypatch.setattr(recorded, "load_session", lambda p: {
        **history, "compactions": [{**compaction, "kept": [typed, typed + 1]}]})
    [row] = audit(read_recorded(path))
    found = places(row)
    assert found[("continuation", "next step", "Next I will check the discount code in cart/NOTES.md.")] \
        == "in context"
    assert found[("continuation", "request", "Change the timeout to 45.")] == "in context"
    assert row["kept"] == 2 and row["in_context"] >= 3
    # Without `kept` (a file before the importer reads preservedSegment): nothing in context.
    monkeypatch.setattr(recorded, "load_session", lambda p: history)
    assert audit(read_recorded(path))[0]["in_context"] == 0


def test_the_compactions_own_token_count_is_given_beside_the_slices(tmp_path, capsys):
    path = cart_session(SUMMARY_2).write(tmp_path / "s.jsonl")
    assert probe_main([str(path), "--recorded", "--designs", "default"]) == 0
    out = capsys.readouterr().out
    assert "the compaction was made at 155,000 (its compactMetadata.preTokens)" in out
    [row] = audit(read_recorded(path))
    assert (row["tokens"], row["tokens_from"]) == (155_000, "its compactMetadata.preTokens")
    assert 0 < row["slice_tokens"] < 2_000
    assert f"this file's slice before it is {row['slice_tokens']:,}" in out
    # No preTokens: the usage of the last model call before it (input, cache writes, reads, output).
    session = cart_session(SUMMARY_2, pre_tokens=None)
    last = max(n for n, r in enumerate(session.records, start=1)
               if r["type"] == "assistant" and n < next(k for k, r in enumerate(session.records, start=1)
                                                        if r.get("subtype") == "compact_boundary"))
    [row] = audit(read_recorded(session.write(tmp_path / "t.jsonl")))
    assert (row["tokens"], row["tokens_from"]) == (150_703, f"the usage of the last model call before it, "
                                                            f"line {last}")


def test_a_codex_rollouts_token_count_before_its_compaction_is_the_compactions(tmp_path, capsys):
    lines = [{"type": "session_meta", "payload": {"id": "r1", "cwd": "/w"}},
             {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [
                 {"type": "input_text", "text": "Fix the cart tests."}]}},
             {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "call_id": "c1",
                                                   "arguments": json.dumps({"command": ["bash", "-lc",
                                                                                        "cat cart/a.py"]})}},
             {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1",
                                                   "output": "x = 1\nretries = 2"}},
             {"type": "event_msg", "payload": {"type": "token_count", "info": {"last_token_usage": {
                 "input_tokens": 120000, "cached_input_tokens": 90000, "output_tokens": 800,
                 "total_tokens": 120800}}}},
             {"type": "compacted", "payload": {"message": "Fixing the cart tests.",
                                               "replacement_history": []}},
             {"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [
                 {"type": "output_text", "text": "Done."}]}}]
    path = tmp_path / "rollout-2026-01-01T00-00-00-r1.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert probe_main([str(path), "--recorded", "--designs", "default"]) == 0
    assert "the compaction was made at 120,800 (the usage of the last model call before it, line 5)" \
        in capsys.readouterr().out
    [row] = audit(read_recorded(path))
    assert (row["tokens"], row["tokens_from"]) == (120_800,
                                                   "the usage of the last model call before it, line 5")
    artifacts = [(p.tool, p.cue) for p in row["_probes"] if p.kind == "artifact"]
    assert artifacts == [("shell", "cart/a.py")]


def test_the_request_is_the_last_real_prompt_not_the_harness_text(tmp_path):
    from compact_course.bench.probe import _parser, _session

    path = cart_session(SUMMARY_2).write(tmp_path / "s.jsonl")
    [row] = audit(read_recorded(path))
    assert row["_request"] == "Change the timeout to 45."
    requests = [p.expected for p in row["_probes"] if p.detail == "request"]
    assert requests == ["Change the timeout to 45."]
    # The default `probe` replays a session for its last real prompt too, not `/exit`.
    s = cart_session(SUMMARY_2)
    s.typed("Now run the whole suite.")
    s.typed("<command-name>/exit</command-name>\n<command-message>exit</command-message>\n"
            "<command-args></command-args>")
    s.typed("<local-command-stdout>Bye!</local-command-stdout>")
    later = s.write(tmp_path / "t.jsonl")
    assert load_session(later)["active_request"] == "/exit"      # what the importer says the task was
    _, request, _ = _session(_parser().parse_args([str(later)]))
    assert request == "Now run the whole suite."
