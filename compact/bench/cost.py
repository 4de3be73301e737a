"""The benchmark's bookkeeping: what requests cost with a prompt cache, and
which tool outputs a design lost.

The article counts only characters in context; over a long session two other
things decide whether a design is good: what the requests cost once a prompt
cache is in play (flaw 2 in docs/DESIGN.md: rewriting old messages breaks the cached prefix),
and whether a tool output can still be read after the compactor shrank it
(flaw 1: `[Earlier tool result omitted.]` has no copy anywhere).

Cache-adjusted cost, exactly:
- A request is a list of messages. Its size is the package's measure,
  `len(json.dumps(messages, ensure_ascii=False))`, which equals the JSON of
  each message plus 2 characters per message (", " between them and the
  brackets), or 2 for an empty list.
- Compare the request with the previous request of the same session, message
  by message from the first: the cached prefix is the leading run of whole
  messages whose JSON is identical; it ends at the first difference or where
  either list ends. Its characters (the messages' JSON) cost CACHED_RATE (0.1)
  each; every other character of the request costs NEW_RATE (1.25), the
  separators included. The first request has no cached prefix.
- A summary call's input (`compact.summary.summary_input`) is never cached:
  NEW_RATE per character. Its output is not counted, nor is any model output.
This is the shape of Anthropic's prompt cache (cache reads 0.1x, cache writes
1.25x the base input price). Left out on purpose: tokens (characters stand in
for them), the system prompt and tool schemas, cache expiry, the minimum
cacheable length and the limit on breakpoints.

Misses: on a call where the model needs an earlier output
(`compact.bench.sessions`), a miss when that output's text is not whole in the
request sent (`in_context`); the text may still be on disk, for a model that
goes back to read it.

Lost outputs: a tool output is lost when its original text cannot be read
verbatim from the final context, from a file the store saved (reached through
one of our own markers), or from any transcript under the compactor's root.
"""

import json
from pathlib import Path

from .. import formats
from ..messages import text_of, tool_results
from ..offline.tokens import estimate_text_tokens
from ..store import TRANSCRIPTS

CACHED_RATE = 0.1
NEW_RATE = 1.25


def message_json(message) -> str:
    return json.dumps(message, ensure_ascii=False)


def request_size(texts) -> int:
    """Characters of json.dumps(list) given the JSON of each message."""
    return sum(map(len, texts)) + 2 * max(len(texts), 1)


def cached_prefix(previous, texts) -> int:
    """Characters of the leading whole messages identical to the previous request.

    One pass, stopping at the first difference: O(size of the request).
    """
    cached = 0
    for before, now in zip(previous, texts):
        if before != now:
            break
        cached += len(now)
    return cached


def priced(cached_chars: int, new_chars: int) -> float:
    """The cost formula, the only place it is written: cached characters and the rest."""
    return CACHED_RATE * cached_chars + NEW_RATE * new_chars


def request_cost(previous, texts) -> float:
    size, cached = request_size(texts), cached_prefix(previous, texts)
    return priced(cached, size - cached)


class CostLedger:
    """Running totals for one session under one design."""

    def __init__(self):
        self.previous: list[str] = []
        self.requests = 0
        self.cached_chars = 0
        self.new_chars = 0
        self.summary_calls = 0
        self.summary_chars = 0
        self.largest = 0
        self._largest_texts: list[str] = []

    def add_request(self, texts: list[str]) -> float:
        """Book one model request (the JSON of each of its messages); return its cost."""
        size, cached = request_size(texts), cached_prefix(self.previous, texts)
        self.requests += 1
        self.cached_chars += cached
        self.new_chars += size - cached
        if size > self.largest:
            self.largest, self._largest_texts = size, texts
        self.previous = texts
        return priced(cached, size - cached)

    def add_summary(self, input_chars: int) -> float:
        self.summary_calls += 1
        self.summary_chars += input_chars
        return priced(0, input_chars)

    @property
    def cost(self) -> float:
        return priced(self.cached_chars, self.new_chars + self.summary_chars)

    @property
    def chars_sent(self) -> int:
        """Every character sent: the requests and the summary calls' input."""
        return self.cached_chars + self.new_chars + self.summary_chars

    @property
    def largest_tokens(self) -> int:
        """Estimated tokens of the largest request (computed once, at the end), by the
        offline model's own estimate: ASCII about 4 characters a token, other
        characters, Chinese among them, about one each (flaw 13). For display only."""
        return estimate_text_tokens("[" + ", ".join(self._largest_texts) + "]")


# -- lost outputs ----------------------------------------------------------------

def _result_texts(messages):
    for message in messages:
        for block in tool_results(message):
            yield block["tool_use_id"], text_of(block.get("content", ""))


def _transcript_messages(store):
    """Every message of every transcript under the root, each file read once."""
    folder = Path(store.root) / TRANSCRIPTS
    for path in sorted(folder.glob("transcript_*.jsonl")):
        yield from store.read_transcript(store.relative(path)) or []


def readable_outputs(messages, store) -> dict:
    """tool_use_id -> set of texts readable for it, from context, saved files, transcripts."""
    readable: dict[str, set] = {}
    saved: dict[str, str | None] = {}  # each saved file read once
    everything = list(messages) + list(_transcript_messages(store))
    for use_id, text in _result_texts(everything):
        texts = readable.setdefault(use_id, set())
        texts.add(text)
        # Only our own markers point at a saved copy, and only inside our
        # folder (flaw 6): a "Full output:" line in a file read is text.
        path = formats.persisted_path(text) or formats.saved_path(text)
        if path:
            if path not in saved:
                saved[path] = store.saved_text(path)
            if saved[path] is not None:
                texts.add(saved[path])
    return readable


def in_context(messages, use_id: str, text: str) -> bool:
    """Whether the result of `use_id` is in `messages` whole, as `text` (a miss if not:
    a preview, a placeholder or an archived message is not the text)."""
    return any(block["tool_use_id"] == use_id and text_of(block.get("content", "")) == text
               for message in messages for block in tool_results(message))


def lost_outputs(originals: dict, messages, store) -> list[str]:
    """The tool_use_ids whose original text can no longer be read verbatim."""
    readable = readable_outputs(messages, store)
    return [use_id for use_id, text in originals.items()
            if text not in readable.get(use_id, ())]
