"""The class's keys inside LiteLLM's proxy, with no database: its custom auth and LiteLLM's per-key limits.

LiteLLM's own virtual keys live in its PostgreSQL database, which it reaches through
Prisma; Prisma downloads its query engine from Prisma's servers when the proxy first
starts, so they cannot work on a machine that reaches only package registries (docs/CLASS.md,
"Live runs for a class"). LiteLLM documents a hook for keys kept elsewhere
(`general_settings.custom_auth`): `user_api_key_auth` looks the key a student's kernel sends
(x-api-key) up, by its SHA-256, in the proxy's key file (CLASS_KEYS_FILE; class_keys.py
writes it) and returns LiteLLM's UserAPIKeyAuth for the student. An unknown key is a 401.

What it sets on the key is LiteLLM's to enforce, in memory, with no database
(litellm/proxy/hooks/parallel_request_limiter_v3.py, a hook every proxy runs):
- `max_parallel_requests` (LIMITS): a student's calls in flight at once; one more is a 429;
- `tpm_limit`: tokens a minute, which LiteLLM reserves before each call (its estimate of the
  prompt plus `max_tokens`) and settles after it; one over is a 429.
The budget is not LiteLLM's: its check compares a spend counter with the budget before a
call and adds the cost after it, so a burst of calls all pass the check before any is
added (20 at once spent $2.42 of a $0.50 budget). ledger.py reserves each call's worst case
instead, and the budget rides here, in the key's metadata, for it.

Left out: rate limits per team or model, the admin UI (they need LiteLLM's database).
"""

import hashlib
import os
import sys
from pathlib import Path

from fastapi import Request
from litellm.proxy._types import ProxyErrorTypes, ProxyException, UserAPIKeyAuth

sys.path.insert(0, str(Path(__file__).resolve().parent))   # class_keys.py, beside this file
import class_keys  # noqa: E402

KEYS_FILE = Path(os.environ.get("CLASS_KEYS_FILE", "/var/lib/course-proxy/keys.json"))
# LiteLLM's limits on every class key: the course's agent makes one call at a time, a
# notebook a few; 2,000,000 tokens a minute is a hundred of the agent's largest calls (a
# 50,000-character context, max_tokens 8,000: about 20,000 tokens as LiteLLM estimates them).
LIMITS = {"max_parallel_requests": 4, "tpm_limit": 2_000_000}


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


keys = class_keys.JsonFile(KEYS_FILE, {"keys": {}})


async def user_api_key_auth(request: Request, api_key: str) -> UserAPIKeyAuth:
    """LiteLLM's custom auth: the student behind a class key, with LiteLLM's limits and the budget."""
    hashed = digest(api_key or "")
    entry = keys.read()["keys"].get(hashed)
    if entry is None:
        raise ProxyException(message="Unknown class key: ask your teacher for the key of your account.",
                             type=ProxyErrorTypes.auth_error, param="api_key", code=401)
    return UserAPIKeyAuth(api_key=hashed, token=hashed, key_alias=entry["student"], user_id=entry["student"],
                          metadata={"class_budget": entry["budget"]}, **LIMITS)
