"""The benchmark's bookkeeping: what each request is billed, and which tool
outputs a design lost.

The article counts only characters in context; over a long session two other
things decide whether a design is good: what the requests cost once a prompt
cache is in play (flaw 2 in docs/DESIGN.md: rewriting old messages breaks the
cached prefix), and whether a tool output can still be read after the compactor
shrank it (flaw 1: `[Earlier tool result omitted.]` has no copy anywhere).

What a request is billed: the four counts of the API's `usage`, computed by the
offline server's own prompt cache (`compact_course.offline.api.usage.PromptCache`, the
API's rules: breakpoints, the 20-block lookback, the model's minimum, entries
that live 5 minutes or an hour from their last use). The ledger sends each
request as the agent does, messages only, with the breakpoints the ledger's
rule places (`ttl`, a row of `compact_course.agent.breakpoints.TTL_RULES`; "5m" is
the agent's: the API's top-level `cache_control`, one 5-minute breakpoint on the
last block), at the time the session's clock gives (`add_request(..., at=seconds)`); the same
request sent to the offline server through the SDK gets the same `usage`
(tests/bench/test_bench.py checks). Tokens are the offline estimate
(`compact_course.offline.tokens`). The reply is `output_tokens`: the estimate of the
assistant message's JSON. A summary call is one more request: its input
(`summary_input`) is plain input, never cached, its output the summary's text.

`priced(usage, model)` is the only place the formula is written: each count
times its rate, in units of one base input token, from the model's row of
`compact_course.bench.prices` (5-minute and 1-hour writes at their own prices; a
model priced by prompt length, Haiku 5.5, takes the band of each request's
prompt, so the ledger prices request by request); the ledger names the model it
prices (`CostLedger.model`) and gives dollars too.

Misses: on a call where the model needs an earlier output
(`compact_course.bench.simulated`), a miss when that output's text is not whole in the
request sent (`in_context`); the text may still be on disk, for a model that
goes back to read it. A miss is priced as that re-read (`miss_usage`): one more
call that reads the request it missed on from the cache, writes the model's
read_file call as output, and appends the output's text (its tokens at the
5-minute write price, what appending a block costs). `CostLedger.repaid` sums
them; `cost + repaid` is the bill with misses priced.

Lost outputs: a tool output is lost when its original text cannot be read
verbatim from the final context, from a file the store saved (reached through
one of our own markers), or from any transcript under the compactor's root.

Left out: the system prompt and tools (the sessions have none), and prices
other than the table's.
"""

import json
from pathlib import Path

from context_compact import formats
from context_compact.messages import text_of, tool_results
from context_compact.store import TRANSCRIPTS

from ..agent.breakpoints import breakpoints, check_rule, seen_after, typed_by_user
from ..offline.api.usage import (
    DEFAULT_MINIMUM,
    TTL_SECONDS,
    Prompt,
    PromptCache,
    block_text,
    message_blocks,
    prefix_digests,
)
from ..offline.tokens import estimate_text_tokens
from .prices import DEFAULT_MODEL, price, rates

FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
          "output_tokens")
RATES = rates(DEFAULT_MODEL)
INPUT_RATE, CACHE_WRITE_RATE, CACHE_READ_RATE, OUTPUT_RATE = (
    RATES["input_tokens"], RATES["cache_write_5m"], RATES["cache_read_input_tokens"],
    RATES["output_tokens"])
# Around the messages, the JSON the estimate reads: '["", [], [' ... ']]' and ', ' between.
_OPEN, _CLOSE, _BETWEEN = len('["", [], ['), len("]]"), len(", ")


def message_json(message) -> str:
    return json.dumps(message, ensure_ascii=False)


def request_size(texts) -> int:
    """Characters of json.dumps(list) given the JSON of each message."""
    return sum(map(len, texts)) + 2 * max(len(texts), 1)


def cached_prefix(previous, texts) -> int:
    """Characters of the leading whole messages identical to the previous request
    (lab 01's prefix share).

    One pass, stopping at the first difference: O(size of the request).
    """
    cached = 0
    for before, now in zip(previous, texts):
        if before != now:
            break
        cached += len(now)
    return cached


def written_1h(usage: dict) -> int:
    return (usage.get("cache_creation") or {}).get("ephemeral_1h_input_tokens", 0)


def priced(usage: dict, model: str = DEFAULT_MODEL) -> float:
    """The cost formula, the only place it is written: each count of `usage` at its
    rate, in base input tokens of `model`."""
    rate = rates(model, prompt_tokens(usage))
    hour = written_1h(usage)
    return (rate["input_tokens"] * usage.get("input_tokens", 0)
            + rate["cache_write_5m"] * (usage.get("cache_creation_input_tokens", 0) - hour)
            + rate["cache_write_1h"] * hour
            + rate["cache_read_input_tokens"] * usage.get("cache_read_input_tokens", 0)
            + rate["output_tokens"] * usage.get("output_tokens", 0))


