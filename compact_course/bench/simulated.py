"""Long agent sessions for the benchmark, made up turn by turn from a fixed seed.

The article's pipeline is judged on one call at a time; the benchmark
(`compact_course.bench.benchmark`) asks what each design costs and loses over a whole session.
These generators supply the sessions: per turn (one model call), the assistant
message the model would produce and the user message that follows it (tool
results, or a new request typed by the user).

Three kinds, all in the Messages API format as plain dicts:
- "tool-heavy": many file reads, test logs and searches, a few huge outputs
  (one alone can pass CONTEXT_CHAR_LIMIT; rarely a batch passes the 200000
  batch limit of step 1);
- "chat-heavy": long assistant answers, short follow-up requests, few tools;
- "chinese": tool-heavy work with Chinese notes, requests and file contents,
  so characters and tokens part ways (flaw 13 in docs/DESIGN.md).

A session of N turns is the first N turns of a longer one with the same seed,
so 120 and 400 turns can be compared call by call. On some calls the model
needs the text of an earlier output (`Turn.refers_to`, recency-biased and
seeded): the benchmark counts a miss when that text is not in what was sent. Left out on purpose: any
dependence of the model's reply on what the compactor kept (the replies are
canned), and real file contents (the text is synthetic, made of short
sentences and code lines written for this module).

The clock (`call_times`): when each call is sent, in seconds from the first,
drawn from a random stream of its own (the text never changes with it). After
a call, the model writes its reply (MODEL_SECONDS plus SECONDS_PER_TOKEN a
token of it); then either the tools run (TOOL_SECONDS each) or, when the turn
ends with a request the user typed, the user pauses: USER_PAUSE seconds as a
rule, and now and then a long pause (LONG_PAUSES: a coffee past the 5-minute
cache lifetime, a meeting past the hour). The figures are ours, of a plausible
order, not measured; `pauses=False` leaves the user's pauses out. Two more
clocks (`CLOCKS`, issue 43's): "pauses", every user pause 6-10 minutes (past the
5-minute cache, within the hour); "cold", every call 6-10 minutes after the one
before, tool runs too: no call survives the 5-minute cache.
"""

import json
import random
from dataclasses import dataclass, replace

from ..offline.tokens import estimate_text_tokens

KINDS = ("tool-heavy", "chat-heavy", "chinese")


@dataclass(frozen=True)
class Turn:
    assistant: dict
    user: dict
    request: str | None = None   # set when `user` is a new request the user typed
    refers_to: str | None = None  # the earlier output the model needs on this call (misses)


@dataclass(frozen=True)
class Session:
    kind: str
    opening: dict                # the first user message
    request: str                 # its text: the active request of the first call
    turns: tuple

    def outputs(self) -> dict:
        """tool_use_id -> the original text of every tool result in the session."""
        found = {}
        for turn in self.turns:
            content = turn.user.get("content")
            if isinstance(content, list):
                for block in content:
                    if block.get("type") == "tool_result":
                        found[block["tool_use_id"]] = block["content"]
        return found


# -- text made of small parts -------------------------------------------------

NOUNS = ("cart", "order", "invoice", "customer", "payment", "stock", "coupon", "refund",
         "session", "report", "shipment", "price", "tax", "account", "basket")
VERBS = ("load", "save", "check", "apply", "compute", "merge", "format", "find", "cancel",
         "update", "parse", "render", "sync", "close", "split")
FILES = ("shop/cart.py", "shop/orders.py", "shop/payments.py", "shop/stock.py",
         "shop/api/routes.py", "shop/tax.py", "shop/reports.py", "tests/test_cart.py",
         "tests/test_orders.py", "tests/test_payments.py", "docs/design.md", "README.md")
LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR")

