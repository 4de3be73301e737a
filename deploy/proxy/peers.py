"""Who is behind a connection to the class proxy: the local user who owns the client's socket.

Every client of the class's machine connects from 127.0.0.1, so an address says nothing about
who is calling. The kernel lists every TCP socket of the machine in /proc/net/tcp, each with
its local and remote address and the uid of its owner: the client's socket of a connection
is the one whose local address is the connection's client and whose remote address is the
server. No privilege is needed to read it.

Left out: IPv6 (the proxy listens on 127.0.0.1); a peer not in the table (another network
namespace) is named by its address.
"""

import socket
import struct
import time

TCP_TABLE = "/proc/net/tcp"


def hex_address(address) -> str:
    """An IPv4 (host, port) as /proc/net/tcp writes it: the address in host byte order, in hex."""
    host, port = address[0], address[1]
    return f"{struct.unpack('=I', socket.inet_aton(host))[0]:08X}:{port:04X}"


def socket_owners(table: str = TCP_TABLE) -> dict:
    """{(local address, remote address): uid} of every TCP socket the kernel lists."""
    owners = {}
    with open(table) as lines:
        next(lines, None)    # the header
        for line in lines:
            fields = line.split()
            if len(fields) > 7:
                owners[fields[1], fields[2]] = fields[7]
    return owners


class Peers:
    """Who is behind a connection: 'uid N' for a local socket, else its address.

    The kernel's table is read again only when a connection is not in the copy at hand or the
    copy is over a second old: a burst of connections costs one read, not one each (1,100
    connections at once, one read each, kept the proxy from answering anyone for seconds).
    The price: a connection whose pair of addresses an earlier one used within that second
    may be counted as the earlier one's owner."""

    def __init__(self, table: str = TCP_TABLE, clock=time.monotonic):
        self.table, self.clock, self.owners, self.read_at = table, clock, {}, None

    def __call__(self, client, server) -> str:
        try:
            wanted = (hex_address(client), hex_address(server))
            if wanted not in self.owners or self.clock() - self.read_at > 1:
                self.owners, self.read_at = socket_owners(self.table), self.clock()
            if wanted in self.owners:
                return f"uid {self.owners[wanted]}"
        except (OSError, TypeError, IndexError, ValueError):   # no table, no address, not IPv4
            pass
        return f"address {client[0] if client else '?'}"
