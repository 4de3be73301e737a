"""What each model call used: the `usage` of a response, as the API bills it.

Every response of the Messages API carries `usage`: `input_tokens` (input
neither read from nor written to the prompt cache), `cache_creation_input_tokens`
(written to it), `cache_read_input_tokens` (read from it) and `output_tokens`.
With a key these are the real API's counts; offline they are the offline
model's, by the same rules (`compact_course.offline.api.usage`). The agent keeps one dict
per call (`Agent.usage`) and, when asked (`python -m compact_course run` does), prints
one line per call.

Left out: prices (`compact_course.bench.cost` has the rates) and the summary calls'
usage (the compactor's summarizer makes those calls).
"""

FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
          "output_tokens")


def usage_of(response) -> dict:
    """The four counts of a response (an SDK Message or a plain dict); a missing one is 0."""
    usage = response.get("usage") if isinstance(response, dict) else getattr(response, "usage", None)
    read = usage.get if isinstance(usage, dict) else (lambda name: getattr(usage, name, None))
    return {name: read(name) or 0 for name in FIELDS}


def usage_line(usage: dict) -> str:
    """One line for the terminal: `[usage: input 1,203, cache write 0, cache read 9,876, output 85]`."""
    return (f"[usage: input {usage['input_tokens']:,d}, cache write "
            f"{usage['cache_creation_input_tokens']:,d}, cache read "
            f"{usage['cache_read_input_tokens']:,d}, output {usage['output_tokens']:,d}]")


def total(usages) -> dict:
    """The four counts summed over calls."""
    return {name: sum(u[name] for u in usages) for name in FIELDS}
