"""Choosing the model the agent talks to: the real API, or the offline model.

The article's hands-on section needs `MODEL_ID` (and a key; `ANTHROPIC_BASE_URL`
optional). This course runs without them: with `ANTHROPIC_API_KEY` and
`MODEL_ID` set `choose_model` returns a client for the real API; otherwise it
starts the offline model (`compact_course.offline.api.server`) in this process on a free
loopback port and returns a client for that. Either way it says which in one
line, and the key is never printed, logged or stored anywhere but in the client
(a user name and password in the base URL are shown as `***`).

Where settings come from (`settings`), later wins: the course's own `.env`
(the one at the root of the checkout this package is installed from, or the
file `COMPACT_ENV_FILE` or `--env-file` names: an absolute path, or one taken
relative to the checkout), then the environment. Never a `.env` found from the
current folder or the workspace: the agent's bash can write there, and nothing
the agent writes may configure it. Every settings file this process was pointed
at is remembered (`settings_files`), however it was named, so the tools can
cover each one from the agent's commands (tools.py, sandbox.py). A `.env` that
cannot be read, is not a regular file or is over 64 KiB counts as missing, with
one line on stderr that says so. As ssh refuses a private key others can read, a settings file that
holds a key and is group- or world-readable is refused, and so is one others
may write or that another user owns: one line says why and gives the
`chmod 600`, and no key is read from it.

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

from ..display.text import shown
from ..offline import MODEL_NAME
from ..offline.api.cassette import Cassette, Recorder, recording_client
from ..offline.api.server import OfflineServer, key_for, start_offline_server
from ..offline.tokens import DEFAULT_WINDOW

KEY, MODEL, BASE_URL = "ANTHROPIC_API_KEY", "MODEL_ID", "ANTHROPIC_BASE_URL"
REAL_API = "https://api.anthropic.com"
OFFLINE_KEY = "offline-no-key"  # sent to an offline server of another process, whose key we lack
ENV_FILE_VARIABLE = "COMPACT_ENV_FILE"
RECORD = "COMPACT_RECORD"   # a cassette file to record every run into (compact-course record)
MAX_ENV_BYTES = 64 * 1024   # a settings file is a few lines; more is not one of ours
READ_BITS, WRITE_BITS = 0o044, 0o022   # group's and others' read, and write, permission
KEY_NAMES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
CHECKOUT = Path(__file__).resolve().parents[2]
_said = set()               # the .env problems already reported, one line each
_named: list = []           # every settings file this process was pointed at (settings_files)


@dataclass
class ModelChoice:
    """`client, model, description = choose_model()`; `.close()` when done."""
    client: anthropic.Anthropic
    model: str
    description: str
    server: OfflineServer | None = None
    recorder: Recorder | None = None      # when the run is recorded (`record=`)

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
    """The course's own `.env`: COMPACT_ENV_FILE if set (see `env_file_path`), else the
    checkout's root."""
    env = os.environ if environ is None else environ
    named = env.get(ENV_FILE_VARIABLE)
    return env_file_path(named) if named else CHECKOUT / ".env"


def env_file_path(named) -> Path:
    """A settings file's path as given, or taken relative to the checkout: never to the
    current folder, where the agent's bash may have written one."""
    path = Path(named).expanduser()
    return path if path.is_absolute() else CHECKOUT / path


