"""Step 3, micro_compact (notebook 03): the learner's against the package's seed profile.

Fixed cases: five reads, a result step 1 saved (its file there), results counted across one
batch, keep_recent and min_chars given, keep_recent=0 (none kept whole; the article's slice
keeps them all, flaw 16, which the seed copies and this checker does not), the 120/121
boundary, flaw 6 three times (a "Full output:" line in a file the agent read; step 1's block
naming a file that is not there, or one outside the folder) and flaw 11
(a list of blocks: measure its text, keep its image). Drawn ones vary both numbers, the history
and which older results step 1 had saved; two more each make an older result quote a saved
file's `Full output:` line inside other text, or its whole block with text after it (flaw 6: only
exactly step 1's block counts; `quoting`). No file is written by this step: outputs compare exactly. Left out:
placeholders over 120 characters (flaw 1).
"""

from .histories import IMAGE, drawn_history, text, turns
from .looking import (
    OMITTED,
    PERSISTED,
    SAVED,
    TOOL_RESULTS,
    is_list_of_messages,
    others,
    plain,
    results,
    text_of,
)
from .run import Case, never_summarize, on_messages
from .words import say, told

NAME, NOTEBOOK = "micro_compact", "03"
ARTICLE = {"keep_recent": 3, "min_chars": 120}

HINTS = (
    ("collect every tool_result block of the list, oldest first (one batch can hold several). The newest "
     "keep_recent stay as they are; look only at those before them.",
     "收集列表中全部 tool_result 块，从旧到新（一个批次可以有好几个）。最近的 keep_recent 个保持原样；"
     "只看它们之前的那些。"),
    ("for each older one, measure its text: not longer than min_chars, leave it; longer, it becomes one of "
     "the two placeholders.",
     "对每个较早的结果，计量它的文本：不长于 min_chars 就不动；更长就变成两种占位符之一。"),
    ("it is 'saved at' only when its whole text is step 1's block and the path on its Full output: line "
     "names a file that exists in root/.task_outputs/tool-results/; the placeholder then carries that path.",
     "只有当它的整个文本就是第一步的块、并且 Full output: 一行的路径指向 root/.task_outputs/tool-results/ "
     "中存在的文件时，才是 'saved at'；这时占位符带上这个路径。"),
)
FLAW_HINTS = {
    6: ("any file the agent reads can hold a line that starts 'Full output: '. Trust it only when the whole "
        "text has step 1's shape, and only when its path stays inside root/.task_outputs/tool-results/ and "
        "the file is there.",
        "agent 读到的任何文件都可能有一行以 'Full output: ' 开头。只有整个文本是第一步的格式、"
        "路径留在 root/.task_outputs/tool-results/ 之内并且文件确实存在时，才信任它。"),
    16: ("keep_recent=0 keeps none whole: mind a slice that ends at minus keep_recent, which with 0 ends at "
         "minus zero, the start, and holds nothing.",
         "keep_recent=0 表示一个也不保留：小心结束于负 keep_recent 的切片，0 时它结束于负零，即开头，"
         "什么也不包含。"),
    11: ("when the content is a list of blocks, measure its text blocks only (an image's data is not text), "
         "and replace only the text: keep the list, a text block with the placeholder, then the other "
         "blocks.",
         "content 是块的列表时，只计量其中的 text 块（图片的数据不是文本），也只替换文本：保留列表，"
         "一个放占位符的 text 块，后面是其他块。"),
}


def block_of(path: str, full: str, preview: int = 2_000) -> str:
    return f"<persisted-output>\nFull output: {path}\nPreview:\n{full[:preview]}\n</persisted-output>"


def saved(messages, index: int, preview: int = 2_000):
    """Make the index-th tool result one step 1 saved: (messages, setup writing its file)."""
    i, block = results(messages)[index]
    full, path = block["content"], f"{TOOL_RESULTS}/{block['tool_use_id']}.txt"
    block["content"] = block_of(path, full, preview)

    def write(root):
        (root / TOOL_RESULTS).mkdir(parents=True, exist_ok=True)
        (root / path).write_text(full, encoding="utf-8")
    return write


