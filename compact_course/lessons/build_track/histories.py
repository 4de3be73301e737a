"""The histories the build track's cases are made of: plain message dicts, built small or drawn.

A drawn history is clean on purpose: ids unique and safe as file names, string contents, plain
dicts, no "Full output:" line but step 1's own. Where the article is right on such a history,
the package's seed profile and the article agree, so a drawn case tells a build from a copy of
a constant, never a flaw; the flaws have fixed cases of their own, and step 3's drawn flaw-6
cases quote a saved path into a drawn history (micro.quoting). Left out: sizes
from real sessions (the canned histories of compact_course/sessions are the notebooks').
"""

import random

IMAGE = {"type": "image",
         "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo" * 900}}


def text(tool_id: str, size: int) -> str:
    """`size` characters of log-like text that only this result holds."""
    line = f"{tool_id}: line of output, status ok\n"
    return (line * (size // len(line) + 1))[:size]


def call(ids, note: str = "Reading.") -> dict:
    """An assistant turn calling read_file once per id."""
    uses = [{"type": "tool_use", "id": tool_id, "name": "read_file", "input": {"path": f"logs/{n}.log"}}
            for n, tool_id in enumerate(ids)]
    return {"role": "assistant", "content": [{"type": "text", "text": note}, *uses]}


def batch(results) -> dict:
    """The user turn answering a call: results as (id, content)."""
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": content}
                                        for tool_id, content in results]}


def pair(results, note: str = "Reading.") -> list:
    """A call and its batch: results as (id, content)."""
    return [call([tool_id for tool_id, _ in results], note), batch(results)]


def turns(pairs_of_sizes, request: str = "Look through the logs.", start: int = 0) -> list:
    """A request, then one call and batch per list of sizes; ids toolu_<n>."""
    messages, n = [{"role": "user", "content": request}], start
    for sizes in pairs_of_sizes:
        results = []
        for size in sizes:
            n += 1
            results.append((f"toolu_{n:03d}", text(f"toolu_{n:03d}", size)))
        messages += pair(results)
    return messages


def drawn_id(draw: random.Random) -> str:
    return f"toolu_{draw.getrandbits(40):010x}"


def drawn_history(draw: random.Random, length: int, sizes=(40, 300, 1_500, 6_000)) -> list:
    """A valid history of about `length` messages: requests, replies in words, calls and batches."""
    messages = [{"role": "user", "content": f"Request {draw.randint(1, 999)}: check the logs."}]
    while len(messages) < length:
        if messages[-1]["role"] == "assistant":
            messages.append({"role": "user", "content": f"And then part {len(messages)}."})
        elif draw.random() < 0.75:
            results = [(drawn_id(draw), None) for _ in range(draw.choice((1, 1, 1, 2, 3)))]
            results = [(tool_id, text(tool_id, draw.choice(sizes))) for tool_id, _ in results]
            messages += pair(results, note=f"Reading part {len(messages)}.")
        else:
            note = {"type": "text", "text": f"Note {len(messages)}."}
            messages.append({"role": "assistant", "content": [note]})
    return messages


def sdk_objects(messages: list) -> list:
    """The list with each assistant message's blocks as the SDK's typed objects (flaw 12)."""
    from anthropic.types import TextBlock, ToolUseBlock
    made = {"text": TextBlock, "tool_use": ToolUseBlock}
    return [{**m, "content": [made[b["type"]](**b) for b in m["content"]]}
            if m["role"] == "assistant" and isinstance(m["content"], list) else m for m in messages]


def of_kinds(kinds, size: int = 200) -> list:
    """Messages from a list of kinds: "user", "assistant" (words), "tool_use" (an assistant message
    calling one tool) and "tool_result" (the user message answering the call just before it)."""
    messages = []
    for n, kind in enumerate(kinds):
        tool_id = f"toolu_{n:03d}"
        if kind == "tool_use":
            messages.append(call([tool_id]))
        elif kind == "tool_result":
            answered = f"toolu_{n - 1:03d}"
            messages.append(batch([(answered, text(answered, size))]))
        elif kind == "user":
            messages.append({"role": "user", "content": f"Request {n}."})
        else:
            messages.append({"role": "assistant", "content": [{"type": "text", "text": f"Note {n}."}]})
    return messages
