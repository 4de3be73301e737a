"""The prompt cache, by the API's rules: one model for the offline server's `usage`
and for the benchmark's bill (`compact_course.bench.cost` sends its requests through it).

A response of the Messages API carries `usage` with four counts: `input_tokens`,
`output_tokens`, `cache_creation_input_tokens` and `cache_read_input_tokens`,
and `cache_creation`, the writes split by time to live. The API's rules
(platform.claude.com/docs/en/build-with-claude/prompt-caching), which this
module follows:
- the request is read as one sequence of blocks, in the order tools, system,
  messages; a block with `cache_control` is a breakpoint, and the request's
  top-level `cache_control` puts one on the last block;
- at most 4 breakpoints: a fifth is refused (HTTP 400, `BREAKPOINTS_ERROR`,
  the API's words);
- at a breakpoint, the prefix up to and including that block can be cached.
  If a prefix was written earlier and is still alive, its tokens are read
  (`cache_read_input_tokens`); the API looks for one at each of the 20 blocks
  up to each breakpoint (LOOKBACK), and so does this module;
- the tokens from there to the last breakpoint are written
  (`cache_creation_input_tokens`), each stretch under the time to live of the
  breakpoint that ends it; the tokens after the last breakpoint are plain input.
  With both lifetimes in one request the API bills three positions: A, the
  highest hit; B, the highest 1-hour breakpoint after A; C, the last breakpoint:
  reads for A, 1-hour writes for B - A, 5-minute writes for C - B (the
  "Mixing different TTLs" section); the stretches above come to the same;
- a 1-hour breakpoint must come before every 5-minute one ("Cache entries with
  longer TTL must appear before shorter TTLs", the same section): a request
  with a 1-hour breakpoint after a 5-minute one is refused here
  (`TTL_ORDER_ERROR`, HTTP 400; the wording is ours, the page gives none);
- a prefix under the model's minimum (MINIMUM_TOKENS) is never cached;
- an entry lives 5 minutes (`ttl` "5m", the default) or 1 hour ("1h") from its
  last use: reading it refreshes it; one left alone longer is gone.

What is ours, not the API's (docs/AFTER_THE_ARTICLE.md):
- every count is the offline estimate (`compact_course.offline.tokens`): a block's
  tokens are the estimate of its JSON, a prefix's the sum of its blocks', and
  the three input counts add up to the estimate of the whole request, the
  number `count_tokens` answers (the JSON around the blocks is the plain input
  left when everything is cached); a message's role is one block of the prefix;
- a model the table does not name (the offline model's own name included)
  gets DEFAULT_MINIMUM, Claude Sonnet 5's;
- the top-level `cache_control` on a block that already has one is one
  breakpoint, not two;
- an entry written again, or read by a breakpoint with a longer time to live,
  keeps the longer one; the clock is the server's (`clock`, seconds; a test
  gives its own), and the cache is shared by every client of the server (the
  API's is per organization);
- `output_tokens` is the estimate of the reply's content blocks as JSON.

Left out: automatic caching's skipping of blocks that cannot be cached, and prices
(`compact_course.bench.prices`).
"""

import hashlib
import json
import threading
import time
from dataclasses import dataclass

from ..tokens import estimate_text_tokens, estimate_tokens

LOOKBACK = 20
MAX_BREAKPOINTS = 4
BREAKPOINTS_ERROR = "A maximum of {limit} blocks with cache_control may be provided. Found {found}."
TTL_SECONDS = {"5m": 5 * 60, "1h": 60 * 60}
TTL_ORDER_ERROR = ("A cache_control with ttl '1h' may not follow one with ttl '5m': breakpoints "
                   "with the longer ttl must come first (in the order tools, system, messages).")