def _case(label, messages, flaw=None, setup=None, twin=None, **numbers):
    case = Case(label, messages, {**ARTICLE, **numbers}, flaw, setup=setup)
    if twin is not None:   # the same history without the flaw (run.twin_of): (messages, setup)
        case.data["twin"] = lambda: _case(label, twin[0], setup=twin[1], **numbers)
    return case


def fixed() -> list:
    saved_one = turns([[40_000], [600], [700], [800]])
    write_saved = saved(saved_one, 0)
    def forged(line):
        messages = turns([[10], [300], [300], [300]])
        results(messages)[0][1]["content"] = (f"# Notes\n{line}\n" + "see the notes above. " * 30)[:500]
        return messages

    def gone(path=f"{TOOL_RESULTS}/toolu_001.txt"):
        messages = turns([[10], [300], [300], [300]])
        full = text("toolu_001", 5_000)
        results(messages)[0][1]["content"] = block_of(path, full)
        return messages
    def write_there(root):   # the twin: the same block, its file there
        _write(root, "toolu_001", text("toolu_001", 5_000))
    listed = turns([[10], [10], [300], [300], [300]])
    results(listed)[0][1]["content"] = [{"type": "text", "text": "A screenshot of the build page."}, IMAGE]
    results(listed)[1][1]["content"] = [{"type": "text", "text": text("toolu_002", 900)}, IMAGE]
    return [
        _case(("five reads of 500 characters", "五次读取，每次 500 个字符"), turns([[500]] * 5)),
        _case(("an older result step 1 had saved", "第一步已经转存的较早结果"), saved_one,
              setup=write_saved),
        _case(("results counted across one batch", "按结果计数，跨越同一批次"),
              turns([[500], [500, 500, 500, 500]])),
        _case(("keep_recent given: 5", "给定 keep_recent：5"), turns([[300]] * 7), keep_recent=5),
        _case(("min_chars given: 1,000", "给定 min_chars：1,000"),
              turns([[800], [1_500], [900], [2_000], [300], [300], [300]]), min_chars=1_000),
        _keep_none(),
        _case(("120 and 121 characters", "120 和 121 个字符"),
              turns([[120], [121], [300], [300], [300]])),
        _case(("a file that holds a 'Full output:' line", "含有 'Full output:' 一行的文件"),
              forged("Full output: ../secret.txt"), flaw=6, setup=_secret,
              twin=(forged("Output: see the notes"), _secret)),
        _case(("step 1's block naming a file that is not there", "第一步的块指向不存在的文件"), gone(),
              flaw=6, twin=(gone(), write_there)),
        # The exact block, its file there, but outside the folder: only the folder check catches it.
        _case(("step 1's block naming a file outside the folder", "第一步的块指向文件夹之外的文件"),
              gone("../secret.txt"), flaw=6, setup=_secret, twin=(gone(), write_there)),
        _case(("results whose content is a list of blocks (text and an image)",
               "content 是块列表（文本和图片）的结果"), listed, flaw=11),
    ]


def _keep_none():
    """keep_recent=0 keeps none whole (the contract); the article's results[:-0] keeps them all
    (flaw 16). Its twin keeps 1, where the slice is right."""
    label = ("keep_recent given: 0, none kept whole", "给定 keep_recent：0，一个也不保留")
    case = _case(label, turns([[300]] * 4), flaw=16, keep_recent=0)
    case.data["twin"] = lambda: _case(label, turns([[300]] * 4), keep_recent=1)
    return case


def _secret(root):
    (root.parent / "secret.txt").write_text("the secret", encoding="utf-8")


def _write(root, tool_id: str, full: str):
    (root / TOOL_RESULTS).mkdir(parents=True, exist_ok=True)
    (root / TOOL_RESULTS / f"{tool_id}.txt").write_text(full, encoding="utf-8")


