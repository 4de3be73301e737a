"""The checkers' case names in Chinese, for the PASS/FAIL lines of the Chinese edition.

The checkers name their cases in English (a CheckResult keeps those names);
`shown(case)` is the name a line prints: the English one, or in the Chinese
edition (compact/display/lang.py) its entry in CASES_ZH, or a RANDOM_ZH pattern
for the seeded random cases. A name in neither is printed as it is.

Left out: the predictions' labels, which are history and code names.
"""

import re

from ...display.lang import language

CASES_ZH = {
    # 01 persisted
    "one huge result in a small batch": "小批次里有一个超大结果",
    "two huge results, both needed": "两个超大结果，都要转存",
    "the largest first, not the first": "先转存最大的，而不是第一个",
    "over the batch limit, nothing large": "超过批次阈值，但没有大结果",
    "exactly 30000 is not longer": "正好 30000 不算更长",
    "stop once under the limit": "一低于阈值就停下",
    "the preview still counts": "预览仍然计入",
    "a batch under the limit": "没有超过阈值的批次",
    "small limits": "较小的阈值",
    # 02 cut_points
    "plain turns": "普通的对话回合",
    "the head ends on a tool_use": "头部以 tool_use 结尾",
    "the tail opens on a tool_result": "尾部以 tool_result 开头",
    "both cuts on pairs": "两个切点都落在配对上",
    "the article's numbers, 60 messages": "文章的数值，60 条消息",
    "the article's numbers, head on a tool_use": "文章的数值，头部落在 tool_use 上",
    # 03 older_result
    "a short result": "一个短结果",
    "exactly 120 characters: left alone": "正好 120 个字符：不动",
    "121 characters": "121 个字符",
    "a result step 1 persisted": "第一步转存过的结果",
    "another persisted result, another path": "另一个转存结果，另一个路径",
    "a long result step 1 never saw": "第一步从没见过的长结果",
    "a file that mentions a Full output: line": "文件内容里提到 Full output: 行",
    "a log that starts with a Full output: line": "以 Full output: 行开头的日志",
    # 04 summary_cut
    "under the limit: unchanged": "不超过阈值：不变",
    "the article's limit, 80000": "文章的阈值 80000",
    "a small limit, 100": "较小的阈值 100",
    "a limit not divisible by 4, 101": "不能被 4 整除的阈值 101",
    "a limit of 103: the tail is not 3 * (103 // 4)": "阈值 103：尾部不是 3 * (103 // 4)",
    "Chinese text": "中文文本",
    "exactly at the limit: unchanged": "正好等于阈值：不变",
    # 05 lost
    "five_reads, nothing run": "five_reads，什么都不运行",
    "five_reads, step 3 alone": "five_reads，只运行第三步",
    "long_session, step 3 alone": "long_session，只运行第三步",
    "long_session, steps 2 then 3": "long_session，先第二步再第三步",
    "huge_result, step 3 first, default profile": "huge_result，先运行第三步，default 配置",
    "two_code_files, prepare": "two_code_files，运行 prepare",
    "micro_compact": "micro_compact",
    # 06 tail_start
    "the cut falls on a tool_use: fine": "切点落在 tool_use 上：没问题",
    "the cut would open on a tool_result": "切点会以 tool_result 开头",
    "ends on an assistant reply": "以 assistant 回复结尾",
    "shorter than keep": "比 keep 短",
    "keep 1": "keep 为 1",
    # 07 run_batch
    "one read, no compact": "一次读取，没有 compact",
    "write, then compact": "写入，然后 compact",
    "compact alone": "只有 compact",
    "compact first, then a write and its read": "先 compact，再写入并读取",
    "a write, then a read of it": "写入，然后读取它",
    # 08 fresh_from
    "no reply yet": "还没有回复",
    "a new request after a reply": "回复之后的新请求",
    "a batch after the last reply": "最后一次回复之后的一批结果",
    # 09 cache_cost
    "the first request, nothing cached": "第一次请求，没有缓存",
    "one message appended": "追加了一条消息",
    "the same request again": "同样的请求再发一次",
    "an old result shrunk: nothing is read": "旧结果被缩短：什么也读不到",
    "the first message changed": "第一条消息变了",
    "Chinese text, one appended": "中文文本，追加一条",
}

RANDOM_ZH = (
    (re.compile(r"random batch (\d+) \((\d+) results\)"), r"随机批次 \1（\2 个结果）"),
    (re.compile(r"random batch (\d+) \((\d+) calls\)"), r"随机批次 \1（\2 个调用）"),
    (re.compile(r"random history (\d+) \((\d+) messages, keep (\d+)\)"),
     r"随机历史 \1（\2 条消息，keep \3）"),
    (re.compile(r"random history (\d+) \((\d+) messages, max (\d+)\)"),
     r"随机历史 \1（\2 条消息，max \3）"),
    (re.compile(r"random history (\d+)"), r"随机历史 \1"),
    (re.compile(r"random list (\d+), limit ([\d,]+)"), r"随机列表 \1，阈值 \2"),
    (re.compile(r"random persisted result (\d+)"), r"随机的转存结果 \1"),
    (re.compile(r"random whole result (\d+)"), r"随机的完整结果 \1"),
    (re.compile(r"random requests (\d+)"), r"随机请求 \1"),
    (re.compile(r"huge_result, steps ([\d, ]+)"), r"huge_result，步骤 \1"),
)


def shown(case: str) -> str:
    """The name a PASS/FAIL line prints for `case`, in the notebook's language."""
    if language() != "zh":
        return case
    if case in CASES_ZH:
        return CASES_ZH[case]
    for pattern, chinese in RANDOM_ZH:
        if pattern.fullmatch(case):
            return pattern.sub(chinese, case)
    return case
