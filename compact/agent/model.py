"""Choosing the model the agent talks to: the real API, or the offline model.

The article's hands-on section needs `MODEL_ID` (and a key; `ANTHROPIC_BASE_URL`
optional). This course runs without them: with `ANTHROPIC_API_KEY` and
`MODEL_ID` set `choose_model` returns a client for the real API; otherwise it
starts the offline model (`compact.offline.api.server`) in this process on a free
loopback port and returns a client for that. Either way it says which in one
line, and the key is never printed, logged or stored anywhere but in the client
(a user name and password in the base URL are shown as `***`).

Where settings come from (`settings`), later wins: the course's own `.env`
(the one at the root of the checkout this package is installed from, or the
file `COMPACT_ENV_FILE` or `--env-file` names), then the environment. Never a
`.env` found from the current folder or the workspace: the agent's bash can
write there, and nothing the agent writes may configure it. A `.env` that
cannot be read, is not a regular file or is over 64 KiB counts as missing,
with one line on stderr that says so.

Left out: choosing between several real models, and any other provider.
"""

import io
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import anthropic
from dotenv import dotenv_values

from ..offline import MODEL_NAME
from ..offline.api.server import OfflineServer, key_for, start_offline_server
from ..offline.tokens import DEFAULT_WINDOW

KEY, MODEL, BASE_URL = "ANTHROPIC_API_KEY", "MODEL_ID", "ANTHROPIC_BASE_URL"
REAL_API = "https://api.anthropic.com"
OFFLINE_KEY = "offline-no-key"  # sent to an offline server of another process, whose key we lack
ENV_FILE_VARIABLE = "COMPACT_ENV_FILE"
MAX_ENV_BYTES = 64 * 1024   # a settings file is a few lines; more is not one of ours
_said = set()               # the .env problems already reported, one line each


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


def course_env_file(environ=None) -> Path:
    """The course's own `.env`: COMPACT_ENV_FILE if set, else the checkout's root."""
    env = os.environ if environ is None else environ
    named = env.get(ENV_FILE_VARIABLE)
    return Path(named) if named else Path(__file__).resolve().parents[2] / ".env"


def read_env_file(path, echo=None) -> dict:
    """The NAME=value pairs of a settings file, read at most MAX_ENV_BYTES + 1 bytes.

    A missing file is {}; one that cannot be read, is not a regular file (a FIFO,
    a device, a folder), is longer than MAX_ENV_BYTES or is not UTF-8 is {} too,
    and `echo` (stderr by default) gets one line saying so, once per path.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        return {}
    except OSError as error:
        return _missing(path, error.strerror or str(error), echo)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return _missing(path, "not a regular file", echo)
    with os.fdopen(fd, "rb") as file:
        try:
            data = file.read(MAX_ENV_BYTES + 1)
        except OSError as error:
            return _missing(path, error.strerror or str(error), echo)
    if len(data) > MAX_ENV_BYTES:
        return _missing(path, f"over {MAX_ENV_BYTES // 1024} KiB", echo)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _missing(path, "not UTF-8 text", echo)
    return {name: value for name, value in dotenv_values(stream=io.StringIO(text)).items() if value}


def _missing(path, why: str, echo) -> dict:
    if str(path) not in _said:
        _said.add(str(path))
        line = f"settings: {path} is ignored ({why}); it counts as missing"
        (echo or (lambda text: print(text, file=sys.stderr)))(line)
    return {}


def settings(environ=None, env_file=True) -> dict:
    """The three variables, from the course's `.env` overridden by the environment.

    `env_file`: True reads the course's own `.env` (`course_env_file`), a path
    reads that file, False reads none. No file is looked for anywhere else.
    """
    env = os.environ if environ is None else environ
    path = course_env_file(env) if env_file is True else env_file
    values = read_env_file(path) if path else {}
    values = {k: v for k, v in values.items() if k in (KEY, MODEL, BASE_URL)}
    values.update({k: env[k] for k in (KEY, MODEL, BASE_URL) if env.get(k)})
    return values


def shown_url(url: str) -> str:
    """`url` with any user name and password written `***`, for printing."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]))


def offline_client(base_url: str, max_retries: int = 2) -> anthropic.Anthropic:
    # The loopback address is mounted without a proxy, whatever HTTP(S)_PROXY
    # says, so the offline model is reached directly and nothing leaves the host.
    # The key is the one the server at base_url made when it started in this process.
    http = anthropic.DefaultHttpxClient(mounts={"all://127.0.0.1": None})
    return anthropic.Anthropic(api_key=key_for(base_url) or OFFLINE_KEY, base_url=base_url,
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
                             f"Model: {found[MODEL]} through the Anthropic API at {shown_url(base_url)} "
                             f"(key from {KEY}).")
    else:
        server = start_offline_server(window=window, faults=faults)
        choice = ModelChoice(offline_client(server.base_url, max_retries), MODEL_NAME,
                             f"Model: the offline model {MODEL_NAME} at {server.base_url} "
                             f"(window {window} tokens; no key, no network).", server)
    if echo:
        echo(choice.description)
    return choice
