"""The offline model's `usage`: input, output and prompt-cache tokens, by the API's rules.

A response of the Messages API carries `usage` with four counts: `input_tokens`,
`output_tokens`, `cache_creation_input_tokens` and `cache_read_input_tokens`
(and `cache_creation`, the writes split by time to live). The API's rules,
which this module follows:
- the request is read as one sequence of blocks, in the order tools, system,
  messages; a block with `cache_control` is a breakpoint, and the request's
  top-level `cache_control` puts one on the last block of the last message;
- at a breakpoint, the prefix up to and including that block can be cached.
  If a prefix was written by an earlier request, its tokens are read
  (`cache_read_input_tokens`); the API looks for one at each of the 20 blocks
  up to each breakpoint, and so does this module;
- the tokens from there to the last breakpoint are written
  (`cache_creation_input_tokens`); the tokens after the last breakpoint are
  plain input (`input_tokens`); the three add up to the request's input;
- a prefix under a minimum length is never cached.

What is ours, not the API's:
- every count is the offline estimate (`compact.offline.tokens`): a block's
  tokens are the estimate of its JSON, a prefix's the sum of its blocks', and
  the three input counts add up to the estimate of the whole request, the
  number `count_tokens` answers (the JSON around the blocks, roles and
  brackets, is the plain input that is left when everything is cached);
- one minimum for every model, MIN_CACHEABLE tokens (the API's depends on the
  model);
- the cache lives as long as the server and never expires (the API's entries
  live 5 minutes or an hour from their last use), and it is shared by every
  client of the server (the API's is per organization);
- `output_tokens` is the estimate of the reply's content blocks as JSON.

Left out: the limit of 4 breakpoints per request (not checked), and the cost
(`compact.bench.cost` prices these counts).
"""

import hashlib
import json
import threading

from ..tokens import estimate_text_tokens, estimate_tokens

MIN_CACHEABLE = 1024
LOOKBACK = 20


def request_blocks(request: dict) -> list[tuple[dict, bool]]:
    """(block, is a breakpoint) for every block, in the order tools, system, messages."""
    found = []
    for tool in request.get("tools") or []:
        found.append((tool, isinstance(tool, dict) and "cache_control" in tool))
    system = request.get("system")
    parts = [{"type": "text", "text": system}] if isinstance(system, str) and system else system
    for block in parts or []:
        found.append((block, isinstance(block, dict) and "cache_control" in block))
    for message in request.get("messages") or []:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        # The role is part of the prefix: the same text from the other side is not a hit.
        found.append(({"role": message.get("role")}, False))
        for block in blocks or []:
            found.append((block, isinstance(block, dict) and "cache_control" in block))
    if request.get("cache_control") and found:
        found[-1] = (found[-1][0], True)
    return found


def prefixes(blocks) -> tuple[list[str], list[int]]:
    """The digest and the tokens of every prefix: entry k covers blocks[0..k]."""
    running, digests, tokens, total = hashlib.sha256(), [], [], 0
    for block, _ in blocks:
        # A breakpoint is not content: the same prefix marked elsewhere is still a hit.
        if isinstance(block, dict) and "cache_control" in block:
            block = {key: value for key, value in block.items() if key != "cache_control"}
        text = json.dumps(block, ensure_ascii=False, sort_keys=True)
        running.update(text.encode("utf-8", "surrogatepass") + b"\n")
        digests.append(running.copy().hexdigest())
        total += estimate_text_tokens(text)
        tokens.append(total)
    return digests, tokens


class PromptCache:
    """The prefixes written so far; one per server, safe across its threads."""

    def __init__(self):
        self._written: dict[str, int] = {}   # prefix digest -> the tokens it was written with
        self._lock = threading.Lock()

    def usage(self, request: dict, content: list) -> dict:
        """The `usage` of one answered request (and the prefixes it writes)."""
        total = estimate_tokens(request)
        blocks = request_blocks(request)
        marks = [k for k, (_, mark) in enumerate(blocks) if mark]
        read = written = 0
        if marks:
            digests, tokens = prefixes(blocks)
            with self._lock:
                hits = [k for mark in marks for k in range(max(0, mark - LOOKBACK + 1), mark + 1)
                        if digests[k] in self._written]
                read = min(total, self._written[digests[max(hits)]]) if hits else 0
                last = min(total, tokens[marks[-1]])
                if last >= MIN_CACHEABLE and last > read:
                    written = last - read
                for mark in marks:
                    if tokens[mark] >= MIN_CACHEABLE:
                        self._written.setdefault(digests[mark], min(total, tokens[mark]))
        ttl = _ttl(blocks[marks[-1]][0], request) if marks else "5m"
        return {
            "input_tokens": total - read - written,
            "output_tokens": estimate_text_tokens(json.dumps(content, ensure_ascii=False)),
            "cache_creation_input_tokens": written,
            "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": written if ttl == "5m" else 0,
                               "ephemeral_1h_input_tokens": written if ttl == "1h" else 0},
        }


def _ttl(block: dict, request: dict) -> str:
    control = block.get("cache_control") or request.get("cache_control") or {}
    return "1h" if isinstance(control, dict) and control.get("ttl") == "1h" else "5m"
