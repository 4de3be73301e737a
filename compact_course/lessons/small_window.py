"""06 · a model with a small window, offline: what a request costs in tokens, one call, the loop.

    model = SmallWindow(8_000)      # the offline API on 127.0.0.1, its window 8,000 tokens
    model.tokens(messages)          # count_tokens of the request the agent would send
    model.ask(messages)             # one call as the agent makes it (over the window: a 400)
    model.window_chars(messages)    # the window in characters, at these messages' rate
    agent = model.agent(config)     # the article's loop on it, in a fresh sample workspace
    model.answers()                 # the status of each request since that agent was made

So notebook 06's cells show only the lesson: which context the window refuses, the
refusal's wording, the retry. The requests carry the agent's own system prompt and tools
(`compact_course.agent`), so a count is what the agent's call would cost; the agent
echoes its tool calls and reactive compactions, nothing else.

Left out: a real model (the offline one is a deterministic program); stopping the
server, which runs on a daemon thread until the kernel ends (`model.server.stop()`).
"""

import tempfile

from context_compact import CompactionConfig, estimate_chars

from ..agent.loop import SYSTEM, Agent
from ..agent.model import offline_client
from ..agent.tools import TOOLS
from ..agent.workspace import fresh_workspace
from ..offline import MODEL_NAME
from ..offline.api.server import start_offline_server
from .replay import seeded_ids

ECHOED = ("[reactive", ">")   # the agent's lines a learner reads: its calls and compactions


class SmallWindow:
    """The offline model with a window of `window` tokens, and a client that never retries."""

    def __init__(self, window: int):
        self.window = window
        self.server = start_offline_server(window=window)
        self.client = offline_client(self.server.base_url, max_retries=0)
        self._since = 0
        self._scratch = []   # the agents' workspaces, kept as long as this object

    def tokens(self, messages) -> int:
        return self.client.messages.count_tokens(model=MODEL_NAME, system=SYSTEM, tools=TOOLS,
                                                 messages=messages).input_tokens

    def ask(self, messages):
        return self.client.messages.create(model=MODEL_NAME, system=SYSTEM, tools=TOOLS,
                                           messages=messages, max_tokens=8000)

    def window_chars(self, messages) -> float:
        """The window in characters of JSON, at the rate `messages` are counted."""
        return self.window * estimate_chars(messages) / self.tokens(messages)

    def agent(self, config: CompactionConfig) -> Agent:
        """The article's loop on this model, in a fresh copy of the sample workspace."""
        scratch = tempfile.TemporaryDirectory(prefix="small-window-")
        self._scratch.append(scratch)
        workspace = fresh_workspace(scratch.name)
        self._since = len(self.server.requests)
        return Agent(workspace, self.client, MODEL_NAME, new_id=seeded_ids(), config=config,
                     echo=lambda line: print(line) if line.startswith(ECHOED) else None)

    def answers(self) -> list:
        """The HTTP status of each request the server answered since `agent()` was last made."""
        return [entry["status"] for entry in list(self.server.requests)[self._since:]]
