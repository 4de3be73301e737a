"""Step 1, tool_result_budget (notebook 01): the learner's against the package's seed profile.

Fixed cases tell designs apart (largest first and stop; the limits given, not the article's;
a result exactly large_limit long; a batch within its limit; the newest message not a batch)
and probe flaws 7 and 11; drawn ones vary the limits, the preview, the batch and the history
before it. A result the package saved must be saved by the learner too, in a file of
root/.task_outputs/tool-results/ that holds exactly its text (the name is free: the package's
avoids collisions), behind step 1's block with the right preview and the path relative to
root (an absolute one is told). Left out: batches with results saved on an earlier call.
"""

from pathlib import Path

from .histories import IMAGE, batch, call, drawn_history, drawn_id, text, turns
from .looking import PERSISTED, TOOL_RESULTS, file_text, inside, is_list_of_messages, others, plain, text_of
from .run import Case, never_summarize, on_messages
from .words import say, told

NAME, NOTEBOOK = "tool_result_budget", "01"
ARTICLE = {"batch_limit": 200_000, "large_limit": 30_000, "preview_chars": 2_000}

HINTS = (
    ("look at the last message only: is it a user message whose content is a list holding tool_result "
     "blocks? If not, return the list as it is. If so, measure each result by its text and add them up.",
     "只看最后一条消息：它是不是一条 content 为列表、含有 tool_result 块的 user 消息？不是就原样返回。"
     "是的话，按文本计量每个结果，把它们加起来。"),
    ("walk the results from the largest to the smallest: stop as soon as the total is within batch_limit, "
     "skip a result that is not longer than large_limit, and after each result you save, take its length "
     "off the total and add its new block's length (the preview stays in the batch).",
     "从最大到最小依次处理结果：总数一旦不超过 batch_limit 就停止；不长于 large_limit 的结果跳过；"
     "每转存一个，从总数中减去它的长度，再加上它的新块的长度（预览仍在批次中）。"),
    ("every number comes from the parameters: the checker draws batch_limit, large_limit and preview_chars "
     "at random. The file holds the text exactly, and the block's path is that file's path relative to root.",
     "每个数值都来自参数：检查器会随机抽取 batch_limit、large_limit 和 preview_chars。"
     "文件恰好保存文本，块中的路径是这个文件相对于 root 的路径。"),
)
FLAW_HINTS = {
    7: ("two different ids can clean up to one file name. Before you reuse a file that is there, make sure "
        "it holds this very text; if not, choose another name (the package adds a short hash of the real id "
        "when cleaning changed it).",
        "两个不同的 id 可能清洗成同一个文件名。复用已存在的文件之前，确认它保存的正是这段文本；"
        "否则换一个名字（清洗改变了 id 时，包会加上真实 id 的一段短哈希）。"),
    11: ("when the content is a list of blocks, its text is its text blocks' texts joined with a newline: "
         "measure and save that, and keep the list: one text block holding step 1's block, then the other "
         "blocks (the image) as they were.",
         "content 是块的列表时，它的文本是其中 text 块的文本用换行连接起来：计量和保存这段文本，"
         "并保留列表：一个放着第一步的块的 text 块，后面是原样的其他块（图片）。"),
}


def _case(label, messages, flaw=None, twin=None, **numbers):
    case = Case(label, messages, {**ARTICLE, **numbers}, flaw)
    if twin is not None:   # the same batch without the flaw (run.twin_of)
        case.data["twin"] = lambda: _case(label, twin, **numbers)
    return case


def _two(ids) -> list:
    return [{"role": "user", "content": "Read both."}, call(list(ids)),
            batch([(i, text(i, 210_000)) for i in ids])]


def _batch_of(sizes, start=0):
    return turns([[1_200], sizes], start=start)


