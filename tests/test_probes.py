"""Probes (issue 32): drawn from a session, located after compaction, asked of the offline model.

Each status is checked on a small session whose answer is known without the code
under test: which result step 3 shrank, which message step 2 archived, which file
was removed. Then every canned history and the sample session, every design: the
offline model never answers wrong. Last, the command, the bench's column and the
sweep's rule.
"""

import json
from pathlib import Path

import pytest

from compact import ContextCompactor
from compact.messages import user_text
from compact.store import Store, seeded_ids
from tests.helpers import assistant, tool_result, tool_use, user
from workbench.bench.benchmark import DESIGN_TABLE, run_session
from workbench.bench.probe_ask import Asker
from workbench.bench.probe_walk import walk
from workbench.bench.sessions import make_session, session_messages
from workbench.bench.tables import format_table
from workbench.course.histories import list_histories, load_history
from workbench.course.probe import DESIGNS as PROBED
from workbench.course.probe import main as probe_main
from workbench.course.probe import spread
from workbench.course.sessions import sample_path
from workbench.course.sweep import describe, sweep
from workbench.offline.model.extractive import extractive_summary
from workbench.probes import (
    CONSTRAINT_EN,
    CONSTRAINT_ZH,
    KINDS,
    STATUSES,
    Probe,
    make_probes,
    question_for,
    read_question,
    score,
)
from workbench.probes.status import Locator

pytestmark = pytest.mark.usefixtures("no_network")


@pytest.fixture(scope="module")
def asker():
    with Asker.offline() as model:
        yield model


def log(n: int) -> str:
    """A test log whose third line is distinctive (a number only it has)."""
    summary = f"run {n}: {170 + n} passed, {n} failed in 0.{n}4s"
    # The build's state: broken in the first five logs, green in the last (a latest value).
    return "\n".join([f"== run {n} ==", f"build = {'green' if n == 5 else 'broken'}", summary,
                      *(f"tests/test_{k}.py .......... [{k * 10}%]" for k in range(1, 9))])


def batch_session() -> tuple[list, str]:
    """Five logs read in one batch, then one more call after the model's reply."""
    request = "Read the five run logs and report the failures."
    uses = [tool_use(f"toolu_{n}", "read_file", path=f"logs/run{n}.log") for n in range(5)]
    return [user(request), assistant(*uses, note="I will read all five logs in one batch."),
            {"role": "user", "content": [tool_result(f"toolu_{n}", log(n)) for n in range(5)]},
            assistant(tool_use("toolu_5", "bash", command="grep -c FAILED logs/*.log"),
                      note="Next I will count the failures in each log."),
            {"role": "user", "content": [tool_result("toolu_5", log(5))]}], request


def the_probe(probes, **wanted) -> int:
    found = [k for k, p in enumerate(probes) if all(getattr(p, f) == v for f, v in wanted.items())]
    assert len(found) == 1, (wanted, [p.to_dict() for p in probes])
    return found[0]


# -- drawing probes ------------------------------------------------------------------

def test_probes_of_each_kind_carry_a_question_an_answer_and_their_message():
    messages, request = batch_session()
    messages = [user("Fix the cart. Do not edit anything under web/. 不要改公共接口。"), *messages[1:]]
    probes = make_probes(messages, request)
    assert {p.kind for p in probes} == set(KINDS)
    recall = probes[the_probe(probes, kind="recall", use_id="toolu_0")]
    assert recall.expected == "run 0: 170 passed, 0 failed in 0.04s" and recall.source == 2
    assert recall.expected.startswith(recall.cue) and recall.cue != recall.expected
    assert read_question(recall.question) == ("line", recall.cue, "read_file logs/run0.log")
    artifact = probes[the_probe(probes, kind="artifact", cue="logs/run3.log")]
    assert (artifact.tool, artifact.expected, artifact.source) == ("read_file", "yes", 1)
    constraint = probes[the_probe(probes, detail="constraint", expected="Do not edit anything under web/.")]
    assert constraint.kind == "decision" and constraint.source == 0
    assert any(p.detail == "constraint" and p.expected == "不要改公共接口。" for p in probes)
    step = probes[the_probe(probes, detail="next step")]
    assert step.kind == "continuation" and step.expected == "Next I will count the failures in each log."
    assert step.source == 3
    assert probes[the_probe(probes, detail="decision")].expected == "I will read all five logs in one batch."
    latest = probes[the_probe(probes, kind="latest value")]
    assert (latest.detail, latest.cue, latest.expected, latest.stale, latest.source) == \
        ("value", "build", "build = green", ("build = broken",), 4)
    assert read_question(latest.question) == ("latest", "build", ("value", 2))
    assert probes == make_probes(messages, request)   # deterministic