ZH_SENTENCES = (
    "这个函数读取配置文件，然后返回一个字典。", "如果缓存已经过期，就重新计算结果。",
    "测试在第二步失败了，因为路径写错了。", "大的工具输出先保存到磁盘上。",
    "摘要只保留目标、决定和剩下的工作。", "请先看日志，再动手改代码。",
    "用户要求不要改动公共接口。", "每次调用模型之前都要整理一次上下文。",
    "旧的结果会换成一个简短的占位符。", "这一段说明模块之间怎样互相调用。",
    "运行脚本以后，输出里有三条警告。", "下一步是给这个类补上单元测试。",
    "订单金额要先算税，再减去优惠券。", "库存不足的时候，接口返回四百零九。",
    "退款记录按日期排序，方便对账。", "这里的锁只保护写操作，读操作不加锁。",
)
ZH_FILES = ("文档/设计说明.md", "文档/接口约定.md", "文档/发布记录.md", "shop/订单.py",
            "shop/库存.py", "tests/测试_购物车.py", "日志/同步任务.log", "README.zh.md")
ZH_REQUESTS = (
    "请修复购物车测试里失败的用例，不要改公共接口。", "把库存同步的日志整理一下，找出报错原因。",
    "给订单模块补上退款的单元测试。", "检查设计说明和代码是否一致，列出不一致的地方。",
    "优化报表生成的速度，先量一下现在有多慢。", "把优惠券的计算挪到税费之前，并更新文档。",
)
EN_REQUESTS = (
    "Fix the failing cart test without changing the public API.",
    "Find out why the stock sync job logs errors every night.",
    "Add refund tests to the orders module.",
    "Check that docs/design.md matches the code and list every difference.",
    "Make report generation faster; measure it first.",
    "Apply coupons before tax and update the docs to say so.",
)
CHAT_TOPICS = ("caching", "retries", "database indexes", "error handling", "logging",
               "API versioning", "test fixtures", "code review", "deployment", "profiling")


def _code(rng, size: int) -> str:
    """Python-looking lines until `size` characters."""
    lines = []
    total = 0
    while total < size:
        verb, noun = rng.choice(VERBS), rng.choice(NOUNS)
        block = [
            f"def {verb}_{noun}(self, {noun}_id, limit={rng.randint(1, 99)}):",
            f'    """{verb.capitalize()} one {noun}; raise KeyError when it is unknown."""',
            f"    {noun} = self.{noun}s[{noun}_id]",
            f"    if {noun}.{rng.choice(NOUNS)}_count > limit:",
            f"        return self.{rng.choice(VERBS)}_{noun}({noun}, limit - {rng.randint(1, 9)})",
            f"    return {noun}",
            "",
        ]
        lines.extend(block)
        total += sum(len(line) + 1 for line in block)
    return "\n".join(lines)[:size]


def _log(rng, size: int) -> str:
    lines, total, clock = [], 0, 0.0
    while total < size:
        clock += rng.random() * 0.4
        line = (f"[{clock:9.3f}s] {rng.choice(LEVELS):7} worker-{rng.randint(1, 8)}: "
                f"{rng.choice(VERBS)} {rng.choice(NOUNS)} {rng.randint(1, 9999)} "
                f"({rng.randint(1, 500)} items, {rng.randint(1, 900)} ms)")
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


def _zh_text(rng, size: int) -> str:
    parts, total = [], 0
    while total < size:
        if rng.random() < 0.15:
            part = f"\n\n## 第{rng.randint(1, 30)}节\n\n"
        else:
            part = rng.choice(ZH_SENTENCES)
        parts.append(part)
        total += len(part)
    return "".join(parts)[:size]


def _en_prose(rng, size: int) -> str:
    parts, total = [], 0
    while total < size:
        topic = rng.choice(CHAT_TOPICS)
        sentence = (f"For {topic}, the {rng.choice(NOUNS)} code should {rng.choice(VERBS)} "
                    f"each {rng.choice(NOUNS)} once and keep {rng.randint(2, 20)} "
                    f"{rng.choice(NOUNS)}s in memory at most. ")
        if rng.random() < 0.1:
            sentence += "\n\n"
        parts.append(sentence)
        total += len(sentence)
    return "".join(parts)[:size]


# -- one tool call: (name, input, result text) ----------------------------------

