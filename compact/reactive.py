"""The article's safety net: reactive_compact, when the API still says "too long".

Characters only estimate tokens, so the API may refuse a request the pipeline
let through. Then: write a transcript, summarize everything before the newest
KEEP_RECENT_MESSAGES (5), and send `[Reactive compact]` + that tail. The caller
allows this once per model call (MAX_REACTIVE_RETRIES) and raises the second
refusal.

With thinking blocks in the tail the default summarizes the whole list instead
(`append_only_thinking`, flaw 19): kept after a new head, they would fail the API's
prefix check.

Left out on purpose: the retry itself and its counter (the agent loop owns
them). Flaws are numbered as in docs/DESIGN.md.
"""

from . import messages as message_list
from .messages import has_tool_use, is_tool_result, request_positions, thinking_count
from .summary import summary_message_for

TOO_LONG_SPELLINGS = ("prompt is too long", "prompt_too_long", "too many tokens")
WINDOW_EXCEEDED = "model_context_window_exceeded"


def hit_the_window(response) -> bool:
    """True for a reply cut short because the context window was full (an SDK Message or a dict).

    `stop_reason` "model_context_window_exceeded" (the pinned SDK's `StopReason`): the
    API took the prompt, but the reply did not fit after it. The reply is not final;
    the agent loop and the recipe drop it, compact as for a refusal, and ask again."""
    if isinstance(response, dict):
        return response.get("stop_reason") == WINDOW_EXCEEDED
    return getattr(response, "stop_reason", None) == WINDOW_EXCEEDED


def is_prompt_too_long(error: BaseException) -> bool:
    """True for the API's refusal of an oversized prompt, however it is spelled: the
    SDK's error type and all three spellings, in both profiles (flaw 9: the article
    matched only two, not the real API's "prompt is too long: N tokens > M maximum")."""
    status = getattr(error, "status_code", None)
    if status is not None and status not in (400, 413):
        return False
    message = str(error).lower()
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        message += " " + str(body.get("error", body)).lower()
    return any(spelling in message for spelling in TOO_LONG_SPELLINGS)


def tail_start(messages, keep: int, active_request: str, request_once: bool = True) -> int:
    """Where the kept tail begins: the newest `keep` messages, one earlier
    rather than split a pair, and (request_once) past the request's own message."""
    start = max(0, len(messages) - keep)
    # One earlier rather than split a tool_use from its result: the pair goes to the tail.
    if start > 0 and is_tool_result(messages[start]) and has_tool_use(messages[start - 1]):
        start -= 1
    # flaw 14: the current request can leave the context, or here be read twice: the
    # seed keeps exactly the article's tail, so a request among the newest 5 is in the
    # summary message and in the tail; the default starts after the request's message.
    if not request_once:
        return start
    mentions = [i for i in request_positions(messages, active_request) if i >= start]
    if mentions:
        start = mentions[-1] + 1
    return start


def reactive_compact(messages, compactor, active_request: str):
    """Summarize all but the newest messages; the whole list when that tail is all of it."""
    config = compactor.config
    start = tail_start(messages, config.keep_recent_messages, active_request, config.request_once)
    if config.append_only_thinking and thinking_count(messages[start:]):
        start = 0   # a kept tail's thinking would be bound to the head it lost: summarize all
    # Only the dropped part is summarized, never the kept tail: the article gets this
    # right (its own test asserts it; flaw 10 is withdrawn).
    dropped = messages[:start] if start else messages
    message = summary_message_for(messages, dropped, compactor, active_request,
                                  "Reactive compact")
    if message is None:
        return messages
    return [message, *messages[start:]] if start else [message]


def smaller_or_raise(error: BaseException, refused: list, retry: list) -> list:
    """`retry` when it is smaller than the list the API `refused`; otherwise the
    refusal `error` is raised again, its message saying why there is no retry.

    A retry must be smaller than what was refused: when the summary of a short head
    is longer than the head (a tiny window, a long kept tail), the list grows, and
    the retry could only be refused again."""
    before, after = message_list.estimate_chars(refused), message_list.estimate_chars(retry)
    if after < before:
        return retry
    why = (f"reactive_compact would send {after:,} characters, not fewer than the {before:,} "
           f"the API refused, so it did not retry")
    raise _with_reason(error, why) from error


def _with_reason(error: BaseException, why: str) -> BaseException:
    """The same refusal with `why` in front of its message: an SDK status error is
    made again of its own class, response and body (callers still catch it by its
    type and read its status); any other error gets `why` as a note."""
    response, body = getattr(error, "response", None), getattr(error, "body", None)
    if response is not None and hasattr(error, "status_code"):
        try:
            return type(error)(f"{why}. The refusal: {getattr(error, 'message', error)}",
                               response=response, body=body)
        except TypeError:
            pass
    error.add_note(why)
    return error
