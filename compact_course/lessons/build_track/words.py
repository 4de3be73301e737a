"""Every sentence the build track's checkers print, English and Chinese side by side.

`say(key, **values)` fills a row in the notebook's language (compact_course/display/lang.py).
The flaws' sentences name docs/DESIGN.md's numbers. No row holds an expected value: a row
speaks of the learner's output, the case's input, or the rule. Left out: the step checkers'
own sentences, which sit with each step in a table of its own (`told`).
"""

from ...display.lang import choose

ROWS = {
    "cases": ("{name}: {total} cases, {fixed} fixed and {drawn} drawn at random on this run",
              "{name}：{total} 个用例，{fixed} 个固定，{drawn} 个本次运行随机抽取"),
    "pinned": ("  (fixed cases left out: {n}; they vary a number held fixed here: {names})",
               "  （略去的固定用例：{n} 个；它们改变了这里固定的数值：{names}）"),
    "PASS": ("PASS", "通过"),
    "FAIL": ("FAIL", "失败"),
    "input": ("input: {what}", "输入：{what}"),
    "verdict all": ("{name}: all {n} cases pass. Your {name} is built.",
                    "{name}：全部 {n} 个用例通过。你的 {name} 完成了。"),
    "verdict some": ("{name}: {passed} of {n} cases pass. Run hint() for the next idea.",
                     "{name}：{n} 个用例中通过 {passed} 个。运行 hint() 获得下一个思路。"),
    "more fails": ("  ... and {n} more failing cases: fix these first",
                   "  ……还有 {n} 个失败的用例：先修好上面这些"),
    "not written": ("{name}: not written yet: {file}'s {name} still raises NotImplementedError. "
                    "Write it, save the file, and run this cell again.",
                    "{name}：还没有写：{file} 中的 {name} 仍然抛出 NotImplementedError。"
                    "写好它，保存文件，再运行这个单元。"),
    "no file": ("{name}: no {file} beside this notebook ({folder}).",
                "{name}：这个 notebook 旁边（{folder}）没有 {file}。"),
    "no function": ("{name}: {file} has no function named {name}.",
                    "{name}：{file} 中没有名为 {name} 的函数。"),
    "file broken": ("{name}: {file} could not be read: {error}", "{name}：无法读取 {file}：{error}"),
    "imports ours": ("{name}: {file} imports {module} (line {line}): the checker grades your own build, so "
                     "it runs nothing from a file that imports the course's packages. Take the import out.",
                     "{name}：{file} 导入了 {module}（第 {line} 行）：检查器评判的是你自己的实现，"
                     "所以不运行导入了本课程包的文件。请删掉这个导入。"),
    "refused": ("your function called the package's own code, which refuses while the checker runs: "
                "build the step yourself",
                "你的函数调用了包自己的代码，检查器运行期间它拒绝运行：请自己实现这一步"),
    "raised": ("your function raised {kind}: {error}", "你的函数抛出了 {kind}：{error}"),
    "not a list": ("your function returned {kind}, not the list of messages",
                   "你的函数返回了 {kind}，而不是消息列表"),
    "unreadable": ("your output could not be read as the step's output ({error})",
                   "无法把你的输出当作这一步的输出来读（{error}）"),
    "transcript missing": ("the path does not name a transcript in root/{folder}/ (one JSON message a line)",
                           "路径没有指向 root/{folder}/ 中的 transcript（每行一条 JSON 消息）"),
    "transcript absolute": ("the transcript's path is absolute: write it relative to root, as the "
                            "docstring says",
                            "transcript 的路径是绝对路径：按 docstring 所说，写成相对于 root 的路径"),
    "transcript name": ("the transcript's name is not transcript_<uuid4 hex>.jsonl",
                        "transcript 的文件名不是 transcript_<uuid4 hex>.jsonl"),
    "transcript reprs": ("the transcript holds the SDK's objects as their repr: a line is not the message's "
                         "JSON",
                         "transcript 保存的是 SDK 对象的 repr：这一行不是消息的 JSON"),
    "transcript nulls": ("the transcript holds the SDK's unset fields as null (\"caller\": null): "
                         "model_dump(exclude_none=True) leaves them out",
                         "transcript 把 SDK 未设置的字段写成了 null（\"caller\": null）："
                         "model_dump(exclude_none=True) 会略去它们"),
    "transcript not whole": ("the transcript does not hold the whole list as it came in, one message a line, "
                             "in order",
                             "transcript 没有按顺序、每行一条地保存传入时的整个列表"),
    "no hint yet": ("Run a check first: hint() gives the next idea for the step you checked last.",
                    "先运行一次检查：hint() 给出你最近检查的那一步的下一个思路。"),
    "hint": ("Next idea for {name}: {text}", "{name} 的下一个思路：{text}"),
    "hint last": ("(That was the last idea for {name}; the article's section on it and docs/DESIGN.md say "
                  "the rest.)",
                  "（这是 {name} 的最后一个思路；文章中相应的一节和 docs/DESIGN.md 说明了其余部分。）"),
    "hint passed": ("{name} passes every case: nothing to hint. On to the next step.",
                    "{name} 通过了全部用例：无需提示。继续下一步。"),
}

FLAWS = {
    6: ("flaw 6: a 'Full output:' line in ordinary tool output was trusted as a saved copy, a forged path; "
        "docs/DESIGN.md",
        "缺陷 6：普通工具输出中的 'Full output:' 一行被当作已保存的副本，这是伪造的路径；见 docs/DESIGN.md"),
    7: ("flaw 7: two ids that clean up to one file name recover the wrong text; docs/DESIGN.md",
        "缺陷 7：两个清洗成同一文件名的 id 会读回错误的文本；见 docs/DESIGN.md"),
    9: ("flaw 9: the API's own refusal, 'prompt is too long: N tokens > M maximum', is not recognised; "
        "docs/DESIGN.md",
        "缺陷 9：API 自己的拒绝文字 'prompt is too long: N tokens > M maximum' 没有被识别；"
        "见 docs/DESIGN.md"),
    11: ("flaw 11: a tool result's content is a list of blocks, and str() of the list is not its text; "
         "docs/DESIGN.md",
         "缺陷 11：工具结果的 content 是块的列表，列表的 str() 不是它的文本；见 docs/DESIGN.md"),
    12: ("flaw 12: the SDK's objects were not measured or written as the plain JSON of "
         "model_dump(exclude_none=True); docs/DESIGN.md",
         "缺陷 12：SDK 的对象没有按 model_dump(exclude_none=True) 的普通 JSON 计量或写入；见 docs/DESIGN.md"),
    16: ("flaw 16: keep_recent=0 kept every result whole (a slice up to minus zero is empty); docs/DESIGN.md",
         "缺陷 16：keep_recent=0 时所有结果都保持完整（切到负零的切片是空的）；见 docs/DESIGN.md"),
}


def pick(pair) -> str:
    """The one of an (en, zh) pair in the notebook's language."""
    return choose(*pair)


def say(key: str, **values) -> str:
    return pick(ROWS[key]).format(**values)


def flaw(number: int) -> str:
    return pick(FLAWS[number])


def told(table: dict, key: str, **values) -> str:
    """A step's sentence `key` of its table, filled with the learner's or the input's values."""
    return pick(table[key]).format(**values)
