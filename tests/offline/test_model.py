"""Choosing the model: offline by default, the real API only with a key and
MODEL_ID, one line saying which, and never the key."""

import pytest

from compact_course.agent.model import choose_model, settings
from compact_course.offline import MODEL_NAME
from compact_course.offline.api.server import key_for

SECRET = "sk-ant-test-0123456789-secret"
pytestmark = pytest.mark.usefixtures("no_network")  # nothing but loopback (conftest.py)


@pytest.fixture
def said():
    return []


def test_without_a_key_the_offline_model_runs_on_loopback(said):
    with choose_model(environ={}, env_file=False, echo=said.append) as choice:
        client, model, description = choice
        assert choice.offline and model == MODEL_NAME
        assert client.base_url.host == "127.0.0.1" and client.base_url.scheme == "http"
        assert str(client.base_url).rstrip("/") == choice.server.base_url
        reply = client.messages.create(model=model, max_tokens=50,
                                       messages=[{"role": "user", "content": "hello"}])
        assert reply.model == MODEL_NAME
    assert said == [description] and len(said) == 1
    assert description.startswith("Model: the offline model offline-s08 at http://127.0.0.1:")
    assert "no key, no network" in description


@pytest.mark.parametrize("environ", [
    {"ANTHROPIC_API_KEY": SECRET},              # no model named: still offline
    {"MODEL_ID": "claude-x"},                   # no key: offline
    {"ANTHROPIC_API_KEY": "", "MODEL_ID": "claude-x"},
])
def test_a_key_and_a_model_are_both_needed_for_the_real_api(environ, said):
    with choose_model(environ=environ, env_file=False, echo=said.append) as choice:
        assert choice.offline and choice.client.base_url.host == "127.0.0.1"
        # The offline server's own key, made when it started (issue 29), and never said.
        assert choice.client.api_key == key_for(choice.server.base_url)
        assert choice.client.api_key not in " ".join(said)
    assert SECRET not in said[0]


def test_with_a_key_and_a_model_it_is_the_real_api_and_the_key_is_never_printed(said, capsys):
    choice = choose_model(environ={"ANTHROPIC_API_KEY": SECRET, "MODEL_ID": "claude-x"},
                          env_file=False, echo=said.append)
    assert not choice.offline and choice.model == "claude-x"
    assert choice.client.base_url.host == "api.anthropic.com"
    assert said == ["Model: claude-x through the Anthropic API at https://api.anthropic.com "
                    "(key from ANTHROPIC_API_KEY)."]
    assert SECRET not in repr(choice) and SECRET not in capsys.readouterr().out
    choice.close()


def test_the_base_url_is_honoured(said):
    choice = choose_model(environ={"ANTHROPIC_API_KEY": SECRET, "MODEL_ID": "claude-x",
                                   "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/"},
                          env_file=False, echo=said.append)
    assert str(choice.client.base_url) == "http://127.0.0.1:9/" and not choice.offline
    choice.close()


def test_offline_wins_over_a_configured_key(said):
    with choose_model(offline=True, environ={"ANTHROPIC_API_KEY": SECRET, "MODEL_ID": "m"},
                      env_file=False, echo=said.append) as choice:
        assert choice.offline and choice.client.api_key == key_for(choice.server.base_url)


def test_a_dotenv_file_is_read_and_the_environment_wins(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(f"ANTHROPIC_API_KEY={SECRET}\nMODEL_ID=from-file\nOTHER=x\n")
    env_file.chmod(0o600)    # a key only its owner reads (issue 30)
    assert settings({}, env_file) == {"ANTHROPIC_API_KEY": SECRET, "MODEL_ID": "from-file"}
    assert settings({"MODEL_ID": "from-env"}, env_file)["MODEL_ID"] == "from-env"
    assert settings({}, False) == {}
    # COMPACT_ENV_FILE names the course's own .env.
    assert settings({"COMPACT_ENV_FILE": str(env_file)})["MODEL_ID"] == "from-file"
    choice = choose_model(environ={"COMPACT_ENV_FILE": str(env_file)}, echo=None)
    assert not choice.offline and choice.model == "from-file"
    choice.close()


def test_the_offline_window_and_faults_reach_the_server():
    with choose_model(environ={}, env_file=False, window=1234, faults=[429], echo=None) as choice:
        assert choice.server.window == 1234
        assert choice.server.next_fault() == 429
    assert "window 1234 tokens" in choice.description
