"""The API's prices, one row per model, with where each row comes from and when it was read.

A row is five prices in US dollars per million tokens: base input, 5-minute
cache writes, 1-hour cache writes, cache reads (hits and refreshes), output.
The bill (`workbench.bench.cost`) prices the four counts of `usage` with one row,
and names the model it priced; `rates(model)` gives the same row in units of
one base input token, the unit the course's tables use.

Sources, read 2026-12-01 with the course's search tool (stored copies of the pages):
- Claude Sonnet 5: its model page, platform.claude.com/docs/en/models/sonnet-5/overview
  ("Pricing": $2 input, $2.50 5m cache write, $4 1h cache write, $0.20 cache
  read, $10 output). The page calls it a legacy model: Claude Sonnet 5.5 is the
  current Sonnet, at the same prices except cache reads, which its page lists
  lower since 2026-10-07 (third-party release notes; not checked on the page);
- Claude Opus 4.5: the "Model pricing" table of platform.claude.com/docs/en/about-claude/pricing.
Prices change: check the pages before quoting a dollar figure.

Left out: batch and regional prices, long-context tiers, fast mode.
"""

from dataclasses import dataclass

CHECKED = "2026-12-01"
PRICING_PAGE = "https://platform.claude.com/docs/en/about-claude/pricing"


@dataclass(frozen=True)
class Price:
    name: str
    input: float
    write_5m: float
    write_1h: float
    read: float
    output: float
    source: str


PRICES = {
    "claude-sonnet-5": Price("Claude Sonnet 5", 2.00, 2.50, 4.00, 0.20, 10.00,
                             "https://platform.claude.com/docs/en/models/sonnet-5/overview"),
    "claude-opus-4-5": Price("Claude Opus 4.5", 5.00, 6.25, 10.00, 0.50, 25.00, PRICING_PAGE),
}
DEFAULT_MODEL = "claude-sonnet-5"   # the model the course's bills price


def price(model: str) -> Price:
    if model not in PRICES:
        raise ValueError(f"no price for model {model!r}: use one of {', '.join(PRICES)}")
    return PRICES[model]


def rates(model: str = DEFAULT_MODEL) -> dict:
    """Each count of `usage` at its price, in units of one base input token."""
    row = price(model)
    return {"input_tokens": 1.0, "cache_write_5m": row.write_5m / row.input,
            "cache_write_1h": row.write_1h / row.input,
            "cache_read_input_tokens": row.read / row.input, "output_tokens": row.output / row.input}
