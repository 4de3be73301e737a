"""Every word the course's charts draw, in English and in Chinese: one table per language.

    words(key, **values)   the text of `key` in the notebook's language (lang.py)
    title(text)            a title a notebook cell passed in, in the notebook's language

The chart code is written once (charts.py, pipeline_picture.py, widgets.py and
the benchmark's chart) and asks this table for each label, title and legend
entry. The shared code cells of the two editions pass some titles in English;
TITLES holds their Chinese versions, and a title it does not know is drawn as
it was given. Code names (`tool_result_budget`, `CONTEXT_CHAR_LIMIT`, history
names) stay as they are in both languages, as the glossary says.

Left out: fonts (fonts.py) and the notebooks' printed outputs, which stay English.
"""

from .lang import language, pick

CHART_TEXT = {
    "en": {
        # charts.before_after
        "before the step": "before the step",
        "after the step": "after the step",
        "context limit": "context limit ({limit:,d})",
        "step at call": "{step} (call {call})",
        "step before call 1": "{step} (before call 1)",
        "characters of the messages": "characters (length of json.dumps(messages))",
        "before_after title": "Characters before and after each step",
        "no steps ran": "no steps ran",
        # charts.timeline_chart
        "as it arrives": "context as it arrives (before prepare)",
        "sent to the model": "sent to the model (after prepare)",
        "context limit, characters": "context limit ({limit:,d} characters)",
        "characters": "characters",
        "timeline title": "Context size at each model call",
        "profile suffix": " ({profile} profile)",
        "model call": "model call",
        "step fired": "step fired",
        # charts.growth_chart
        "no compaction": "no compaction",
        "no compaction, projected": "no compaction, projected",
        "sent after prepare": "sent after prepare",
        "window tokens": "window: {tokens:,d} tokens",
        "characters of json": "characters of json.dumps(messages)",
        "growth title": "The context at each model call",
        # charts.message_map
        "user text": "user text (a request)",
        "assistant": "assistant turn",
        "whole": "tool result, whole",
        "persisted": "tool result, persisted (preview + file)",
        "placeholder": "tool result, placeholder (copy on disk)",
        "omitted": "tool result, omitted (no saved file)",
        "archived": "archived to a transcript",
        "archive marker": "archive marker ([N messages archived at <path>])",
        "summary": "summarized",
        "before: n": "before: {count}",
        "after: n": "after: {count} (what is sent)",
        "one message": "{n} message",
        "messages": "{n} messages",
        "map title": "Message map: one cell per message, oldest first",
        "no messages": "(no messages)",
        # pipeline_picture
        "pipeline title": "prepare(), before every model call",
        "trigger": "trigger",
        "in context": "in context",
        "on disk": "on disk",
        "budget trigger": "newest batch of results\nover {batch:,d} characters",
        "budget context": "results over {large:,d}, largest first,\nuntil the batch is at most "
                          "{batch:,d}:\n<persisted-output> path\n+ {preview:,d}-character preview",
        "budget disk": ".task_outputs/tool-results/<id>.txt\n(the full result)",
        "snip trigger": "more than {most} messages",
        "snip context": "first {head} + newest messages,\n[N messages archived at <path>]",
        "transcript disk": ".transcripts/transcript_<hex>.jsonl\n(the whole list)",
        "micro trigger": "every call",
        "micro context": "newest {keep} results whole; older ones\n"
                         "over {least} characters: one line\n(saved at <path> | omitted)",
        "micro disk": "nothing new\n(reads step 1's Full output: path)",
        "summary trigger": "still over {limit:,d}\ncharacters after steps 1-3",
        "summary context": "one [Compacted] message:\nrequest + summary + path",
        "pipeline note": "steps 1-3: no model call, cheapest and most recoverable first;  "
                         "step 4: one model call (the summary), only if still over the limit",
        "pipeline also": "also: reactive_compact when the API still answers 'prompt is too "
                         "long' (06); the compact tool the model can call (07)",
        # widgets
        "explorer timeline": "{name}: context size at each model call ({profile} profile{moved})",
        "explorer steps": "{name}: one prepare over the whole history\n({profile} profile{moved})",
        # bench.chart.bench_chart
        "bench title": "{count} designs over simulated sessions of {turns} turns",
        "question title": ("Which design keeps the context smallest (left), which bills least (right): "
                           "{turns} turns, seed {seed}"),
        "session": "session",
        "cost title": "The requests' bill, misses not priced, a refused one as if sent",
        "cost label": "cost (millions of base input tokens, log scale)",
        "cost repaid label": "cost with misses priced (millions of base input tokens, log scale)",
        "lost title": "Tool outputs lost (not readable verbatim anywhere)",
        "lost label": "tool outputs lost",
        "misses title": "Misses: calls whose needed earlier output was not in the request",
        "misses label": "calls that missed",
        "ratio title": "Cost over the seed profile's, {seeds} seeds (bar: mean, tick: worst)",
        "ratio label": "x the seed profile's cost",
        "summaries title": "Summary calls (none: the API refuses instead, see the table)",
        "summaries label": "summary calls",
        "time title": "prepare time per call, {session} session (rolling median of 15)",
        "model call (turn)": "model call (turn)",
        "milliseconds": "milliseconds per call",
        "design": "design",
        "size title": "Request size at each call, {session} session (none: off the chart)",
        "characters sent": "characters sent",
        # course.sweep_chart
        "sweep title": "{name}: each setting of the sweep (window {window:,d} tokens)",
        "sweep cost": "the session's bill, in base input tokens (lower is better)",
        "sweep misses": "misses: calls without an output the reply used",
        "sweep lossless": "{profile}, loses nothing",
        "sweep lossy": "{profile}, loses outputs",
        "sweep over": "over the window",
        "sweep best": "best: {settings}",
        "sweep baseline": "no compaction: {cost:,d}",
        # course.server_replay.replay_chart (lab 03)
        "server replay title": "{name}, call by call, through each design",
        "tokens read": "input tokens the model reads",
        "cache share": "share a prompt cache reads again",
        "server trigger": "trigger ({value:,d} tokens)",
        "server same": "{design}, on {other}",
        # course.forgets_chart (lab 05)
        "forgets title": "{session} session, {turns} turns: the bill against what each design forgets",
        "forgotten label": "probes gone at the end (of {probes}): in no request, file or summary",
        "rounds title": "{session} session, {turns} turns: what each design keeps, round after round",
        "rounds x": "round: the design's k-th compaction",
        "rounds y": "share of the probes made before it",
        "rounds held": "{design}: held (in context or a summary)",
        "rounds reach": "{design}: reachable (on disk too)",
        "rounds same": "{line}, on {other}",
        "rounds held short": "{design}'s held line",
        "rounds reach short": "{design}'s reachable line",
    },
    "zh": {
        "before the step": "这一步之前",
        "after the step": "这一步之后",
        "context limit": "上下文阈值（{limit:,d}）",
        "step at call": "{step}（第 {call} 次调用）",
        "step before call 1": "{step}（第 1 次调用之前）",
        "characters of the messages": "字符数（json.dumps(messages) 的长度）",
        "before_after title": "每一步前后的字符数",
        "no steps ran": "没有任何一步运行",
        "as it arrives": "到达时的上下文（prepare 之前）",
        "sent to the model": "发给模型的上下文（prepare 之后）",
        "context limit, characters": "上下文阈值（{limit:,d} 个字符）",
        "characters": "字符数",
        "timeline title": "每次调用模型时的上下文大小",
        "profile suffix": "（{profile} 配置）",
        "model call": "模型调用（第几次）",
        "step fired": "触发的步骤",
        "no compaction": "不压缩",
        "no compaction, projected": "不压缩（推算）",
        "sent after prepare": "prepare 之后发出的",
        "window tokens": "窗口：{tokens:,d} 个 token",
        "characters of json": "json.dumps(messages) 的字符数",
        "growth title": "每次调用模型时的上下文",
        "user text": "用户文本（一个请求）",
        "assistant": "assistant 回合",
        "whole": "工具结果，完整",
        "persisted": "工具结果，已转存（预览 + 文件）",
        "placeholder": "工具结果，占位符（磁盘上有副本）",
        "omitted": "工具结果，已省略（没有保存的文件）",
        "archived": "已归档到 transcript",
        "archive marker": "归档标记（[N messages archived at <path>]）",
        "summary": "已写入摘要",
        "before: n": "之前：{count}",
        "after: n": "之后：{count}（发出的内容）",
        "one message": "{n} 条消息",
        "messages": "{n} 条消息",
        "map title": "消息图：每条消息一格，最早的在前",
        "no messages": "（没有消息）",
        "pipeline title": "prepare()：每次调用模型之前",
        "trigger": "触发条件",
        "in context": "留在上下文中",
        "on disk": "写到磁盘上",
        "budget trigger": "最新一批工具结果\n超过 {batch:,d} 个字符",
        "budget context": "超过 {large:,d} 的结果，从最大的开始，\n直到这一批不超过 {batch:,d}：\n"
                          "<persisted-output> 路径\n+ {preview:,d} 个字符的预览",
        "budget disk": ".task_outputs/tool-results/<id>.txt\n（完整结果）",
        "snip trigger": "消息多于 {most} 条",
        "snip context": "最前 {head} 条 + 最新的消息，\n[N messages archived at <path>]",
        "transcript disk": ".transcripts/transcript_<hex>.jsonl\n（整个列表）",
        "micro trigger": "每次调用",
        "micro context": "最新 {keep} 个结果保持完整；更早的\n"
                         "超过 {least} 个字符的：换成一行\n(saved at <path> | omitted)",
        "micro disk": "不写新文件\n（读第一步的 Full output: 路径）",
        "summary trigger": "第一到三步之后\n仍超过 {limit:,d} 个字符",
        "summary context": "一条 [Compacted] 消息：\n请求 + 摘要 + 路径",
        "pipeline note": "第一到三步：不调用模型，最便宜、最容易恢复的先做；"
                         "第四步：调用一次模型（写摘要），只在仍超过阈值时",
        "pipeline also": "另外：API 仍回答 'prompt is too long' 时的 reactive_compact（补救压缩，06）；"
                         "模型可以自己调用的 compact 工具（07）",
        "explorer timeline": "{name}：每次调用模型时的上下文大小（{profile} 配置{moved}）",
        "explorer steps": "{name}：对整个历史运行一次 prepare\n（{profile} 配置{moved}）",
        "bench title": "{count} 种设计在 {turns} 轮模拟会话中的表现",
        "question title": "哪种设计让上下文最小（左），哪种账单最少（右）：{turns} 轮，种子 {seed}",
        "session": "会话",
        "cost title": "请求的账单：缺失不计价，被拒绝的请求按已发送计价",
        "cost label": "成本（百万个基础输入 token 当量，对数刻度）",
        "cost repaid label": "缺失计价后的成本（百万个基础输入 token 当量，对数刻度）",
        "lost title": "丢失的工具输出（任何地方都读不到原始输出）",
        "lost label": "丢失的工具输出",
        "misses title": "缺失：模型需要的早先输出不在所发请求中的调用",
        "misses label": "缺失的调用次数",
        "ratio title": "相对原文配置的成本，{seeds} 个随机种子（柱：平均，横线：最差）",
        "ratio label": "原文配置成本的倍数",
        "summaries title": "摘要调用次数（none：API 直接拒绝，见表格）",
        "summaries label": "摘要调用次数",
        "time title": "每次调用的 prepare 耗时，{session} 会话（15 次滚动中位数）",
        "model call (turn)": "模型调用（轮次）",
        "milliseconds": "每次调用的毫秒数",
        "design": "设计",
        "size title": "每次调用的请求大小，{session} 会话（none：超出图表）",
        "characters sent": "发出的字符数",
        "sweep title": "{name}：扫描中的每一组设置（窗口 {window:,d} 个 token）",
        "sweep cost": "整个会话的账单，以基础输入 token 计（越低越好）",
        "sweep misses": "缺失：回复用到的输出不在上下文中的调用次数",
        "sweep lossless": "{profile}，不丢失",
        "sweep lossy": "{profile}，有丢失",
        "sweep over": "超出窗口",
        "sweep best": "最佳：{settings}",
        "sweep baseline": "不压缩：{cost:,d}",
        "server replay title": "{name}：每种设计下逐次调用的情况",
        "tokens read": "模型读到的输入 token 数",
        "cache share": "提示缓存可以再次读取的比例",
        "server trigger": "触发阈值（{value:,d} 个 token）",
        "server same": "{design}，与 {other} 重合",
        "forgets title": "{session} 会话，{turns} 轮：每种设计的账单与它遗忘的内容",
        "forgotten label": "结束时消失的探针（共 {probes} 个）：请求、文件和摘要里都没有",
        "rounds title": "{session} 会话，{turns} 轮：一次又一次压缩之后，每种设计还留着什么",
        "rounds x": "第 k 回合：该设计的第 k 次压缩",
        "rounds y": "此前产生的探针中的占比",
        "rounds held": "{design}：还在（在上下文中或摘要里）",
        "rounds reach": "{design}：还能找回（包括磁盘上）",
        "rounds same": "{line}，与{other}重合",
        "rounds held short": " {design} 还在的那条线",
        "rounds reach short": " {design} 能找回的那条线",
    },
}

