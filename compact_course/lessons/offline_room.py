"""The set-up notebooks 00 and 07 leave out of their lesson cells: a copy of the sample
workspace, the offline server, and agents and compactors on them.

    workspace = fresh_workspace(folder)            # data/workspace, copied into folder
    room = OfflineRoom(echo=print)                 # the server, a client, a workspace of its own
    agent = room.agent(messages)                   # the article's agent, on those messages
    room.send(messages)                            # one request: "HTTP 200", or the API's 400 in a line
    room.close()                                   # the server stops, the folders go

Every agent and compactor draws seeded file names, so a notebook prints the same names on
every run. Left out: a real model (a key goes to `compact_course.agent.model.choose_model`)
and any window but the server's default.
"""

import tempfile

from ..agent.workspace import fresh_workspace
from .replay import make_compactor, seeded_ids


class OfflineRoom:
    """The offline server, a client of it (no retries) and a fresh workspace, for one notebook."""

    def __init__(self, echo=None):
        from ..agent.model import offline_client  # the SDK loads here, not on import
        from ..offline.api.server import start_offline_server

        self.echo = echo
        self.server = start_offline_server()
        self.client = offline_client(self.server.base_url, max_retries=0)
        self._folder = tempfile.TemporaryDirectory(prefix="offline-room-")
        self.workspace = fresh_workspace(self._folder.name)

    def agent(self, messages):
        """The article's agent in this room's workspace, its list a copy of `messages`."""
        import copy

        from ..agent.loop import Agent
        from ..offline import MODEL_NAME

        agent = Agent(self.workspace, self.client, MODEL_NAME, new_id=seeded_ids(), echo=self.echo)
        agent.messages = copy.deepcopy(messages)
        return agent

    def compactor(self, profile: str = "default"):
        """A compactor writing in a scratch folder of this room's, apart from the workspace."""
        return make_compactor(tempfile.mkdtemp(dir=self._folder.name), profile)

    def send(self, messages) -> str:
        """One model request with the agent's system prompt and tools: 'HTTP 200', or the
        API's refusal as 'HTTP <status> <its first sentence>'."""
        import anthropic

        from ..agent.loop import SYSTEM
        from ..agent.tools import TOOLS
        from ..offline import MODEL_NAME

        try:
            self.client.messages.create(model=MODEL_NAME, system=SYSTEM, tools=TOOLS,
                                        messages=messages, max_tokens=1000)
        except anthropic.BadRequestError as error:
            return f"HTTP {error.status_code} {error.body['error']['message'].split('. ')[0]}"
        return "HTTP 200"

    def close(self) -> None:
        self.server.stop()
        self._folder.cleanup()
