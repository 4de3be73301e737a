"""Step 4 of the article, compact_history: the one step that pays for a model call.

The list goes to a transcript and becomes one user message: the current request (typed this
turn, passed in, never guessed), the model's factual state summary as reference data, and the
transcript's path. Left out: *when* to summarize (`prepare`'s job), memory beyond the session (s09).
"""

import json

from . import formats
from .messages import text_of, to_plain
from .store import StoreError


def summary_input(messages, limit: int) -> str:
    """The messages' JSON; over `limit` (80000) its first 1/4 and last 3/4 of it around a marker."""
    text = json.dumps(to_plain(messages), ensure_ascii=False)
    if len(text) <= limit:
        return text
    head = limit // 4
    return text[:head] + formats.MIDDLE_OMITTED + text[-(limit - head):]


def client_summarizer(client, model: str, limit: int, max_tokens: int = 2000):
    """A summarizer that asks an Anthropic client (the real API or the offline model)."""
    def summarize(messages) -> str:
        response = client.messages.create(
            model=model, system=formats.SUMMARY_SYSTEM, max_tokens=max_tokens,
            messages=[{"role": "user", "content": summary_input(messages, limit)}])
        return text_of(to_plain(response.content)).strip()
    return summarize


def summary_message_for(messages, dropped, compactor, active_request: str, kind: str):
    """`messages` to a transcript, then `dropped` summarized into one message; None (reported, no
    model call paid for) when the transcript cannot be written: it would point at nothing."""
    try:
        transcript = compactor.store.write_transcript(messages, compactor.texts(messages))
    except StoreError as error:
        compactor.report(f"{kind}: no summary made, context left as it was: {error}")
        return None
    compactor.echo_line(f"[transcript saved: {transcript}]")
    return formats.summary_message(kind, active_request, compactor.summarize(dropped), transcript)


def compact_history(messages, compactor, active_request: str, kind: str = "Compacted"):
    """Step 4: the whole list becomes one summary message (left as it is if the write fails)."""
    message = summary_message_for(messages, messages, compactor, active_request, kind)
    return messages if message is None else [message]