def test_the_instruction_cues_cover_both_languages():
    assert {"do not", "always", "only", "must"} <= set(CONSTRAINT_EN)
    assert {"不要", "总是", "只", "必须"} <= set(CONSTRAINT_ZH)


def test_a_cue_that_could_start_two_different_lines_is_not_asked():
    lines = ("status of job 41 is ok", "status of job 42 is bad")
    messages = [user("Check the logs."), assistant(tool_use("t1", "bash", command="cat a.log")),
                {"role": "user", "content": [tool_result("t1", "\n".join(lines))]}]
    for probe in make_probes(messages, "Check the logs."):
        if probe.unit == "line":
            others = [ln for ln in lines if ln != probe.expected]
            assert not any(line.startswith(probe.cue) for line in others)


def test_score_right_cant_tell_and_wrong():
    probe = Probe("recall", "tool output", question_for("line", "run 0: 170"), "run 0: 170 passed",
                  "run 0: 170", "line", 2)
    assert score(probe, "From this context: run 0: 170 passed") == "right"
    assert score(probe, "I can't tell from what I read: nothing.") == "can't tell"
    assert score(probe, "run 0: 170 failed") == "wrong"
    use = Probe("artifact", "read_file", question_for("use", "a.py", tool="read_file"), "yes", "a.py",
                "use", 1, tool="read_file")
    said = ("Yes: here.", "No, never.", "I can't tell.")
    assert [score(use, a) for a in said] == ["right", "wrong", "can't tell"]


# -- where each probe stands, and what the model answers ------------------------------

def test_seed_step_3_shrinks_an_unread_result_with_no_copy_gone(asker):
    messages, request = batch_session()
    run = walk(messages, request, "seed", ask=asker, every_call=False)
    k = the_probe(run["probes"], kind="recall", use_id="toolu_0")
    # toolu_0 is the oldest of six results: the seed's step 3 keeps the newest 3 whole.
    assert run["statuses"][k] == "gone"
    assert run["answers"][k][0]["score"] == "can't tell"


def test_the_default_saves_it_first_on_disk_and_the_model_re_reads_it(asker):
    messages, request = batch_session()
    run = walk(messages, request, "default", ask=asker, every_call=False,
               limits={"context_char_limit": 3000})
    k = the_probe(run["probes"], kind="recall", use_id="toolu_0")
    assert run["statuses"][k] == "on disk"
    answer = run["answers"][k][0]
    assert answer["score"] == "right"
    assert answer["reads"] == [".task_outputs/tool-results/toolu_0.txt"]   # the copy of that call


def test_a_path_written_then_archived_by_step_2_is_on_disk_via_the_transcript(asker):
    request = "Plan the refactor, then read the modules."
    messages = [user(request)]
    for n in range(30):
        if n == 3:
            use = tool_use("toolu_w", "write_file", path="notes/plan.md", content="# Plan\n")
            wrote = tool_result("toolu_w", "Wrote 7 characters")
            messages += [assistant(use), {"role": "user", "content": [wrote]}]
            continue
        use = tool_use(f"toolu_{n:02d}", "read_file", path=f"src/mod{n:02d}.py")
        messages += [assistant(use), {"role": "user", "content": [tool_result(f"toolu_{n:02d}", f"x = {n}")]}]
    run = walk(messages, request, "default", ask=asker, every_call=False)
    k = the_probe(run["probes"], kind="artifact", cue="notes/plan.md")
    assert run["statuses"][k] == "on disk"
    answer = run["answers"][k][0]
    assert answer["score"] == "right" and answer["reads"][0].startswith(".transcripts/transcript_")