def prompt_tokens(usage: dict) -> int:
    """Every input token of one request, cached or not: what picks a banded model's row."""
    return sum(usage.get(name, 0) for name in FIELDS[:3])


def priced_misses(outputs, model: str = DEFAULT_MODEL) -> float:
    """What misses cost: each one re-read of the output it needed, its text sent again
    as plain (uncached) input, priced by `priced`, in base input tokens of `model`."""
    return priced({"input_tokens": sum(estimate_text_tokens(text) for text in outputs)}, model)


def dollars(usage: dict, model: str = DEFAULT_MODEL) -> float:
    """The same bill in US dollars, at the table's price for `model`."""
    return priced(usage, model) * price(model).input / 1_000_000


# The model's call that re-reads a saved output: one read_file tool_use, as output tokens.
REREAD_CALL = {"type": "tool_use", "id": "toolu_0000_0_0000000000", "name": "read_file",
               "input": {"path": ".task_outputs/tool-results/toolu_0000_0_0000000000.txt"}}
REREAD_CALL_TOKENS = estimate_text_tokens(json.dumps(REREAD_CALL))


def miss_usage(sent_tokens: int, needed_tokens: int) -> dict:
    """The usage a miss adds: a call reading the `sent_tokens` it missed on from the cache
    and writing the read_file call, then the needed output's tokens appended (written)."""
    return {"input_tokens": 0, "cache_creation_input_tokens": needed_tokens,
            "cache_read_input_tokens": sent_tokens, "output_tokens": REREAD_CALL_TOKENS}


def _ascii(text: str) -> int:
    return len(text.encode("ascii", "ignore"))