def fixed() -> list:
    image_text = text("toolu_img", 150_000)
    return [
        _case(("the batch over its limit: one huge result", "批次超过上限：一个巨大的结果"),
              _batch_of([250_000, 800])),
        _case(("largest first, and stop once within the limit", "从最大的开始，回到上限以内就停"),
              _batch_of([40_000, 60_000, 120_000, 90_000])),
        # One move takes the total to 199,000 if the preview is forgotten, 201,100 with it:
        # only a build that counts the block left behind moves the second result too.
        _case(("the preview still counts: a second result must move", "预览仍然计入：还要转存第二个结果"),
              _batch_of([40_000, 35_000, *[20_500] * 8])),
        _case(("a batch within its limit: nothing to do", "批次没有超过上限：什么也不做"),
              _batch_of([100_000, 80_000])),
        _case(("batch_limit given: 100,000, not the article's", "给定 batch_limit：100,000，不是文章的数值"),
              _batch_of([70_000, 50_000]), batch_limit=100_000),
        _case(("large_limit given: results under it stay", "给定 large_limit：比它短的结果保留"),
              _batch_of([90_000, 70_000, 65_000]), batch_limit=100_000, large_limit=75_000),
        _case(("a result exactly large_limit long stays", "恰好 large_limit 长的结果保留"),
              _batch_of([75_000, 70_000, 65_000]), batch_limit=100_000, large_limit=75_000),
        _case(("preview_chars given: 500", "给定 preview_chars：500"), _batch_of([250_000]),
              preview_chars=500),
        _case(("the newest message is not a batch", "最新的消息不是批次"),
              [*_batch_of([250_000]), {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}]),
        _case(("two ids that clean up to one file name", "两个清洗成同一文件名的 id"),
              _two(("call/1", "call_1")), flaw=7, twin=_two(("call_a", "call_b"))),
        _case(("a result whose content is a list of blocks (text and an image)",
               "content 是块列表（文本和图片）的结果"),
              [{"role": "user", "content": "Look at the screen."}, call(["toolu_img", "toolu_log"]),
               batch([("toolu_img", [{"type": "text", "text": image_text}, IMAGE]),
                      ("toolu_log", text("toolu_log", 80_000))])], flaw=11),
    ]


