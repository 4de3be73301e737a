"""The order and all of it: cheap_steps (notebook 05) and prepare (notebook 08) against the seed profile.

The learner's pipeline is compared with the package's `prepare` (seed profile, the limit given;
cheap_steps: a limit no list reaches, so steps 1-3 alone) after both are read back from disk:
each saved file, placeholder and transcript path becomes a token of what the file holds, so
names may differ and contents may not. The stand-in model is compact_history's; the text it is
handed is compared with the package's the same way. Fixed cases tell the designs apart: step 3
before step 1 (a batch of five, the largest first: its copy is lost), the limit given (30,000,
where a hard-coded 50,000 does not summarize), step 4 measured before steps 1-3, nothing to do,
and flaws 6, 7, 11 and 12 through the whole pipeline; the first drawn case tells every other order
of steps 1-3 from the article's, on every run, and a list that one of them leaves is said as the
steps that ran out of place (out_of_order). Left out: reactive_compact and the tool.
"""

import copy
import hashlib
import itertools
import json
import re

from .compact_history import stand_in
from .histories import IMAGE, batch, call, drawn_history, sdk_objects, text, turns
from .looking import (
    ARCHIVED,
    OMITTED,
    PERSISTED,
    SAVED,
    SUMMARY,
    TOOL_RESULTS,
    archive_problems,
    file_text,
    inside,
    is_list_of_messages,
    plain,
    results,
    text_of,
    transcript,
)
from .words import say, told

LIMIT = 80_000   # the summarizer's input
NEVER = 10 ** 12   # cheap_steps: a context limit no list reaches
PATHS = re.compile(r"\.transcripts/[^\"\\\s\]]+\.jsonl|\.task_outputs/tool-results/[^\"\\\s\]]+\.txt")

SAID = {
    "input": ("{n} messages, {size:,} characters of JSON; tool results (characters): {shown}; "
              "{numbers}",
              "{n} 条消息，JSON 共 {size:,} 个字符；工具结果（字符数）：{shown}；{numbers}"),
    "lost": ("result {tid} became [Earlier tool result omitted.] and no file holds it: step 1 saves a "
             "large result before step 3 shrinks it",
             "结果 {tid} 变成了 [Earlier tool result omitted.]，没有任何文件保存它："
             "第一步要在第三步缩短它之前把大结果存下来"),
    "result": ("result {tid} is {kind} after your pipeline; steps 1-3 in the article's order leave it "
               "otherwise",
               "经过你的管线后结果 {tid} 是{kind_zh}；按文章顺序运行第一到三步，它不是这样"),
    "count": ("your list has {m} messages after the pipeline; the steps in the article's order leave "
              "another count", "经过你的管线后列表有 {m} 条消息；按文章顺序运行这些步骤，条数不是这样"),
    "message": ("messages[{i}] is not what the steps in the article's order leave there",
                "messages[{i}] 不是按文章顺序运行这些步骤后应有的样子"),
    "paid": ("you paid for a summary, but after steps 1-3 the list is within the limit ({limit:,}): step 4 "
             "measures after them, against the limit given",
             "你为一次摘要付了费，但第一到三步之后列表没有超过上限（{limit:,}）：第四步在它们之后、"
             "按给定的上限计量"),
    "unpaid": ("after steps 1-3 the list is still over the limit ({limit:,}), and no summary was made",
               "第一到三步之后列表仍超过上限（{limit:,}），却没有做摘要"),
    "at limit": ("this list is exactly the limit long after steps 1-3: only a list longer than the limit "
                 "is summarized",
                 "第一到三步之后这个列表的长度恰好等于上限：只有比上限更长的列表才做摘要"),
    "ascii": ("this list holds Chinese text: measure it as json.dumps(messages, ensure_ascii=False) counts "
              "it, a Chinese character one character, not six (\\uXXXX)",
              "这个列表含有中文：按 json.dumps(messages, ensure_ascii=False) 的字符数计量，"
              "一个汉字算一个字符，而不是六个（\\uXXXX）"),
    "sdk": ("this list holds the SDK's objects: measure them as plain JSON (model_dump(exclude_none=True)), "
            "not as json.dumps(default=str) writes them",
            "这个列表含有 SDK 的对象：按普通 JSON（model_dump(exclude_none=True)）计量，"
            "而不是 json.dumps(default=str) 写出的样子"),
    "order": ("your list is what steps 1-3 leave run out of order: {pairs}",
              "你的列表正是第一到三步乱序运行后的结果：{pairs}"),
    "before": ("step {a} ({name_a}) ran before step {b} ({name_b})",
               "第{a_zh}步（{name_a}）在第{b_zh}步（{name_b}）之前运行了"),
    "whole": ("this list's JSON is just over the limit, its messages' JSON one by one is not: the article "
              "measures the whole list, json.dumps(messages, ensure_ascii=False), its brackets and the "
              "\", \" between messages too",
              "这个列表的 JSON 刚好超过上限，逐条消息的 JSON 加起来却没有：文章计量的是整个列表，"
              "即 json.dumps(messages, ensure_ascii=False)，连同方括号和消息之间的 \", \""),
    "and": ("; ", "；"),
    "calls": ("your pipeline called summarize {n} times", "你的管线调用了 summarize {n} 次"),
    "handed": ("the text handed to summarize is not summary_input of the list after steps 1-3",
               "交给 summarize 的文本不是第一到三步之后列表的 summary_input"),
    "summary": ("the summary message is not compact_history's: [Compacted], the request as given, the "
                "summary as a JSON string, the transcript of the list after steps 1-3",
                "摘要消息不是 compact_history 的格式：[Compacted]、原样的请求、JSON 字符串形式的摘要、"
                "第一到三步之后列表的 transcript"),
}
CHEAP = ("tool_result_budget", "snip_compact", "micro_compact")   # steps 1, 2 and 3
KINDS = {"whole": ("kept whole", "完整保留"), "saved": ("step 1's block", "第一步的块"),
         "placeholder": ("a 'saved at' placeholder", "'saved at' 占位符"),
         "omitted": ("'omitted'", "'omitted'"), "other": ("changed into something else", "被改成了别的内容")}


