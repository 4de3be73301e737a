"""No tool ever shows an ANTHROPIC_* value: a key is planted in the environment and
in `.env` files of the workspace, an agent whose first reply is an attacker's
tool batch (`env`, `cat .env`, `read_file .env`, globs) runs against the
offline model (a deterministic program, not a language model) until it
answers, and every output, message, transcript and saved file is searched for
the key."""

import base64
import json
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from compact_course.agent.loop import Agent
from compact_course.agent.tools import run_tool
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.server import start_offline_server
from context_compact import CompactionConfig, formats
from tests.helpers import offline_model

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "workspace"
ENV_KEY = "sk-ant-api03-ENVplanted-0123456789abcdefghij"
ENV_TOKEN = "planted-auth-token-9876543210zyxwvu"
FILE_KEY = "sk-ant-api03-FILEplanted-abcdefghij0123456789"
LOCAL_KEY = "local-file-key-without-the-usual-prefix-42"    # found by its name, not its shape
SECRETS = (ENV_KEY, ENV_TOKEN, FILE_KEY, LOCAL_KEY)

pytestmark = pytest.mark.usefixtures("no_network")

ATTACK = [
    ("bash", {"command": "env"}),
    ("bash", {"command": "cat .env .env.local sub/.env"}),
    ("bash", {"command": "cat /proc/$PPID/environ | tr '\\0' '\\n'; echo $ANTHROPIC_API_KEY"}),
    ("bash", {"command": "grep -r ANTHROPIC . 2>/dev/null | head -20"}),
    ("read_file", {"path": ".env"}),
    ("read_file", {"path": ".env.local"}),
    ("read_file", {"path": "sub/.env"}),
    ("read_file", {"path": "notes.txt"}),
    ("glob", {"pattern": ".env*"}),
    ("glob", {"pattern": "**/.env"}),
    ("glob", {"pattern": "*"}),
]


class AttackerFirst:
    """The offline model, except that its first reply is the attacker's tool batch."""

    def __init__(self, offline, calls):
        self.offline, self.calls = offline, list(calls)
        self.messages = SimpleNamespace(create=self.create)

    def create(self, **request):
        if self.calls and request.get("system") != formats.SUMMARY_SYSTEM:
            uses = [{"type": "tool_use", "id": f"toolu_attack_{n:02d}", "name": name,
                     "input": tool_input} for n, (name, tool_input) in enumerate(self.calls)]
            self.calls = []
            return SimpleNamespace(content=[{"type": "text", "text": "Looking around."}, *uses],
                                   stop_reason="tool_use")
        return self.offline.messages.create(**request)


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """A workspace with keys in .env files, and keys in the environment."""
    workspace = tmp_path / "workspace"
    shutil.copytree(SAMPLE, workspace)
    (workspace / ".env").write_text(f"ANTHROPIC_API_KEY={FILE_KEY}\nMODEL_ID=claude-x\n")
    (workspace / ".env.local").write_text(f"ANTHROPIC_API_KEY='{LOCAL_KEY}'\n")
    (workspace / "sub").mkdir()
    (workspace / "sub" / ".env").write_text(f"export ANTHROPIC_AUTH_TOKEN=\"{LOCAL_KEY}\"\n")
    (workspace / ".env.example").write_text("ANTHROPIC_API_KEY=your-key-here\n")
    # A file that quotes the key where it does not belong: redacted, not refused.
    (workspace / "notes.txt").write_text(f"debug: key was {FILE_KEY}\n")
    monkeypatch.setenv("ANTHROPIC_API_KEY", ENV_KEY)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", ENV_TOKEN)
    monkeypatch.chdir(tmp_path)
    return workspace


def leaks(text: str) -> list:
    return [secret for secret in SECRETS if secret in text]


