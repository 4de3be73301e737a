"""Each student's server on a port of its own: derived from their uid, checked free, never handed twice.

JupyterHub's LocalProcessSpawner asks the kernel for a random free port (bind to port 0,
close) and starts the server on it later. Two spawns at once can be handed the same port,
and an outgoing connection can take it meanwhile (it is in the ephemeral range): in a
trial of 30 students, two servers were given one port, the loser failed to bind
(port_retries is 0), yet the hub marked it ready because the other student's server
answered its check (any HTTP answer counts, even a 404), and routed one student to
another's server.

Here the port is COURSE_SERVER_PORTS (default 61000, above Linux's ephemeral range
32768-60999) plus the uid modulo COURSE_SERVER_PORT_SPAN (default 4000): the same
student gets the same port each start, nothing of the kernel's picks it for an outgoing
connection, and two students get the same start point only when their uids differ by a
multiple of the span. From that start point the first port that this hub has handed to
no other student and that binds on 127.0.0.1 is taken. Left out: ports taken by other
programs between the check and the server's bind (the server then fails to start, and
says so in the hub's log: port_retries is 0).
"""

import os
import socket

BASE = int(os.environ.get("COURSE_SERVER_PORTS", "61000"))
SPAN = int(os.environ.get("COURSE_SERVER_PORT_SPAN", "4000"))


def binds(port: int) -> bool:
    """True if nothing holds 127.0.0.1:port now."""
    with socket.socket() as probe:
        # As the server binds (tornado sets SO_REUSEADDR): a port left in TIME_WAIT is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def server_port(uid: int, handed: dict, student: str, base: int = BASE, span: int = SPAN) -> int:
    """The student's port: from their uid on, the first one free and not in `handed` for
    another student; recorded in `handed` ({port: student})."""
    for step in range(span):
        port = base + (uid + step) % span
        if handed.get(port, student) == student and binds(port):
            handed[port] = student
            return port
    raise RuntimeError(f"no free port for {student} in {base}-{base + span - 1} "
                       f"(COURSE_SERVER_PORTS, COURSE_SERVER_PORT_SPAN)")