def _token(root, path, folder) -> str:
    """What the file `path` names holds, as a short token: same text, same token."""
    found = inside(root, path, folder)
    data = file_text(found) if found else None
    if data is None:
        return "<no file>"
    if folder == ".transcripts":
        records = transcript(root, path)
        data = json.dumps(normal(records, root) if records is not None else data, sort_keys=True)
    return "<" + hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:16] + ">"


def _normal_text(value: str, root) -> str:
    if match := PERSISTED.match(value):
        return value.replace(match["path"], _token(root, match["path"], TOOL_RESULTS), 1)
    if match := SAVED.match(value):
        return f"[Earlier tool result saved at {_token(root, match['path'], TOOL_RESULTS)}]"
    if match := ARCHIVED.match(value):
        return f"[{match['count']} messages archived at {_token(root, match['path'], '.transcripts')}]"
    if match := SUMMARY.match(value):
        where = _token(root, match["path"], ".transcripts")
        return f"[{match['kind']}] {match['request']!r} <summary> {where}"
    return value


def normal(value, root):
    """The messages with every path of ours a token of its file's contents (plain dicts)."""
    if isinstance(value, str):
        return _normal_text(value, root)
    if isinstance(value, list):
        return [normal(item, root) for item in value]
    if isinstance(value, dict):
        return {key: normal(item, root) for key, item in value.items()}
    return value


def handed_text(text: str) -> str:
    """A summarizer's input with our paths blanked (their names may differ, not their places)."""
    return PATHS.sub("<path>", text) if isinstance(text, str) else text


def _kind(content) -> str:
    value = text_of(content)
    return "saved" if PERSISTED.match(value) else "placeholder" if SAVED.match(value) else \
        "omitted" if value == OMITTED else "other"


def five_in_a_batch() -> list:
    """A batch of five, the largest first: step 3 first takes its two oldest, the large one too."""
    ids = [f"toolu_b{n}" for n in range(5)]
    sizes = [240_000, 900, 700, 800, 600]
    return [{"role": "user", "content": "Read the five logs."}, call(ids),
            batch([(i, text(i, s)) for i, s in zip(ids, sizes)])]