def _tool_call(rng, kind: str, huge: int = 0):
    chinese = kind == "chinese"
    if huge:
        return "bash", {"command": "python -m pytest -vv 2>&1"}, _log(rng, huge)
    roll = rng.random()
    if roll < 0.45:
        if chinese:
            path = rng.choice(ZH_FILES)
            return "read_file", {"path": path}, _zh_text(rng, rng.randint(300, 3000))
        path = rng.choice(FILES)
        return "read_file", {"path": path}, _code(rng, rng.randint(500, 5000))
    if roll < 0.7:
        return "bash", {"command": "python -m pytest -q"}, _log(rng, rng.randint(800, 6000))
    if roll < 0.88:
        pattern = f"**/*{rng.choice(NOUNS)}*"
        hits = "\n".join(rng.choice(ZH_FILES if chinese else FILES)
                         for _ in range(rng.randint(2, 12)))
        return "glob", {"pattern": pattern}, hits
    path = rng.choice(ZH_FILES if chinese else FILES)
    return ("edit_file", {"path": path, "old_text": "limit=10", "new_text": "limit=20"},
            f"Edited {path}")


def _tool_turn(rng, kind: str, number: int) -> Turn:
    if rng.random() < 1 / 200:
        # Two results far over LARGE_RESULT_CHAR_LIMIT whose batch passes
        # TOOL_RESULT_BATCH_CHAR_LIMIT, the one case step 1 acts on.
        calls = [_tool_call(rng, kind, huge=rng.randint(110_000, 130_000)) for _ in range(2)]
    elif rng.random() < 1 / 30:
        calls = [_tool_call(rng, kind, huge=rng.randint(35_000, 120_000))]
    else:
        width = rng.choices((1, 2, 3, 5), weights=(60, 20, 10, 10))[0]
        calls = [_tool_call(rng, kind) for _ in range(width)]
    uses, results = [], []
    for k, (name, data, text) in enumerate(calls):
        use_id = f"toolu_{number:04d}_{k}_{rng.getrandbits(40):010x}"
        uses.append({"type": "tool_use", "id": use_id, "name": name, "input": data})
        results.append({"type": "tool_result", "tool_use_id": use_id, "content": text})
    if kind == "chinese":
        note = _zh_text(rng, rng.randint(20, 120))
    else:
        # The first input (a path, a command or a pattern) names what is read.
        note = f"Next I will look at {next(iter(calls[0][1].values()))}."
    assistant = {"role": "assistant", "content": [{"type": "text", "text": note}, *uses]}
    return Turn(assistant, {"role": "user", "content": results})


def _answer_turn(rng, kind: str, number: int) -> Turn:
    """The model answers in text; the user types the next request."""
    if kind == "chinese":
        answer, request = _zh_text(rng, rng.randint(200, 800)), rng.choice(ZH_REQUESTS)
    elif kind == "chat-heavy":
        answer = _en_prose(rng, rng.randint(800, 3000))
        request = (f"Thanks. Now explain how {rng.choice(CHAT_TOPICS)} affects the "
                   f"{rng.choice(NOUNS)} module, with an example.")
    else:
        answer, request = _en_prose(rng, rng.randint(300, 900)), rng.choice(EN_REQUESTS)
    # Numbered by turn: no two requests of a session read the same, so the
    # current one can be found by its text (the Request invariant in docs/DESIGN.md).
    request = f"{request} (#{number})"
    return Turn({"role": "assistant", "content": [{"type": "text", "text": answer}]},
                {"role": "user", "content": request}, request)


# -- what the model needs on each call ------------------------------------------

REFER_CHANCE = 0.3   # calls on which the model needs an earlier output's text


def _reference(rng, outputs: list) -> str | None:
    """The earlier output the model needs on this call, or None.

    Recency-biased: the output k outputs back is chosen with weight 1/k, so the
    newest is the likeliest and an old one is still possible.
    """
    if not outputs or rng.random() >= REFER_CHANCE:
        return None
    back = rng.choices(range(1, len(outputs) + 1), weights=[1 / k for k in range(1, len(outputs) + 1)])[0]
    return outputs[-back]


