"""The checkers' case names in Chinese, for the PASS/FAIL lines of the Chinese edition.

The checkers name their cases in English (a CheckResult keeps those names);
`shown(case)` is the name a line prints: the English one, or in the Chinese
edition (compact_course/display/lang.py) its entry in CASES_ZH, or a RANDOM_ZH pattern
for the seeded random cases. A name in neither is printed as it is.

Left out: the predictions' labels, which are history and code names.
"""

import re

from ...display.lang import language

CASES_ZH = {
    # 01 largest_large_limit
    "the article's batch: one huge read": "文章的那一批：一次超大的读取",
    "two huge results, both needed": "两个超大结果，都要转存",
    "one is enough: the largest": "一个就够：最大的那个",
    "three needed, in size order": "需要三个，按大小顺序",
    "the preview still counts": "预览仍然计入",
    "equal sizes": "大小相同",
    "nothing large enough": "没有足够大的结果",
    "small limits": "较小的阈值",
    # 02 archive_calls
    "the article's trigger, one message a call": "文章的触发条件，每次调用一条消息",
    "a long first session, then one a call": "先来一段长会话，之后每次一条",
    "two messages a call": "每次调用两条消息",
    "a target just under the trigger": "目标刚好低于触发条件",
    "big batches": "大批量",
    "never over the trigger": "从不超过触发条件",
    "exactly at the trigger: no archive": "正好等于触发条件：不归档",
    # 03 older_result
    "a short result": "一个短结果",
    "exactly 120 characters: left alone": "正好 120 个字符：不动",
    "121 characters": "121 个字符",
    "a result step 1 persisted": "第一步转存过的结果",
    "another persisted result, another path": "另一个转存结果，另一个路径",
    "a long result step 1 never saw": "第一步从没见过的长结果",
    "a file that mentions a Full output: line": "文件内容里提到 Full output: 行",
    "a log that starts with a Full output: line": "以 Full output: 行开头的日志",
    # 04 unseen
    "under the limit: all of it is sent": "没超过上限：全部发送",
    "the article's limit, a long session of even messages": "文章的上限，一段消息大小相同的长会话",
    "one huge message in the middle": "中间一条超大的消息",
    "the separators decide": "分隔符决定结果",
    "a small limit, many short messages": "上限很小，消息很多很短",
    "the newest message alone is over the limit": "单是最新一条消息就超过上限",
    # 05 lost
    "five_reads, nothing run": "five_reads，什么都不运行",
    "five_reads, step 3 alone": "five_reads，只运行第三步",
    "long_session, step 3 alone": "long_session，只运行第三步",
    "long_session, steps 2 then 3": "long_session，先第二步再第三步",
    "huge_result, step 3 first, default profile": "huge_result，先运行第三步，default 配置",
    "two_code_files, prepare": "two_code_files，运行 prepare",
    "micro_compact": "micro_compact",
    # 06 tail_once
    "the request is older than the tail": "请求比尾部更早",
    "the request is in the tail": "请求在尾部里",
    "the request is just before the tail": "请求紧挨在尾部之前",
    "the request is the newest message": "请求是最新的消息",
    "the cut would open on a tool_result": "切点会以 tool_result 开头",
    "shorter than keep": "比 keep 短",
    "the request first, all in the tail": "请求在最前，全部都在尾部里",
    # 07 run_batch_safely
    "one read, no failure": "一次读取，没有失败",
    "one call, and it fails": "一个调用，而且失败了",
    "a failure, then a read": "先失败，再读取",
    "a write, a failure, then compact": "写入、失败，然后 compact",
    "compact first, then a failure": "先 compact，再失败",
    "two failures, a write between": "两次失败，中间一次写入",
    # labs/01 unread_shrunk
    "five unread reads": "五个未读的读取结果",
    "three unread: the newest 3 stay": "三个未读：最新的 3 个保留",
    "a short one among the newest 3": "最新的 3 个里有一个短的",
    "exactly 120 characters, unread": "正好 120 个字符，未读",
    "everything read already": "全都读过了",
    "old reads shrink too, but were read": "旧的读取结果也被缩短，但已经读过",
    "short unread ones stay whole": "短的未读结果保持完整",
    # labs/02 calls_to_pay_off
    "step 3 shrinks one old result": "第三步缩短一条旧结果",
    "step 3 shrinks every result but the newest 3": "第三步缩短除最新 3 条以外的所有结果",
    "step 3 shrinks the newest result it may": "第三步缩短它能缩短的最新一条结果",
    "step 2 keeps the first 3 and the newest 3": "第二步保留最前 3 条和最新 3 条",
    "step 4, with its summary call": "第四步，连同它的摘要调用",
    "step 4 on a short list": "短列表上的第四步",
    "step 3 after a long pause": "长停顿之后的第三步",
    "step 4 after a long pause": "长停顿之后的第四步",
    "step 4 on a short list, after a long pause": "长停顿之后、短列表上的第四步",
    "a rewrite that saves nothing": "什么也没省下的改写",
    # labs/05 instructions
    "one instruction after a request": "请求之后的一条指示",
    "capitals and a contraction": "大写和缩写",
    "a cue inside a word is no cue": "词中的提示不算提示",
    "only, as a word": "作为完整词的 only",
    "must at the end": "结尾处的 must",
    "Chinese: no spaces": "中文：没有空格",
    "Chinese and English on one line": "同一行里的中文和英文",
    "no instruction at all": "完全没有指示",
    "lines of their own": "各占一行",
}

RANDOM_ZH = (
    (re.compile(r"random batch (\d+) \((\d+) results\)"), r"随机批次 \1（\2 个结果）"),
    (re.compile(r"random batch (\d+) \((\d+) calls\)"), r"随机批次 \1（\2 个调用）"),
    (re.compile(r"random history (\d+) \((\d+) messages, keep (\d+), request at (\d+)\)"),
     r"随机历史 \1（\2 条消息，keep \3，请求在 \4）"),
    (re.compile(r"random session (\d+) \((\d+) calls, max (\d+), target (\d+)\)"),
     r"随机会话 \1（\2 次调用，max \3，target \4）"),
    (re.compile(r"random list (\d+) \((\d+) messages, limit ([\d,]+)\)"),
     r"随机列表 \1（\2 条消息，上限 \3）"),
    (re.compile(r"random history (\d+) \((\d+) messages, keep (\d+)\)"),
     r"随机历史 \1（\2 条消息，keep \3）"),
    (re.compile(r"random history (\d+) \((\d+) messages, max (\d+)\)"),
     r"随机历史 \1（\2 条消息，max \3）"),
    (re.compile(r"random history (\d+) \((\d+) messages\)"), r"随机历史 \1（\2 条消息）"),
    (re.compile(r"random history (\d+)"), r"随机历史 \1"),
    (re.compile(r"random text (\d+)"), r"随机文字 \1"),
    (re.compile(r"random list (\d+), limit ([\d,]+)"), r"随机列表 \1，阈值 \2"),
    (re.compile(r"random list (\d+)"), r"随机列表 \1"),
    (re.compile(r"random persisted result (\d+)"), r"随机的转存结果 \1"),
    (re.compile(r"random whole result (\d+)"), r"随机的完整结果 \1"),
    (re.compile(r"random step (\d+)"), r"随机步骤 \1"),
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