# Titles the notebooks' shared code cells pass in English, and what the Chinese edition draws.
TITLES = {
    "timeline_150: the context at each model call": "timeline_150：每次调用模型时的上下文",
    "huge_result: step 1 alone (seed profile)": "huge_result：只运行第一步（seed 配置）",
    "long_session: step 2 alone (seed profile)": "long_session：只运行第二步（seed 配置）",
    "long_session: step 2, seed profile": "long_session：第二步，seed 配置",
    "five_reads: step 3 alone (seed profile)": "five_reads：只运行第三步（seed 配置）",
    "five_reads: step 3, seed profile": "five_reads：第三步，seed 配置",
    "two_code_files: prepare, seed profile": "two_code_files：prepare，seed 配置",
    "huge_result: the article's order (seed profile)": "huge_result：文章的顺序（seed 配置）",
    "huge_result: step 3 before step 1 (seed profile)":
        "huge_result：第三步在第一步之前（seed 配置）",
    "The overflow history in the agent loop (window 8,000 tokens)":
        "agent 循环中的 overflow 历史（窗口 8,000 个 token）",
    "The compact tool: the batch, then compact_history, then the next call":
        "compact 工具：先执行这一批，再 compact_history，然后下一次调用",
    "long_session, one prepare, seed profile": "long_session，一次 prepare，seed 配置",
    "long_session, one prepare, default profile": "long_session，一次 prepare，default 配置",
    "Experiment 3, seed profile: context at each model call":
        "实验三，seed 配置：每次调用模型时的上下文",
    "Experiment 2, default profile: context at each model call":
        "实验二，default 配置：每次调用模型时的上下文",
}


def words(key: str, **values) -> str:
    """The chart text `key` in the notebook's language, filled with values."""
    return pick(CHART_TEXT, key, **values)


def title(text: str) -> str:
    """A title given by a notebook cell: its Chinese version in the Chinese edition."""
    return TITLES.get(text, text) if language() == "zh" else text
