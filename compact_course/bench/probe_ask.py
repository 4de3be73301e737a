"""Asking the probes: the model answers each one through the real SDK, with read_file to re-read.

    from compact_course.bench.probe_ask import Asker
    with Asker.offline() as asker:                  # or Asker.configured(): Claude when a key is set
        run = walk(messages, request, "default", ask=asker)
    run["answers"]    # one {"answer", "score", "reads", "status"} per probe

Each probe is one conversation: what the design sends at the end of the session,
with the probe's question as one more user message, and `read_file` offered
(the agent's own tool, run in the design's folder, where its saved outputs and
transcripts are). When the model calls it, the result goes back and it is asked
again, up to MAX_TURNS replies. The answer scores right, can't tell or wrong
(`compact_course.probes.score`). An "on disk" probe counts as right only when the model
re-read a file for it (a `read_file` tool_use in the conversation): an answer it
could only have guessed is "can't tell". A request the API refuses (a prompt over
the window) is "can't tell", with the error kept as the answer.

The offline model (`compact_course.offline.model.probe_reply`) is a program: it quotes only
a text that starts with the cue, so it is never wrong; its "can't tell" counts
what the context has lost. With ANTHROPIC_API_KEY and MODEL_ID set, the same
questions go to Claude, `repeats` times each (answers vary even at temperature 0).

Left out: bash, glob and the other tools (read_file is the one a re-read needs),
system prompts, and asking at every call (only the end is asked).
"""

import anthropic

from context_compact.messages import text_of, to_plain, tool_uses

from ..agent.model import choose_model
from ..agent.tools import TOOLS, run_tool
from ..probes import score

READ_FILE = [tool for tool in TOOLS if tool["name"] == "read_file"]
MAX_TURNS = 10
MAX_TOKENS = 1024


def with_question(sent: list, question: str) -> list:
    """The request `sent` with the question as a user message of its own (after a user
    message the API reads the two as one turn: a marker's text stays whole)."""
    return [*sent, {"role": "user", "content": question}]


class Asker:
    """Asks every probe at the end of a walk: `asker(sent, folder, probes, statuses)`."""

    def __init__(self, choice, repeats: int = 1):
        self.choice = choice
        self.repeats = repeats

    @classmethod
    def offline(cls):
        return cls(choose_model(offline=True, echo=None))

    @classmethod
    def configured(cls, repeats: int = 1, echo=print):
        """Claude when ANTHROPIC_API_KEY and MODEL_ID are set, else the offline model."""
        choice = choose_model(echo=echo)
        return cls(choice, repeats if not choice.offline else 1)

    @property
    def offline_model(self) -> bool:
        return self.choice.offline

    def close(self) -> None:
        self.choice.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __call__(self, sent, folder, probes, statuses) -> list:
        return [[self.ask(sent, folder, probe, status) for _ in range(self.repeats)]
                for probe, status in zip(probes, statuses)]

    def ask(self, sent, folder, probe, status: str) -> dict:
        messages, reads = with_question(sent, probe.question), []
        answer = ""
        for _ in range(MAX_TURNS):
            try:
                reply = self.choice.client.messages.create(
                    model=self.choice.model, max_tokens=MAX_TOKENS, tools=READ_FILE, messages=messages)
            except anthropic.BadRequestError as error:
                answer = f"(refused: {getattr(error, 'message', error)}; I can't tell)"
                break
            content = to_plain(reply.content)
            uses = tool_uses({"role": "assistant", "content": content})
            answer = text_of(content)
            if not uses:
                break
            results = []
            for use in uses:
                if use.get("name") == "read_file":
                    reads.append((use.get("input") or {}).get("path"))
                    text = run_tool(folder, "read_file", use.get("input") or {})
                else:
                    text = f"Error: only read_file is offered here, not {use.get('name')}"
                results.append({"type": "tool_result", "tool_use_id": use["id"], "content": text})
            messages = [*messages, {"role": "assistant", "content": content},
                        {"role": "user", "content": results}]
        scored = score(probe, answer)
        if scored == "right" and status == "on disk" and not reads:
            scored = "can't tell"   # not re-read: the answer cannot have come from the file
        return {"answer": answer, "score": scored, "reads": reads, "status": status}