class _Pieces:
    """What the cache needs of each message's JSON, computed once per text."""

    def __init__(self):
        self._known: dict[str, tuple] = {}
        self._last, self._made = None, None   # the last list read, and what it made

    def __call__(self, text: str) -> tuple:
        known = self._known.get(text)
        if known is None:
            message = json.loads(text)
            texts = [block_text(b) for b in message_blocks(message)]
            ascii_chars = _ascii(text)
            known = self._known[text] = (texts, [estimate_text_tokens(t) for t in texts],
                                         ascii_chars, len(text) - ascii_chars, typed_by_user(message))
        return known

    def prompt(self, texts: list[str], rule: str, seen=frozenset()) -> Prompt:
        """The request as the cache sees it: `{"messages": [...]}` with the breakpoints
        `rule` places (`compact_course.agent.breakpoints`; "5m" is the top-level `cache_control`).
        The same list sent again (every bill of one replay sends it) is read once."""
        if texts is not self._last:
            self._last, self._made = texts, self._read(texts)
        blocks, tokens, ends, typed, total, prefixes = self._made
        marks = [(ends[index], ttl) for index, ttl in breakpoints(rule, len(texts), typed, seen)]
        return Prompt(blocks, tokens, marks if blocks else [], total, prefixes)

    def _read(self, texts: list[str]) -> tuple:
        blocks, tokens, ascii_chars, other = [], [], _OPEN + _CLOSE + _BETWEEN * max(len(texts) - 1, 0), 0
        ends, typed = [], None
        for number, text in enumerate(texts):
            parts, counts, a, n, by_user = self(text)
            blocks += parts
            tokens += counts
            ends.append(len(blocks) - 1)
            typed = number if by_user else typed
            ascii_chars, other = ascii_chars + a, other + n
        total = -(-ascii_chars // 4) + other
        return blocks, tokens, ends, typed, total, prefix_digests(Prompt(blocks, tokens, [], total))


def request_usage(previous, texts, output_tokens: int = 0, model: str = DEFAULT_MODEL) -> dict:
    """The usage of the request `texts` (each message's JSON) sent right after `previous`
    (a fresh cache, both at the same time)."""
    ledger = CostLedger(model)
    if previous:
        ledger.add_request(list(previous))
    usage = ledger.add_request(list(texts))
    return {**usage, "output_tokens": output_tokens}


def request_cost(previous, texts, model: str = DEFAULT_MODEL) -> float:
    """What the request `texts` costs right after `previous`, its reply left out."""
    return priced(request_usage(previous, texts, model=model), model)


def _add(total: dict, usage: dict) -> None:
    for name in FIELDS:
        total[name] += usage[name]
    total["cache_creation"]["ephemeral_1h_input_tokens"] += written_1h(usage)


def _zero() -> dict:
    return {**dict.fromkeys(FIELDS, 0), "cache_creation": {"ephemeral_1h_input_tokens": 0}}


def shared_pieces() -> _Pieces:
    """What ledgers booking the same requests can share (`CostLedger(..., pieces=...)`)."""
    return _Pieces()


class CostLedger:
    """Running totals for one session under one design, priced as `model`.

    `ttl` is the rule that places each request's breakpoints and their lifetimes
    (`compact_course.agent.breakpoints.TTL_RULES`: "5m", "1h", "1h-prefix", ...);
    `add_request(..., at=t)` sends a request at t seconds on the session's clock
    (without `at`, at the time of the previous request: no time passes). Ledgers that
    book the same requests may share `pieces` (`shared_pieces()`): each is read once.
    """

    def __init__(self, model: str = DEFAULT_MODEL, ttl: str = "5m", pieces: "_Pieces | None" = None):
        row = price(model)
        self.model, self.ttl, self.now = model, check_rule(ttl), 0.0
        self.seen = frozenset()   # what the client has seen of the clock (breakpoints.seen_after)
        self.lifetime = 0         # seconds the last request's longest-lived breakpoint lives
        self.cache = PromptCache(clock=lambda: self.now)
        # The row's minimum; where no source gives one, the offline model's (ours).
        self.minimum = row.minimum or DEFAULT_MINIMUM
        self.billed = 0.0         # the requests and summary calls, each priced on its own
        self.repaid = 0.0         # the misses, each priced as its re-read (miss_usage)
        self.missed = 0
        self.previous: list[str] = []
        self.requests = 0
        self.usage = _zero()          # the session's requests
        self.summary_usage = _zero()  # its summary calls
        self.summary_calls = 0
        self.largest = 0          # characters of the largest request
        self.largest_tokens = 0   # its tokens
        self._pieces = pieces or _Pieces()   # shared by the bills of one replay

    def cold(self, at: float) -> bool:
        """Whether the entries of the last request have expired by `at` (it left them
        alive for one lifetime): a request now reads nothing."""
        return self.requests > 0 and at - self.now > self.lifetime

    def tokens(self, text: str) -> int:
        """The estimate of one message's JSON, computed once per text."""
        _, _, ascii_chars, other, _ = self._pieces(text)
        return -(-ascii_chars // 4) + other

    def add_request(self, texts: list[str], reply: str | None = None, at: float | None = None) -> dict:
        """Book one model request (the JSON of each message) and its reply's JSON; its usage."""
        if at is not None:
            if self.requests and texts:
                self.seen = seen_after(self.seen, at - self.now, self._pieces(texts[-1])[4])
            self.now = at
        prompt = self._pieces.prompt(texts, self.ttl, self.seen)
        self.lifetime = max((TTL_SECONDS[ttl] for _, ttl in prompt.marks), default=0)
        usage = self.cache.input_usage(prompt, self.minimum, self.now)
        usage["output_tokens"] = estimate_text_tokens(reply) if reply else 0
        _add(self.usage, usage)
        self.billed += priced(usage, self.model)
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
        self.billed += priced(usage, self.model)
        self.summary_calls += 1
        return usage

    def add_miss(self, sent_tokens: int, needed_text: str, call: bool = True) -> float:
        """Price one miss as its re-read (`miss_usage`); what it adds to the bill.
        `call=False`: only the text written, no call spent reading it (the oracle's)."""
        usage = miss_usage(sent_tokens, estimate_text_tokens(needed_text))
        if not call:
            usage = {**usage, "cache_read_input_tokens": 0, "output_tokens": 0}
        # The 5-minute price of the appended text, whatever the breakpoints' lifetime.
        bill = priced({**usage, "cache_creation": {"ephemeral_1h_input_tokens": 0}}, self.model)
        self.repaid += bill
        self.missed += 1
        return bill

    @property
    def total(self) -> dict:
        """The four counts over requests and summary calls (and the 1-hour writes)."""
        both = {name: self.usage[name] + self.summary_usage[name] for name in FIELDS}
        hour = written_1h(self.usage) + written_1h(self.summary_usage)
        return {**both, "cache_creation": {"ephemeral_1h_input_tokens": hour,
                                           "ephemeral_5m_input_tokens":
                                               both["cache_creation_input_tokens"] - hour}}

    @property
    def cost(self) -> float:
        """The bill of every request and summary call (misses not priced), in base input tokens."""
        return self.billed

    @property
    def dollars(self) -> float:
        return self.billed * price(self.model).input / 1_000_000

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
        yield from store.read_transcript(path.relative_to(store.root).as_posix()) or []


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
