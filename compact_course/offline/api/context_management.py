"""The API's own context management on the offline server: what a request asks, and each piece.

The server's one path (`answer.py`) calls these in order, and nothing here calls
back into the server. As the pinned SDK's types define it (`anthropic.types.beta`):
1. `read_asked`: what the request asks, checked: each edit and the `compaction`
   parameter needs its own beta (`EDITS`, `ON_DEMAND_BETA`), named in
   `betas=[...]` (the `anthropic-beta` header); at most MAX_EDITS edits;
2. `request_read`: a `compaction` block sent back (first, or in the assistant message
   that brought it) is verified when signed and read as the summary it holds, what
   came before it dropped (`server_compaction.adopt`);
3. `counted`: `count_tokens` counts the prompt after the clearing edits and reports
   `context_management.original_input_tokens` (compaction is not run to count);
4. `compact_now`: `compaction={"type": "summarize"}` summarizes now and answers with
   the block alone, `stop_reason` "compaction";
5. `run_edits`: the edits in the order sent: `clear_tool_uses_20250919` clears
   (`context_edits`), `compact_20260112` compacts once the prompt reaches its
   trigger; the model answers the edited prompt, and `with_edits` adds
   `context_management.applied_edits`, and after a compaction the block first
   and `usage.iterations` (the compaction's tokens apart from the top-level usage);
   `paused` is the block alone when the compaction pauses.
A refusal is HTTP 400 in the API's error shape; a compaction refusal also carries
`error.details.error_code`, from which the SDK raises its own class
(`anthropic.CompactionSignatureInvalidError`, ...).

A request with `thread` (the SDK's server-held conversations) is refused with
`thread_unsupported_request`, the code on which the SDK's tool runner goes on
without a thread, sending the whole history each turn.

MAX_EDITS is ours: neither the API's docs nor the SDK's types give a number of
edits per request; three is one of each kind the types know (two clearings and
a compaction), and it bounds a request's work (issue 29 measured 26-34 s of CPU
for one request of 10,000 clearing edits).

`clear_thinking_20251015` (`thinking.py`) clears the thinking of older assistant
turns; it needs `thinking` on in the request, else the API's 400.

Left out: inline tool changes, streaming, threads.
"""

import hashlib
from dataclasses import dataclass, field

from ..tokens import estimate_tokens
from . import context_edits, thinking
from . import server_compaction as sc

MAX_EDITS = 3   # ours: the API documents no number (see above)
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


class ManagementError(ValueError):
    """A context-management request the API refuses (HTTP 400)."""

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Compact:
    """One `compact_20260112` edit (or the on-demand request: trigger 0, paused)."""
    trigger: int = sc.DEFAULT_TRIGGER
    pause: bool = False
    instructions: str | None = None


COMPACT_FIELDS = ("type", "trigger", "pause_after_compaction", "instructions")


def read_compact(where: str, edit: dict) -> Compact:
    extra = sorted(set(edit) - set(COMPACT_FIELDS))
    if extra:
        raise ManagementError(f"{where}.{extra[0]}: Extra inputs are not permitted")
    trigger = edit.get("trigger")
    value = sc.DEFAULT_TRIGGER
    if trigger is not None:
        _, value = context_edits.amount(f"{where}.trigger", trigger, ("input_tokens",), 1)
    if value < sc.MIN_TRIGGER:
        raise ManagementError(f"{where}.trigger.value: compact_20260112 needs a trigger of at least "
                              f"{sc.MIN_TRIGGER} input tokens, got {value}")
    pause = edit.get("pause_after_compaction", False)
    if not isinstance(pause, bool):
        raise ManagementError(f"{where}.pause_after_compaction: Input should be a valid boolean")
    instructions = edit.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise ManagementError(f"{where}.instructions: Input should be a valid string")
    return Compact(value, pause, instructions)


# One row per edit the offline server plays: the beta it needs, how its config is read.
EDITS = {
    context_edits.EDIT_TYPE: (context_edits.BETA, context_edits.read_edit),
    sc.EDIT_TYPE: (sc.BETA, read_compact),
    thinking.EDIT_TYPE: (context_edits.BETA, thinking.read_edit),
}