def make_session(kind: str, turns: int, seed: int = 0) -> Session:
    """A session of `turns` model calls; the same (kind, seed) always gives the same text.

    Each call may need an earlier output (`Turn.refers_to`), drawn from a random
    stream of its own, so the references never change the session's text.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown session kind {kind!r}: use one of {', '.join(KINDS)}")
    if not isinstance(turns, int) or isinstance(turns, bool) or turns < 1:
        raise ValueError(f"turns must be a positive integer, got {turns!r}")
    rng = random.Random(f"{kind}:{seed}")
    requests = ZH_REQUESTS if kind == "chinese" else EN_REQUESTS
    request = f"{rng.choice(requests)} (#0)"
    # Chat-heavy work answers most turns in text; tool-heavy work answers
    # every 12-25 turns, when one task is done.
    answer_chance = 0.8 if kind == "chat-heavy" else None
    left = rng.randint(12, 25)
    refers, outputs, made = random.Random(f"{kind}:{seed}:refers"), [], []
    for number in range(1, turns + 1):
        if answer_chance is not None:
            done = rng.random() < answer_chance
        else:
            left -= 1
            done = left <= 0
            if done:
                left = rng.randint(12, 25)
        turn = _answer_turn(rng, kind, number) if done else _tool_turn(rng, kind, number)
        made.append(replace(turn, refers_to=_reference(refers, outputs)))
        outputs.extend(block["tool_use_id"] for block in turn.user["content"]
                       if isinstance(turn.user["content"], list))
    return Session(kind, {"role": "user", "content": request}, request, tuple(made))


def session_messages(session: Session) -> tuple[list, str]:
    """A session as one history: (its messages, the request of its last turn)."""
    messages, request = [session.opening], session.request
    for turn in session.turns:
        messages += [turn.assistant, turn.user]
        request = turn.request or request
    return messages, request


# -- the clock ------------------------------------------------------------------

MODEL_SECONDS = 2.0          # before the first token of a reply
SECONDS_PER_TOKEN = 1 / 60   # then about 60 tokens a second
TOOL_SECONDS = (0.5, 20.0)   # one tool's run, uniform
USER_PAUSE = (5.0, 120.0)    # reading the answer and typing the next request, uniform
# (chance, shortest, longest seconds): a long pause now and then, drawn in this order.
LONG_PAUSES = ((0.02, 65 * 60.0, 180 * 60.0), (0.08, 6 * 60.0, 40 * 60.0))
PAST_THE_CACHE = (6 * 60.0, 10 * 60.0)   # issue 43's pause: past 5 minutes, within the hour
# name -> (the user's pause, one tool's run, each drawn from the clock's stream), the bench's first.
CLOCKS = {
    "bench": (lambda rng: _user_pause(rng), lambda rng: rng.uniform(*TOOL_SECONDS)),
    "pauses": (lambda rng: rng.uniform(*PAST_THE_CACHE), lambda rng: rng.uniform(*TOOL_SECONDS)),
    "cold": (lambda rng: rng.uniform(*PAST_THE_CACHE), lambda rng: rng.uniform(*PAST_THE_CACHE)),
}


def _user_pause(rng) -> float:
    for chance, low, high in LONG_PAUSES:
        if rng.random() < chance:
            return rng.uniform(low, high)
    return rng.uniform(*USER_PAUSE)


def call_times(session: Session, pauses: bool = True, clock: str = "bench") -> list[float]:
    """The time of each model call of `session`, in seconds from the first (see above).

    The same session always gets the same clock, and a session of N turns the
    first N times of a longer one; `pauses=False`: the same tools and model, no user;
    `clock`: a row of CLOCKS.
    """
    if clock not in CLOCKS:
        raise ValueError(f"unknown clock {clock!r}: use one of {', '.join(CLOCKS)}")
    user_pause, tool_run = CLOCKS[clock]
    rng = random.Random(f"{session.kind}:{session.request}:clock")
    times, now = [], 0.0
    for turn in session.turns:
        times.append(now)
        reply = estimate_text_tokens(json.dumps(turn.assistant, ensure_ascii=False))
        now += MODEL_SECONDS + reply * SECONDS_PER_TOKEN
        if turn.request is not None:
            pause = user_pause(rng)
            now += pause if pauses else 0.0
        else:
            uses = sum(1 for block in turn.assistant["content"] if block.get("type") == "tool_use")
            now += sum(tool_run(rng) for _ in range(uses))
    return times