def read_env_file(path, echo=None, private=True) -> dict:
    """The NAME=value pairs of a settings file, read at most MAX_ENV_BYTES + 1 bytes.

    A missing file is {}; one that cannot be read, is not a regular file (a FIFO,
    a device, a folder), is longer than MAX_ENV_BYTES or is not UTF-8 is {} too,
    and `echo` (stderr by default) gets one line saying so, once per path.
    `private`: as ssh treats a private key, a file that others may write or that
    belongs to another user than this one or root is refused, and so is one that
    others may read when it holds a key; the line gives the `chmod 600`. False
    reads it anyway: to know what to redact, never to use.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        return {}
    except OSError as error:
        return _missing(path, error.strerror or str(error), echo)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        return _missing(path, "not a regular file", echo)
    if private and (problem := _not_yours(info)):
        os.close(fd)
        return _refused(path, problem, echo)
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
    values = {name: value for name, value in dotenv_values(stream=io.StringIO(text)).items()
              if value}
    if private and info.st_mode & READ_BITS and any(values.get(name) for name in KEY_NAMES):
        return _refused(path, f"readable by others (mode {stat.S_IMODE(info.st_mode):04o})", echo)
    return values


def _not_yours(info: os.stat_result) -> str:
    """Why others could change a settings file (and so where the key goes), or ''."""
    if info.st_mode & WRITE_BITS:
        return f"writable by others (mode {stat.S_IMODE(info.st_mode):04o})"
    if info.st_uid not in (os.geteuid(), 0):
        return f"owned by another user (uid {info.st_uid})"
    return ""


def _refused(path, why: str, echo) -> dict:
    fix = f"chmod 600 {path}" if "mode" in why else f"make it yours, then chmod 600 {path}"
    return _say(path, f"settings: {path} is refused, as ssh refuses a private key that is "
                      f"{why}; no key is read from it: {fix}", echo)


def _missing(path, why: str, echo) -> dict:
    return _say(path, f"settings: {path} is ignored ({why}); it counts as missing", echo)


def _say(path, line: str, echo) -> dict:
    """{} after saying `line` once per path (on stderr unless `echo` is given)."""
    if str(path) not in _said:
        _said.add(str(path))
        (echo or (lambda text: print(shown(text), file=sys.stderr)))(line)
    return {}


def settings_path(environ=None, env_file=True) -> Path | None:
    """The settings file `settings` reads (None: none), remembered for `settings_files`.

    `env_file`: True names the course's own `.env` (`course_env_file`), a path
    that file, False none."""
    env = os.environ if environ is None else environ
    path = course_env_file(env) if env_file is True else env_file and env_file_path(env_file)
    if path and path not in _named:
        _named.append(path)
    return path or None


def settings_files() -> list:
    """Every file that may hold this process's key, without repeats: the checkout's
    `.env`, the file COMPACT_ENV_FILE names now, and each file a `settings` call was
    pointed at since the process started (`--env-file`, a notebook's own), whether or
    not a key was read from it. What names a file (a flag, the environment, the
    default) differs; the agent's tools treat them all alike."""
    found = [CHECKOUT / ".env", course_env_file()] + _named
    return list(dict.fromkeys(found))


def settings(environ=None, env_file=True) -> dict:
    """The three variables, from the course's `.env` overridden by the environment.

    `env_file`: True reads the course's own `.env` (`course_env_file`), a path
    reads that file, False reads none. No file is looked for anywhere else.
    """
    env = os.environ if environ is None else environ
    path = settings_path(environ, env_file)
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


def _replaying(path, max_retries: int) -> ModelChoice:
    cassette = Cassette.load(path)
    server = start_offline_server(cassette=cassette)
    model = cassette.models[0] if cassette.models else MODEL_NAME
    return ModelChoice(offline_client(server.base_url, max_retries), model,
                       f"Model: {model}, replayed from the cassette {Path(path).name} "
                       f"({cassette.describe()}) by the offline server at {server.base_url} "
                       f"(no key, no network).", server)


def offline_client(base_url: str, max_retries: int = 2) -> anthropic.Anthropic:
    # The loopback address is mounted without a proxy, whatever HTTP(S)_PROXY
    # says, so the offline model is reached directly and nothing leaves the host.
    # The key is the one the server at base_url made when it started in this process.
    http = anthropic.DefaultHttpxClient(mounts={"all://127.0.0.1": None})
    return anthropic.Anthropic(api_key=key_for(base_url) or OFFLINE_KEY, base_url=base_url,
                               max_retries=max_retries, http_client=http)


def choose_model(*, offline: bool = False, window: int = DEFAULT_WINDOW, faults=(),
                 max_retries: int = 2, environ=None, env_file=True, echo=print,
                 cassette=None, record=None) -> ModelChoice:
    """The real API when a key and MODEL_ID are configured (and `offline` is False),
    otherwise the offline model on 127.0.0.1; `echo` gets one line saying which.
    `cassette`: a recorded run (compact-course record) answered by the offline server, in
    the model's name it recorded. `record`: a cassette file every exchange is kept in
    (None: the file COMPACT_RECORD names, if it is set; False: none, so a second model
    in the same run does not write over the first one's cassette)."""
    env = os.environ if environ is None else environ
    record = env.get(RECORD) if record is None else record
    settings_path(environ, env_file)    # named, so covered from the agent, even when not read
    found = {} if offline or cassette else settings(environ, env_file)
    if cassette:
        choice = _replaying(cassette, max_retries)
    elif found.get(KEY) and found.get(MODEL):
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
    if record:
        plain = choice.client
        choice.client, choice.recorder = recording_client(plain, record)
        plain.close()       # the copy has its own HTTP client; this one is not used again
        choice.description += f" Recording to {Path(record).name}."
    if echo:
        echo(choice.description)
    return choice