def test_an_attackers_tool_batch_shows_no_key_anywhere(planted, capsys):
    lines = []
    # env prints HOME and PWD, both the workspace's path (over 60 characters under
    # tmp_path), so its output is always over 120 and goes to disk, whatever else
    # this machine's environment holds. Left in the list, the seed profile would
    # shrink it to a placeholder before the transcript is written.
    assert len(str(planted)) > 60
    config = CompactionConfig.named("seed", tool_result_batch_char_limit=400,
                                   large_result_char_limit=120, preview_chars=60)
    with offline_model() as (_, offline):
        agent = Agent(planted, AttackerFirst(offline, ATTACK), MODEL_NAME, config=config,
                      echo=lines.append, confirm=lambda command: True)
        answer = agent.ask("What is in this workspace?")
        # The transcript of everything said, as the summary step writes it.
        agent.messages[:] = agent.compactor.compact_history(agent.messages,
                                                            "What is in this workspace?")
    out = capsys.readouterr()
    assert answer and agent.model_calls >= 2
    searched = {"echo": "\n".join(lines), "stdout": out.out, "stderr": out.err,
                "messages": json.dumps(agent.messages, ensure_ascii=False)}
    saved = [path for folder in (".transcripts", ".task_outputs")
             for path in (planted / folder).rglob("*") if path.is_file()]
    assert {path.relative_to(planted).parts[0] for path in saved} == {".transcripts", ".task_outputs"}
    for path in saved:
        searched[str(path)] = path.read_text(encoding="utf-8", errors="replace")
    found = {where: leaks(text) for where, text in searched.items() if leaks(text)}
    assert found == {}
    # The attack ran: env's output, the redactions and the refusals were saved.
    on_disk = "\n".join(text for where, text in searched.items() if where.startswith("/"))
    assert f"HOME={planted.resolve()}" in on_disk
    assert "ANTHROPIC_AUTH_TOKEN=[redacted]" in on_disk and "key was [redacted]" in on_disk
    assert "Error: .env holds secrets" in on_disk


@pytest.mark.parametrize("path", [".env", ".env.local", "sub/.env", ".env.production"])
def test_read_file_refuses_env_files(planted, path):
    (planted / ".env.production").write_text(f"ANTHROPIC_API_KEY={FILE_KEY}\n")
    output = run_tool(planted, "read_file", {"path": path})
    assert output == f"Error: {path} holds secrets: the tools do not read, write or list " \
                     f".env files; .env.example shows which settings exist"


def test_read_file_reads_env_example_with_its_values_redacted(planted):
    # Which settings exist is the point of the example; a value there is redacted all the same.
    assert run_tool(planted, "read_file", {"path": ".env.example"}) == \
        "ANTHROPIC_API_KEY=[redacted]"


def test_write_file_and_edit_file_leave_env_files_alone(planted):
    # edit_file would tell a guessed key from a wrong one ("text not found" or not).
    for name, tool_input in [("write_file", {"path": ".env", "content": "x"}),
                             ("edit_file", {"path": ".env", "old_text": "sk-ant-", "new_text": "x"}),
                             ("write_file", {"path": "sub/.env.new", "content": "x"})]:
        assert "holds secrets" in run_tool(planted, name, tool_input)
    assert (planted / ".env").read_text().startswith(f"ANTHROPIC_API_KEY={FILE_KEY}")
    assert not (planted / "sub" / ".env.new").exists()


def test_glob_does_not_list_env_files(planted):
    output = run_tool(planted, "glob", {"pattern": "**/.env*"})
    assert output.splitlines() == [".env.example",
                                   "(3 .env files not listed: they hold secrets)"]


def test_any_planted_key_is_redacted_from_every_tool(planted):
    for name, tool_input in ATTACK:
        output = run_tool(planted, name, tool_input, confirm=lambda command: True)
        assert leaks(output) == [], (name, tool_input, output)
    assert run_tool(planted, "read_file", {"path": "notes.txt"}) == "debug: key was [redacted]"


# -- issue 49: a settings file however it is named (flag, environment, default) -----------------

NAMED_KEY = "sk-ant-api03-NAMEDfile-0123456789abcdefghijkl"


