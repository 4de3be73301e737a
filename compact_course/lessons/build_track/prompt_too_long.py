"""The safety net's trigger, is_prompt_too_long (notebook 06): the learner's answer against the package's.

Each case is an error made afresh for each side: the SDK's BadRequestError with the API's real
refusal (flaw 9: the article matched only "prompt_too_long" and "too many tokens"), the two older
spellings in any case of letters, and errors that are not it (a 400 for a lost tool_result, a
429, a 529, a plain error, and 400s whose words say "prompt" but not that it is too long: a
system prompt or prompt caching refused, their words written here in the API's manner, so that
matching "prompt" alone fails). Drawn ones vary the token counts, the spellings' case and the
other errors. Left out: an error whose text is only in its body (the SDK puts the message in
its text too).
"""

import httpx

from .run import Case
from .words import told

NAME, NOTEBOOK = "is_prompt_too_long", "06"
URL = "https://api.anthropic.com/v1/messages"

HINTS = (
    ("read the error's text, in lower case: the API's own words are 'prompt is too long'; the older "
     "spellings 'prompt_too_long' and 'too many tokens' count too.",
     "读错误的文本，转成小写：API 自己的说法是 'prompt is too long'；较早的写法 'prompt_too_long' "
     "和 'too many tokens' 也算。"),
    ("an error about something else is not it, even a 400 that says 'prompt': a lost tool_result, a "
     "refused system prompt, a rate limit (429) or an overloaded server (529) needs no compaction.",
     "关于其他事情的错误不算，即使是提到 'prompt' 的 400：丢失的 tool_result、被拒绝的系统提示、"
     "速率限制（429）或服务器过载（529）都不需要压缩。"),
)
FLAW_HINTS = {
    9: ("print str() of the SDK's BadRequestError for an oversized prompt: its words are 'prompt is too "
        "long: N tokens > M maximum', which neither of the article's two spellings matches.",
        "打印提示过长时 SDK 的 BadRequestError 的 str()：它的文字是 'prompt is too long: N tokens > "
        "M maximum'，文章的两种写法都匹配不到。"),
}
SAID = {
    "input": ("{kind} ({status}) saying {message!r}", "{kind}（{status}），文字为 {message!r}"),
    "missed": ("your function answered {got!r}: this error is the API refusing a prompt that is too long",
               "你的函数回答 {got!r}：这个错误正是 API 因提示过长而拒绝请求"),
    "false alarm": ("your function answered {got!r}: this error is about something else, and compacting "
                    "would not help",
                    "你的函数回答 {got!r}：这个错误与提示长度无关，压缩也无济于事"),
    "says prompt": ("its words say 'prompt', not that the prompt is too long",
                    "它的文字提到了 'prompt'，却没有说提示过长"),
    "not a bool": ("your function returned {kind}, not True or False",
                   "你的函数返回了 {kind}，而不是 True 或 False"),
}
KINDS = {   # the SDK's class name: (HTTP status, the API's error type)
    "BadRequestError": (400, "invalid_request_error"),
    "RateLimitError": (429, "rate_limit_error"),
    "InternalServerError": (529, "overloaded_error"),
}


def make_error(kind: str, message: str) -> Exception:
    """The SDK's error of that kind with the API's body, or a plain Exception (kind "Exception")."""
    if kind == "Exception":
        return Exception(message)
    import anthropic
    status, error_type = KINDS[kind]
    response = httpx.Response(status, request=httpx.Request("POST", URL))
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return getattr(anthropic, kind)(f"Error code: {status} - {body}", response=response, body=body)


def too_long(tokens: int, window: int = 200_000) -> str:
    return f"prompt is too long: {tokens} tokens > {window} maximum"


LOST = ("messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_003. Each "
        "`tool_result` block must have a corresponding `tool_use` block in the previous message.")


SYSTEM = "system.{n}.text: a text block of the system prompt must be non-empty"
CACHING = "prompt caching: a maximum of 4 blocks with cache_control may be provided. Found {n}."


def _case(label, kind, message, flaw=None):
    return Case(label, [], {}, flaw, data={"kind": kind, "message": message})


def fixed() -> list:
    return [
        _case(("the API's own refusal, as the SDK raises it", "SDK 抛出的 API 自己的拒绝"),
              "BadRequestError", too_long(210_445), flaw=9),
        _case(("the older spelling prompt_too_long", "较早的写法 prompt_too_long"), "Exception",
              "prompt_too_long: the request is over the model's window"),
        _case(("Too Many Tokens, in capitals", "大写的 Too Many Tokens"), "Exception",
              "Too Many Tokens in the request"),
        _case(("a 400 for a lost tool_result", "丢失 tool_result 的 400"), "BadRequestError", LOST),
        _case(("a 400 for an empty system prompt", "空系统提示的 400"), "BadRequestError",
              SYSTEM.format(n=0)),
        _case(("a 400 for prompt caching", "提示缓存的 400"), "BadRequestError", CACHING.format(n=5)),
        _case(("a rate limit (429)", "速率限制（429）"), "RateLimitError",
              "Number of request tokens has exceeded your per-minute rate limit"),
        _case(("an overloaded server (529)", "服务器过载（529）"), "InternalServerError", "Overloaded"),
    ]


def drawn(draw, count: int = 5) -> list:
    found = []
    for k in range(count):
        window = draw.choice((8_000, 200_000, 1_000_000))
        choice = draw.randrange(4)
        if choice == 0:
            kind, message = "BadRequestError", too_long(window + draw.randint(1, 90_000), window)
        elif choice == 1:
            spelling = draw.choice(("prompt_too_long", "too many tokens"))
            spelling = "".join(c.upper() if draw.random() < 0.3 else c for c in spelling)
            kind, message = "Exception", f"request refused: {spelling} ({window} max)"
        elif choice == 2:
            kind, message = "BadRequestError", draw.choice((
                LOST.replace("toolu_003", f"toolu_{draw.randint(100, 999)}"),
                SYSTEM.format(n=draw.randint(0, 3)), CACHING.format(n=draw.randint(5, 9))))
        else:
            kind, message = draw.choice((("RateLimitError", "rate limited"),
                                         ("InternalServerError", "Overloaded"),
                                         ("Exception", f"connection reset after {window} bytes")))
        flaw = 9 if choice == 0 else None   # the API's own words: the article's matcher misses them
        found.append(_case((f"drawn at random #{k + 1}", f"随机抽取 #{k + 1}"), kind, message, flaw))
    return found


def describe(case) -> str:
    status = KINDS.get(case.data["kind"], ("-",))[0]
    return told(SAID, "input", kind=case.data["kind"], status=status, message=case.data["message"][:90])


def reference(case, root):
    from context_compact.reactive import is_prompt_too_long
    return is_prompt_too_long(make_error(**case.data))


def run(function, case, root, calls):
    return function(make_error(**case.data))


def problems(case, got, expected, where) -> list:
    if not isinstance(got, bool):
        return [told(SAID, "not a bool", kind=type(got).__name__)]
    if got == expected:
        return []
    found = [told(SAID, "missed" if expected else "false alarm", got=got)]
    if not expected and "prompt" in case.data["message"].lower():
        found.append(told(SAID, "says prompt"))
    return found