# The minimum cacheable prompt length, in tokens, by model id (a dated id such as
# claude-opus-4-5-20251101 takes its family's row). Source: the "minimum cacheable
# prompt length" list of the API's prompt-caching page, as quoted by LiteLLM's
# prompt-caching docs (last updated 2026-10-07); read 2026-12-01 with the course's
# search tool. Check the page before relying on a row.
MINIMUM_SOURCE = ("https://platform.claude.com/docs/en/build-with-claude/prompt-caching "
                  "(via docs.litellm.ai/docs/completion/prompt_caching, 2026-10-07; read 2026-12-01)")
MINIMUM_TOKENS = {
    "claude-opus-5": 512,
    "claude-sonnet-5": 1024,
    "claude-opus-4-8": 1024,
    "claude-opus-4-7": 2048,
    "claude-opus-4-6": 4096,
    "claude-opus-4-5": 4096,
    "claude-haiku-4-5": 4096,
}
DEFAULT_MINIMUM = MINIMUM_TOKENS["claude-sonnet-5"]   # ours: any other model, the offline one too
MIN_CACHEABLE = DEFAULT_MINIMUM


class CacheControlError(ValueError):
    """A request the API refuses for its `cache_control` (HTTP 400)."""


def minimum_for(model) -> int:
    """The minimum cacheable length for `model`: its row, the longest id it starts with."""
    rows = [key for key in MINIMUM_TOKENS if isinstance(model, str) and model.startswith(key)]
    return MINIMUM_TOKENS[max(rows, key=len)] if rows else DEFAULT_MINIMUM


def message_blocks(message: dict) -> list[dict]:
    """The blocks one message adds to the prefix: its role, then its content blocks."""
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    # The role is part of the prefix: the same text from the other side is not a hit.
    return [{"role": message.get("role")}, *(blocks or [])]


def request_blocks(request: dict) -> list[tuple[dict, bool]]:
    """(block, is a breakpoint) for every block, in the order tools, system, messages."""
    found = []
    system = request.get("system")
    system = [{"type": "text", "text": system}] if isinstance(system, str) and system else system
    messages = [block for message in request.get("messages") or [] for block in message_blocks(message)]
    for block in [*(request.get("tools") or []), *(system or []), *messages]:
        found.append((block, isinstance(block, dict) and "cache_control" in block))
    if request.get("cache_control") and found:
        found[-1] = (found[-1][0], True)
    return found


def check_breakpoints(request: dict) -> None:
    """CacheControlError when the request has more breakpoints than the API takes."""
    blocks = request_blocks(request)
    found = sum(mark for _, mark in blocks)
    if found > MAX_BREAKPOINTS:
        raise CacheControlError(BREAKPOINTS_ERROR.format(limit=MAX_BREAKPOINTS, found=found))
    check_ttl_order([(k, ttl_of(block, request)) for k, (block, mark) in enumerate(blocks) if mark])


def check_ttl_order(marks) -> None:
    """CacheControlError when a 1-hour breakpoint comes after a 5-minute one
    (`marks`: (block index, ttl) in the request's order)."""
    early = next((k for k, ttl in marks if ttl == "5m"), None)
    if early is not None and any(ttl == "1h" and k > early for k, ttl in marks):
        raise CacheControlError(TTL_ORDER_ERROR)


def block_text(block) -> str:
    """A block as the cache compares it: its JSON without `cache_control` (a breakpoint
    is not content: the same prefix marked elsewhere is still a hit)."""
    if isinstance(block, dict) and "cache_control" in block:
        block = {key: value for key, value in block.items() if key != "cache_control"}
    return json.dumps(block, ensure_ascii=False, sort_keys=True)


def ttl_of(block, request: dict) -> str:
    control = (block.get("cache_control") if isinstance(block, dict) else None) \
        or request.get("cache_control") or {}
    return "1h" if isinstance(control, dict) and control.get("ttl") == "1h" else "5m"


@dataclass(frozen=True)
class Prompt:
    """A request as the cache sees it: each block's text and tokens, the breakpoints
    (index, ttl) and the tokens of the whole request; `prefixes`, when given, what
    `prefix_digests` would compute (a bench replay that bills one request many ways hashes it once)."""
    texts: list
    tokens: list
    marks: list
    total: int
    prefixes: tuple | None = None


