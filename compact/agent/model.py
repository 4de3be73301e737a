"""Choosing the model the agent talks to: the real API, or the offline model.

The article's hands-on section needs `MODEL_ID` (and a key; `ANTHROPIC_BASE_URL`
optional). This course runs without them: with `ANTHROPIC_API_KEY` and
`MODEL_ID` set (in the environment, or in a `.env` file read with
python-dotenv; the environment wins) `choose_model` returns a client for the
real API; otherwise it starts the offline model (`compact.offline.server`) in this
process on a free loopback port and returns a client for that. Either way it
says which in one line, and the key is never printed, logged or stored
anywhere but in the client.

Left out: choosing between several real models, and any other provider.
"""

import os
from dataclasses import dataclass
from pathlib import Path

import anthropic
from dotenv import dotenv_values, find_dotenv

from ..offline import MODEL_NAME
from ..offline.server import OfflineServer, start_offline_server
from ..offline.tokens import DEFAULT_WINDOW

KEY, MODEL, BASE_URL = "ANTHROPIC_API_KEY", "MODEL_ID", "ANTHROPIC_BASE_URL"
REAL_API = "https://api.anthropic.com"
OFFLINE_KEY = "offline-no-key"  # a placeholder: the offline model checks no key


@dataclass
class ModelChoice:
    """`client, model, description = choose_model()`; `.close()` when done."""
    client: anthropic.Anthropic
    model: str
    description: str
    server: OfflineServer | None = None

    @property
    def offline(self) -> bool:
        return self.server is not None

    def __iter__(self):
        return iter((self.client, self.model, self.description))

    def close(self) -> None:
        self.client.close()
        if self.server is not None:
            self.server.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def settings(environ=None, env_file=True) -> dict:
    """The three variables, from `.env` (if any) overridden by the environment.

    `env_file`: True looks for `.env` from the current folder upwards, a path
    reads that file, False reads none.
    """
    values = {}
    path = find_dotenv(usecwd=True) if env_file is True else (env_file or "")
    if path and Path(path).is_file():
        values.update({k: v for k, v in dotenv_values(path).items() if k in (KEY, MODEL, BASE_URL)
                       and v})
    env = os.environ if environ is None else environ
    values.update({k: env[k] for k in (KEY, MODEL, BASE_URL) if env.get(k)})
    return values


def offline_client(base_url: str, max_retries: int = 2) -> anthropic.Anthropic:
    # The loopback address is mounted without a proxy, whatever HTTP(S)_PROXY
    # says, so the offline model is reached directly and nothing leaves the host.
    http = anthropic.DefaultHttpxClient(mounts={"all://127.0.0.1": None})
    return anthropic.Anthropic(api_key=OFFLINE_KEY, base_url=base_url,
                               max_retries=max_retries, http_client=http)


def choose_model(*, offline: bool = False, window: int = DEFAULT_WINDOW, faults=(),
                 max_retries: int = 2, environ=None, env_file=True, echo=print) -> ModelChoice:
    """The real API when a key and MODEL_ID are configured (and `offline` is False),
    otherwise the offline model on 127.0.0.1; `echo` gets one line saying which."""
    found = {} if offline else settings(environ, env_file)
    if found.get(KEY) and found.get(MODEL):
        base_url = found.get(BASE_URL) or REAL_API
        client = anthropic.Anthropic(api_key=found[KEY], base_url=base_url,
                                     max_retries=max_retries)
        choice = ModelChoice(client, found[MODEL],
                             f"Model: {found[MODEL]} through the Anthropic API at {base_url} "
                             f"(key from {KEY}).")
    else:
        server = start_offline_server(window=window, faults=faults)
        choice = ModelChoice(offline_client(server.base_url, max_retries), MODEL_NAME,
                             f"Model: the offline model {MODEL_NAME} at {server.base_url} "
                             f"(window {window} tokens; no key, no network).", server)
    if echo:
        echo(choice.description)
    return choice