def read_edits(config, betas: set) -> list:
    """The edits of `context_management`, checked, in the order sent."""
    if config is None:
        return []
    if not isinstance(config, dict):
        raise ManagementError("context_management: Input should be a valid dictionary")
    edits = config.get("edits", [])
    if not isinstance(edits, list):
        raise ManagementError("context_management.edits: Input should be a valid list")
    if len(edits) > MAX_EDITS:
        raise ManagementError(f"context_management.edits: at most {MAX_EDITS} edits in one request "
                              f"(the offline server's limit), got {len(edits)}")
    read = []
    for i, edit in enumerate(edits):
        where = f"context_management.edits.{i}"
        kind = edit.get("type") if isinstance(edit, dict) else None
        if kind not in EDITS:
            raise ManagementError(f"{where}.type: unknown context management edit {kind!r}; "
                                  f"use one of {', '.join(repr(k) for k in EDITS)}")
        beta, reader = EDITS[kind]
        if beta not in betas:
            raise ManagementError(f"{where}: {kind} needs the beta {beta!r}: pass betas=[{beta!r}] "
                                  f"(the anthropic-beta header)")
        read.append(reader(where, edit))
    if sum(isinstance(e, Compact) for e in read) > 1:
        raise ManagementError("context_management.edits: at most one compact_20260112 edit")
    return read


def read_compaction(config, betas: set) -> Compact | None:
    """The on-demand `compaction` parameter, checked: a Compact that always fires and pauses."""
    if config is None:
        return None
    if not isinstance(config, dict) or config.get("type") != "summarize":
        raise ManagementError("compaction.type: Input should be 'summarize'")
    if sc.ON_DEMAND_BETA not in betas:
        raise ManagementError(f"compaction: needs the beta {sc.ON_DEMAND_BETA!r}: pass "
                              f"betas=[{sc.ON_DEMAND_BETA!r}] (the anthropic-beta header)")
    extra = sorted(set(config) - {"type", "instructions"})
    if extra:
        raise ManagementError(f"compaction.{extra[0]}: Extra inputs are not permitted")
    instructions = config.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise ManagementError("compaction.instructions: Input should be a valid string")
    return Compact(trigger=0, pause=True, instructions=(instructions or "").strip() or None)


def error_payload(message: str, code: str | None) -> dict:
    error = {"type": "invalid_request_error", "message": message}
    if code:
        error["details"] = {"error_code": code}
    return {"type": "error", "error": error}


def asks_for_management(body) -> bool:
    return isinstance(body, dict) and (body.get("context_management") is not None
                                       or body.get("compaction") is not None
                                       or body.get("thread") is not None
                                       or sc.has_blocks(body.get("messages")))


def refuse_thread(body: dict) -> None:
    """The SDK's tool runner (the path to `compact_before_next_turn()`) asks for a server-held
    thread first; this refusal's code makes it send the whole history instead, every turn."""
    if body.get("thread") is not None:
        raise ManagementError("thread: the offline server keeps no conversation between requests; "
                              "send the whole conversation without `thread`", "thread_unsupported_request")


@dataclass(frozen=True)
class Asked:
    """What a request asks of the API's context management, read and checked."""
    edits: list                     # ClearToolUses and Compact, in the order sent
    on_demand: Compact | None       # the `compaction` parameter
    managed: bool                   # `context_management` was sent (count_tokens then reports it)


def read_asked(body, beta_header: str) -> Asked | None:
    """None when the request asks nothing of context management, else what it asks;
    ManagementError for what the API refuses (a thread, a missing beta, a bad edit)."""
    if not asks_for_management(body):
        return None
    refuse_thread(body)
    betas = {b.strip() for b in (beta_header or "").split(",") if b.strip()}
    edits = read_edits(body.get("context_management"), betas)
    on_demand = read_compaction(body.get("compaction"), betas)
    if any(isinstance(e, thinking.ClearThinking) for e in edits) and not thinking.thinking_on(body):
        raise ManagementError(thinking.NEEDS_THINKING)
    if on_demand and body.get("context_management") is not None:
        raise ManagementError("compaction: cannot be combined with context_management")
    if sc.has_blocks(body.get("messages")) and not betas & {sc.BETA, sc.ON_DEMAND_BETA}:
        raise ManagementError(f"messages: a compaction block needs the beta {sc.BETA!r} or "
                              f"{sc.ON_DEMAND_BETA!r}")
    return Asked(edits, on_demand, body.get("context_management") is not None)


