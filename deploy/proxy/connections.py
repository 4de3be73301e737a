"""The class proxy's connections: capped per local user and in all, and each request given a deadline.

uvicorn (0.54.0, its h11 protocol: the proxy's venv has no httptools) serves the proxy; its
own settings, which serve.py sets, do part of the work:
- `limit_concurrency`: past that many connections or requests at once, a request is
  answered 503 and nothing of it runs;
- `timeout_keep_alive`: a connection idle after an answer is closed after that many seconds;
- `h11_max_incomplete_event_size` (h11's 16 KiB): a request's head may hold no more.
What uvicorn leaves open, and this protocol (uvicorn's H11Protocol, one subclass) fills:
- a connection that never sends a whole request: uvicorn arms its keep-alive timer only
  after an answer, and a byte of a next request disarms it, so a request half sent stays
  open for good (1,100 of them from one user held the proxy: 1,010 still open after 40 s).
  Here a request must be in whole, head and body, within REQUEST_SECONDS of the connection's
  start or of the last answer; past that the connection is closed;
- who holds the connections: every client of the class's machine comes from 127.0.0.1, so a
  cap per address caps the whole class. The peer is the local user who owns the client's
  socket (peers.py); each may hold PER_USER connections, and all together MAX_CONNECTIONS,
  under half the unit's LimitNOFILE (each connection may open one to the upstream); one more
  is closed before anything of it is read.

Left out: a client slow to read its answer (an answer is small; the per-user cap bounds how
many such connections one user holds).
"""

import sys
from collections import Counter
from pathlib import Path

from uvicorn.protocols.http.h11_impl import H11Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent))   # peers.py, beside this file
from peers import Peers  # noqa: E402

REQUEST_SECONDS = 10
PER_USER = 32
MAX_CONNECTIONS = 1024


class ClassProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline on each request and caps on who holds connections."""

    open_by = Counter()      # peer -> connections open, over every connection of the server
    peer_of = Peers()

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self.peer, self.deadline, self.waiting_since = None, None, None
        peer = self.peer_of(self.client, self.server)
        if self.open_by[peer] >= PER_USER or sum(self.open_by.values()) >= MAX_CONNECTIONS:
            transport.close()
            return
        self.peer = peer
        self.open_by[peer] += 1
        self.wait_for_request()

    def wait_for_request(self) -> None:
        """The next request must be in whole within REQUEST_SECONDS."""
        self.stop_waiting()
        self.waiting_since = self.cycle   # the cycle of the last request: a new one replaces it
        self.deadline = self.loop.call_later(REQUEST_SECONDS, self.too_slow)

    def stop_waiting(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def too_slow(self) -> None:
        self.deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        cycle = self.cycle
        if self.deadline is not None and cycle is not self.waiting_since and cycle is not None \
                and not cycle.more_body:
            self.stop_waiting()     # a new request, head and body, is in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self.wait_for_request()

    def connection_lost(self, exc) -> None:
        self.stop_waiting()
        if self.peer is not None:
            self.open_by[self.peer] -= 1
            if not self.open_by[self.peer]:
                del self.open_by[self.peer]
            self.peer = None
        super().connection_lost(exc)
