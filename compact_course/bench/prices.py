"""The API's prices, one row per model, each with where it comes from and when it was read.

A row is five prices in US dollars per million tokens (base input, 5-minute
cache writes, 1-hour cache writes, cache reads: hits and refreshes, output),
the minimum cacheable prompt length in tokens (None when no source gives it),
the pages the row was read from, and the day it was read. The bill
(`compact_course.bench.cost`) prices each request's four counts of `usage` with one
row and names the model it priced; `rates(model)` is the same row in units of
one base input token, the unit the course's tables use.

A row is written only when every price in it has a source. Read 2026-12-01
with the course's search tool (stored copies of the pages, not the live web):
- the "Model pricing" table of platform.claude.com/docs/en/about-claude/pricing
  (Fable 5.1, Mythos 5.1, Opus 5, Opus 4.8 to 4.5, Opus 4.1), and an older copy
  of the same table on docs.anthropic.com (Sonnet 4);
- each model's page (Opus 5.5, Sonnet 5.5, Sonnet 5);
- Sonnet 5.5's cache reads: its page's stored copy lists $0.20, two independent
  price tables' release notes say Anthropic cut them to $0.10 on 2026-10-07
  (0.05 of input; issue 43 says the same): the row takes the later figure;
- Haiku 5.5 is priced by prompt length (input + cache reads + cache writes of one
  request): up to 100,000 tokens one row, above it another, on every token of
  that request (two independent price tables' release notes; no Anthropic page
  in the stored copies);
- minimum cacheable lengths: the prompt-caching page's list as quoted by
  LiteLLM's docs (`compact_course.offline.api.usage.MINIMUM_SOURCE`), and Opus 5.5's
  512 as issue 43 quotes "What's new in Claude Opus 5.5". Where no source gives
  a model's minimum, the row says so (None) and the bill uses the offline
  model's 1,024 (ours, `DEFAULT_MINIMUM`).
- web searches (the server tool's `usage.server_tool_use.web_search_requests`): $10 per
  1,000, on every model of the table, read 2026-12-06: LiteLLM 1.108.0's price map
  (`search_context_cost_per_query`, $0.01 a search, on every row it has of this table) and
  two guides that quote Anthropic's web search page (WEB_SEARCH_SOURCE); no Anthropic page
  in the stored copies gives the figure itself. The class proxy's ledger prices them
  (deploy/proxy/billing.py).
Left out, for want of a source with every figure: Sonnet 4.6 and 4.5, Haiku 4.5,
Fable 5, Mythos 5 (their cache prices or rows were not in the stored copies).
Prices change: check the pages before quoting a dollar figure.

Left out on purpose: batch and regional prices, fast mode.
"""

from dataclasses import dataclass

CHECKED = "2026-12-01"
PRICING_PAGE = "https://platform.claude.com/docs/en/about-claude/pricing"
OLD_PRICING_PAGE = "https://docs.anthropic.com/en/docs/about-claude/pricing"
MODEL_PAGE = "https://platform.claude.com/docs/zh-CN/models/{}/overview"
SONNET_55_CUT = ("https://github.com/kurofune/claudit/releases/tag/v1.9.2",
                 "https://github.com/TheKrush/PromptFuel/releases/tag/v1.0.23")