def keeps_instructions(messages) -> str:
    """A summarizer that keeps the user's instructions, as the summary prompt asks a model to."""
    said = [user_text(m) for m in messages if m["role"] == "user" and user_text(m)]
    kept = [s for text in said for s in text.split(". ") if s.startswith("Do not")]
    return extractive_summary(messages) + "\n\nConstraints:\n" + "\n".join(f"- {s}" for s in kept)


def compacted(root, summarizer):
    request = "Now update the docs."
    messages = [user("Fix the cart test. Do not change the public API."),
                assistant(tool_use("t1", "read_file", path="shop/cart.py"), note="Reading the cart first."),
                {"role": "user", "content": [tool_result("t1", "def total(cart):\n    return sum(cart)")]},
                assistant(note="The cart sums its items; the test expected tax."), user(request)]
    compactor = ContextCompactor(root, summarizer, new_id=seeded_ids())
    probes = make_probes(messages, request)
    return compactor, probes, compactor.compact_history(messages, request)


def test_a_constraint_only_step_4s_summary_keeps_is_in_the_summary_only(root, asker):
    compactor, probes, sent = compacted(root, keeps_instructions)
    k = the_probe(probes, detail="constraint")
    assert Locator(probes, compactor.store).statuses(sent)[k] == "on disk"   # the transcript holds it
    transcript = sent[0]["content"].rpartition("Full transcript: ")[2]
    (Path(root) / transcript).unlink()      # the transcript gone: only the summary keeps it
    assert Locator(probes, compactor.store).statuses(sent)[k] == "summary only"
    answer = asker.ask(sent, root, probes[k], "summary only")
    assert answer["score"] == "right" and answer["reads"] == [] or answer["score"] == "right"


def test_the_offline_summary_leaves_constraints_out_so_without_the_transcript_it_is_gone(root):
    compactor, probes, sent = compacted(root, extractive_summary)
    k = the_probe(probes, detail="constraint")
    (Path(root) / sent[0]["content"].rpartition("Full transcript: ")[2]).unlink()
    assert Locator(probes, compactor.store).statuses(sent)[k] == "gone"


def test_a_name_in_a_tool_output_is_not_a_file_of_ours(root):
    # A "Full output:" line a file happened to hold names nothing (flaw 6).
    text = "<persisted-output>\nFull output: ../secret.txt\nPreview:\nx\n</persisted-output>"
    messages = [user("Look."), assistant(tool_use("t1", "bash", command="cat note")),
                {"role": "user", "content": [tool_result("t1", text)]}]
    before = {"role": "user", "content": [tool_result("t1", "line one is here\nok")]}
    probes = make_probes([*messages[:2], before], "Look.")
    statuses = Locator(probes, Store(root)).statuses(messages)
    assert "on disk" not in statuses


def histories():
    return [*list_histories(), str(sample_path())]


@pytest.mark.slow
@pytest.mark.parametrize("name", histories())
def test_the_offline_model_never_answers_a_probe_wrong(name, asker):
    history = load_history(name)
    probes = make_probes(history["messages"], history["active_request"])
    for design in PROBED:
        run = walk(history["messages"], history["active_request"], design, probes=probes,
                   ask=asker, every_call=False)
        scores = [(probes[k].kind, status, tries[0]["score"])
                  for k, (status, tries) in enumerate(zip(run["statuses"], run["answers"]))]
        assert not [s for s in scores if s[2] == "wrong"], (design, scores)
        # What the context holds, the model answers right.
        assert all(score == "right" for _, status, score in scores if status == "in context"), design
        if design == "default":   # the default forgets nothing of these sessions
            assert "gone" not in run["statuses"], scores


