"""The set-up notebooks 00, 06 and 07 leave out of their lesson cells: a copy of the sample
workspace, the offline server, and agents and compactors on them.

    workspace = fresh_workspace(folder)            # data/workspace, copied into folder
    room = OfflineRoom(echo=print)                 # the server, a client, a workspace of its own
    agent = room.agent(messages)                   # the article's agent, on those messages
    room.tokens(messages)                          # count_tokens of the request the agent would send
    room.ask(messages)                             # one call as the agent makes it (a refusal raises)
    room.send(messages)                            # the same call: "HTTP 200", or the API's 400 in a line
    room.close()                                   # the server stops, the folders go

The requests carry the agent's own system prompt and tools (`compact_course.agent`), so a
count is what the agent's call would cost. Every agent and compactor draws seeded file names,
so a notebook prints the same names on every run. A window other than the server's default
is notebook 06's (small_window.py). Left out: a real model (a key goes to
`compact_course.agent.model.choose_model`).
"""

import tempfile

from ..agent.workspace import fresh_workspace
from .replay import make_compactor, seeded_ids


class OfflineRoom:
    """The offline server (its window `window` tokens, or the server's default), a client of it
    (no retries) and a fresh workspace, for one notebook."""

    def __init__(self, echo=None, window: int | None = None):
        from ..agent.model import offline_client  # the SDK loads here, not on import
        from ..offline.api.server import start_offline_server
        from ..offline.tokens import DEFAULT_WINDOW

        self.echo = echo
        self.window = window or DEFAULT_WINDOW
        self.server = start_offline_server(window=self.window)
        self.client = offline_client(self.server.base_url, max_retries=0)
        self._folder = tempfile.TemporaryDirectory(prefix="offline-room-")
        self.workspace = fresh_workspace(self._folder.name)

    def agent(self, messages=(), config=None, workspace=None):
        """The article's agent in this room's workspace (or `workspace`), its list a copy of
        `messages`, with `config` (None: the default profile)."""
        import copy

        from ..agent.loop import Agent
        from ..offline import MODEL_NAME

        agent = Agent(workspace or self.workspace, self.client, MODEL_NAME, new_id=seeded_ids(),
                      echo=self.echo, config=config)
        agent.messages = copy.deepcopy(list(messages))
        return agent

    def compactor(self, profile: str = "default"):
        """A compactor writing in a scratch folder of this room's, apart from the workspace."""
        return make_compactor(tempfile.mkdtemp(dir=self._folder.name), profile)

    def tokens(self, messages) -> int:
        """What the agent's request with `messages` costs, by the server's count_tokens."""
        from ..agent.loop import SYSTEM
        from ..agent.tools import TOOLS
        from ..offline import MODEL_NAME

        return self.client.messages.count_tokens(model=MODEL_NAME, system=SYSTEM, tools=TOOLS,
                                                 messages=messages).input_tokens

    def ask(self, messages, max_tokens: int = 8000):
        """One model request with the agent's system prompt and tools; a refusal raises."""
        from ..agent.loop import SYSTEM
        from ..agent.tools import TOOLS
        from ..offline import MODEL_NAME

        return self.client.messages.create(model=MODEL_NAME, system=SYSTEM, tools=TOOLS,
                                           messages=messages, max_tokens=max_tokens)

    def send(self, messages) -> str:
        """`ask`, said in one line: 'HTTP 200', or the API's refusal as 'HTTP <status> <its first
        sentence>'."""
        import anthropic

        try:
            self.ask(messages, max_tokens=1000)
        except anthropic.BadRequestError as error:
            return f"HTTP {error.status_code} {error.body['error']['message'].split('. ')[0]}"
        return "HTTP 200"

    def close(self) -> None:
        self.server.stop()
        self._folder.cleanup()
