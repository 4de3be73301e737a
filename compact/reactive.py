"""The article's safety net, reactive_compact: the API still says "prompt is too long".

Characters only estimate tokens, so the API may refuse what the pipeline let through: write a
transcript, summarize all before the newest KEEP_RECENT_MESSAGES (5), send `[Reactive compact]`
+ that tail, once a model call (with thinking blocks in the tail the default summarizes all:
flaw 19). Left out: the retry and its counter (the agent loop's).
"""

from .messages import estimate_chars, has_tool_use, is_tool_result, request_positions, thinking_count
from .summary import summary_message_for

TOO_LONG_SPELLINGS = ("prompt is too long", "prompt_too_long", "too many tokens")
WINDOW_EXCEEDED = "model_context_window_exceeded"


def hit_the_window(response) -> bool:
    """A reply cut short by a full window (`stop_reason` "model_context_window_exceeded"): the
    agent loop and the recipe drop it, compact, and ask again."""
    if isinstance(response, dict):
        return response.get("stop_reason") == WINDOW_EXCEEDED
    return getattr(response, "stop_reason", None) == WINDOW_EXCEEDED


def is_prompt_too_long(error: BaseException) -> bool:
    """The API's refusal of an oversized prompt, the SDK's error type and all three spellings
    (flaw 9: the article matched two, not the API's "prompt is too long: N tokens > M maximum")."""
    if getattr(error, "status_code", None) not in (None, 400, 413):
        return False
    message, body = str(error).lower(), getattr(error, "body", None)
    if isinstance(body, dict):
        message += " " + str(body.get("error", body)).lower()
    return any(spelling in message for spelling in TOO_LONG_SPELLINGS)


def tail_start(messages, keep: int, active_request: str, request_once: bool = True) -> int:
    """Where the kept tail begins: the newest `keep`, a pair whole, (request_once) past the request."""
    start = max(0, len(messages) - keep)
    if start > 0 and is_tool_result(messages[start]) and has_tool_use(messages[start - 1]):
        start -= 1   # one earlier rather than split a tool_use from its result
    # flaw 14: the request could be read twice: the seed keeps the article's tail, so a
    # request among the newest 5 is in the summary and the tail; the default starts after it.
    mentions = [i for i in request_positions(messages, active_request) if i >= start] if request_once else []
    return mentions[-1] + 1 if mentions else start


def reactive_compact(messages, compactor, active_request: str):
    """Summarize all but the newest messages; the whole list when that tail is all of it."""
    config = compactor.config
    start = tail_start(messages, config.keep_recent_messages, active_request, config.request_once)
    if config.append_only_thinking and thinking_count(messages[start:]):
        start = 0   # a kept tail's thinking would be bound to the head it lost: summarize all
    # Only the dropped part is summarized, never the kept tail: the article gets this right
    # (its own test asserts it; flaw 10 is withdrawn).
    message = summary_message_for(messages, messages[:start] if start else messages, compactor,
                                  active_request, "Reactive compact")
    if message is None:
        return messages
    return [message, *messages[start:]] if start else [message]


def smaller_or_raise(error: BaseException, refused: list, retry: list) -> list:
    """`retry` if smaller than what the API `refused` (a summary can outgrow a short head), else `error`."""
    before, after = estimate_chars(refused), estimate_chars(retry)
    if after < before:
        return retry
    why = (f"reactive_compact would send {after:,} characters, not fewer than the {before:,} "
           f"the API refused, so it did not retry")
    response, body = getattr(error, "response", None), getattr(error, "body", None)
    if response is not None and hasattr(error, "status_code"):
        try:   # an SDK status error, made again of its own class: callers still catch it by type
            raise type(error)(f"{why}. The refusal: {getattr(error, 'message', error)}",
                              response=response, body=body) from error
        except TypeError:
            pass
    error.add_note(why)
    raise error