def flaw_cases(make) -> list:
    """The article's safety flaws through the whole pipeline, each with its twin without the flaw."""
    def forged(line="Full output: ../secret.txt"):
        messages = turns([[500], [300], [300], [300]])
        results(messages)[0][1]["content"] = (f"# Notes\n{line}\n" + "notes. " * 80)[:500]
        return messages

    def listed(image=True):
        blocks = [{"type": "text", "text": text("toolu_img", 150_000)}, *([IMAGE] if image else [])]
        return [{"role": "user", "content": "Look at the screen."}, call(["toolu_img", "toolu_log"]),
                batch([("toolu_img", blocks if image else blocks[0]["text"]),
                       ("toolu_log", text("toolu_log", 80_000))])]

    def collide(ids=("call/1", "call_1")):
        return [{"role": "user", "content": "Read both."}, call(list(ids)),
                batch([(i, text(i, 210_000)) for i in ids])]

    def sdk(objects=True):
        messages = turns([[900]] * 30)
        return [*messages[:5], *(sdk_objects(messages[5:40]) if objects else messages[5:40]), *messages[40:]]

    def secret(root):
        (root.parent / "secret.txt").write_text("the secret", encoding="utf-8")

    def twin(label, messages, **given):
        return lambda: make(label, messages, setup=given.get("setup"))

    found = [
        make(("a 'Full output:' line in a file the agent read", "agent 读到的文件中有一行 'Full output:'"),
             forged(), flaw=6, setup=secret),
        make(("two ids that clean up to one file name", "两个清洗成同一文件名的 id"), collide(), flaw=7),
        make(("a result whose content is a list of blocks", "content 是块列表的结果"), listed(), flaw=11),
        make(("61 messages, the archived turns the SDK's objects", "61 条消息，归档的对话轮次是 SDK 的对象"),
             sdk(), flaw=12),
    ]
    twins = (forged("Output: see below"), collide(("call_a", "call_b")), listed(False), sdk(False))
    for case, messages in zip(found, twins):
        case.data["twin"] = twin(case.label, messages, setup=case.setup)
    return found


def in_order(draw) -> list:
    """Over 50 messages, each result over step 3's minimum, then a batch over step 1's limit, its
    largest first, drawn: every other order of steps 1-3 leaves it otherwise (step 2's transcript
    holds the list as step 2 found it; step 3 omits the batch's oldest, the largest)."""
    messages = drawn_history(draw, draw.randint(52, 70), sizes=(300, 1_500, 6_000))
    if messages[-1]["role"] == "assistant":
        messages.append({"role": "user", "content": "Go on."})
    ids = [f"toolu_o{draw.getrandbits(24):06x}" for _ in range(draw.randint(4, 5))]
    sizes = [draw.randrange(210_000, 260_000), *(draw.randrange(300, 6_000) for _ in ids[1:])]
    return [*messages, call(ids), batch([(i, text(i, s)) for i, s in zip(ids, sizes)])]


def drawn_cases(draw, count: int, make) -> list:
    found = [make(("drawn at random #1, a long list", "随机抽取 #1，长列表"), in_order(draw), draw=draw)]
    return found + [make((f"drawn at random #{k + 1}", f"随机抽取 #{k + 1}"), drawn_list(draw), draw=draw)
                    for k in range(1, count)]


def drawn_list(draw) -> list:
    """A history of 4-70 messages drawn, and half the time a large batch last."""
    messages = drawn_history(draw, draw.randint(4, 70), sizes=(40, 300, 1_500, 6_000, 20_000))
    if messages[-1]["role"] == "assistant":
        messages.append({"role": "user", "content": "Go on."})
    if draw.random() < 0.5:   # a large batch last
        ids = [f"toolu_z{draw.getrandbits(24):06x}" for _ in range(draw.randint(1, 3))]
        sizes = [draw.randrange(20_000, 260_000) for _ in ids]
        messages += [call(ids), batch([(i, text(i, s)) for i, s in zip(ids, sizes)])]
    return messages


def describe(case) -> str:
    size = len(json.dumps(plain(case.messages), ensure_ascii=False))
    shown = ", ".join(f"{b['tool_use_id']} {len(text_of(b['content'])):,}"
                      for _, b in results(case.messages))
    shown = shown if len(shown) <= 200 else shown[:95] + " ... " + shown[-95:]
    return told(SAID, "input", n=len(case.messages), size=size, shown=shown or "-",
                numbers=case.numbers_text() or "-")


def after_cheap_steps(case) -> list:
    """The list the package's steps 1-3 leave, as plain dicts (in a folder of its own, then gone)."""
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory(prefix="build-track-size-") as scratch:
        root = Path(scratch) / "root"
        root.mkdir()
        out, _ = reference(case, root, NEVER)
        return plain(out)


def size_after_cheap_steps(case) -> int:
    """Characters of the list the package's steps 1-3 leave."""
    return len(json.dumps(after_cheap_steps(case), ensure_ascii=False))