def test_every_call_is_located_and_counts_only_the_probes_made_so_far():
    history = load_history("long_session")
    run = walk(history["messages"], history["active_request"], "seed")
    assert len(run["calls"]) == sum(1 for m in history["messages"][1:] if m["role"] == "assistant")
    made = [sum(row.values()) for row in run["calls"]]
    assert made == sorted(made) and made[-1] <= len(run["probes"])
    assert max(row["gone"] for row in run["calls"]) >= 1 and set(run["calls"][0]) == set(STATUSES)


# -- the command, the bench, the sweep -------------------------------------------------

def test_probe_json_is_design_kind_status_count(capsys):
    assert probe_main(["five_reads", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    # Every design of the bench but the oracle, which needs a bench session's future.
    assert list(table) == list(PROBED) == [d for d in DESIGN_TABLE if d != "oracle"]
    for design in table.values():
        assert list(design) == list(KINDS)
        assert all(list(row) == list(STATUSES) for row in design.values())
    assert table["seed"]["recall"]["gone"] >= 1 and table["default"]["recall"]["gone"] == 0


def test_probe_prints_the_table_with_the_answers(capsys):
    assert probe_main(["five_reads", "--designs", "seed", "default", "--offline"]) == 0
    out = capsys.readouterr().out
    assert "in context" in out and "summary only" in out and "right" in out and "wrong" in out
    assert "seed: 2 gone at the end" in out and "time: replaying" in out
    assert "offline model" in out


def test_probe_runs_on_the_sample_session_and_an_imported_file(tmp_path, capsys):
    assert probe_main([str(sample_path()), "--no-ask", "--end"]) == 0
    chat = tmp_path / "chat.json"
    function = {"name": "read_file", "arguments": json.dumps({"path": "a.py"})}
    chat.write_text(json.dumps([
        {"role": "user", "content": "Read a.py. Always keep the tests green."},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": function}]},
        {"role": "tool", "tool_call_id": "c1",
         "content": "def main():\n    return compute_total(42) + 1  # the answer"}]))
    assert probe_main([str(chat), "--no-ask"]) == 0
    out = capsys.readouterr().out
    assert "3 probes: recall 1, artifact 1, continuation 0, decision 1" in out


@pytest.mark.parametrize("argv, says", [
    (["no_such_history"], "no such file"),
    (["--bench", "tool-heavy", "five_reads"], "not both"),
    ([], "give a FILE"),
])
def test_probe_exits_2_with_one_line(argv, says, capsys):
    assert probe_main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_probe_exits_2_naming_a_file_that_is_no_session(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('not json\nat all\n')           # a line that is not JSON alone is skipped and counted
    assert probe_main([str(bad)]) == 2
    assert "bad.jsonl" in capsys.readouterr().err


def test_the_spread_over_repeats_is_the_fewest_and_the_most_right():
    tries = [[{"score": "right"}, {"score": "wrong"}, {"score": "right"}],
             [{"score": "right"}, {"score": "right"}, {"score": "can't tell"}]]
    assert spread({"answers": tries}) == (1, 2)
    assert spread({"answers": []}) == (0, 0)


def test_the_bench_counts_the_forgotten_beside_the_cost():
    session = make_session("tool-heavy", 30, 0)
    probes = make_probes(*session_messages(session))
    rows = [run_session(session, design, probes=probes) for design in ("seed", "default")]
    assert rows[0]["forgotten"] > rows[1]["forgotten"] == 0 and rows[0]["probes"] == len(probes)
    table = format_table(rows)
    assert "forgot" in table and f"{rows[0]['forgotten']}/{len(probes)}" in table
    header, _, row = format_table([run_session(session, "default")]).splitlines()
    end = header.index("forgot") + len("forgot")   # the columns are right-aligned
    assert row[:end].split()[-1] == "-"


def test_the_sweep_ranks_only_rows_that_forget_no_more_than_the_default():
    grid = {"context_char_limit": (3_000, 50_000), "keep_recent_results": (1, 3),
            "snip_target_messages": (30,)}
    result = sweep("long_session", grid, window_tokens=60_000, probe=True)
    assert result.reference.profile == "default" and result.reference.settings["context_char_limit"] == 50_000
    assert all(row.forgotten is not None for row in result.rows)
    assert result.best.forgotten <= result.most_forgotten
    assert any(row.forgotten > result.most_forgotten for row in result.rows)   # someone is left out
    text = describe(result)
    assert "forget no more than the default" in text and "forgot" in text
    plain = sweep("long_session", grid, window_tokens=60_000)
    assert "forgot" not in describe(plain)


# -- other agents' file tools, one table (issue 51) ---------------------------------------------

AGENT_CALLS = [   # (tool, input, the files an artifact probe asks about), the agents' own names
    ("Read", {"file_path": "/w/cart/a.py", "offset": 10}, ["/w/cart/a.py"]),
    ("Write", {"file_path": "notes.md", "content": "x"}, ["notes.md"]),
    ("Edit", {"file_path": "cart/a.py", "old_string": "1", "new_string": "2"}, ["cart/a.py"]),
    ("MultiEdit", {"file_path": "cart/b.py", "edits": []}, ["cart/b.py"]),
    ("NotebookEdit", {"notebook_path": "nb.ipynb", "new_source": "x"}, ["nb.ipynb"]),
    ("Glob", {"pattern": "**/*.py", "path": "cart"}, ["cart"]),
    ("Glob", {"pattern": "**/*.py"}, []),                         # no path: a pattern is no file
    ("Grep", {"pattern": "total", "path": "cart/a.py"}, ["cart/a.py"]),
    ("Bash", {"command": "sed -n '1,80p' cart/a.py 2>/dev/null | head -5 && cat b.txt"},
     ["cart/a.py", "b.txt"]),
    ("Bash", {"command": "python -m pytest -q > out.txt"}, []),    # runs, writes: no file shown
    ("Bash", {"command": "cd cart && cat g.py\nnpm test"}, ["g.py"]),   # a line is a command
    ("shell", {"command": ["bash", "-lc", "nl -ba cart/c.py | sed -n '1,40p'"]}, ["cart/c.py"]),
    ("shell", {"command": ["cat", "README.md"]}, ["README.md"]),
    ("shell_command", {"command": "head -n 20 logs/run.log"}, ["logs/run.log"]),
    ("exec_command", {"cmd": "tail -n 5 logs/run.log; echo done"}, ["logs/run.log"]),
    ("apply_patch", {"input": "*** Begin Patch\n*** Update File: cart/d.py\n@@\n-a\n+b\n"
                              "*** Add File: cart/e.py\n+x\n*** End Patch"}, ["cart/d.py", "cart/e.py"]),
    ("read_file", {"file_path": "cart/f.py"}, ["cart/f.py"]),      # Codex's read_file
    ("read_file", {"path": "cart/g.py"}, ["cart/g.py"]),           # the course's
    ("list_dir", {"dir_path": "cart"}, ["cart"]),
    ("grep_files", {"pattern": "x", "path": "cart"}, ["cart"]),
    ("view_image", {"path": "shot.png"}, ["shot.png"]),
    ("bash", {"command": "cat cart/a.py"}, []),   # the course's own bash: not a file tool of its probes
]


def test_artifact_probes_come_from_other_agents_file_tools_through_one_table():
    from workbench.probes.file_tools import FILE_TOOLS, files_of

    messages = [user("Fix the cart.")]
    for k, (name, data, _) in enumerate(AGENT_CALLS):
        messages += [assistant(tool_use(f"t{k}", name, **data)),
                     {"role": "user", "content": [tool_result(f"t{k}", "ok")]}]
    for name, data, files in AGENT_CALLS:
        assert files_of({"name": name, "input": data}) == files, name
    probes = [p for p in make_probes(messages, "Fix the cart.") if p.kind == "artifact"]
    wanted = [(name, f) for name, _, files in AGENT_CALLS for f in files]
    assert [(p.tool, p.cue) for p in probes] == list(dict.fromkeys(wanted))
    assert {p.tool for p in probes} <= set(FILE_TOOLS)
    # Each asks in the agent's own words, and the request that holds the call holds the probe.
    assert read_question(probes[0].question) == ("use", "/w/cart/a.py", "Read")
    assert set(Locator(probes).statuses(messages)) == {"in context"}
    assert set(Locator(probes).statuses(messages[:1])) == {"gone"}


def test_the_default_probe_draws_artifact_probes_from_a_claude_code_session(capsys):
    assert probe_main([str(sample_path()), "--json", "--end", "--designs", "none", "default"]) == 0
    table = json.loads(capsys.readouterr().out)
    # The sample's Read, Grep and Edit calls (and Bash `cat`): each (tool, file) a probe.
    for design in ("none", "default"):
        assert sum(table[design]["artifact"].values()) >= 5, table[design]
    assert table["none"]["artifact"]["in context"] == sum(table["none"]["artifact"].values())


# -- the last real prompt (issue 51) --------------------------------------------------------------

HARNESS_TEXTS = {   # a row of HARNESS -> a text of that kind, as the agents write it
    "a slash command": "/exit",
    "a slash command's tags": "<command-name>/clear</command-name>\n<command-message>clear</command-message>",
    "a local command's output": "<local-command-stdout>Bye!</local-command-stdout>",
    "a caveat line": "Caveat: The messages below were generated by the user while running local commands.",
    "a background task's notification": "<task-notification>\n<task-id>b1</task-id>\n</task-notification>",
    "shell mode's command or output": "<bash-input>ls</bash-input>",
    "a skill's instructions": "Base directory for this skill: /home/u/.claude/skills/apply-grant\n\n# Apply",
    "an interruption notice": "[Request interrupted by user for tool use]",
    "another session's message": '<cross-session-message from="x">hello</cross-session-message>',
    "a compaction's summary": "This session is being continued from a previous conversation that ran out",
    "the Codex CLI's context": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
}


def test_every_kind_of_harness_text_is_not_a_prompt_and_the_last_typed_text_is():
    from workbench.probes.prompts import HARNESS, harness_kind, is_prompt, last_prompt, real_request

    assert set(HARNESS_TEXTS) == {what for what, _ in HARNESS}
    for what, text in HARNESS_TEXTS.items():
        assert harness_kind(text) == what and not is_prompt(text), what
    for typed in ("Fix the cart tests.", "/src/app.py fails on import, why?", "把超时改成 45"):
        assert is_prompt(typed), typed
    reminder = "<system-reminder>The date is today.</system-reminder>"
    assert harness_kind(reminder) == "only system reminders"
    messages = [user("Fix the cart tests."), assistant(tool_use("t1", "Read", file_path="a.py")),
                {"role": "user", "content": [tool_result("t1", "x = 1"),
                                             {"type": "text", "text": f"{reminder}\nNow the notes."}]},
                assistant(note="Reading the notes."),
                {"role": "user", "content": [{"type": "text", "text": t} for t in HARNESS_TEXTS.values()]}]
    assert last_prompt(messages) == "Now the notes."
    assert last_prompt(messages, skip={"Now the notes."}) == "Fix the cart tests."
    assert real_request("/exit", messages) == "Now the notes."
    assert real_request("Fix it.", messages) == "Fix it."
    # make_probes, asked for no request, draws the request's probe from the last real prompt.
    long = [*messages[:-1], user("Please make the discount apply once per cart."), assistant(note="OK."),
            messages[-1]]
    [request] = [p for p in make_probes(long) if p.detail == "request"]
    assert request.expected == "Please make the discount apply once per cart."


def test_the_places_are_one_table_for_the_designs_and_a_recorded_compaction():
    from workbench.probes.status import PLACE_TABLE, PLACES, place_of

    assert PLACES == ("in context", "on disk", "summary only", "re-read", "gone")
    assert STATUSES == tuple(p for p in PLACES if p != "re-read")
    assert all(meaning for _, meaning in PLACE_TABLE)
    assert place_of("gone", True) == "re-read" and place_of("on disk", True) == "on disk"
