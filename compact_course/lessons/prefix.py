"""How much of each request a prompt cache could reuse: lab 01's prefix rows.

The leading messages of a request identical to the previous request are what a
prompt cache could reuse (`compact_course.bench.cost.cached_prefix`); with one breakpoint
at each request's end, as the agent sends them, the API reads only a whole earlier
request, and that is what `compact_course.bench.cost` bills. `PrefixCounter`
watches the requests of one replay and counts two things: the calls whose
request starts with the *whole* previous request (nothing before the new part
was rewritten), and the share of each request's characters in the cached
prefix, averaged over the calls.

Left out: costs (compact_course.bench.cost.CostLedger books them).
"""

from ..bench.cost import cached_prefix, message_json, request_size


class PrefixCounter:
    def __init__(self):
        self.previous: list[str] = []
        self.calls = 0
        self.reused = 0
        self._shares: list[float] = []

    def add(self, messages) -> None:
        """Book one request (a list of messages), in the order they were sent."""
        texts = [message_json(m) for m in messages]
        self.calls += 1
        if self.previous and texts[:len(self.previous)] == self.previous:
            self.reused += 1
        self._shares.append(cached_prefix(self.previous, texts) / request_size(texts))
        self.previous = texts

    @property
    def cached_percent(self) -> int:
        """The cached share of a request, averaged over the calls, in whole percent."""
        return round(100 * sum(self._shares) / len(self._shares)) if self._shares else 0
