"""Step 4 of the article: compact_history, the one step that pays for a model call.

It writes the whole list to a transcript, asks the model for a factual state
summary, and replaces the list with one user message in three parts: the
current request (as typed this turn, passed in, never guessed from `messages`),
the summary as reference data, and the transcript's path.

Left out on purpose: deciding *when* to summarize (that is `prepare`'s job) and
any memory that outlives the session (chapter s09).
"""

import json

from . import formats
from .messages import text_of, to_plain
from .store import StoreError


def summary_input(messages, limit: int) -> str:
    """The JSON of the messages; above `limit` (SUMMARY_INPUT_CHAR_LIMIT, 80000) its first
    quarter and last three quarters of that budget, a marker where the middle was, so the
    summary call can never overflow itself."""
    text = json.dumps(to_plain(messages), ensure_ascii=False)
    if len(text) <= limit:
        return text
    head = limit // 4
    return text[:head] + formats.MIDDLE_OMITTED + text[-(limit - head):]


def client_summarizer(client, model: str, limit: int, max_tokens: int = 2000):
    """A summarizer that asks an Anthropic client (real or the offline model)."""
    def summarize(messages) -> str:
        response = client.messages.create(
            model=model,
            system=formats.SUMMARY_SYSTEM,
            max_tokens=max_tokens,
            messages=[{"role": "user", "content": summary_input(messages, limit)}],
        )
        return text_of(to_plain(response.content)).strip()
    return summarize


def summary_message_for(messages, dropped, compactor, active_request: str, kind: str):
    """Save `messages` to a transcript, then summarize `dropped` into one message.

    None (and reported) when the transcript cannot be written: the summary's
    "Full transcript:" would point at nothing, so no model call is paid for.
    Shared by step 4 and reactive_compact.
    """
    try:
        transcript = compactor.store.write_transcript(messages)
    except StoreError as error:
        compactor.report(f"{kind}: no summary made, context left as it was: {error}")
        return None
    compactor.echo_line(f"[transcript saved: {transcript}]")
    summary = compactor.summarize(dropped)
    return formats.summary_message(kind, active_request, summary, transcript)


def compact_history(messages, compactor, active_request: str, kind: str = "Compacted"):
    """Step 4: the whole list becomes one summary message (left as it is if the write fails)."""
    message = summary_message_for(messages, messages, compactor, active_request, kind)
    return messages if message is None else [message]