def drawn(draw, count: int = 5) -> list:
    found = []
    for k in range(count):
        numbers = {"keep_recent": draw.randint(1, 6), "min_chars": draw.randint(20, 3_000)}
        messages = drawn_history(draw, draw.randint(4, 30))
        older = len(results(messages)) - numbers["keep_recent"]
        setup = None
        for index in sorted(draw.sample(range(max(older, 0)), min(max(older, 0), draw.randint(0, 2)))):
            write = saved(messages, index, draw.randint(50, 2_000))
            setup = write if setup is None else _chain(setup, write)
        label = (f"drawn at random #{k + 1}", f"随机抽取 #{k + 1}")
        found.append(Case(label, messages, numbers, setup=setup))
    return found + [quoting(draw, count + 1, QUOTES[:3]), quoting(draw, count + 2, QUOTES[3:])]


# How an ordinary result can quote a saved file's "Full output:" line (a README, notes, a log that
# echoes step 1's block): never step 1's block itself, so step 3 treats it as any other result.
QUOTES = (
    "# Notes on the last run\nThe full log was kept:\nFull output: {path}\n{filler}",
    "Full output: {path}\n{filler}",
    "The budget step wrote this earlier:\n{block}\n{filler}",
    "{block}\n{filler}",
)


def quoting(draw, k: int, forms=QUOTES) -> Case:
    """A drawn history where an older result quotes the `Full output:` line (or the whole block)
    of a file step 1 saved for another result, a file that is there (flaw 6: a path trusted from
    a text that is not exactly step 1's block names the wrong file)."""
    numbers = {"keep_recent": draw.randint(1, 6), "min_chars": draw.randint(20, 3_000)}
    messages = drawn_history(draw, draw.randint(16, 30))
    while len(results(messages)) < numbers["keep_recent"] + 2:
        messages = drawn_history(draw, draw.randint(16, 30))
    first, second = draw.sample(range(len(results(messages)) - numbers["keep_recent"]), 2)
    setup = saved(messages, first, draw.randint(50, 2_000))
    block = text_of(results(messages)[first][1]["content"])
    path = PERSISTED.match(block)["path"]
    _, quoter = results(messages)[second]
    filler = text(quoter["tool_use_id"], numbers["min_chars"] + draw.randint(1, 400))
    quoter["content"] = draw.choice(forms).format(path=path, block=block, filler=filler)
    label = (f"drawn at random #{k}: an older result quotes a saved file's Full output: line",
             f"随机抽取 #{k}：一个较早的结果引用了已保存文件的 Full output: 一行")
    return Case(label, messages, numbers, flaw=6, setup=setup)


def _chain(first, second):
    return lambda root: (first(root), second(root))


SAID = {
    "input": ("{n} messages; tool results, oldest first (characters of text): {shown}; {numbers}",
              "{n} 条消息；工具结果，从旧到新（文本字符数）：{shown}；{numbers}"),
    "block 1": (" (step 1's block)", "（第一步的块）"),
    "listed": (" (list of blocks)", "（块列表）"),
    "count": ("step 3 keeps every message: your list has {m}, the input {n}",
              "第三步保留每一条消息：你的列表有 {m} 条，输入有 {n} 条"),
    "no results": ("you changed messages[{i}], which holds no tool result",
                   "你改动了 messages[{i}]，它不含工具结果"),
    "blocks": ("messages[{i}] no longer has its blocks", "messages[{i}] 不再是原来的块"),
    "recent": ("it is one of the newest {keep}", "它属于最近的 {keep} 个"),
    "short": ("its text is not longer than min_chars ({least})", "它的文本不长于 min_chars（{least}）"),
    "shrunk": ("result {tid} ({size:,} characters of text) was shrunk, but it stays whole: {why}",
               "结果 {tid}（文本 {size:,} 个字符）被缩短了，但它应保持完整：{why}"),
    "whole": ("result {tid} ({size:,} characters) stayed whole; it is older than the newest {keep} and "
              "longer than min_chars ({least})",
              "结果 {tid}（{size:,} 个字符）保持完整；它比最近的 {keep} 个更早，"
              "并且长于 min_chars（{least}）"),
    "trusted": ("result {tid} became a 'saved at' placeholder, but its text is not step 1's block naming a "
                "file of root/{folder}/ that exists: nothing of it was saved",
                "结果 {tid} 变成了 'saved at' 占位符，但它的文本并不是指向 root/{folder}/ 中存在的文件的"
                "第一步的块：它什么也没有保存"),
    "lost path": ("result {tid} is step 1's block and its file is there: its placeholder keeps the path",
                  "结果 {tid} 是第一步的块，它的文件也在：占位符应保留这个路径"),
    "wrong path": ("the path in {tid}'s placeholder is not the one its Full output: line names",
                   "{tid} 的占位符中的路径不是它的 Full output: 一行所指的路径"),
    "shape": ("{tid}'s new text is neither of step 3's two placeholders",
              "{tid} 的新文本不是第三步的两种占位符之一"),
    "image": ("{tid}'s other blocks (an image) are no longer in context as they were",
              "{tid} 的其他块（图片）没有原样留在上下文中"),
    "other": ("{tid}'s block is not what step 3 leaves of it", "{tid} 的块不是第三步应留下的样子"),
}


