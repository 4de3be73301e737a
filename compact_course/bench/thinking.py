"""Thinking on, in the benchmark and `probe`: a thinking block in every assistant turn, and
the blocks a design sends back behind a changed prefix.

The API's rule (preserved thinking, docs/DESIGN.md flaw 19): a thinking block sent back
is valid only while everything before it is what it was when the block was made; the
blocks may go from the front (a whole compaction drops them all, which is allowed).
A design that edits an earlier message in place sends every later block back invalid:
the API's 400, or with `drop_block` that reasoning dropped.

`with_thinking` gives each assistant turn one short block first (the bench's text is
ours; its `signature` is a name, not a signature: no server checks it here).
`Invalidated` follows one design call by call, as the client sends its list (a server
design's `kept`): `see(texts, messages)` after each call, with each message's JSON.
A block is made against the request its turn answered; on a later call the first
message that differs from the previous request (the reply and the new user turn
appended) is where every later prefix changed, so each block from there on is invalid,
and stays so. `count` is the distinct blocks invalidated over the session.

Left out: removing thinking blocks one by one (no design does), and the model check.
"""

from dataclasses import replace

THINKING_TYPES = ("thinking", "redacted_thinking")


def add_thinking_argument(parser) -> None:
    """`--thinking`, one flag for `bench` and `probe`."""
    parser.add_argument("--thinking", action="store_true",
                        help="every reply thinks first; count the thinking blocks each design invalidates")


def _thought(message: dict, number: int) -> dict:
    block = {"type": "thinking", "signature": f"bench-thinking-{number}",
             "thinking": f"(A stand-in for the model's reasoning before reply {number}.)"}
    content = message.get("content")
    content = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    return {**message, "content": [block, *content]}


def with_thinking(messages: list) -> list:
    """The messages with a thinking block first in each assistant turn."""
    count, out = 0, []
    for message in messages:
        if message.get("role") == "assistant":
            count += 1
            message = _thought(message, count)
        out.append(message)
    return out


def session_with_thinking(session):
    """A bench session (`compact_course.bench.simulated.Session`) whose every reply thinks first."""
    turns = tuple(replace(turn, assistant=_thought(turn.assistant, n))
                  for n, turn in enumerate(session.turns, 1))
    return replace(session, turns=turns)


def blocks_in(message) -> list:
    if not isinstance(message, dict) or message.get("role") != "assistant" \
            or not isinstance(message.get("content"), list):
        return []
    return [b.get("signature") or b.get("data") for b in message["content"]
            if isinstance(b, dict) and b.get("type") in THINKING_TYPES]


class Invalidated:
    """The thinking blocks one design sends back behind a changed prefix (see above)."""

    def __init__(self):
        self.previous: list[str] | None = None   # the JSON of each message of the last request
        self.invalid: set = set()

    def see(self, texts: list[str], messages: list, appended: list[str] = ()) -> int:
        """Book one request (each message's JSON, the messages); `appended`: the JSON of
        what came after the previous request (its reply, the user's turn). The blocks
        invalid in this request."""
        before = [*self.previous, *appended] if self.previous is not None else []
        first = next((i for i, (a, b) in enumerate(zip(before, texts)) if a != b),
                     min(len(before), len(texts)))
        self.previous = list(texts)
        now = [sig for message in messages[first:] for sig in blocks_in(message)]
        self.invalid.update(now)
        earlier = [sig for message in messages[:first] for sig in blocks_in(message)]
        return len(now) + sum(sig in self.invalid for sig in earlier)

    @property
    def count(self) -> int:
        return len(self.invalid)
