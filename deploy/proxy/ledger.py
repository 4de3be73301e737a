"""The class's budgets as a bound: each call's worst case reserved before it is sent, its price after.

LiteLLM's callback hooks (`litellm_settings.callbacks: ledger.ledger`) carry it:
- `async_pre_call_hook`, before a Messages API call is forwarded: `max_tokens` must be a
  whole number from 1 to MAX_TOKENS (LiteLLM caps `max_tokens` only when a request has none,
  and a call's cost grows with it); a request with a part whose cost its text does not bound
  (billing.unbounded: an image, a document, a tool the API defines and runs, such as web
  search) is refused; then the call's worst case (billing.worst_case) is reserved against the
  student's budget, refused (LiteLLM's BudgetExceededError, HTTP 422) when the spend, the
  calls still running and this one would pass it (class_keys.over_budget, in cents). The
  check and the reservation run with no await between them, on the proxy's one event loop,
  so calls at once cannot all pass on the same spend: the budget holds under any burst;
- `async_log_success_event`, once the answer is in (a stream's too, with what was sent when
  the client left): LiteLLM's price of it (`response_cost`, from the `usage` the upstream
  returned, at the table's prices serve.py gave LiteLLM) is added to the student's spend in
  SPEND_FILE (JSON, replaced in one step, 640 with its folder's group: the teachers may read
  it), and the reservation ends; a call LiteLLM could not price is charged its worst case;
- `async_log_failure_event` and `async_post_call_failure_hook`: the reservation ends, and
  anything LiteLLM priced on the way is charged.
A reservation no hook ended (a call LiteLLM lost track of) ends after HOLD seconds, longer
than LiteLLM lets a call run (litellm.yaml's request_timeout).

Why not LiteLLM's own budget: it checks a key's spend before the call and adds the cost
after it, and reserves nothing, so 20 calls at once on a $0.50 budget all passed and spent
$2.42; LiteLLM's TPM limit reserves, but tokens, by an estimate (a quarter of the
characters), not dollars by a bound.

Left out: spend of requests still running when the proxy stops (their reservations go with it).
"""

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import litellm
from fastapi import HTTPException
from litellm.integrations.custom_logger import CustomLogger

sys.path.insert(0, str(Path(__file__).resolve().parent))   # class_keys.py, billing.py beside this file
import billing  # noqa: E402
import class_keys  # noqa: E402

SPEND_FILE = Path(os.environ.get("CLASS_SPEND_FILE", "/var/lib/course-proxy/spend.json"))
MAX_TOKENS = 8192      # the course's agent asks 8,000 (compact_course/agent/loop.py), its summaries 2,000
HOLD = 900             # seconds; litellm.yaml's request_timeout is 600
PRICED_CALLS = frozenset({"anthropic_messages"})


def refuse(message: str) -> HTTPException:
    """A 400 in the Messages API's words, before anything is forwarded."""
    return HTTPException(status_code=400,
                         detail={"error": {"type": "invalid_request_error", "message": message}})


class Ledger(CustomLogger):
    """Each student's spend in dollars (SPEND_FILE) and the worst cases of their calls in flight."""

    def __init__(self, path: Path = SPEND_FILE):
        super().__init__()
        self.path = path
        self.rows = None       # {model_name: the price row}, read from LiteLLM's config at the first call
        self.held = {}         # litellm_call_id -> (student, dollars, until)

    def add(self, student: str, cost: float) -> None:
        spend = class_keys.spent(self.path)
        spend[student] = spend.get(student, 0.0) + cost
        fd, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".spend-")
        with os.fdopen(fd, "w") as file:
            os.fchmod(file.fileno(), 0o640)     # the folder's group (the teachers) reads it
            json.dump(spend, file, indent=1, sort_keys=True)
        os.replace(temporary, self.path)

    def holding(self, student: str) -> float:
        """What the student's calls still running may cost; reservations past their time end."""
        now = time.monotonic()
        for call, (_, _, until) in list(self.held.items()):
            if until < now:
                del self.held[call]
        return sum(dollars for owner, dollars, _ in self.held.values() if owner == student)

    def row(self, model_name: str):
        if self.rows is None:
            self.rows = billing.rows(billing.read_config(os.environ["CONFIG_FILE_PATH"]), os.environ)
        return self.rows[model_name]

    async def async_pre_call_hook(self, user_api_key_dict, cache, data, call_type):
        if call_type not in PRICED_CALLS:
            return None
        max_tokens = data.get("max_tokens")
        if type(max_tokens) is not int or not 1 <= max_tokens <= MAX_TOKENS:
            raise refuse(f"max_tokens: {max_tokens!r} is not served by the class proxy: give a whole "
                         f"number from 1 to {MAX_TOKENS}.")
        part = billing.unbounded(data)
        if part:
            raise refuse(f"{part} is not served by the class proxy: it bounds each call's cost before "
                         "sending it, from the request's text (text, tool use, tool results, thinking).")
        student = user_api_key_dict.user_id
        budget = float((user_api_key_dict.metadata or {}).get("class_budget", 0.0))
        worst = billing.worst_case(data, self.row(data.get("model")))
        spend = class_keys.spent(self.path).get(student, 0.0)
        refusal = class_keys.over_budget(student, spend, self.holding(student), worst, budget)
        if refusal:
            raise litellm.BudgetExceededError(current_cost=spend, max_budget=budget, message=refusal)
        self.held[call_id(data)] = (student, worst, time.monotonic() + HOLD)
        return None

    def settle(self, kwargs, priced: bool) -> None:
        """End the call's reservation and charge what LiteLLM priced (its worst case if it priced none)."""
        held = self.held.pop(kwargs.get("litellm_call_id"), None)
        metadata = (kwargs.get("litellm_params") or {}).get("metadata") or {}
        student = metadata.get("user_api_key_user_id") or (held[0] if held else None)
        cost = kwargs.get("response_cost")
        if cost is None and priced and held:
            cost = held[1]
        if student and cost:
            self.add(student, float(cost))

    async def async_log_success_event(self, kwargs, response_obj, start_time, end_time):
        self.settle(kwargs, priced=True)

    async def async_log_failure_event(self, kwargs, response_obj, start_time, end_time):
        self.settle(kwargs, priced=False)

    async def async_post_call_failure_hook(self, request_data, original_exception, user_api_key_dict,
                                           traceback_str=None):
        self.held.pop(call_id(request_data), None)
        return None


def call_id(data: dict):
    """LiteLLM's id of the call: its logging object's, as its callbacks later receive it."""
    logging_obj = data.get("litellm_logging_obj")
    return getattr(logging_obj, "litellm_call_id", None) or data.get("litellm_call_id")


ledger = Ledger()
