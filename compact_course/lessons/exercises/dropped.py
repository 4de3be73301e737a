"""labs/06 · today's API: which thinking blocks `drop_block` drops after an edit of the past.

The learner predicts, for a five-turn tool loop with thinking on (every assistant
turn starts with a signed thinking block, at messages 1, 3, 5, 7 and 9), the paths
the offline server lists in `input_transformations` after each of three edits:
step 3 shrinking the tool result of messages.4, a changed `system`, and the two
oldest thinking blocks removed. The lab shows one case (messages.2 shrunk); the
others take the rule itself: a block's prefix is everything before it, a changed
prefix drops that block and every later one, and removal from the front is allowed.

No run prints the expected lists (no checker does, check.py): only the notebook's cell
behind `revealed("dropped_paths")` shows them.
The expected paths come from the offline server's own check (`binding.check`, the
code the HTTP server runs) on a session it signed, on every run. The diagnosis knows
"only the first failing block" and "every block, the earlier ones too".

Left out: streaming (the same list, on `message_start`) and the model check.
"""

from ...display.phrases import say as phrase
from ...offline.api import binding
from ..thinking_lab import shrink_result
from .catalogue import exercise
from .check import CheckResult, check_prediction, hint

SYSTEM = "You are a coding agent."
SECRET = b"labs/06"
LABELS = ("shrink messages.4", "change the system", "remove the two oldest thinking blocks")


def session(turns: int = 5) -> list:
    """A tool loop with thinking on, every thinking block signed by the offline server's rule."""
    messages = [{"role": "user", "content": "Read the five READMEs."}]
    for n in range(turns):
        request = {"model": "offline-s08", "system": SYSTEM, "messages": messages}
        text = f"(Stand-in reasoning before call {n + 1}.)"
        use = {"type": "tool_use", "id": f"toolu_{n}", "name": "read_file", "input": {"path": f"s0{n + 1}"}}
        thought = {"type": "thinking", "thinking": text,
                   "signature": binding.sign(text, "offline-s08", request, [], SECRET)}
        messages = [*messages, {"role": "assistant", "content": [thought, use]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"],
                                                  "content": f"# Lesson {n + 1}\n" + "text\n" * 50}]}]
    return messages


def without_thinking(messages: list, indexes) -> list:
    return [{**m, "content": [b for b in m["content"] if b.get("type") != "thinking"]}
            if i in indexes else m for i, m in enumerate(messages)]


def dropped(messages: list, system: str = SYSTEM) -> list:
    """The paths the offline server drops, with drop_block and the beta header."""
    body = {"model": "offline-s08", "system": system, "messages": messages,
            "thinking": {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}}
    _, listed = binding.check(body, {binding.BETA}, SECRET)
    return [entry["path"] for entry in listed]


def expected() -> dict:
    messages = session()
    return {LABELS[0]: dropped(shrink_result(messages, 4)),
            LABELS[1]: dropped(messages, SYSTEM + " Be brief."),
            LABELS[2]: dropped(without_thinking(messages, (1, 3)))}


def _diagnose(label, want, got) -> str | None:
    if isinstance(got, list) and got and want and got == want[:1]:
        return phrase("dropped: first only")
    if isinstance(got, list) and len(got) > len(want):
        return phrase("dropped: earlier too")
    return None


@exercise("labs/06")
def check_dropped_paths(answer) -> CheckResult:
    """predict {case: [paths]} for the three cases in LABELS ([] when nothing is dropped)."""
    return check_prediction("dropped_paths", answer, expected(), hint("dropped_paths"),
                            diagnose=_diagnose)
