"""How fast the offline model answers: requests per second through the real SDK.

    python -m compact bench-server [--requests N] [--clients C] [--per-client M]

It starts the offline model (`compact.offline.api.server`) on a free loopback port
and sends the smallest valid request, `messages.create` with one user line,
through `anthropic.Anthropic`, as the agent does:
- sequentially, N calls on one client (one kept-alive connection);
- concurrently, C threads, each with its own client, M calls each, all at once.
It prints calls per second, milliseconds per call, and how many calls failed
(connection errors and any other SDK error), then exits with 1 if any failed.

The figures depend on the machine: they are printed, never asserted. Left out:
large requests (the policy's time, not the server's), streaming, the real API.
"""

import argparse
import sys
import threading
import time
from dataclasses import dataclass, field

import anthropic

from ..agent.model import offline_client
from ..offline import MODEL_NAME
from ..offline.api.server import start_offline_server

REQUEST = {"model": MODEL_NAME, "max_tokens": 16,
           "messages": [{"role": "user", "content": "Say hello."}]}


@dataclass
class Rate:
    """One run: calls made, calls that failed (by error name), seconds taken."""
    calls: int
    seconds: float
    failures: dict = field(default_factory=dict)

    @property
    def failed(self) -> int:
        return sum(self.failures.values())

    @property
    def per_second(self) -> float:
        return self.calls / self.seconds if self.seconds > 0 else float("inf")

    def line(self, label: str) -> str:
        ms = 1000 * self.seconds / self.calls if self.calls else 0.0
        failed = ", ".join(f"{n} {name}" for name, n in sorted(self.failures.items())) or "none"
        return (f"{label:<28} {self.calls:>5} calls in {self.seconds:6.2f} s: "
                f"{self.per_second:8.1f} requests/s, {ms:6.2f} ms per call; failed: {failed}")


def _calls(client, count: int, failures: dict, lock: threading.Lock) -> None:
    for _ in range(count):
        try:
            client.messages.create(**REQUEST)
        except anthropic.APIError as error:
            with lock:
                name = type(error).__name__
                failures[name] = failures.get(name, 0) + 1


def sequential(base_url: str, count: int) -> Rate:
    failures, lock = {}, threading.Lock()
    with offline_client(base_url, max_retries=0) as client:
        # Open the connection before the clock starts (count_tokens: faults are for create).
        client.messages.count_tokens(model=REQUEST["model"], messages=REQUEST["messages"])
        start = time.perf_counter()
        _calls(client, count, failures, lock)
        seconds = time.perf_counter() - start
    return Rate(count, seconds, failures)


def concurrent(base_url: str, clients: int, per_client: int) -> Rate:
    """`clients` threads with a client each; they wait at a barrier, then all call at once."""
    failures, lock = {}, threading.Lock()
    barrier = threading.Barrier(clients + 1)
    sdks = [offline_client(base_url, max_retries=0) for _ in range(clients)]

    def worker(client):
        barrier.wait()
        _calls(client, per_client, failures, lock)

    threads = [threading.Thread(target=worker, args=(sdk,), daemon=True) for sdk in sdks]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - start
    for sdk in sdks:
        sdk.close()
    return Rate(clients * per_client, seconds, failures)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m compact bench-server",
        description="Requests per second of the offline model through the anthropic SDK.")
    parser.add_argument("--requests", type=_positive, default=500,
                        help="sequential calls on one client (default %(default)s)")
    parser.add_argument("--clients", type=_positive, default=50,
                        help="concurrent clients, one thread each (default %(default)s)")
    parser.add_argument("--per-client", type=_positive, default=10,
                        help="calls per concurrent client (default %(default)s)")
    args = parser.parse_args(argv)
    with start_offline_server() as server:
        print(f"Offline model (a deterministic program, not a language model) at "
              f"{server.base_url}; each call: messages.create with one short user line.")
        one = sequential(server.base_url, args.requests)
        print(one.line("sequential, 1 client"), flush=True)
        many = concurrent(server.base_url, args.clients, args.per_client)
        print(many.line(f"concurrent, {args.clients} clients"), flush=True)
    return 1 if one.failed or many.failed else 0


if __name__ == "__main__":
    sys.exit(main())
