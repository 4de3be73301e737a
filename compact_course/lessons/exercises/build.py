"""Small message lists for the checkers' cases: canned shapes and seeded random ones.

A list of *kinds* is the exercises' shorthand for a history: "user" (a typed
request), "assistant" (a reply in words), "tool_use" (an assistant message
calling one tool) and "tool_result" (the user message answering the call just
before it). `messages_of_kinds` turns it into real messages in the API's
format, so the package's own steps can run on it.

Left out: anything the exercises do not ask about (sizes, tool names).
"""

import random

SEED = 14  # every random case is drawn from this seed: the same cases on every run


def tool_pair(ids_and_texts, note="Reading."):
    """An assistant turn calling one tool per (id, text) and the user turn answering it."""
    uses = [{"type": "tool_use", "id": tid, "name": "read_file", "input": {"path": f"{tid}.txt"}}
            for tid, _ in ids_and_texts]
    results = [{"type": "tool_result", "tool_use_id": tid, "content": text}
               for tid, text in ids_and_texts]
    return [{"role": "assistant", "content": [{"type": "text", "text": note}, *uses]},
            {"role": "user", "content": results}]


def message_of_kind(kind: str, n: int) -> dict:
    if kind == "tool_use":
        return {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n:03d}", "name": "read_file",
             "input": {"path": f"file{n}.txt"}}]}
    if kind == "tool_result":
        return {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n - 1:03d}",
             "content": f"text of file{n - 1}.txt"}]}
    if kind == "user":
        return {"role": "user", "content": f"Request {n}."}
    if kind == "assistant":
        return {"role": "assistant", "content": [{"type": "text", "text": f"Note {n}."}]}
    raise ValueError(f"unknown message kind {kind!r} at position {n}")


def messages_of_kinds(kinds) -> list[dict]:
    from context_compact.messages import validate_messages
    messages = [message_of_kind(kind, n) for n, kind in enumerate(kinds)]
    validate_messages(messages)  # a case with a broken pair would teach the wrong thing
    return messages


def random_kinds(rng: random.Random, length: int) -> list[str]:
    """A valid history of about `length` messages: turns alternate, every call is answered."""
    kinds = ["user"]
    while len(kinds) < length:
        if kinds[-1] in ("user", "tool_result"):
            kinds += ["tool_use", "tool_result"] if rng.random() < 0.7 else ["assistant"]
        else:
            kinds.append("user")
    return kinds


def rng() -> random.Random:
    return random.Random(SEED)
