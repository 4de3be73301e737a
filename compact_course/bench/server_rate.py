"""How fast the offline model answers: requests per second through the real SDK, beside a bare echo.

    python -m compact_course bench-server [--requests N] [--clients C] [--per-client M]

It starts the offline model (`compact_course.offline.api.server`) on a free loopback port
and sends the smallest valid request, `messages.create` with one user line,
through `anthropic.Anthropic`, as the agent does:
- sequentially, N calls on one client (one kept-alive connection);
- concurrently, C threads, each with its own client, M calls each, all at once.
It does the same against a bare echo on the same library (aiohttp's low-level
server answering every POST with one fixed message, on its own event loop
thread like the offline server): what the SDK, the loopback and aiohttp cost
alone. It prints calls per second, milliseconds per call and how many calls
failed (connection errors and any other SDK error), for each; the time the
answer to that request takes alone, in this process with no HTTP (the model's
work); and the offline server's time per call as a multiple of the echo's, with
and without that answer's own time (issue 29's target: within 1.5x). It exits
with 1 if any call failed.

The figures depend on the machine: they are printed, never asserted. Left out:
large requests (the policy's time, not the server's), streaming, the real API.
"""

import argparse
import asyncio
import json
import sys
import threading
import time
from dataclasses import dataclass, field

import anthropic
from aiohttp import web

from ..agent.model import offline_client
from ..offline import MODEL_NAME
from ..offline.api.server import start_offline_server

REQUEST = {"model": MODEL_NAME, "max_tokens": 16,
           "messages": [{"role": "user", "content": "Say hello."}]}
ECHOED = json.dumps({"id": "msg_echo", "type": "message", "role": "assistant", "model": MODEL_NAME,
                     "content": [{"type": "text", "text": "Hello."}], "stop_reason": "end_turn",
                     "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}).encode()


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


class Echo:
    """A bare aiohttp server on 127.0.0.1: every POST's body read, one fixed message answered."""

    def __init__(self):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="echo")
        self._thread.start()
        self._listener = asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(10)
        self.base_url = f"http://127.0.0.1:{self._listener.sockets[0].getsockname()[1]}"

    async def _listen(self):
        async def echo(request):
            await request.read()
            return web.Response(body=ECHOED, content_type="application/json")
        return await self._loop.create_server(web.Server(echo, access_log=None), "127.0.0.1", 0)

    def stop(self) -> None:
        async def close():
            self._listener.close()
        asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


def answer_alone(count: int) -> float:
    """Milliseconds per call of the offline server's answer to REQUEST, in this process,
    with no HTTP: the model's share of a call."""
    from ..offline.api.answer import answer
    from ..offline.api.usage import PromptCache
    raw, cache = json.dumps(REQUEST).encode(), PromptCache()
    answer("messages", raw, 200_000, cache)
    start = time.perf_counter()
    for _ in range(count):
        answer("messages", raw, 200_000, cache)
    return 1000 * (time.perf_counter() - start) / count


def ratio_line(label: str, served: Rate, echoed: Rate, alone_ms: float) -> str:
    """The offline server's time per call as a multiple of the echo's, with and without the
    time its answer takes alone (the model's work, not HTTP's)."""
    def ms(rate: Rate) -> float:
        return 1000 * rate.seconds / rate.calls if rate.calls else 0.0
    times = ms(served) / ms(echoed) if ms(echoed) else float("inf")
    net = (ms(served) - alone_ms) / ms(echoed) if ms(echoed) else float("inf")
    return (f"{label:<28} the offline model takes {times:4.2f}x the echo's time per call; "
            f"{net:4.2f}x without its answer's own {alone_ms:.2f} ms")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m compact_course bench-server",
        description="Requests per second of the offline model through the anthropic SDK.")
    parser.add_argument("--requests", type=_positive, default=500,
                        help="sequential calls on one client (default %(default)s)")
    parser.add_argument("--clients", type=_positive, default=50,
                        help="concurrent clients, one thread each (default %(default)s)")
    parser.add_argument("--per-client", type=_positive, default=10,
                        help="calls per concurrent client (default %(default)s)")
    parser.add_argument("--rounds", type=_positive, default=3,
                        help="rounds of each run, taken in turns; the best is shown (default %(default)s)")
    args = parser.parse_args(argv)
    best = {}
    with start_offline_server() as server, Echo() as echo:
        print(f"Offline model (a deterministic program, not a language model) at "
              f"{server.base_url}, and a bare aiohttp echo beside it; each call: "
              f"messages.create with one short user line; the best of {args.rounds} rounds, "
              f"taken in turns.")
        for _ in range(args.rounds):
            for name, url in (("offline model", server.base_url), ("echo", echo.base_url)):
                for kind, run in (("one", lambda u=url: sequential(u, args.requests)),
                                  ("many", lambda u=url: concurrent(u, args.clients, args.per_client))):
                    rate = run()
                    kept = best.get((name, kind))
                    if kept is None or rate.failed or rate.seconds < kept.seconds and not kept.failed:
                        best[(name, kind)] = rate
    labels = {"one": "sequential, 1 client", "many": f"concurrent, {args.clients} clients"}
    for name in ("offline model", "echo"):
        print(f"{name}:")
        for kind, label in labels.items():
            print("  " + best[(name, kind)].line(label), flush=True)
    alone = answer_alone(args.requests)
    print(f"the answer alone, no HTTP:   {alone:.2f} ms per call (the offline model's own work, "
          f"in this process)")
    for kind, label in labels.items():
        print(ratio_line(label, best[("offline model", kind)], best[("echo", kind)], alone))
    return 1 if any(rate.failed for rate in best.values()) else 0

if __name__ == "__main__":
    sys.exit(main())