CACHING_LIST = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching (via LiteLLM's docs)"
OPUS_55_MINIMUM = "issue 43, quoting \"What's new in Claude Opus 5.5\""


# Dollars per 1,000 web searches, the same on every model (see above).
WEB_SEARCH = 10.00
WEB_SEARCH_SOURCE = ("LiteLLM 1.108.0, litellm/model_prices_and_context_window_backup.json",
                     "https://claudecodeguides.com/claude-web-search-costs-10-per-thousand/",
                     "https://clauder-navi.com/articles/claude-web-search/")


@dataclass(frozen=True)
class Price:
    name: str
    input: float
    write_5m: float
    write_1h: float
    read: float
    output: float
    minimum: int | None          # minimum cacheable prompt, tokens; None: no source gives it
    source: tuple                # where each figure was read
    read_on: str = CHECKED
    # A second band: a request whose prompt is over `up_to` tokens pays `above` on every token.
    up_to: int | None = None
    above: "Price | None" = None

    @property
    def read_share(self) -> float:
        """A cache read's price over base input's (0.1 on most models)."""
        return self.read / self.input


def _row(name, figures, minimum, *source, **band) -> Price:
    return Price(name, *figures, minimum, tuple(source), **band)


_HAIKU_55 = ("https://github.com/kurofune/claudit/releases/tag/v1.9.2",
             "https://github.com/TheKrush/PromptFuel/releases/tag/v1.0.23")

PRICES = {
    "claude-opus-5-5": _row("Claude Opus 5.5", (4.00, 5.00, 8.00, 0.20, 20.00), 512,
                            MODEL_PAGE.format("opus-5-5"), OPUS_55_MINIMUM),
    "claude-sonnet-5-5": _row("Claude Sonnet 5.5", (2.00, 2.50, 4.00, 0.10, 10.00), None,
                              MODEL_PAGE.format("sonnet-5-5"), *SONNET_55_CUT),
    "claude-haiku-5-5": _row("Claude Haiku 5.5 (prompts up to 100,000 tokens)",
                             (0.10, 0.125, 0.20, 0.01, 0.50), None, *_HAIKU_55, up_to=100_000,
                             above=_row("Claude Haiku 5.5 (prompts over 100,000 tokens)",
                                        (0.50, 0.625, 1.00, 0.05, 2.50), None, _HAIKU_55[0])),
    "claude-fable-5-1": _row("Claude Fable 5.1", (10.00, 12.50, 20.00, 0.25, 50.00), None, PRICING_PAGE),
    "claude-mythos-5-1": _row("Claude Mythos 5.1", (10.00, 12.50, 20.00, 0.25, 50.00), None, PRICING_PAGE),
    "claude-opus-5": _row("Claude Opus 5", (5.00, 6.25, 10.00, 0.50, 25.00), 512,
                          PRICING_PAGE, CACHING_LIST),
    "claude-sonnet-5": _row("Claude Sonnet 5", (2.00, 2.50, 4.00, 0.20, 10.00), 1024,
                            MODEL_PAGE.format("sonnet-5"), CACHING_LIST),
    "claude-opus-4-8": _row("Claude Opus 4.8", (5.00, 6.25, 10.00, 0.50, 25.00), 1024,
                            PRICING_PAGE, CACHING_LIST),
    "claude-opus-4-7": _row("Claude Opus 4.7", (5.00, 6.25, 10.00, 0.50, 25.00), 2048,
                            PRICING_PAGE, CACHING_LIST),
    "claude-opus-4-6": _row("Claude Opus 4.6", (5.00, 6.25, 10.00, 0.50, 25.00), 4096,
                            PRICING_PAGE, CACHING_LIST),
    "claude-opus-4-5": _row("Claude Opus 4.5", (5.00, 6.25, 10.00, 0.50, 25.00), 4096,
                            PRICING_PAGE, CACHING_LIST),
    "claude-opus-4-1": _row("Claude Opus 4.1", (15.00, 18.75, 30.00, 1.50, 75.00), None, PRICING_PAGE),
    "claude-sonnet-4": _row("Claude Sonnet 4", (3.00, 3.75, 6.00, 0.30, 15.00), None, OLD_PRICING_PAGE),
}
# The model the course's bills price unless told: Claude Sonnet 5, a Sonnet-class row with
# every figure sourced, its minimum too. The bench bills it and Opus 5.5 (issue 43): a cache
# read at 0.1 of input and at 0.05. Sonnet 5.5 bills what Opus 5.5 does in base input
# tokens (the same ratios, 1, 1.25, 2, 0.05, 5): at half the dollars, the same tables.
DEFAULT_MODEL = "claude-sonnet-5"
BENCH_MODELS = ("claude-sonnet-5", "claude-opus-5-5")


def price(model: str) -> Price:
    if model not in PRICES:
        raise ValueError(f"no price for model {model!r}: use one of {', '.join(PRICES)}")
    return PRICES[model]


def band(model: str, prompt_tokens: int) -> Price:
    """The row that prices a request of `prompt_tokens` (input, cache reads and writes)."""
    row = price(model)
    while row.up_to is not None and prompt_tokens > row.up_to:
        row = row.above
    return row


def rates(model: str = DEFAULT_MODEL, prompt_tokens: int = 0) -> dict:
    """Each count of `usage` at its price, in units of one base input token of the
    model's first band (a second band's prices are dearer than 1 then)."""
    base, row = price(model), band(model, prompt_tokens)
    return {"input_tokens": row.input / base.input, "cache_write_5m": row.write_5m / base.input,
            "cache_write_1h": row.write_1h / base.input,
            "cache_read_input_tokens": row.read / base.input, "output_tokens": row.output / base.input}


def row_line(row: Price) -> str:
    """One row as the course prints it (tests/bench/test_bench.py ties each printed figure to it)."""
    minimum = "not sourced (the bill uses 1,024, ours)" if row.minimum is None else f"{row.minimum:,}"
    return (f"{row.name}: input {row.input:.3f}, cache write 5 min {row.write_5m:.3f}, "
            f"1 hour {row.write_1h:.3f}, cache read {row.read:.3f} ({row.read_share:g} x input), "
            f"output {row.output:.3f}; minimum cacheable {minimum} tokens; read {row.read_on} from "
            + "; ".join(row.source))


def table_lines(models=None) -> list[str]:
    """Every row (each band of a banded model), as `row_line` prints it."""
    lines = []
    for model in models or PRICES:
        row = price(model)
        while row is not None:
            lines.append(row_line(row))
            row = row.above
    return lines