def drawn(draw, count: int = 5) -> list:
    found = []
    for k in range(count):
        batch_limit = draw.randrange(20_000, 260_000)
        large_limit = draw.randrange(3_000, batch_limit // 2)
        numbers = {"batch_limit": batch_limit, "large_limit": large_limit,
                   "preview_chars": draw.randrange(100, 2_500)}
        messages = drawn_history(draw, draw.randint(1, 8))
        if messages[-1]["role"] == "user" and not isinstance(messages[-1]["content"], str):
            messages.append({"role": "assistant", "content": [{"type": "text", "text": "Next."}]})
        if messages[-1]["role"] == "assistant":
            messages.append({"role": "user", "content": "Go on."})
        sizes, wanted = set(), draw.randint(1, 6)
        while len(sizes) < wanted:
            sizes.add(draw.choice((draw.randrange(50, 3_000), draw.randrange(3_000, large_limit + 1),
                                   draw.randrange(large_limit + 1, batch_limit + 40_000))))
        ids = [drawn_id(draw) for _ in sizes]
        shuffled = sorted(sizes, key=lambda _: draw.random())
        messages += [call(ids), batch([(i, text(i, s)) for i, s in zip(ids, shuffled)])]
        found.append(Case((f"drawn at random #{k + 1}", f"随机抽取 #{k + 1}"), messages, numbers))
    return found


SAID = {
    "newest": ("newest batch: {shown} characters", "最新批次：{shown} 个字符"),
    "no batch": ("the newest message is not a batch", "最新的消息不是批次"),
    "listed": (" (list of blocks)", "（块列表）"),
    "input": ("{n} messages; {newest}; {numbers}", "{n} 条消息；{newest}；{numbers}"),
    "count": ("your list has {m} messages where the input had {n}: step 1 changes only the newest batch's "
              "results",
              "你的列表有 {m} 条消息，输入有 {n} 条：第一步只改变最新批次中的结果"),
    "older": ("you changed messages[{i}], which is not the newest batch",
              "你改动了 messages[{i}]，它不是最新批次"),
    "no results": ("you changed the newest message, which holds no tool result",
                   "你改动了最新的消息，它不含工具结果"),
    "blocks": ("the newest message no longer has its {n} blocks", "最新的消息不再是原来的 {n} 个块"),
    "not a result": ("you changed a block that is not a tool result",
                     "你改动了一个不是工具结果的块"),
    "stayed": ("result {tid} ({size:,} characters) stayed whole, but the batch was over batch_limit when its "
               "turn came and it is longer than large_limit",
               "结果 {tid}（{size:,} 个字符）保持完整，但轮到它时批次仍超过 batch_limit，"
               "且它长于 large_limit"),
    "changed": ("result {tid} ({size:,} characters) was changed; it stays whole: it is not longer than "
                "large_limit, or the batch was within batch_limit before its turn (largest first, total "
                "again after each)",
                "结果 {tid}（{size:,} 个字符）被改动了；它应保持完整：它不长于 large_limit，"
                "或者轮到它之前批次已在 batch_limit 以内（从最大的开始，每次之后重新求和）"),
    "answers": ("the block that answered {tid} no longer does", "原来回应 {tid} 的块不再回应它"),
    "shape": ("the text of {tid} is not step 1's block (<persisted-output>, Full output: <path>, Preview:, "
              "the preview, </persisted-output>, one a line)",
              "{tid} 的文本不是第一步的块（<persisted-output>、Full output: <path>、Preview:、"
              "预览、</persisted-output>，各占一行）"),
    "absolute": ("the path in {tid}'s block is absolute: it is the file's path relative to root",
                 "{tid} 的块中的路径是绝对路径：应当是文件相对于 root 的路径"),
    "no file": ("the path in {tid}'s block does not name a file in root/{folder}/",
                "{tid} 的块中的路径没有指向 root/{folder}/ 中的文件"),
    "repr": ("the file for {tid} holds str() of its list of blocks, not its text",
             "{tid} 的文件保存的是块列表的 str()，不是它的文本"),
    "other's": ("the file {path} named in {tid}'s block holds the text of {owner}, not of {tid}",
                "{tid} 的块所指的文件 {path} 保存的是 {owner} 的文本，不是 {tid} 的"),
    "not its text": ("the file {path} named in {tid}'s block does not hold exactly that result's text",
                     "{tid} 的块所指的文件 {path} 没有恰好保存那条结果的文本"),
    "preview": ("the preview of {tid} is not the first preview_chars characters of its text",
                "{tid} 的预览不是它文本的前 preview_chars 个字符"),
    "image": ("{tid}'s other blocks (an image) are no longer in context as they were",
              "{tid} 的其他块（图片）没有原样留在上下文中"),
}


def describe(case) -> str:
    last = case.messages[-1]
    blocks = [b for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_result"] \
        if last["role"] == "user" and isinstance(last["content"], list) else []
    if blocks:
        shown = ", ".join(f"{b['tool_use_id']} {len(text_of(b['content'])):,}"
                          + (told(SAID, "listed") if isinstance(b["content"], list) else "") for b in blocks)
        newest = told(SAID, "newest", shown=shown)
    else:
        newest = told(SAID, "no batch")
    return told(SAID, "input", n=len(case.messages), newest=newest, numbers=case.numbers_text())


def reference(case, root):
    from context_compact import CompactionConfig, ContextCompactor
    n = case.numbers
    config = CompactionConfig.seed(tool_result_batch_char_limit=n["batch_limit"],
                                   large_result_char_limit=n["large_limit"], preview_chars=n["preview_chars"])
    return ContextCompactor(root, never_summarize, config).tool_result_budget(case.messages)


run = on_messages


def problems(case, got, expected, where) -> list:
    if not is_list_of_messages(got):
        return [say("not a list", kind=type(got).__name__)]
    given, mine, package = plain(case.messages), plain(got), plain(expected)
    if len(mine) != len(given):
        return [told(SAID, "count", m=len(mine), n=len(given))]
    found = [told(SAID, "older", i=i) for i in range(len(given) - 1) if mine[i] != given[i]]
    last, yours, theirs = given[-1], mine[-1], package[-1]
    if not isinstance(last.get("content"), list):
        return found + ([told(SAID, "no results")] if yours != last else [])
    if not isinstance(yours.get("content"), list) or len(yours["content"]) != len(last["content"]):
        return found + [told(SAID, "blocks", n=len(last["content"]))]
    for block, mine_block, their_block in zip(last["content"], yours["content"], theirs["content"]):
        found += _block(case, block, mine_block, their_block, where.yours, last["content"])
    return found


def _block(case, block, mine, theirs, root, batch_blocks) -> list:
    if block.get("type") != "tool_result":
        return [] if mine == block else [told(SAID, "not a result")]
    tid, size = block["tool_use_id"], len(text_of(block["content"]))
    saved_by_package = theirs != block
    if mine == block:
        return [told(SAID, "stayed", tid=tid, size=size)] if saved_by_package else []
    if not saved_by_package:
        return [told(SAID, "changed", tid=tid, size=size)]
    return _saved(case, block, mine, root, batch_blocks)


def _saved(case, block, mine, root, batch_blocks) -> list:
    tid, content = block["tool_use_id"], block["content"]
    if mine.get("tool_use_id") != tid or mine.get("type") != "tool_result":
        return [told(SAID, "answers", tid=tid)]
    match = PERSISTED.match(text_of(mine.get("content")))
    if not match:
        return [told(SAID, "shape", tid=tid)]
    found, path, want = [], inside(root, match["path"], TOOL_RESULTS), text_of(content)
    if Path(match["path"]).is_absolute():   # inside() reads it; the contract says relative
        found.append(told(SAID, "absolute", tid=tid))
    held = file_text(path) if path else None
    if path is None:
        found.append(told(SAID, "no file", tid=tid, folder=TOOL_RESULTS))
    elif held != want:
        owner = next((b["tool_use_id"] for b in batch_blocks if b.get("type") == "tool_result"
                      and b["tool_use_id"] != tid and text_of(b["content"]) == held), None)
        repr_held = isinstance(content, list) and held == str(content)
        key = "repr" if repr_held else "other's" if owner else "not its text"
        found.append(told(SAID, key, tid=tid, owner=owner, path=match["path"]))
    if match["preview"] != want[:case.numbers["preview_chars"]]:
        found.append(told(SAID, "preview", tid=tid))
    if others(content) != others(mine.get("content")):
        found.append(told(SAID, "image", tid=tid))
    return found
