"""All of it, prepare (notebook 08): the learner's steps composed, against the package's seed prepare.

Steps 1, 2 and 3, then step 4 only if the list is still over the limit given. Compared after
reading both back from disk (pipeline.py), with the stand-in model. It rejects: step 3 before
step 1 (a batch of five, the largest first), a hard-coded 50,000 (the limit given: 30,000, and
limits drawn at random), step 4 measured before steps 1-3 (a batch over the limit that step 1
brings under it), a measure off at its edges (exactly at the limit, Chinese text, the SDK's
objects, flaw 12, a drawn list over the limit as a whole and not message by message), the
article's own prepare on flaws 6, 7, 11 and 12, and a call to the package (the trap, run.py).
Left out: reactive_compact and the compact tool (the agent loop's).
"""

import json

from . import pipeline
from .cheap_steps import FLAW_HINTS
from .compact_history import recorded
from .histories import batch, call, sdk_objects, turns
from .looking import plain
from .run import Case

NAME, NOTEBOOK = "prepare", "08"
REQUEST = "Compare the logs and say which job failed."

HINTS = (
    ("run your cheap_steps first; then measure the list you have now, as json.dumps(messages, "
     "ensure_ascii=False) counts it, against the limit given.",
     "先运行你的 cheap_steps；再按 json.dumps(messages, ensure_ascii=False) 的字符数计量现在的列表，"
     "与给定的上限比较。"),
    ("a summary costs a model call: pay for it only when the three cheap steps were not enough, and "
     "never against a number of your own: the checker draws the limit at random.",
     "摘要要花一次模型调用：只有三个廉价步骤都不够时才付费，而且绝不用你自己定的数值比较："
     "检查器会随机抽取上限。"),
    ("step 4 is your compact_history, with the request as it was given and the summarize handed in.",
     "第四步就是你的 compact_history，用原样的请求和传入的 summarize。"),
)
__all__ = ["FLAW_HINTS"]


def _make(label, messages, flaw=None, setup=None, draw=None, limit=50_000):
    if draw is not None:
        limit = draw.randint(5_000, 120_000)
    return Case(label, messages, {"limit": limit}, flaw, request=REQUEST, setup=setup)


def fixed() -> list:
    return [
        _make(("a batch of five, the largest first", "五个结果的批次，最大的在前"),
              pipeline.five_in_a_batch()),
        _make(("the limit given: 30,000", "给定上限：30,000"), turns([[12_000]] * 4), limit=30_000),
        _make(("over the limit until step 1 runs", "在第一步运行之前超过上限"), turns([[500], [260_000]])),
        _make(("still over the limit after steps 1-3", "第一到三步之后仍超过上限"), turns([[20_000]] * 4)),
        _make(("61 messages of reads", "61 条读取消息"), turns([[900]] * 30)),
        _make(("nothing to do", "什么也不做"), turns([[300]])),
        *measures(),
        *pipeline.flaw_cases(_make),
    ]


def measures() -> list:
    """The measure's edges, each limit set from the history's own size so that one wrong measure
    decides it wrongly: exactly at the limit (> not >=), Chinese text (ensure_ascii=False), and the
    SDK's objects not archived (plain JSON, not default=str: the article's measure, flaw 12; its twin,
    run.twin_of, holds plain dicts). Steps 1-3 change none of them."""
    chinese = [{"role": "user", "content": "总结这三份日志。"}, call(["toolu_c1", "toolu_c2", "toolu_c3"]),
               batch([(f"toolu_c{n}", "构建在第三步失败，请检查配置。" * 300) for n in (1, 2, 3)])]
    sdk = sdk_objects(turns([[2_000]] * 3))
    real = _size(sdk)
    as_str = len(json.dumps(sdk, default=str, ensure_ascii=False))
    found = [
        _make(("exactly at the limit after steps 1-3", "第一到三步之后恰好等于上限"), turns([[12_000]] * 3),
              limit=_size(turns([[12_000]] * 3))),
        _make(("Chinese text under the limit", "低于上限的中文文本"), chinese, limit=_size(chinese) + 500),
        _make(("the SDK's objects, not archived", "未归档的 SDK 对象"), sdk, flaw=12,
              limit=(real + as_str) // 2),
    ]
    for case, why in zip(found, ("at limit", "ascii", "sdk")):
        case.data["why"] = why
    return found


def _size(messages) -> int:
    return len(json.dumps(plain(messages), ensure_ascii=False))


def drawn(draw, count: int = 5) -> list:
    """Histories drawn at random, each limit drawn around the size steps 1-3 leave (so that a
    number of one's own, 50,000 or any other, decides some of them wrongly); then one more whose
    limit is drawn between the sum of its messages' JSON and its whole list's JSON (just_over)."""
    found = pipeline.drawn_cases(draw, count, _make)
    for case in found:
        left = pipeline.size_after_cheap_steps(case)
        case.numbers["limit"] = max(1_000, int(left * draw.uniform(0.5, 1.5)))
    return [*found, just_over(draw)]


def just_over(draw):
    """A drawn history whose list after steps 1-3 is over the limit as the article measures it,
    the whole list's JSON, and not over it as the sum of its messages' JSON (which leaves out the
    brackets and the ", " between messages: 2 characters a message)."""
    label = ("drawn at random, just over the limit", "随机抽取，刚好超过上限")
    case = _make(label, pipeline.drawn_list(draw))
    left = pipeline.after_cheap_steps(case)
    each = sum(len(json.dumps(m, ensure_ascii=False)) for m in left)
    case.numbers["limit"] = draw.randint(each, _size(left) - 1)
    case.data["why"] = "whole"
    return case



describe = pipeline.describe


def reference(case, root):
    return pipeline.reference(case, root, case.numbers["limit"])


def run(function, case, root, calls):
    return function(case.messages, root, case.request, recorded(calls), *case.numbers.values())


def problems(case, got, expected, where) -> list:
    return pipeline.judge(case, got, expected, where, case.numbers["limit"])
