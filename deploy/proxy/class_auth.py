"""The class's keys and budgets inside LiteLLM's proxy, with no database: its custom auth and a spend ledger.

LiteLLM's own virtual keys live in its PostgreSQL database, which it reaches through
Prisma; Prisma downloads its query engine from Prisma's servers when the proxy first
starts, so they cannot work on a machine that reaches only package registries (README,
"Live runs for a class"). This module gives the proxy the same two things through the
hooks LiteLLM documents for it (`general_settings.custom_auth`, `litellm_settings.callbacks`):

- `user_api_key_auth`: the key a student's kernel sends (x-api-key) is looked up, by its
  SHA-256, in the proxy's key file (CLASS_KEYS_FILE; class_keys.py writes it, 600, the
  proxy user's). A student whose spend in the ledger has reached their budget is refused
  here, with LiteLLM's BudgetExceededError and class_keys.over_budget's words and figures;
  otherwise the key becomes LiteLLM's UserAPIKeyAuth with the student as user and alias,
  and no max_budget. An unknown key is a 401.
  Why not LiteLLM's own budget check: it reads its own counter of each key's spend
  (`spend:key:<token>`, in memory without Redis), not the spend handed to it, and that
  counter ran far ahead of the ledger (1.547 against 0.2145 after one run of the live notebook).
  With no max_budget LiteLLM checks no budget; the ledger is the only count consulted.
- `ledger`: after every answered request, LiteLLM's cost of it (the model's prices in
  litellm.yaml) is added to the student's spend in CLASS_SPEND_FILE (JSON, replaced in one
  step); `class_keys.py spend` prints it.

Left out: rate limits, teams, the admin UI (they need LiteLLM's database), and spend of
requests still streaming when the proxy stops.
"""

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import litellm
from fastapi import Request
from litellm.integrations.custom_logger import CustomLogger
from litellm.proxy._types import ProxyErrorTypes, ProxyException, UserAPIKeyAuth

sys.path.insert(0, str(Path(__file__).resolve().parent))   # class_keys.py, beside this file
import class_keys  # noqa: E402

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
        self.path = path

    def of(self, student: str) -> float:
        # Read each time, as class_keys.py spend reads it: a few bytes a student.
        return class_keys.spent(self.path).get(student, 0.0)

    def add(self, student: str, cost: float) -> None:
        spend = class_keys.spent(self.path)
        spend[student] = spend.get(student, 0.0) + cost
        fd, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".spend-")
        with os.fdopen(fd, "w") as file:
            json.dump(spend, file, indent=1, sort_keys=True)
        os.replace(temporary, self.path)

    async def async_log_success_event(self, kwargs, response_obj, start_time, end_time):
        metadata = (kwargs.get("litellm_params") or {}).get("metadata") or {}
        student = metadata.get("user_api_key_user_id")
        if student:
            self.add(student, float(kwargs.get("response_cost") or 0.0))


keys = JsonFile(KEYS_FILE, {"keys": {}})
ledger = Ledger()


async def user_api_key_auth(request: Request, api_key: str) -> UserAPIKeyAuth:
    """LiteLLM's custom auth: the student behind a class key, refused once over budget."""
    entry = keys.read()["keys"].get(digest(api_key or ""))
    if entry is None:
        raise ProxyException(message="Unknown class key: ask your teacher for the key of your account.",
                             type=ProxyErrorTypes.auth_error, param="api_key", code=401)
    student, budget = entry["student"], float(entry["budget"])
    spend = ledger.of(student)
    refusal = class_keys.over_budget(student, spend, budget)
    if refusal:
        raise litellm.BudgetExceededError(current_cost=spend, max_budget=budget, message=refusal)
    return UserAPIKeyAuth(api_key=digest(api_key), token=digest(api_key), key_alias=student,
                          user_id=student, spend=spend)
