"""Write notebooks/zh/my_compact.py, the Chinese twin of the learner's starter, from the English one.

    .venv/bin/python scripts/make_my_compact_zh.py           # write it
    .venv/bin/python scripts/make_my_compact_zh.py --check   # exit 1 if it would change

The code is the English file's, line for line: only the module's and each function's docstring
are replaced, by DOCSTRINGS below (one a function name), and each section comment by SECTIONS.
A function without a row here, or a row without a function, stops the script with its name, so
the two editions never drift (tests/lessons/test_build_track_starter.py runs --check). Left out: any
other text of the file (there is none but the docstrings and the section comments).
"""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGLISH = ROOT / "notebooks" / "my_compact.py"
CHINESE = ROOT / "notebooks" / "zh" / "my_compact.py"

MODULE = '''我的压缩管线：文章（learn-claude-code s08）的管线，由我自己实现，每个 notebook 一步。

下面每个函数都说明它必须做“什么”；“怎么做”由你来写。把 `raise NotImplementedError`
换成你的代码，保存（Ctrl-S），再运行 notebook 里的检查单元：它每次都重新读取这个文件，
并在每次运行时随机抽取的用例上评判你的函数。

    第一步  tool_result_budget   notebook 01
    第二步  snip_compact         notebook 02
    第三步  micro_compact        notebook 03
    第四步  summary_input, compact_history   notebook 04
    顺序    cheap_steps          notebook 05
    兜底    is_prompt_too_long, reactive_compact   notebook 06
    compact 工具  run_tool_batch   notebook 07
    全部    prepare              notebook 08（并在 09 中实际运行）

每一步都遵守的规则：
- `messages` 是 Messages API 格式的普通 dict 列表（{"role": ..., "content": ...}）；
  返回下一次要发送的列表。不改动与这一步无关的任何内容。
- 大小以字符计。工具结果的文本：content 是字符串时就是它本身；是块的列表时，是其中
  "text" 块的文本用 "\\n" 连接起来（绝不是列表的 str()）。
- 文件写在 `root`（一个 pathlib.Path）之下：转存的结果在 `.task_outputs/tool-results/`，
  transcript 在 `.transcripts/`。写进上下文的路径都相对于 `root`。
- tool_use 和它的 tool_result 总是在一起：绝不保留一个而丢掉另一个。
- 这里只导入标准库：检查器拒绝导入本课程包的文件；你的函数运行期间，包自己的步骤也拒绝运行。
'''

DOCSTRINGS = {
    "tool_result_budget": '''第一步：把最新批次中最大的工具结果转存到磁盘。

    最新批次是最后一条消息，前提是它是一条含有 tool_result 块的 user 消息；其他列表原样返回。
    如果这一批结果的总字符数超过 `batch_limit`，就从最大的开始处理；每个长于 `large_limit`
    的结果，把完整文本写入 `root/.task_outputs/tool-results/` 下的一个文件（文章的文件名是
    `<tool_use_id>.txt`：[A-Za-z0-9._-] 以外的每个字符换成 "_"，截到 120 个字符），
    它在上下文中的文本变成恰好：

        <persisted-output>
        Full output: <文件路径，相对于 root>
        Preview:
        <文本的前 preview_chars 个字符>
        </persisted-output>

    每转存一个就重新求和（预览仍然计入），总数一旦不超过 `batch_limit` 就停止。

    安全（包的两种配置都要求）：两个 id 可能清洗成同一个文件名（"call/1" 和 "call_1"）：
    每个文件都必须恰好保存它自己那条结果的文本（那个文件夹里用什么名字都可以：清洗后的 id，
    同名文件保存的是别的文本时加一个后缀，比如 "-2"）。content 是块的列表时，保存和预览的是它的
    文本，其他块（图片）留在上下文中。
    ''',
    "snip_compact": '''第二步：消息超过 `max_messages` 条时，把列表中间归档。

    不超过 `max_messages` 条时原样返回。超过时，把整个列表写入
    `root/.transcripts/transcript_<uuid4 hex>.jsonl`（每行一条消息的 JSON），保留前
    `keep_head` 条和最近的 `max_messages - keep_head` 条，中间放一条 user 消息，内容恰好是

        [<N> messages archived at <transcript 的路径，相对于 root>]

    N 是被移出的消息条数。切点绝不拆散配对：头部结束在含 tool_use 的 assistant 消息上时，
    头部向后延伸，包含紧随其后的 tool_result 消息；尾部将从一条 tool_result 开始、而它的
    tool_use 就在前一条时，尾部提前一条开始。

    安全：消息里可能是 SDK 的对象而不是 dict；transcript 的每一行是消息的普通 JSON，
    每个对象用 `model_dump(exclude_none=True)`（略去 SDK 未设置的 None 字段，如 caller），
    绝不是它的 repr。
    ''',
    "micro_compact": '''第三步：较早的工具结果换成简短的占位符。

    在列表的全部 tool_result 中（从旧到新），最近的 `keep_recent` 条保持完整。更早的、
    文本长于 `min_chars` 个字符的每一条变成

        [Earlier tool result saved at <path>]   第一步已经转存过它：它的文本就是第一步的
                                                <persisted-output> 块，<path> 从其中的
                                                "Full output: " 一行读回
        [Earlier tool result omitted.]          其他情况

    安全："Full output: " 这一行可能出现在 agent 读过的任何文件里。只有文本恰好是第一步的块，
    并且它指向 `root/.task_outputs/tool-results/` 中确实存在的文件时，才信任这个路径。
    content 是块的列表时，计量和替换的是它的文本，其他块保留。
    ''',
    "summary_input": '''摘要器读到的文本：消息的 JSON，过长时截断。

    文本是 json.dumps(messages, ensure_ascii=False)。长于 `limit` 个字符时，它变成前
    limit // 4 个字符，接着
    "\\n...[middle omitted; full transcript is on disk]...\\n"，再接最后
    limit - limit // 4 个字符。安全：SDK 对象先转成普通 dict，与第二步相同
    （`model_dump(exclude_none=True)`）。
    ''',
    "compact_history": '''第四步：整个列表变成一条摘要消息（唯一调用模型的一步）。

    像第二步那样把列表写入 transcript。用 summary_input(messages)（limit 取默认值）调用
    `summarize(text)` 一次，返回只含一条 user 消息的列表，内容恰好是

        [Compacted]

        Current user request:
        <active_request>

        Conversation summary (reference only):
        <摘要，作为 JSON 字符串：json.dumps(summary, ensure_ascii=False)>

        Full transcript: <transcript 的路径，相对于 root>
    ''',
    "cheap_steps": '''第一、二、三步，按文章的顺序，用文章的数值。

    顺序就是这一课的内容：第一步必须在第三步之前运行，否则较早的大结果会变成占位符，
    而磁盘上没有副本。
    ''',
    "is_prompt_too_long": '''`error` 是 API 因为提示过长而拒绝请求时返回 True。

    API 自己的文字是 "prompt is too long: 210445 tokens > 200000 maximum"（HTTP 400，
    invalid_request_error；SDK 把它作为 anthropic.BadRequestError 抛出）；
    "prompt_too_long" 和 "too many tokens" 两种写法也算，不分大小写。
    ''',
    "reactive_compact": '''API 拒绝提示之后：摘要最近几条之前的全部内容。

    把整个列表写入 transcript。保留的尾部是最近的 `keep_recent` 条消息；如果尾部将从一条
    tool_result 开始、而它的 tool_use 就在前一条，尾部提前一条开始。只摘要尾部之前的部分
    （`summarize(summary_input(这些消息))`），返回一条与 compact_history 相同格式的摘要消息
    （用 "[Reactive compact]" 代替 "[Compacted]"），后面接着尾部。尾部就是整个列表时，
    摘要全部内容，只返回这条摘要消息。
    ''',
    "run_tool_batch": '''回应一次 assistant 回复中的全部 tool_use 块；其中有 `compact` 时第二个值为 True。

    返回（含有每个 tool_use 对应的一个 tool_result、按原顺序排列的 user 消息；
    compact_requested）。除 `compact` 以外的每个调用都经过 handlers[name](input) -> str。
    `compact` 调用没有处理函数，也没有副作用：它的结果是
    "Compaction requested after this tool batch."。先回应完整个批次；调用者追加这条消息，
    然后在请求了压缩时运行 compact_history。
    ''',
    "prepare": '''每次调用模型之前：按顺序运行第一、二、三步，之后只有当列表的
    json.dumps(messages, ensure_ascii=False) 仍然长于 `limit` 个字符时，才运行第四步。

    第一步在第三步之前运行。只有三个廉价步骤都不够时，才为摘要付费。
    ''',
}