def prompt_of(request: dict) -> Prompt:
    blocks = request_blocks(request)
    texts = [block_text(block) for block, _ in blocks]
    marks = [(k, ttl_of(block, request)) for k, (block, mark) in enumerate(blocks) if mark]
    return Prompt(texts, [estimate_text_tokens(t) for t in texts], marks, estimate_tokens(request))


@dataclass
class _Entry:
    tokens: int
    ttl: str
    expires: float


class PromptCache:
    """The prefixes written so far, each with its expiry; one per server, safe across threads.

    `clock()` gives the time in seconds (time.monotonic unless a test or the
    benchmark gives its own); `usage(..., now=t)` overrides it for one request.
    """

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._entries: dict[str, _Entry] = {}   # prefix digest -> entry
        self._lock = threading.Lock()

    def usage(self, request: dict, content: list, now: float | None = None) -> dict:
        """The `usage` of one answered request (and the prefixes it writes or refreshes)."""
        counts = self.input_usage(prompt_of(request), minimum_for(request.get("model")), now)
        counts["output_tokens"] = estimate_text_tokens(json.dumps(content, ensure_ascii=False))
        return counts

    def input_usage(self, prompt: Prompt, minimum: int, now: float | None = None) -> dict:
        """The four counts of `usage` (output 0) for a prompt, by the rules above."""
        now = self.clock() if now is None else now
        total, written = prompt.total, {"5m": 0, "1h": 0}
        read = 0
        if prompt.marks:
            digests, sums = prompt.prefixes or prefix_digests(prompt)
            with self._lock:
                read = self._read(prompt, digests, sums, now)
                covered = read
                for mark, ttl in prompt.marks:
                    size = min(total, sums[mark])
                    if size < minimum:
                        continue
                    if size > covered:
                        written[ttl] += size - covered
                        covered = size
                    self._keep(digests[mark], size, ttl, now)
        return {"input_tokens": total - read - written["5m"] - written["1h"], "output_tokens": 0,
                "cache_creation_input_tokens": written["5m"] + written["1h"],
                "cache_read_input_tokens": read,
                "cache_creation": {"ephemeral_5m_input_tokens": written["5m"],
                                   "ephemeral_1h_input_tokens": written["1h"]}}

    def _read(self, prompt: Prompt, digests, sums, now: float) -> int:
        """Tokens of the longest live prefix within LOOKBACK blocks of a breakpoint; refreshed."""
        best = None
        for mark, ttl in prompt.marks:
            for k in range(max(0, mark - LOOKBACK + 1), mark + 1):
                entry = self._entries.get(digests[k])
                if entry is not None and entry.expires <= now:
                    del self._entries[digests[k]]
                    entry = None
                if entry is not None and (best is None or entry.tokens > best[1].tokens):
                    best = (ttl, entry)
        if best is None:
            return 0
        ttl, entry = best
        entry.ttl = max(entry.ttl, ttl, key=TTL_SECONDS.get)
        entry.expires = now + TTL_SECONDS[entry.ttl]
        return min(prompt.total, entry.tokens)

    def _keep(self, digest: str, tokens: int, ttl: str, now: float) -> None:
        entry = self._entries.get(digest)
        if entry is None or entry.expires <= now:
            self._entries[digest] = _Entry(tokens, ttl, now + TTL_SECONDS[ttl])
            return
        entry.ttl = max(entry.ttl, ttl, key=TTL_SECONDS.get)
        entry.expires = now + TTL_SECONDS[entry.ttl]


def prefix_digests(prompt: Prompt) -> tuple[list[str], list[int]]:
    """The digest and the tokens of every prefix: entry k covers blocks[0..k]."""
    running, digests, sums, total = hashlib.sha256(), [], [], 0
    for text, tokens in zip(prompt.texts, prompt.tokens):
        running.update(text.encode("utf-8", "surrogatepass") + b"\n")
        digests.append(running.copy().hexdigest())
        total += tokens
        sums.append(total)
    return digests, sums
