"""06 · a model with a small window, offline: what a request costs in tokens, one call, the loop.

    model = SmallWindow(8_000)      # the offline API on 127.0.0.1, its window 8,000 tokens
    model.tokens(messages)          # count_tokens of the request the agent would send
    model.ask(messages)             # one call as the agent makes it (over the window: a 400)
    model.window_chars(messages)    # the window in characters, at these messages' rate
    agent = model.agent(config)     # the article's loop on it, in a fresh sample workspace
    model.answers()                 # the status of each request since that agent was made

So notebook 06's cells show only the lesson: which context the window refuses, the
refusal's wording, the retry. It is offline_room.py's room with a window of its own; the
agent echoes its tool calls and reactive compactions, nothing else.

Left out: a real model (the offline one is a deterministic program); stopping the
server, which runs on a daemon thread until the kernel ends (`model.server.stop()`).
"""

import tempfile

from context_compact import CompactionConfig, estimate_chars

from ..agent.loop import Agent
from ..agent.workspace import fresh_workspace
from .offline_room import OfflineRoom

ECHOED = ("[reactive", ">")   # the agent's lines a learner reads: its calls and compactions


def _calls_and_compactions(line: str) -> None:
    if line.startswith(ECHOED):
        print(line)


class SmallWindow(OfflineRoom):
    """The offline model with a window of `window` tokens, and a client that never retries."""

    def __init__(self, window: int):
        super().__init__(echo=_calls_and_compactions, window=window)
        self._since = 0

    def window_chars(self, messages) -> float:
        """The window in characters of JSON, at the rate `messages` are counted."""
        return self.window * estimate_chars(messages) / self.tokens(messages)

    def agent(self, config: CompactionConfig) -> Agent:
        """The article's loop on this model, in a fresh copy of the sample workspace."""
        self._since = len(self.server.requests)
        workspace = fresh_workspace(tempfile.mkdtemp(dir=self._folder.name))
        return super().agent(config=config, workspace=workspace)

    def answers(self) -> list:
        """The HTTP status of each request the server answered since `agent()` was last made."""
        return [entry["status"] for entry in list(self.server.requests)[self._since:]]