SECTIONS = {
    "# -- step 1 (notebook 01) ": "# -- 第一步（notebook 01）",
    "# -- step 2 (notebook 02) ": "# -- 第二步（notebook 02）",
    "# -- step 3 (notebook 03) ": "# -- 第三步（notebook 03）",
    "# -- step 4 (notebook 04) ": "# -- 第四步（notebook 04）",
    "# -- the order (notebook 05) ": "# -- 顺序（notebook 05）",
    "# -- the safety net (notebook 06) ": "# -- 兜底（notebook 06）",
    "# -- the compact tool (notebook 07) ": "# -- compact 工具（notebook 07）",
    "# -- all of it (notebook 08) ": "# -- 全部（notebook 08）",
}


def docstring_spans(tree) -> dict:
    """{name or None for the module: (first line, last line)} of each docstring, 1-based."""
    spans = {}
    for node in [tree, *tree.body]:
        body = getattr(node, "body", None)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            spans[getattr(node, "name", None)] = (body[0].lineno, body[0].end_lineno)
    return spans


def chinese(english: str) -> str:
    """The twin's text, or SystemExit naming what has no translation."""
    spans = docstring_spans(ast.parse(english))
    functions = {name for name in spans if name}
    if functions != set(DOCSTRINGS):
        raise SystemExit(f"make_my_compact_zh: functions without a Chinese docstring: "
                         f"{sorted(functions - set(DOCSTRINGS))}; rows without a function: "
                         f"{sorted(set(DOCSTRINGS) - functions)}")
    lines = english.splitlines(keepends=True)
    for name, (first, last) in sorted(spans.items(), key=lambda item: -item[1][0]):   # bottom up
        indent = "" if name is None else " " * 4
        text = MODULE if name is None else DOCSTRINGS[name]
        lines[first - 1:last] = [f'{indent}"""{text}"""\n']
    out = []
    for line in lines:
        head = next((h for h in SECTIONS if line.startswith(h)), None)
        if line.startswith("# -- ") and head is None:
            raise SystemExit(f"make_my_compact_zh: no Chinese for the section comment {line.strip()!r}")
        out.append(line if head is None else SECTIONS[head] + " " + "-" * 60 + "\n")
    return "".join(out)


def main(argv) -> int:
    text = chinese(ENGLISH.read_text(encoding="utf-8"))
    if "--check" in argv:
        current = CHINESE.read_text(encoding="utf-8") if CHINESE.exists() else ""
        if current != text:
            print(f"{CHINESE.relative_to(ROOT)} is out of date: run scripts/make_my_compact_zh.py")
            return 1
        return 0
    CHINESE.write_text(text, encoding="utf-8")
    print(f"wrote {CHINESE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
