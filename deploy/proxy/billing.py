"""What a call through the class proxy costs: the bench's price table, as LiteLLM prices it and at worst.

The prices are the course's one table, `compact_course/bench/prices.py` (each row with its sources),
read from the course's own copy beside this folder (`TABLE`); no figure is typed here. This
module gives them two ways:

- `litellm_prices(row)`: the row as LiteLLM's cost fields (input, cache writes of 5 minutes and
  of 1 hour, cache reads, output, web searches, and a second band's prices above its prompt
  length). serve.py writes them into the config LiteLLM reads, so LiteLLM prices each answer
  (`response_cost`) from the `usage` the upstream returned, as the upstream bills it;
- `worst_case(body, row)`: the most a request can cost before it is sent, which the ledger
  reserves against the student's budget (ledger.py). A token is at least one byte of UTF-8
  text, so the prompt is at most the bytes of `[system, tools, messages]` as JSON, plus
  API_ADDS for the system prompt the API adds when tools are offered (the pricing pages list
  at most 530 tokens for it). Every prompt token is priced at the dearest rate the request
  can be billed (a 1-hour cache write when it asks for one, a 5-minute one when it asks for
  caching, else input), in the band of that prompt length, and output at `max_tokens`.
  That bound holds only for what is text; `unbounded(body)` names the first part of a
  request it does not cover (an image, a document, a tool the API defines and runs, such as
  web search), which the ledger refuses.

Which row prices the upstream: its model id (`anthropic/claude-sonnet-5` takes the row
`claude-sonnet-5`), the offline model's the course's default row (PRICED_AS), as the bench
bills it. A model the table has no row for is an error at start: the class is never priced
at nothing.

Left out: batch and regional prices, fast mode (the table leaves them out), web fetch and
code execution (refused, with every tool the API defines).
"""

import functools
import importlib.util
import json
import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parents[2] / "compact_course" / "bench" / "prices.py"
API_ADDS = 1_000      # tokens: the API's tool-use system prompt, at most 530 on the pricing pages
MILLION = 1_000_000
# Content blocks whose tokens are their text: the only ones `worst_case` can bound.
TEXT_BLOCKS = frozenset({"text", "tool_use", "tool_result", "thinking", "redacted_thinking"})


@functools.cache
def load_table(path: Path = TABLE):
    """The bench's price table, loaded from its file (the proxy's venv has no course package)."""
    spec = importlib.util.spec_from_file_location("course_prices", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module      # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def priced_as(model: str, table) -> str:
    """The table's row for an upstream model id (with or without its `anthropic/`)."""
    name = model.split("/", 1)[1] if model.startswith("anthropic/") else model
    name = {"offline-s08": table.DEFAULT_MODEL}.get(name, name)   # PRICED_AS: the bench's bill
    if name not in table.PRICES:
        raise ValueError(f"no price for model {model!r} in {TABLE}: it prices "
                         f"{', '.join(table.PRICES)}; add a row, with its sources, for {name!r}")
    return name


def read_config(path) -> dict:
    import yaml  # LiteLLM's own dependency; only the proxy's venv has it
    with open(path) as file:
        return yaml.safe_load(file)


def setting(value, environ):
    """A value of litellm.yaml, with LiteLLM's `os.environ/NAME` read from `environ`."""
    if isinstance(value, str) and value.startswith("os.environ/"):
        name = value.split("/", 1)[1]
        if not environ.get(name):
            raise ValueError(f"litellm.yaml names {name} (os.environ/{name}), which is not set")
        return environ[name]
    return value


def rows(config: dict, environ) -> dict:
    """{model_name: its price row} for every model of the config, by its upstream model."""
    table = load_table()
    return {entry["model_name"]: table.price(priced_as(setting(entry["litellm_params"]["model"], environ),
                                                       table))
            for entry in config["model_list"]}


def with_prices(config: dict, environ) -> dict:
    """The config with each model's prices from the table, as LiteLLM's cost fields."""
    table, priced = load_table(), rows(config, environ)
    for entry in config["model_list"]:
        entry["litellm_params"].update(litellm_prices(priced[entry["model_name"]], table.WEB_SEARCH))
    return config


def litellm_prices(row, web_search: float) -> dict:
    """The row as LiteLLM's cost fields, in dollars a token (web searches: dollars a search)."""
    fields = _band_fields(row, "")
    if row.above is not None:
        fields |= _band_fields(row.above, f"_above_{row.up_to // 1000}k_tokens")
    per_search = web_search / 1000
    fields["search_context_cost_per_query"] = {f"search_context_size_{size}": per_search
                                               for size in ("low", "medium", "high")}
    return fields


def _band_fields(row, suffix: str) -> dict:
    # LiteLLM's names: the 1-hour write is "above_1hr", a band's suffix goes after it.
    return {f"input_cost_per_token{suffix}": row.input / MILLION,
            f"cache_creation_input_token_cost{suffix}": row.write_5m / MILLION,
            f"cache_creation_input_token_cost_above_1hr{suffix}": row.write_1h / MILLION,
            f"cache_read_input_token_cost{suffix}": row.read / MILLION,
            f"output_cost_per_token{suffix}": row.output / MILLION}


def unbounded(body: dict) -> str:
    """The first part of the request whose tokens its text does not bound ('' when none)."""
    system = body.get("system")
    for path, block in _blocks("system", system if isinstance(system, list) else []):
        if block.get("type") != "text":   # the API takes text alone there: nothing else is sent on
            return f"{path} (a block of type {block.get('type')!r})"
    for index, tool in enumerate(body.get("tools") or []):
        if isinstance(tool, dict) and tool.get("type") not in (None, "custom"):
            return f"tools.{index} (type {tool.get('type')!r}, a tool the API defines)"
    for index, message in enumerate(body.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        for path, block in _blocks(f"messages.{index}.content", content):
            if block.get("type") not in TEXT_BLOCKS:
                return f"{path} (a block of type {block.get('type')!r})"
    return ""


def _blocks(path: str, content):
    """Every block of a message's content, those inside tool results too, with its path."""
    if not isinstance(content, list):
        return
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        yield f"{path}.{index}", block
        if block.get("type") == "tool_result":
            yield from _blocks(f"{path}.{index}.content", block.get("content"))


def prompt_bound(body: dict) -> int:
    """The most tokens the prompt can be: its bytes as JSON, and what the API adds for tools."""
    text = json.dumps([body.get("system") or "", body.get("tools") or [], body.get("messages") or []],
                      ensure_ascii=False)
    return len(text.encode()) + (API_ADDS if body.get("tools") else 0)


def worst_case(body: dict, row) -> float:
    """The most the request can cost, in dollars (the body must have no `unbounded` part)."""
    prompt = prompt_bound(body)
    while row.up_to is not None and prompt > row.up_to:
        row = row.above
    ttls = set(_cache_ttls(body))
    prompt_price = row.write_1h if "1h" in ttls else row.write_5m if ttls else row.input
    output = body.get("max_tokens") or 0
    return (prompt * prompt_price + output * row.output) / MILLION


def _cache_ttls(body: dict):
    """The time to live of every `cache_control` in the request ("5m" when it names none).

    A loop over a stack rather than recursion: the body's depth is the sender's to choose."""
    stack = [body]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            control = value.get("cache_control")
            if isinstance(control, dict):
                yield control.get("ttl") or "5m"
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
