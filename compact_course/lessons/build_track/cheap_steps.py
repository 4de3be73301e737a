"""The order, cheap_steps (notebook 05): steps 1, 2 and 3 of the learner's, in the article's order.

Compared with the package's seed `prepare` at a limit no list reaches (so step 4 never runs),
read back from disk (pipeline.py). The fixed case that matters: a batch of five with the
largest first, where step 3 before step 1 shrinks the large result to "omitted" before step 1
could save it. Left out: step 4 (prepare's, notebook 08).
"""

from . import pipeline
from .histories import turns
from .run import Case

NAME, NOTEBOOK = "cheap_steps", "05"

HINTS = (
    ("call your three steps with the article's numbers (their defaults): each takes the list the one "
     "before it returned.",
     "用文章的数值（它们的默认值）调用你写的三步：每一步接收前一步返回的列表。"),
    ("the order is the lesson: a large result that step 3 shrinks before step 1 saved it has no copy "
     "anywhere. Step 1, then step 2, then step 3.",
     "顺序就是这一课：第三步在第一步保存之前就缩短的大结果，在任何地方都没有副本。先第一步，"
     "再第二步，最后第三步。"),
)
FLAW_HINTS = {
    6: ("your micro_compact trusts a 'Full output:' line it should not: notebook 03's checker says more.",
        "你的 micro_compact 信任了不该信任的 'Full output:' 一行：notebook 03 的检查器说得更详细。"),
    7: ("your tool_result_budget lets two ids share one file: notebook 01's checker says more.",
        "你的 tool_result_budget 让两个 id 共用一个文件：notebook 01 的检查器说得更详细。"),
    11: ("a list of blocks is measured and saved by its text: notebooks 01 and 03's checkers say more.",
         "块列表按其文本计量和保存：notebook 01 和 03 的检查器说得更详细。"),
    12: ("a message may hold the SDK's objects: the transcript and the summarizer's input hold each as "
         "model_dump(exclude_none=True), plain JSON with no unset field (\"caller\": null), never a repr.",
         "消息里可能是 SDK 的对象：transcript 和摘要器的输入中每个对象都是 model_dump(exclude_none=True)，"
         "即没有未设置字段（\"caller\": null）的普通 JSON，绝不是 repr。"),
}


def _make(label, messages, flaw=None, setup=None, draw=None):
    return Case(label, messages, {}, flaw, setup=setup)


def fixed() -> list:
    return [
        _make(("a batch of five, the largest first", "五个结果的批次，最大的在前"),
              pipeline.five_in_a_batch()),
        _make(("61 messages of reads", "61 条读取消息"), turns([[900]] * 30)),
        _make(("five reads of 500 characters", "五次读取，每次 500 个字符"), turns([[500]] * 5)),
        _make(("nothing to do", "什么也不做"), turns([[300]])),
        *pipeline.flaw_cases(_make),
    ]


def drawn(draw, count: int = 5) -> list:
    return pipeline.drawn_cases(draw, count, _make)


describe = pipeline.describe


def reference(case, root):
    return pipeline.reference(case, root, pipeline.NEVER)


def run(function, case, root, calls):
    return function(case.messages, root)


def problems(case, got, expected, where) -> list:
    found = pipeline.judge(case, got, expected, where, pipeline.NEVER)
    # Said first: the order is this step's lesson, and what it got wrong is then the consequence.
    return (pipeline.out_of_order(case, got, where) if found else []) + found