@pytest.fixture
def settings_outside(monkeypatch):
    """A folder outside /tmp (the sandbox's /tmp is its own, which would hide a file there
    from a command whatever the fix) for a settings file; no key anywhere else."""
    folder = Path(tempfile.mkdtemp(prefix="compact-settings-", dir="/var/tmp"))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "MODEL_ID", "ANTHROPIC_BASE_URL",
                 "COMPACT_ENV_FILE", "COMPACT_RECORD"):
        monkeypatch.delenv(name, raising=False)
    yield folder
    shutil.rmtree(folder)


@pytest.mark.parametrize("named_by", ["flag", "environment", "default"])
def test_a_settings_file_however_named_reaches_neither_the_agent_nor_the_cassette(
        settings_outside, tmp_path, monkeypatch, named_by):
    """`compact-course record CASSETTE TASK --env-file PATH` (issue 49): one bash call, `base64 -w0
    PATH`, gave the model the key past the redaction, and the cassette kept it. Now the
    sandbox covers the file whatever named it (or, with no sandbox, bash refuses to run)."""
    from compact_course.agent import model
    workspace = tmp_path / "workspace"
    shutil.copytree(SAMPLE, workspace)
    path = settings_outside / ("settings.env" if named_by != "default" else ".env")
    cassette = tmp_path / "run.cassette.json"
    with start_offline_server(window=200_000, key=NAMED_KEY) as server:
        path.write_text(f"ANTHROPIC_API_KEY={NAMED_KEY}\nMODEL_ID=claude-teachers-choice\n"
                        f"ANTHROPIC_BASE_URL={server.base_url}\n")
        path.chmod(0o600)
        options = {}
        if named_by == "flag":
            options["env_file"] = str(path)        # what `--env-file PATH` passes
        elif named_by == "environment":
            monkeypatch.setenv("COMPACT_ENV_FILE", str(path))
        else:
            monkeypatch.setattr(model, "CHECKOUT", settings_outside)    # the checkout's own .env
        with model.choose_model(echo=None, record=cassette, **options) as choice:
            assert choice.model == "claude-teachers-choice"     # the file was read: it configures
            attack = [("bash", {"command": f"base64 -w0 {path}"}),
                      ("bash", {"command": f"rev {path}; od -c {path} | head -3"})]
            agent = Agent(workspace, AttackerFirst(choice.client, attack), choice.model,
                          echo=None, confirm=lambda command: True)
            agent.ask("What is in this workspace?")
    results = [block["content"] for message in agent.messages if isinstance(message["content"], list)
               for block in message["content"] if block.get("type") == "tool_result"]
    encoded = base64.b64encode(path.read_bytes()).decode()
    searched = {"results": "\n".join(results), "cassette": cassette.read_text(encoding="utf-8")}
    for where, text in searched.items():
        for shape in (NAMED_KEY, encoded[:24], NAMED_KEY[::-1][:24], "s   k   -   a   n   t"):
            assert shape not in text, (where, shape)
    # The attack ran, and was stopped by the sandbox's cover (or by bash refusing unsandboxed).
    assert all("Permission denied" in result or "bash refused" in result for result in results[:2]), results
    assert len(json.loads(searched["cassette"])["exchanges"]) >= 1


def test_a_value_of_a_settings_file_named_by_flag_is_redacted_from_every_tool(planted, tmp_path):
    """The file --env-file names, read for settings, counts among the values redacted, even
    one with no key's shape (issue 49: only the environment's and the course's .env did)."""
    from compact_course.agent import model
    named = tmp_path / "named.env"
    named.write_text("ANTHROPIC_API_KEY=proxy-key-of-no-known-shape-31415926\nMODEL_ID=claude-x\n")
    named.chmod(0o600)
    assert model.settings(env_file=str(named))["MODEL_ID"] == "claude-x"    # read (the key: env's)
    (planted / "quoted.txt").write_text("it was proxy-key-of-no-known-shape-31415926\n")
    assert run_tool(planted, "read_file", {"path": "quoted.txt"}) == "it was [redacted]"
