"""The benchmark's bookkeeping: what each request is billed, in tokens, and
which tool outputs a design lost.

The article counts only characters in context; over a long session two other
things decide whether a design is good: what the requests cost once a prompt
cache is in play (flaw 2 in docs/DESIGN.md: rewriting old messages breaks the
cached prefix), and whether a tool output can still be read after the compactor
shrank it (flaw 1: `[Earlier tool result omitted.]` has no copy anywhere).

What a request is billed, exactly (the four counts of the API's `usage`):
- tokens are the offline model's estimate (`compact.offline.tokens`) of each
  message's JSON; a request's tokens are the sum over its messages (the system
  prompt, the tools and the JSON between messages are left out);
- each request is sent as the agent sends it, with the API's top-level
  `cache_control`: one breakpoint at its end. The API's rule for that case:
  when the previous request is a prefix of this one (every message of it
  unchanged, in order), its tokens are read from the cache
  (`cache_read_input_tokens`) and the rest is written (`cache_creation_...`);
  otherwise the whole request is written. A request under MIN_CACHEABLE
  tokens is neither read nor written: plain `input_tokens`. The API finds an
  entry only within 20 blocks of the breakpoint (`compact.offline.api.usage.LOOKBACK`);
  a turn of the benchmark's sessions adds fewer (tests/test_bench.py checks);
- the reply is `output_tokens`: the estimate of the assistant message's JSON;
- a summary call is one more request: its input (`summary_input`) is plain
  input, never cached, its output the summary's text.
`priced(usage)` is the only place the formula is written: each count times
its rate, in units of one base input token. The rates are the published
per-model prices' ratios (PUBLISHED, from PRICES_SOURCE): cache writes 1.25x
the base input price (the 5-minute cache), cache reads 0.1x, output 5x.
Left out on purpose: cache expiry (a session's calls are seconds apart), the
1-hour cache, and the limit on breakpoints.

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
from ..offline.api.usage import MIN_CACHEABLE
from ..offline.tokens import estimate_text_tokens
from ..store import TRANSCRIPTS

FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
          "output_tokens")
# US dollars per million tokens: base input, 5-minute cache writes, cache hits, output.
PRICES_SOURCE = "https://platform.claude.com/docs/en/about-claude/pricing"  # its "Model pricing" table
PUBLISHED = {
    "Claude Opus 4.5": (5.00, 6.25, 0.50, 25.00),
    "Claude Sonnet 5": (2.00, 2.50, 0.20, 10.00),
}
INPUT_RATE, CACHE_WRITE_RATE, CACHE_READ_RATE, OUTPUT_RATE = 1.0, 1.25, 0.1, 5.0
RATES = dict(zip(FIELDS, (INPUT_RATE, CACHE_WRITE_RATE, CACHE_READ_RATE, OUTPUT_RATE)))


def message_json(message) -> str:
    return json.dumps(message, ensure_ascii=False)


def request_size(texts) -> int:
    """Characters of json.dumps(list) given the JSON of each message."""
    return sum(map(len, texts)) + 2 * max(len(texts), 1)


def cached_prefix(previous, texts) -> int:
    """Characters of the leading whole messages identical to the previous request
    (notebook 08's prefix share; the API's cache reads only a whole earlier request).

    One pass, stopping at the first difference: O(size of the request).
    """
    cached = 0
    for before, now in zip(previous, texts):
        if before != now:
            break
        cached += len(now)
    return cached


def priced(usage: dict) -> float:
    """The cost formula, the only place it is written: each count of `usage` at its rate."""
    return sum(RATES[name] * usage.get(name, 0) for name in FIELDS)


def request_usage(previous, texts, tokens_of=estimate_text_tokens, output_tokens: int = 0,
                  minimum: int = MIN_CACHEABLE) -> dict:
    """The usage of the request `texts` (each message's JSON) sent right after `previous`."""
    total = sum(map(tokens_of, texts))
    before = sum(map(tokens_of, previous))
    kept = bool(previous) and texts[:len(previous)] == list(previous)
    read = before if kept and before >= minimum else 0
    written = total - read if total >= minimum else 0
    return {"input_tokens": total - read - written, "cache_creation_input_tokens": written,
            "cache_read_input_tokens": read, "output_tokens": output_tokens}


def request_cost(previous, texts, minimum: int = MIN_CACHEABLE) -> float:
    """What the request `texts` costs right after `previous`, its reply left out."""
    return priced(request_usage(previous, texts, minimum=minimum))


def _add(total: dict, usage: dict) -> None:
    for name in FIELDS:
        total[name] += usage[name]


class CostLedger:
    """Running totals for one session under one design."""

    def __init__(self):
        self.previous: list[str] = []
        self.requests = 0
        self.usage = dict.fromkeys(FIELDS, 0)          # the session's requests
        self.summary_usage = dict.fromkeys(FIELDS, 0)  # its summary calls
        self.summary_calls = 0
        self.largest = 0          # characters of the largest request
        self.largest_tokens = 0   # its tokens
        self._tokens: dict[str, int] = {}

    def tokens(self, text: str) -> int:
        """The estimate of one message's JSON, computed once per text."""
        known = self._tokens.get(text)
        if known is None:
            known = self._tokens[text] = estimate_text_tokens(text)
        return known

    def add_request(self, texts: list[str], reply: str | None = None) -> dict:
        """Book one model request (the JSON of each message) and its reply's JSON; its usage."""
        usage = request_usage(self.previous, texts, self.tokens,
                              self.tokens(reply) if reply else 0)
        _add(self.usage, usage)
        self.requests += 1
        size = request_size(texts)
        if size > self.largest:
            self.largest = size
            self.largest_tokens = sum(usage[name] for name in FIELDS[:3])
        self.previous = texts
        return usage

    def add_summary(self, input_text: str, summary: str) -> dict:
        """Book one summary call: its input is never cached."""
        usage = {"input_tokens": estimate_text_tokens(input_text),
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                 "output_tokens": estimate_text_tokens(summary)}
        _add(self.summary_usage, usage)
        self.summary_calls += 1
        return usage

    @property
    def total(self) -> dict:
        """The four counts over requests and summary calls."""
        return {name: self.usage[name] + self.summary_usage[name] for name in FIELDS}

    @property
    def cost(self) -> float:
        return priced(self.total)

    @property
    def input_tokens_sent(self) -> int:
        """Every input token: the requests' and the summary calls', cached or not."""
        return sum(self.total[name] for name in FIELDS[:3])


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
