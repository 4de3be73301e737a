"""Text from data is shown, never obeyed (issue 29): `compact_course.display.text.shown`.

A session, a history's name and title, a workspace file, a tool's result and
the model's answer may hold what a terminal obeys: OSC 52 (writes the
clipboard), CSI clear-screen, bidi overrides that reorder a line, a lone
carriage return that overwrites it. Each is fed here through `replay`, `sweep`,
`compact-course run`, the REPL and the agent's echo, and none reaches the output raw:
each is written out (`\\x1b`, `\\u202e`, `\\r`), newlines and tabs kept.
"""

import json
import re

import pytest

from compact_course.agent import loop
from compact_course.agent.loop import Agent, main_agent, main_run
from compact_course.agent.model import offline_client
from compact_course.display.text import shown
from compact_course.lessons import replay, sweep
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.server import start_offline_server

OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"      # put a command in the clipboard
CLEAR = "\x1b[2J\x1b[H"                        # clear the screen, cursor home
BIDI = "\u202e" + "txt.exe" + "\u202c"         # right-to-left override
LONE_CR = "all tests pass\rFAILED"             # the second word overwrites the first
HOSTILE = f"title {OSC52}{CLEAR}{BIDI} {LONE_CR}"
# What a terminal would obey: C0 but tab and newline, DEL, C1, bidi controls, a lone CR.
RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                 "\u2066-\u2069]|\r(?!\n)")


def clean(text: str) -> None:
    found = RAW.search(text)
    if found:
        around = text[max(0, found.start() - 40):found.end() + 40]
        raise AssertionError(f"raw {found.group()!r} reached the output: ...{around!r}")


@pytest.mark.parametrize("raw, visible", [
    (OSC52, "\\x1b]52;c;ZWNobyBwd25lZA==\\x07"),
    (CLEAR, "\\x1b[2J\\x1b[H"),
    (BIDI, "\\u202etxt.exe\\u202c"),
    (LONE_CR, "all tests pass\\rFAILED"),
    ("\u2066x\u2069\u200f", "\\u2066x\\u2069\\u200f"),
    ("\x9b2J", "\\x9b2J"),                       # the 8-bit CSI
    ("bad byte \udcff", "bad byte \\xff"),       # a surrogate escape, as os.listdir makes
    ("tabs\tand\nnewlines\r\nkept", "tabs\tand\nnewlines\r\nkept"),
    ("中文 and émoji 🙂", "中文 and émoji 🙂"),
])
def test_shown_writes_out_what_a_terminal_obeys_and_keeps_the_rest(raw, visible):
    assert shown(raw) == visible
    assert shown(shown(raw)) == visible     # twice is once: an echo may be wrapped again
    clean(shown(raw))


@pytest.fixture
def hostile_history(tmp_path):
    path = tmp_path / "hostile.json"
    messages = [{"role": "user", "content": HOSTILE}]
    for n in range(3):
        messages += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}",
                                               "name": "read_file", "input": {"path": "x"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}",
                                          "content": (HOSTILE + "\n") * 3000}]}]
    messages.append({"role": "assistant", "content": HOSTILE})
    path.write_text(json.dumps({"name": HOSTILE, "title": HOSTILE, "active_request": HOSTILE,
                                "messages": messages}), encoding="utf-8")
    return path


def test_replay_shows_a_hostile_history(hostile_history, capsys):
    assert replay.main([str(hostile_history), "--profile", "seed"]) == 0
    out = capsys.readouterr().out
    clean(out)
    assert "\\x1b]52;c;" in out and "\\u202e" in out


@pytest.mark.slow
def test_sweep_shows_a_hostile_history(hostile_history, capsys):
    assert sweep.main([str(hostile_history), "--no-progress", "--window", "20000"]) == 0
    out = capsys.readouterr().out
    clean(out)
    assert "\\x1b]52;c;" in out


def test_a_replay_error_that_quotes_the_file_is_shown(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"title": "x", "active_request": "y", "messages": [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": OSC52,
                                      "content": "z"}]}]}), encoding="utf-8")
    assert replay.main([str(path)]) == 2
    err = capsys.readouterr().err
    clean(err)
    assert "\\x1b]52" in err


@pytest.fixture
def hostile_workspace(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.md").write_text(f"# Notes {OSC52}\n\n{CLEAR}{BIDI}\n{LONE_CR}\n",
                                        encoding="utf-8")
    return workspace


QUESTION = "What is the title of notes.md?"


def test_compact_run_shows_a_hostile_file(hostile_workspace, capsys):
    assert main_run([QUESTION, "--workspace", str(hostile_workspace), "--offline"]) == 0
    out = capsys.readouterr().out
    clean(out)
    assert "\\x1b]52;c;" in out      # the file was read, and quoted visibly


def test_the_agents_echo_and_answer_are_shown(hostile_workspace):
    lines = []
    with start_offline_server() as server:
        agent = Agent(hostile_workspace, offline_client(server.base_url), MODEL_NAME,
                      echo=lines.append)
        answer = agent.ask(QUESTION)
    echoed = "\n".join(lines)
    clean(echoed)
    assert "\\x1b" in echoed
    # The answer is data as well: kept as it is in the messages, shown when printed.
    assert RAW.search(answer) and not RAW.search(shown(answer))


def test_the_repl_shows_a_hostile_file(hostile_workspace, capsys, monkeypatch):
    typed = iter([QUESTION, "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    assert main_agent(["--workspace", str(hostile_workspace), "--offline"]) == 0
    out = capsys.readouterr().out
    clean(out)
    assert "\\x1b]52;c;" in out


def test_an_error_that_quotes_data_is_shown(hostile_workspace, capsys, monkeypatch):
    def refuse(self, request):
        raise loop.AgentError(f"no answer for {request}")
    monkeypatch.setattr(Agent, "ask", refuse)
    assert main_run([HOSTILE, "--workspace", str(hostile_workspace), "--offline"]) == 1
    captured = capsys.readouterr()
    clean(captured.out + captured.err)


def test_probe_shows_a_hostile_history(hostile_history, capsys):
    from compact_course.bench.probe import main as probe_main
    assert probe_main([str(hostile_history), "--no-ask", "--end", "--designs", "seed", "default"]) == 0
    out = capsys.readouterr().out
    clean(out)
    assert "\\x1b]52;c;" in out