def request_read(body: dict, asked: Asked, secret: bytes) -> dict:
    """The request as the model reads it: the management fields gone, a compaction block
    sent back adopted as the summary it holds (`server_compaction.adopt`)."""
    request = {k: v for k, v in body.items() if k not in ("context_management", "compaction")}
    if sc.has_blocks(body.get("messages")):
        request["messages"] = sc.adopt(body["messages"], secret)
    if asked.on_demand and request.get("messages") == []:
        raise sc.CompactionError("messages: nothing to summarize or adopt (only compaction blocks "
                                 "with null content)", "compaction_nothing_to_summarize")
    if asked.on_demand and sc.ends_unfinished(request.get("messages")):
        raise sc.CompactionError("messages: the conversation ends on an assistant turn whose tool "
                                 "calls have no results; send them first", "compaction_incomplete_turn")
    return request


@dataclass
class Edited:
    """What the edits made of a request: the messages the model reads, and what happened."""
    messages: list
    applied: list = field(default_factory=list)     # the clearing edits that acted
    block: dict | None = None                       # the compaction block, when one was made
    summarized: list | None = None                  # the messages it stands for
    iterations: list = field(default_factory=list)  # its usage entry
    paused: bool = False


def run_edits(request: dict, edits: list, secret: bytes, compact: bool = True) -> Edited:
    """The edits in the order sent: clearing clears, compaction compacts once the prompt has
    reached its trigger (and stops there when it pauses). `compact=False`: clearing only."""
    done = Edited(request["messages"])
    for edit in edits:
        view = {**request, "messages": done.messages}
        if isinstance(edit, context_edits.ClearToolUses):
            done.messages, applied = context_edits.clear_tool_uses(view, edit)
            done.applied += [applied] if applied else []
        elif isinstance(edit, thinking.ClearThinking):
            done.messages, applied = thinking.clear_thinking(view, edit)
            done.applied += [applied] if applied else []
        elif compact and estimate_tokens(view) >= edit.trigger:
            done.block, usage = _compaction(done.messages, view, secret)
            done.summarized, done.iterations = done.messages, [*done.iterations, usage]
            done.messages = [sc.as_read(done.block)]
            if edit.pause:
                done.paused = True
                break
    return done


def counted(request: dict, asked: Asked) -> dict:
    """`count_tokens` of a managed request: the prompt after the clearing edits (compaction is
    not run to count), and with `context_management`, the count before them."""
    edited = run_edits(request, asked.edits, b"", compact=False)
    payload = {"input_tokens": estimate_tokens({**request, "messages": edited.messages})}
    if asked.managed:
        payload["context_management"] = {"original_input_tokens": estimate_tokens(request)}
    return payload


def _compaction(messages: list, view: dict, secret: bytes) -> tuple[dict, dict]:
    """The block summarizing `messages`, and its `usage.iterations` entry."""
    summary = sc.state_summary(messages)
    block = sc.make_block(summary, messages, estimate_tokens(view), secret)
    return block, sc.compaction_usage(summary)


def block_only(request: dict, block: dict, iterations: list) -> dict:
    """A reply that is the block alone: nothing sampled, so the top-level usage is zero."""
    key = hashlib.sha256(block["signature"].encode()).hexdigest()
    return {"id": "msg_" + key[:24], "type": "message", "role": "assistant",
            "model": request.get("model"), "content": [block], "stop_reason": "compaction",
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0, "iterations": iterations}}


def compact_now(request: dict, secret: bytes) -> dict:
    """The on-demand `compaction`: the block alone, summarizing the whole request."""
    block, usage = _compaction(request["messages"], request, secret)
    return block_only(request, block, [usage])


def paused(request: dict, edited: Edited) -> dict:
    """`pause_after_compaction`: the block alone, and the edits that acted."""
    return {**block_only(request, edited.block, edited.iterations),
            "context_management": {"applied_edits": edited.applied}}


def with_edits(reply: dict, edited: Edited) -> dict:
    """The model's reply to the edited prompt, as the API returns it: after a compaction the
    block first and `usage.iterations`; always `context_management.applied_edits`."""
    if edited.block is not None:
        used = reply["usage"]
        message = {"type": "message", **{k: used.get(k) or 0 for k in USAGE_FIELDS}}
        reply = {**reply, "content": [edited.block, *reply["content"]],
                 "usage": {**used, "iterations": [*edited.iterations, message]}}
    return {**reply, "context_management": {"applied_edits": edited.applied}}
