"""The class's keys and budgets inside LiteLLM's proxy, with no database: its custom auth and a spend ledger.

LiteLLM's own virtual keys live in its PostgreSQL database, which it reaches through
Prisma; Prisma downloads its query engine from Prisma's servers when the proxy first
starts, so they cannot work on a machine that reaches only package registries (README,
"Live runs for a class"). This module gives the proxy the same two things through the
hooks LiteLLM documents for it (`general_settings.custom_auth`, `litellm_settings.callbacks`):

- `user_api_key_auth`: the key a student's kernel sends (x-api-key) is looked up, by its
  SHA-256, in the proxy's key file (CLASS_KEYS_FILE; class_keys.py writes it, 600, the
  proxy user's); it becomes LiteLLM's UserAPIKeyAuth with the student as user and alias,
  their budget as max_budget and their spend so far, and LiteLLM's common checks
  (`custom_auth_run_common_checks: true`) refuse a student over budget with its own
  "Budget has been exceeded" error. An unknown key is a 401.
- `ledger`: after every answered request, LiteLLM's cost of it (the model's prices in
  litellm.yaml) is added to the student's spend in CLASS_SPEND_FILE (JSON, replaced in one
  step); `class_keys.py spend` prints it.

Left out: rate limits, teams, the admin UI (they need LiteLLM's database), and spend of
requests still streaming when the proxy stops.
"""

import hashlib
import json
import os
import tempfile
from pathlib import Path

from fastapi import Request
from litellm.integrations.custom_logger import CustomLogger
from litellm.proxy._types import ProxyErrorTypes, ProxyException, UserAPIKeyAuth

KEYS_FILE = Path(os.environ.get("CLASS_KEYS_FILE", "/var/lib/course-proxy/keys.json"))
SPEND_FILE = Path(os.environ.get("CLASS_SPEND_FILE", "/var/lib/course-proxy/spend.json"))


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class JsonFile:
    """A JSON file, read again whenever it changes (the teacher adds a student; the ledger writes)."""

    def __init__(self, path: Path, empty):
        self.path, self.empty, self.stamp, self.value = path, empty, None, empty

    def read(self):
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return self.empty
        if (info.st_mtime_ns, info.st_size, info.st_ino) != self.stamp:
            self.value = json.loads(self.path.read_text())
            self.stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        return self.value


class Ledger(CustomLogger):
    """Each student's spend in dollars, in SPEND_FILE, written after every answered request.

    LiteLLM loads this module once for the auth and once for the callback: the two
    share the file, never memory.
    """

    def __init__(self, path: Path = SPEND_FILE):
        super().__init__()
        self.file = JsonFile(path, {})

    def of(self, student: str) -> float:
        return float(self.file.read().get(student, 0.0))

    def add(self, student: str, cost: float) -> None:
        spend = {**self.file.read(), student: self.of(student) + cost}
        fd, temporary = tempfile.mkstemp(dir=self.file.path.parent, prefix=".spend-")
        with os.fdopen(fd, "w") as file:
            json.dump(spend, file, indent=1, sort_keys=True)
        os.replace(temporary, self.file.path)

    async def async_log_success_event(self, kwargs, response_obj, start_time, end_time):
        metadata = (kwargs.get("litellm_params") or {}).get("metadata") or {}
        student = metadata.get("user_api_key_user_id")
        if student:
            self.add(student, float(kwargs.get("response_cost") or 0.0))


keys = JsonFile(KEYS_FILE, {"keys": {}})
ledger = Ledger()


async def user_api_key_auth(request: Request, api_key: str) -> UserAPIKeyAuth:
    """LiteLLM's custom auth: the student behind a class key, with their budget and spend."""
    entry = keys.read()["keys"].get(digest(api_key or ""))
    if entry is None:
        raise ProxyException(message="Unknown class key: ask your teacher for the key of your account.",
                             type=ProxyErrorTypes.auth_error, param="api_key", code=401)
    student = entry["student"]
    return UserAPIKeyAuth(api_key=digest(api_key), token=digest(api_key), key_alias=student,
                          user_id=student, max_budget=float(entry["budget"]), spend=ledger.of(student))