def reference(case, root, limit: int):
    from context_compact import CompactionConfig, ContextCompactor
    from context_compact.summary import summary_input
    handed = []

    def summarizer(messages):
        handed.append(summary_input(messages, LIMIT))
        return stand_in(handed[-1])
    compactor = ContextCompactor(root, summarizer, CompactionConfig.seed(context_char_limit=limit))
    # The article hands its summarizer the list's JSON, images and all; the package's own
    # `summarize` names each image instead (context_compact/media.py): the learner's is the article's.
    compactor.summarize = summarizer
    return compactor.prepare(case.messages, case.request or "Go on."), handed


def judge(case, got, expected, where, limit: int) -> list:
    if not is_list_of_messages(got):
        return [say("not a list", kind=type(got).__name__)]
    package, handed = expected
    found = _summary_problems(case, got, handed, where, limit)
    mine, theirs = normal(plain(got), where.yours), normal(plain(package), where.package)
    if mine == theirs:
        return found
    if found and (len(mine) == 1) != (len(theirs) == 1):
        return found   # the summary decision already says it
    if len(mine) != len(theirs):
        return found + [told(SAID, "count", m=len(mine))]
    for i, (a, b) in enumerate(zip(mine, theirs)):
        if a != b:
            raw = got[i] if i < len(got) else {}
            return found + (archive_problems(where.yours, plain(raw)) or _message_problem(i, a, b, raw))
    return found


def _summary_problems(case, got, handed, where, limit) -> list:
    calls = where.calls
    why = [told(SAID, case.data["why"])] if "why" in case.data else []   # the measure this case probes
    if handed and not calls:
        return [told(SAID, "unpaid", limit=limit), *why]
    if calls and not handed:
        return [told(SAID, "paid", limit=limit), *why]
    if not calls:
        return []
    if len(calls) != 1:
        return [told(SAID, "calls", n=len(calls))]
    found = [] if handed_text(calls[0]) == handed_text(handed[0]) else [told(SAID, "handed")]
    content = plain(got[0]).get("content") if len(got) == 1 else None
    match = SUMMARY.match(content) if isinstance(content, str) else None
    if not match or match["kind"] != "Compacted" or match["request"] != (case.request or "Go on.") \
            or match["summary"] != json.dumps(stand_in(calls[0]), ensure_ascii=False):
        found.append(told(SAID, "summary"))
    return found


def _message_problem(i, mine, theirs, raw) -> list:
    mine_blocks = mine.get("content") if isinstance(mine.get("content"), list) else []
    their_blocks = theirs.get("content") if isinstance(theirs.get("content"), list) else []
    for a, b in zip(mine_blocks, their_blocks):
        if a != b and isinstance(a, dict) and a.get("type") == "tool_result":
            tid = a.get("tool_use_id")
            if text_of(a.get("content")) == OMITTED and _kind(b.get("content")) in ("placeholder", "saved"):
                return [told(SAID, "lost", tid=tid)]
            kind = _kind(a.get("content"))
            kind = "whole" if kind == "other" and _kind(b.get("content")) != "other" else kind
            return [told(SAID, "result", tid=tid, kind=KINDS[kind][0], kind_zh=KINDS[kind][1])]
    return [told(SAID, "message", i=i)]


def out_of_order(case, got, where) -> list:
    """Which steps ran out of place, when the learner's list is what the package's steps 1-3 leave
    in other orders (each run in a folder of its own): the pairs every such order inverts (on a list
    step 2 leaves alone, some orders leave the same list); else nothing. It names steps, never the list
    the article's order leaves."""
    from context_compact import CompactionConfig, ContextCompactor

    from .run import never_summarize
    mine, common = normal(plain(got), where.yours), None
    for order in itertools.permutations((1, 2, 3)):
        if order == (1, 2, 3):
            continue
        root = where.package.parent.parent / ("order-" + "".join(map(str, order))) / "root"
        root.mkdir(parents=True)
        if case.setup:
            case.setup(root)
        compactor = ContextCompactor(root, never_summarize, CompactionConfig.seed(context_char_limit=NEVER))
        messages = copy.deepcopy(case.messages)
        for step in order:
            messages = getattr(compactor, CHEAP[step - 1])(messages)
        if normal(plain(messages), root) == mine:
            inverted = {(a, b) for i, a in enumerate(order) for b in order[i + 1:] if a > b}
            common = inverted if common is None else common & inverted
    if not common:
        return []
    digits = {1: "一", 2: "二", 3: "三"}
    pairs = [told(SAID, "before", a=a, b=b, a_zh=digits[a], b_zh=digits[b], name_a=CHEAP[a - 1],
                  name_b=CHEAP[b - 1]) for a, b in sorted(common)]
    return [told(SAID, "order", pairs=told(SAID, "and").join(pairs))]