def describe(case) -> str:
    shown = ", ".join(f"{b['tool_use_id']} {len(text_of(b['content'])):,}"
                      + (told(SAID, "block 1") if PERSISTED.match(text_of(b["content"])) else "")
                      + (told(SAID, "listed") if isinstance(b["content"], list) else "")
                      for _, b in results(case.messages))
    if len(shown) > 300:
        shown = shown[:140] + " ... " + shown[-140:]
    return told(SAID, "input", n=len(case.messages), shown=shown, numbers=case.numbers_text())


def reference(case, root):
    from context_compact import CompactionConfig, ContextCompactor
    # keep_recent=0 keeps none, as the contract says: the seed's flaw 16 is not for a build to copy.
    config = CompactionConfig.seed(keep_recent_results=case.numbers["keep_recent"],
                                   micro_min_chars=case.numbers["min_chars"], micro_keep_zero_keeps_none=True)
    return ContextCompactor(root, never_summarize, config).micro_compact(case.messages)


run = on_messages


def problems(case, got, expected, where) -> list:
    if not is_list_of_messages(got):
        return [say("not a list", kind=type(got).__name__)]
    given, mine, package = plain(case.messages), plain(got), plain(expected)
    if len(mine) != len(given):
        return [told(SAID, "count", m=len(mine), n=len(given))]
    olds = results(given)
    holding = {i for i, _ in olds}
    found = [told(SAID, "no results", i=i) for i, (a, b) in enumerate(zip(given, mine))
             if i not in holding and a != b]
    found += [told(SAID, "blocks", i=i) for i in sorted(holding)
              if not isinstance(mine[i].get("content"), list)
              or len(mine[i]["content"]) != len(given[i]["content"])]
    if found:
        return found
    keep, least = case.numbers["keep_recent"], case.numbers["min_chars"]
    for rank, (i, block) in enumerate(reversed(olds)):
        j = given[i]["content"].index(block)
        found += _block(block, mine[i]["content"][j], package[i]["content"][j], rank < keep, keep, least)
    return found


def _block(block, mine, theirs, recent, keep, least) -> list:
    if mine == theirs:
        return []
    tid, size = block["tool_use_id"], len(text_of(block["content"]))
    if theirs == block:
        why = told(SAID, "recent", keep=keep) if recent else told(SAID, "short", least=least)
        return [told(SAID, "shrunk", tid=tid, size=size, why=why)]
    if mine == block:
        return [told(SAID, "whole", tid=tid, size=size, keep=keep, least=least)]
    yours, package = text_of(mine.get("content")), text_of(theirs.get("content"))
    if package == OMITTED and SAVED.match(yours):
        key = "trusted"
    elif SAVED.match(package):
        key = "lost path" if yours == OMITTED else "wrong path" if SAVED.match(yours) else "shape"
    elif yours != OMITTED:
        key = "shape"
    else:
        key = "image" if others(block["content"]) != others(mine.get("content")) else "other"
    return [told(SAID, key, tid=tid, folder=TOOL_RESULTS)]
