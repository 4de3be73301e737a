"""Record once, replay for a class (issue 33): the cassette file.

A "live" run here is `compact-course record` with a key, MODEL_ID and a base URL set,
as a teacher would run it; the base URL points at the offline model, so the
run takes the real API's code path without a network. The cassette must hold
each exchange, the date and the model that answered, and nothing of the key,
the headers or the base URL. Then the cassette answers the requests it holds,
and names the first difference of any other.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from compact_course.__main__ import main
from compact_course.agent import tasks
from compact_course.offline.api.cassette import FORMAT, Cassette, CassetteError, first_difference
from compact_course.offline.api.server import key_for, start_offline_server
from tests.agent.test_agent import SAMPLE

pytestmark = pytest.mark.usefixtures("no_network")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """(cassette path, server base URL, the key): `compact-course record` of the titles task,
    with a key, through the real-API code path to an offline server."""
    folder = tmp_path_factory.mktemp("record")
    workspace = folder / "workspace"
    shutil.copytree(SAMPLE, workspace, ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
    cassette = folder / "titles.cassette.json"
    with start_offline_server(window=200_000) as server, pytest.MonkeyPatch.context() as patch:
        key = key_for(server.base_url)         # the server's own: as secret as a real one
        patch.setenv("ANTHROPIC_API_KEY", key)
        patch.setenv("MODEL_ID", "claude-teachers-choice")
        patch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        code = main(["record", str(cassette), "titles", "--workspace", str(workspace),
                     "--env-file", str(folder / "no.env")])
        base_url = server.base_url
    assert code == 0
    return cassette, base_url, key


def test_the_cassette_holds_every_exchange_dated_and_labelled(recorded):
    cassette = recorded[0]
    data = json.loads(cassette.read_text(encoding="utf-8"))
    assert data["format"] == FORMAT and re.fullmatch(r"\d{4}-\d{2}-\d{2}", data["recorded"])
    # The model named by the responses (the offline server answers in the name it was asked by).
    assert data["models"] == ["claude-teachers-choice"]
    assert len(data["exchanges"]) >= 2
    first = data["exchanges"][0]
    assert first["request"]["method"] == "POST" and first["request"]["path"] == "/v1/messages"
    assert first["request"]["body"]["model"] == "claude-teachers-choice"
    assert first["request"]["body"]["messages"][0]["content"] == tasks.TITLES
    assert first["response"]["status"] == 200 and first["response"]["body"]["type"] == "message"
    assert data["exchanges"][-1]["response"]["body"]["stop_reason"] == "end_turn"


def test_no_key_header_or_base_url_is_in_the_cassette(recorded):
    cassette, base_url, key = recorded
    text = cassette.read_text(encoding="utf-8").lower()
    port = base_url.rsplit(":", 1)[1]
    for secret in (key.lower(), base_url.lower(), "127.0.0.1", f":{port}",
                   "x-api-key", "authorization", "anthropic-version", "user-agent",
                   "x-stainless", "content-type", "headers"):
        assert secret not in text, secret


def test_compact_serve_names_the_recorded_model_and_a_run_by_its_line_replays(recorded, tmp_path):
    """docs/INSTALL.md's recipe: `compact-course serve --cassette FILE` prints the line a client
    needs, with the model the cassette recorded (it printed the offline model's own name,
    so a run by that line got a 400 at body.model), and `compact-course run` replays by it."""
    cassette = recorded[0]
    served = subprocess.Popen([sys.executable, "-P", "-m", "compact_course", "serve", "--port", "0",
                               "--cassette", str(cassette)], stdout=subprocess.PIPE, text=True)
    try:
        lines = [served.stdout.readline() for _ in range(5)]
        [line] = [line for line in lines if "ANTHROPIC_BASE_URL=" in line]
        assert line.rstrip().endswith(" MODEL_ID=claude-teachers-choice"), lines
        url, key_file = re.search(r"ANTHROPIC_BASE_URL=(\S+) ANTHROPIC_API_KEY=\$\(cat (\S+)\)",
                                  line).groups()
        workspace = tmp_path / "class" / "workspace"
        shutil.copytree(SAMPLE, workspace, ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
        env = {**os.environ, "ANTHROPIC_BASE_URL": url, "MODEL_ID": "claude-teachers-choice",
               "ANTHROPIC_API_KEY": open(key_file).read(), "COMPACT_ENV_FILE": str(tmp_path / "no.env")}
        done = subprocess.run([sys.executable, "-P", "-m", "compact_course", "run", "titles", "--workspace",
                               str(workspace)], env=env, capture_output=True, text=True, timeout=120)
    finally:
        served.terminate()
        served.wait(timeout=30)
    assert done.returncode == 0, done.stderr[-1000:]
    assert "claude-teachers-choice" in done.stdout and "s01" in done.stdout


def test_the_cassette_answers_what_it_holds(recorded):
    cassette = Cassette.load(recorded[0])
    for exchange in cassette.exchanges:
        request = exchange["request"]
        assert cassette.answer("POST", request["path"], request["body"]) == (
            200, exchange["response"]["body"])


def test_a_request_that_differs_is_a_400_naming_the_first_difference(recorded):
    cassette = Cassette.load(recorded[0])
    body = json.loads(json.dumps(cassette.exchanges[0]["request"]["body"]))
    body["messages"][0]["content"] = "What is in s02?"
    status, error = cassette.answer("POST", "/v1/messages", body)
    assert status == 400 and error["error"]["type"] == "invalid_request_error"
    assert error["error"]["message"] == (
        f"not in the cassette titles.cassette.json: request 1 of {len(cassette.exchanges)} differs "
        f"at body.messages[0].content: recorded {json.dumps(tasks.TITLES)[:57]}..., "
        f"sent \"What is in s02?\"")
    status, error = cassette.answer("POST", "/v1/messages/count_tokens", body)
    assert "recorded POST /v1/messages, sent POST /v1/messages/count_tokens" in error["error"]["message"]


@pytest.mark.parametrize("recorded_value, sent, where", [
    ({"a": [1, 2]}, {"a": [1, 3]}, "body.a[1]: recorded 2, sent 3"),
    ({"a": [1, 2]}, {"a": [1]}, "body.a: recorded 2 items, sent 1"),
    ({"a": 1}, {"a": 1, "b": True}, "body.b: recorded nothing, sent true"),
    ({"a": 1, "b": 2}, {"a": 1}, "body.b: recorded 2, sent nothing"),
    ({"a": "1"}, {"a": 1}, "body.a: recorded \"1\", sent 1"),
])
def test_first_difference(recorded_value, sent, where):
    assert first_difference(recorded_value, sent) == where
    assert first_difference(sent, sent) is None


def test_a_file_that_is_no_cassette_says_so(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"exchanges": []}', encoding="utf-8")
    with pytest.raises(CassetteError, match=r"c\.json: not a cassette \(expected format "
                                            r"'compact-cassette/1' and a list of exchanges\)"):
        Cassette.load(path)


def test_a_second_model_asked_not_to_record_leaves_the_first_ones_cassette_alone(tmp_path, monkeypatch):
    # Notebook 09's "Your turn" starts a model of its own while COMPACT_RECORD names the
    # experiments' cassette: it used to record too, writing over their exchanges.
    from compact_course.agent.model import choose_model
    cassette = tmp_path / "run.cassette.json"
    monkeypatch.setenv("COMPACT_RECORD", str(cassette))
    first = choose_model(offline=True, echo=None)
    second = choose_model(offline=True, echo=None, record=False)
    try:
        assert first.recorder is not None and second.recorder is None
        question = [{"role": "user", "content": "What is the title of s01_agent_loop/README.md?"}]
        first.client.messages.create(model=first.model, max_tokens=100, messages=question)
        second.client.messages.create(model=second.model, max_tokens=100, messages=[
            {"role": "user", "content": "Something else entirely?"}])
    finally:
        first.close()
        second.close()
    held = Cassette.load(cassette).exchanges
    assert len(held) == 1 and "s01_agent_loop" in json.dumps(held[0])


# -- issue 38: a malformed cassette, a hostile one -----------------------------------------

GOOD_EXCHANGE = {"request": {"method": "POST", "path": "/v1/messages", "body": {}},
                 "response": {"status": 200, "body": {}}}


@pytest.mark.parametrize("fields,named", [
    ({"models": 5}, "models: a list of model names expected, got 5"),
    ({"recorded": 5}, "recorded: a date expected, got 5"),
    ({"exchanges": [GOOD_EXCHANGE, 5]},
     "exchanges[1]: an object with a request and a response expected, got 5"),
    ({"exchanges": [{"response": GOOD_EXCHANGE["response"]}]},
     "exchanges[0].request: an object with method, path and body expected, got null"),
    ({"exchanges": [{"request": GOOD_EXCHANGE["request"], "response": {"status": "200", "body": {}}}]},
     "exchanges[0].response: an object with status and body expected"),
])
def test_a_malformed_cassette_is_one_line_naming_the_file_and_the_field_at_load(tmp_path, fields, named):
    path = tmp_path / "bad.cassette.json"
    path.write_text(json.dumps({"format": FORMAT, "exchanges": [GOOD_EXCHANGE], **fields}), encoding="utf-8")
    with pytest.raises(CassetteError) as caught:
        Cassette.load(path)
    assert str(caught.value).startswith(f"{path}: {named}"), str(caught.value)
    assert "\n" not in str(caught.value)


def test_serve_says_a_malformed_cassettes_field_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.cassette.json"
    path.write_text(json.dumps({"format": FORMAT, "models": 5, "exchanges": []}), encoding="utf-8")
    assert main(["serve", "--port", "0", "--cassette", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"error: {path}: models: a list of model names expected, got 5"


def test_a_cassettes_recorded_text_reaches_the_terminal_shown_not_obeyed(tmp_path):
    hostile = "\x1b]52;c;ZXZpbA==\x07\x1b]0;owned\x07\x1b[2J"
    path = tmp_path / "hostile.cassette.json"
    path.write_text(json.dumps({"format": FORMAT, "recorded": hostile, "models": [hostile],
                                "exchanges": [GOOD_EXCHANGE]}), encoding="utf-8")
    said = Cassette.load(path).describe()
    assert "\x1b" not in said and "\x07" not in said, repr(said)
    assert "\\x1b]52;c;ZXZpbA==" in said


# -- issue 49: a cassette never holds a key ------------------------------------------------

CLASS_KEY = "sk-class-" + "Q" * 43          # the class proxy's shape (deploy/proxy/class_keys.py)


def test_compact_record_refuses_an_exchange_that_holds_a_key_naming_where(tmp_path, capsys):
    """The task itself carries a key-shaped string: the first exchange is refused when it
    would be written, the run stops with one line naming the entry, and no key is anywhere."""
    key = "sk-ant-api03-" + "k" * 40
    cassette = tmp_path / "run.cassette.json"
    workspace = tmp_path / "workspace"
    shutil.copytree(SAMPLE, workspace, ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
    code = main(["record", str(cassette), f"Is {key} the title of s01?", "--offline",
                 "--workspace", str(workspace)])
    out = capsys.readouterr()
    assert code == 1
    [line] = [line for line in out.err.splitlines() if line.startswith("error:")]
    assert line == (f"error: {cassette}: not recorded: exchanges[0].request.body.messages[0].content "
                    f"holds a key-shaped string or this client's key, and a cassette never holds a "
                    f"key; the run stops here, and the cassette keeps the 0 exchanges before it")
    assert key not in out.out + out.err and "Traceback" not in out.err
    assert not cassette.exists() or key not in cassette.read_text(encoding="utf-8")


@pytest.mark.parametrize("secret", ["shape", "client's key"])
def test_a_recording_client_stops_at_the_first_exchange_that_holds_a_key(tmp_path, secret):
    from compact_course.agent.model import offline_client
    from compact_course.offline.api.cassette import recording_client
    cassette = tmp_path / "run.cassette.json"
    with start_offline_server() as server, offline_client(server.base_url, max_retries=2) as plain:
        recording, recorder = recording_client(plain, cassette)
        held = CLASS_KEY if secret == "shape" else key_for(server.base_url)   # the latter: no shape
        ask = lambda text: recording.messages.create(  # noqa: E731
            model="m", max_tokens=50, messages=[{"role": "user", "content": text}])
        ask("What is the title of s01_agent_loop/README.md?")
        with pytest.raises(CassetteError) as caught:
            ask(f"Please keep {held} safe.")
        assert len(server.requests) == 2      # not retried: the SDK's own kind of error
        with pytest.raises(CassetteError):
            ask("And now something harmless?")     # nothing more goes out
        assert len(server.requests) == 2
    message = str(caught.value)
    assert "exchanges[1].request.body.messages[0].content holds a key-shaped string" in message
    assert held not in message and "keeps the 1 exchanges before it" in message
    text = cassette.read_text(encoding="utf-8")
    assert held not in text and len(json.loads(text)["exchanges"]) == 1


def test_a_cassette_that_holds_a_key_is_refused_at_load(tmp_path):
    exchange = json.loads(json.dumps(GOOD_EXCHANGE))
    exchange["response"]["body"] = {"content": [{"type": "text", "text": f"here: {CLASS_KEY}"}]}
    path = tmp_path / "old.cassette.json"
    path.write_text(json.dumps({"format": FORMAT, "exchanges": [GOOD_EXCHANGE, exchange]}), encoding="utf-8")
    with pytest.raises(CassetteError) as caught:
        Cassette.load(path)
    assert str(caught.value) == (f"{path}: exchanges[1].response.body.content[0].text holds a key-shaped "
                                 f"string; a cassette never holds a key: record it again")
