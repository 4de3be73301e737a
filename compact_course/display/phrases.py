"""The phrasebook: every sentence the package says in both languages, side by side.

    say(key, lang=None, **values)   one phrase, filled; lang: "en", "zh" or the notebook's

Each entry is (English, Chinese), so a new phrase cannot miss its translation.
The offline model speaks the request's language (`lang.language_of`); charts,
checkers and widgets the notebook's (`lang.language`). Facts inside a phrase
(paths, numbers, quoted lines) are filled in as they are.

The checkers' words are here too: their frame ("check ..." rows: PASS, FAIL, what
differs) and what each checker says of a mistake it recognises ("<module>: ..."
rows, a group a checker module).

Left out: the charts' words (chart_text.py, one table per language, because a
chart's labels are looked up by key in bulk) and each checker's hint
(compact_course/lessons/exercises/texts.json: content of one exercise, kept beside it).
"""

from .lang import language

PHRASES = {
    # summaries
    "goal": ("Current goal:",
             "当前目标："),
    "files": ("Files read or changed:",
              "读过或改过的文件："),
    "decisions": ("Decisions:",
                  "决定："),
    "done": ("Done:",
             "已完成："),
    "pending": ("Pending:",
                "待完成："),
    "none": ("- (none)",
             "- （无）"),
    "no_goal": ("(no request in these messages)",
                "（这些消息里没有请求）"),
    "answer_goal": ("answer the current goal",
                    "回答当前目标"),
    "no_result": ("{call}: no result yet",
                  "{call}：还没有结果"),
    "answered": ("answered: {line}",
                 "已回答：{line}"),
    "earlier": ("earlier summary: {line}",
                "之前的摘要：{line}"),
    "middle_cut": ("(The middle of the conversation was not in my input; the full transcript is on disk.)",
                   "（对话的中间部分不在我的输入里；完整记录在磁盘上。）"),
    # an import's report (compact_course/sessions/import_report.py)
    "import read": ("read {total} records: {kinds}",
                    "读了 {total} 条记录：{kinds}"),
    "import left out": ("left out: {kinds}",
                        "略去：{kinds}"),
    "import nothing left out": ("left out: nothing",
                                "略去：无"),
    "import lines": ("{count} {kind} (line{s} {lines})",
                     "{count} 条 {kind}（第 {lines} 行）"),
    "import joined": ("joined: {count} record{s} continuing the reply before (lines {lines})",
                      "合并：{count} 条记录接续前一条回复（第 {lines} 行）"),
    "import compaction": ("compaction recorded (line {line}): a summary of {chars:,} characters, {kept}",
                          "记录了一次压缩（第 {line} 行）：摘要 {chars:,} 个字符，{kept}"),
    "import compaction apart": ("kept apart in the history's compactions; the messages before it are read",
                                "单独保存在历史的 compactions 里；压缩前的消息照样读入"),
    "import compaction kept": ("kept as a message: the file does not hold what it summarized",
                               "作为一条消息保留：文件里没有它所概括的内容"),
    "import warn no parent chain": ("warning: no record names its parent (parentUuid); "
                                    "lines {lines} were read in file order",
                                    "警告：没有记录指明父记录（parentUuid）；第 {lines} 行按文件顺序读入"),
    "import warn off the parent chain": ("warning: lines {lines} are off the parentUuid chain "
                                         "(a rewound branch or a broken link) and were left out",
                                         "警告：第 {lines} 行不在 parentUuid 链上"
                                         "（回退留下的分支或断开的链接），已略去"),
    "import warn subagent file": ("warning: every message is a sidechain: a subagent's own file, "
                                  "read as a session of its own",
                                  "警告：每条消息都是旁支（sidechain）：这是子 agent 自己的文件，"
                                  "作为一个独立的会话读入"),
    # what a real file holds and a clean one does not (compact_course/sessions/odd.py), in one line
    "import odd": ("not as expected: {kinds}",
                   "不合常规：{kinds}"),
    "import odd and": ("; ",
                       "；"),
    "import odd kind": ("{count} {kind} (line{s} {lines}): {done}",
                        "{count} 条 {kind}（第 {lines} 行）：{done}"),
    "import odd kind nowhere": ("{count} {kind}: {done}",
                                "{count} 条 {kind}：{done}"),
    "import odd call never answered": ("kept, with a result saying the file has none",
                                       "保留，并补上一条结果，说明文件里没有它的结果"),
    "import odd result without its call": ("kept as text marked as having no call",
                                           "作为文本保留，并注明没有对应的调用"),
    "import odd second result for a call": ("kept as text marked as a repeat",
                                            "作为文本保留，并注明是重复的结果"),
    "import odd call id used twice": ("kept under a new id, its result too",
                                      "换一个新 id 保留，它的结果也一样"),
    "import odd arguments not JSON": ("kept, the raw text as the call's input",
                                      "保留，原文作为调用的输入"),
    "import odd parent not in the file": ("kept; read on from the message written before it",
                                          "保留；从文件里它前面的那条消息接着读"),
    "import odd parent loop": ("kept; the thread starts there",
                               "保留；对话从这里开始"),
    "import odd unknown record type": ("left out",
                                       "略去"),
    "import odd unknown item type": ("left out",
                                     "略去"),
    "import odd unknown content part": ("left out",
                                        "略去"),
    "import odd block in the wrong message": ("left out",
                                              "略去"),
    "import odd unreadable record": ("left out",
                                     "略去"),
    "import odd not JSON": ("left out",
                            "略去"),
    "import odd half-written line": ("left out",
                                     "略去"),
    "import odd empty message": ("left out",
                                 "略去"),
    "import odd one JSON document": ("read as the records it holds",
                                     "按其中的记录读入"),
    "import odd no typed request": ("read; the active request is empty",
                                    "照样读入；当前请求为空"),
    # a cassette in the live notebook (09)
    "cassette recording": ("recording every API exchange to the cassette {path}",
                           "把每次 API 往来都录进 cassette 文件 {path}"),
    "cassette replaying": ("replaying the cassette {path}: {what}",
                           "回放 cassette 文件 {path}：{what}"),
    "cassette none": ("no cassette: COMPACT_RECORD=FILE records this run, COMPACT_CASSETTE=FILE replays one",
                      "没有 cassette：COMPACT_RECORD=文件 录下这次运行，"
                      "COMPACT_CASSETTE=文件 回放一次录好的运行"),
    # answers
    "sources": ("Looked at: {where}.",
                "查看过：{where}。"),
    "working": ("Looking this up: {calls}.",
                "先查一下：{calls}。"),
    "cannot": ("I can't tell from what I read: {why}.",
               "从我读到的内容无法确定：{why}。"),
    "why nothing": ("nothing I read answers it",
                    "我读到的内容里没有答案"),
    "why gone": ("the result of {call} was shrunk to [Earlier tool result omitted.] and nothing in this "
                 "context records it, so that text is gone",
                 "{call} 的结果已被缩成 [Earlier tool result omitted.]，"
                 "上下文里没有任何记录，那段文字已经没了"),
    "why error": ("{call} failed: {line}",
                  "{call} 失败：{line}"),
    "why cut": ("{call} shows only part of its text",
                "{call} 只显示了部分内容"),
    "why preview": ("only a preview of {call} is left in this context, and no tool offered here can "
                    "read its saved copy {saved}",
                    "上下文里只剩 {call} 的预览，而这里提供的工具读不了它保存的副本 {saved}"),
    # a job no offered tool does (compact_course/offline/model/tools.py reads what each tool does)
    "why no reader": ("this request offers no tool that reads a file or runs a shell command, to look "
                      "into {path}",
                      "这个请求没有提供能读文件或运行 shell 命令的工具来查看 {path}"),
    "why no search": ("this request offers no tool that finds files by a pattern, to list {path}",
                      "这个请求没有提供能按模式查找文件的工具来列出 {path}"),
    "why no shell": ("this request offers no tool that runs a shell command, to search the workspace",
                     "这个请求没有提供能运行 shell 命令的工具来搜索工作区"),
    "why no file": ("the question names no file or folder to look in",
                    "问题里没有指明可以查看的文件或文件夹"),
    "why no match": ("no file matches {pattern}",
                     "没有文件匹配 {pattern}"),
    "why no words": ("the question names nothing I could look for",
                     "问题里没有我能查找的东西"),
    "why no kind": ("this is not a kind of question I know how to look up",
                    "这不是我知道怎样查的那类问题"),
    "why found": (" ({n} line(s) of the workspace hold its words; they do not say which answer is right)",
                  "（工作区里有 {n} 行含有它的词，但它们没有说明哪个答案是对的）"),
    "why found none": (", and no line of the workspace holds its words",
                       "，工作区里也没有一行含有它的词"),
    "quote": ("- {path}, line {line}: '{text}'",
              "- {path} 第 {line} 行：'{text}'"),
    "line count": ("{path} has {n} lines.",
                   "{path} 共有 {n} 行。"),
    "failed tests": ("{n} test(s) failed in the run logged in {paths}:",
                     "{paths} 记录的测试运行中有 {n} 个测试失败："),
    "failed test": ("- {test}{reason}: {path}, line {line}",
                    "- {test}{reason}：{path} 第 {line} 行"),
    "run summary": ("The run's summary, {path} line {line}: '{text}'",
                    "运行汇总，{path} 第 {line} 行：'{text}'"),
    "no test failed": ("No test failed: the summary line of {path} (line {line}) reads '{text}'.",
                       "没有测试失败：{path} 第 {line} 行的汇总是 '{text}'。"),
    "result count": ("{count} {word}: so says the summary line of {path}, line {line}: '{text}'",
                     "{count} {word}：见 {path} 第 {line} 行的汇总：'{text}'"),
    "title is": ("The title of {path} is '{title}' (line {line}).",
                 "{path} 的标题是 '{title}'（第 {line} 行）。"),
    "field is": ("The {key} field of {path} is {value} (line {line}: '{text}').",
                 "{path} 的 {key} 字段是 {value}（第 {line} 行：'{text}'）。"),
    "packages": ("{path} lists {n} package(s), lines {first}-{last}: {names}.",
                 "{path} 第 {first}-{last} 行列出了 {n} 个包：{names}。"),
    "kept in": ("{path} keeps it in {value}: line {line} reads '{text}'.",
                "{path} 把它放在 {value}：第 {line} 行是 '{text}'。"),
    "defined": ("{name}: {path}, line {line}: '{text}'",
                "{name}：{path} 第 {line} 行：'{text}'"),
    "docstring": ("Its docstring: '{doc}'",
                  "它的文档字符串：'{doc}'"),
    "value is": ("{name} is set to {value} in {path}, line {line}: '{text}'.",
                 "{name} 在 {path} 第 {line} 行设为 {value}：'{text}'。"),
    "mentions": ("{what} appears in {n} file(s), lines per file: {counts}.",
                 "{what} 出现在 {n} 个文件里（每个文件的行数）：{counts}。"),
    "folders named": ("The folder(s) whose name holds {what}: {names}.",
                      "名字里含 {what} 的文件夹：{names}。"),
    "workspace holds": ("The workspace holds {entries} at the top: {names}.",
                        "工作区顶层有 {n} 项：{names}。"),
    "folder holds": ("{folder}/ holds {entries}: {names}.",
                     "{folder}/ 里有 {n} 项：{names}。"),
    "no tool offered": ("I can't tell: next I would need {job}, and no tool this request offers does that.",
                        "我无法确定：下一步我需要{job}，而这个请求提供的工具都做不到。"),
    # the jobs the offline model needs a tool for (compact_course/offline/model/tools.py)
    "job read_file": ("to read a file", "读一个文件"),
    "job bash": ("to run a shell command", "运行一条 shell 命令"),
    "job glob": ("to find files by a pattern", "按模式查找文件"),
    "job write_file": ("to write a file", "写一个文件"),
    "job compact": ("to compact the conversation (the compact tool)", "压缩对话（compact 工具）"),
    # the experiments' answers (json_shape.py, compare_code.py, compact_tool.py, titles.py)
    "json could not read": ("I could not read {path}: {line}",
                            "我读不了 {path}：{line}"),
    "json gone": ("I can't describe {path}: its tool result was shrunk to {omitted} and nothing left in "
                  "this context records its structure.",
                  "我描述不了 {path}：它的工具结果已被缩成 {omitted}，上下文里没有任何东西记录它的结构。"),
    "json whole": ("the whole file, as read in this context",
                   "这个上下文中读到的整个文件"),
    "json peek": ("the first {chars} characters of the saved copy {saved}",
                  "保存的副本 {saved} 的前 {chars} 个字符"),
    "json preview": ("the persisted preview (full text: {saved})",
                     "转存后留下的预览（完整内容：{saved}）"),
    "json head": ("{path}: a JSON {root}",
                  "{path}：一个 JSON {root}"),
    "json text": ("text",
                  "文本"),
    "json fields": (" with fields {top}",
                    "，字段有 {top}"),
    "json top": ("Top level: {fields}.",
                 "顶层：{fields}。"),
    "json field": ("{name} ({kind})",
                   "{name}（{kind}）"),
    "json where": (" (the first element of '{within}')",
                   "（'{within}' 的第一个元素）"),
    "json record": ("One record{where} has {n} main fields:",
                    "一条记录{where}有 {n} 个主要字段："),
    "json nested": (": a list of objects with {names}",
                    "：对象列表，每个对象有 {names}"),
    "json goes on": ("The record goes on past the text I have seen; these are its fields up to that point.",
                     "这条记录在我看到的文本之后还没结束；以上是到那里为止的字段。"),
    "json no record": ("No complete record is visible in the text I have.",
                       "我手上的文本里看不到一条完整的记录。"),
    "json source": ("Source: {source}.",
                    "来源：{source}。"),
    "code comparing": ("Comparing {paths}:",
                       "比较 {paths}："),
    "code and": (" and ",
                 " 和 "),
    "code failed": ("- {path}: I could not read it, so I can't say how it works.",
                    "- {path}：我读不了它，所以说不出它怎样工作。"),
    "code gone": ("- {path}: no longer in this context (its result was shrunk and I kept no note), so I "
                  "can't say how it works.",
                  "- {path}：已经不在这个上下文里（它的结果被缩掉了，我也没有留笔记），"
                  "所以说不出它怎样工作。"),
    "code lines": (" ({n} lines)",
                   "（{n} 行）"),
    "code facts": ("- {path}{size}: current context through {context}; persistent memory through {memory}. "
                   "(From {source}.)",
                   "- {path}{size}——当前上下文：{context}；持久记忆：{memory}。（来自{source}。）"),
    "code nothing": ("nothing named for it",
                     "没有为此命名的函数或类"),
    "code read": ("the file as read in this context",
                  "这个上下文中读到的文件"),
    "code note": ("my own note, taken when I read it",
                  "我读它时记下的笔记"),
    "code summary": ("the conversation summary",
                     "对话摘要"),
    "code outline": ("an outline of its class and def lines, taken after its text left the context",
                     "它的正文离开上下文之后提取的 class 和 def 行大纲"),
    "code in short": ("In short: {context_side} manages the current context, keeping the messages list "
                      "under the window within one session; ",
                      "简而言之：{context_side} 管理当前上下文，"
                      "在一次会话内让 messages 列表保持在窗口之内；"),
    "code memory": ("{memory_side} keeps persistent memory that outlives a compaction or a new session.",
                    "{memory_side} 保存持久记忆，压缩之后或新会话中依然存在。"),
    "code no memory": ("neither names a persistent memory.",
                       "两个文件都没有提到持久记忆。"),
    "tool done": ("Done: {written}.",
                  "完成：{written}。"),
    "tool lessons": ("The note lists the {n} lessons: {names}.",
                     "笔记列出了 {n} 节课程：{names}。"),
    "tool compacted": ("The compact tool ran after that batch, so the earlier conversation is now a "
                       "summary and the write is recorded in it; nothing needs redoing.",
                       "compact 工具在这一批之后运行了，所以之前的对话现在是一份摘要，"
                       "写入也记在摘要里；不需要重做任何事。"),
    "tool asked": ("I asked for a compaction in the same batch.",
                   "我在同一批里请求了一次压缩。"),
    # the experiments' working notes, one line before a tool call (never parsed back)
    "note find lessons": ("I'll find the lesson folders first.",
                          "先找出课程文件夹。"),
    "note list lessons": ("I'll list the lessons first.",
                          "先列出课程。"),
    "note no readme": ("I found no lesson README in this workspace for s{first:02d} to s{last:02d} (glob "
                       "{glob}), so there are no titles to compare.",
                       "这个工作区里找不到 s{first:02d} 到 s{last:02d} 的课程 README（glob {glob}），"
                       "所以没有标题可以比较。"),
    "note next read": ("Next I read {path}.",
                       "接下来读取 {path}。"),
    "note read first": ("I'll read {path} first.",
                        "先读取 {path}。"),
    "note outline": ("I read {path} before, but its text is no longer in context; its outline is enough "
                     "for the comparison.",
                     "我之前读过 {path}，但它的正文已不在上下文里；做比较，有它的大纲就够了。"),
    "note peek": ("The result was saved to {saved}; what is left in context stops before the first record "
                  "ends, so I'll look at the first {chars} characters of the saved copy.",
                  "结果已转存到 {saved}；上下文里留下的部分在第一条记录结束之前就断了，"
                  "所以我来看看保存的副本的前 {chars} 个字符。"),
    "note write compact": ("Writing {path}, then compacting in the same batch: this stage is done.",
                           "写入 {path}，并在同一批次里压缩：这一阶段已完成。"),
    "tool could not write": ("I could not write {path}: {written}",
                             "我写不了 {path}：{written}"),
    # the fact notes (experiments/notes.py): read back later, so their patterns there accept both
    "fact lessons": ("Lessons found: {names}",
                     "找到的课程：{names}"),
    "fact title": ("{path}: title '{title}'",
                   "{path}：标题 '{title}'"),
    "fact code": ("{path}: {size}; context: ",
                  "{path}：{size}；上下文："),
    "fact memory": ("; memory: ",
                    "；记忆："),
    "fact lines": ("{n} lines",
                   "{n} 行"),
    "fact outline": ("outline",
                     "大纲"),
    "fact none": ("none",
                  "无"),
    "fact first line": ("{path}: first line '{line}'",
                        "{path}：第一行 '{line}'"),
    # experiment 1 (compact_course/offline/model/experiments/titles.py)
    "titles head": ("The first-level titles of the {n} lessons:",
                    "{n} 节课程的一级标题："),
    "titles found": ("- {folder}: {title}",
                     "- {folder}：{title}"),
    "titles missing": ("- {folder}: title not available - {why}.",
                       "- {folder}：拿不到标题，{why}。"),
    "titles named": ("How they are named: ",
                     "命名规律："),
    "titles source": ("Where this comes from: ",
                      "信息来源："),
    "title omitted": ("its tool result was shrunk to {omitted} and nothing left in this context records it",
                      "它的工具结果已被缩成 {omitted}，这个上下文里没有任何东西记录它"),
    "title untitled": ("its README has no first-level ('# ') heading",
                       "它的 README 没有一级（'# '）标题"),
    "title error": ("reading it failed",
                    "读取失败"),
    "title read": ("from the files as read in this context",
                   "来自这个上下文中读到的文件"),
    "title preview": ("from the persisted previews",
                      "来自转存后留下的预览"),
    "title saved copy": ("from the saved copies I re-read",
                         "来自我重新读取的已保存副本"),
    "title note": ("from my own notes (their results are no longer in context)",
                   "来自我自己的笔记（它们的结果已不在上下文中）"),
    "title summary": ("from the conversation summary",
                      "来自对话摘要"),
    "names opens": ("every title opens with the lesson's code and a colon ({codes})",
                    "每个标题都以课程编号和冒号开头（{codes}）"),
    "names same code": (", the same code as its folder",
                        "，编号和文件夹的相同"),
    "names topic": ("then a short topic name",
                    "接着是一个简短的主题名"),
    "names echoes": (" that spells out the folder name ({folder} -> {topic})",
                     ""),
    "names subtitle": ("then ' - ' and a subtitle saying what the lesson adds ({examples}, ...)",
                       "然后是 ' - ' 和一个说明这节课新增内容的副标题（{examples}……）"),
    "names none": ("the titles do not share one pattern.",
                   "这些标题没有共同的格式。"),
    "names no titles": ("I have no titles left to compare.",
                        "我手上已经没有可以比较的标题。"),
    # the threshold explorer (compact_course/lessons/widgets.py)
    "widget invalid": ("<b>Not a valid setting:</b> {error}",
                       "<b>设置无效：</b>{error}"),
    "widget profile": ("profile",
                       "配置"),
    "widget describe": ("{calls_n}, {files_n} written, {summaries_n} paid for, largest context sent "
                        "{max_sent:,d} characters",
                        "模型调用 {calls} 次，写入文件 {files} 个，付费摘要 {summaries} 次，"
                        "发出的最大上下文 {max_sent:,d} 个字符"),
    # punctuation between the items of a list, and at the end of a sentence
    "join": ("; ",
             "；"),
    "comma": (", ",
              "，"),
    "and": (", ",
            "、"),
    "end": (".",
            "。"),
    # the checkers' frame: PASS, FAIL, what differs (compact_course/lessons/exercises/check.py)
    "check cases": ("{name}: {n} cases",
                    "{name}：{n} 个用例"),
    "check PASS": ("PASS",
                   "通过"),
    "check FAIL": ("FAIL",
                   "失败"),
    "check all pass": ("All {n} cases pass.",
                       "{n} 个用例全部通过。"),
    "check some pass": ("{passed} of {n} cases pass. For a hint, run hint().",
                        "{n} 个用例中通过 {passed} 个。需要提示时，运行 hint()。"),
    "check one cases": ("{name}: 1 case",
                        "{name}：1 个用例"),
    "check one all pass": ("The case passes.",
                           "这个用例通过。"),
    "check one some pass": ("The case fails. For a hint, run hint().",
                            "这个用例没有通过。需要提示时，运行 hint()。"),
    "check not attempted": ("{name}: not attempted yet ({what}). For a hint, run hint().",
                            "{name}：还没有作答（{what}）。需要提示时，运行 hint()。"),
    "check answer None": ("the answer is None",
                          "答案还是 None"),
    "check prediction None": ("the prediction is None",
                              "预测还是 None"),
    "check a prediction None": ("{given} of {n} predictions given; still None: {labels}",
                                "{n} 个预测填了 {given} 个；还是 None 的：{labels}"),
    "check still raises": ("it still raises NotImplementedError",
                           "它仍然抛出 NotImplementedError"),
    "check not a function": ("{name}: expected a function, got {got}.",
                             "{name}：应当是一个函数，得到的是 {got}。"),
    "check values": ("{name}: expected {n} values ({labels}), got {m}.",
                     "{name}：应当有 {n} 个值（{labels}），得到 {m} 个。"),
    "check one value": ("{name}: expected {n} values ({labels}), got one.",
                        "{name}：应当有 {n} 个值（{labels}），只得到一个。"),
    "check raised": ("raised {kind}: {error}",
                     "抛出了 {kind}：{error}"),
    "check at": ("at [{where}]: {what}",
                 "在 [{where}]：{what}"),
    "check stops": ("; yours stops there",
                    "；你的在那里就结束了"),
    "check goes on": ("; yours goes on",
                      "；你的还在继续"),
    "check yours reads": ("; yours reads there: {text}",
                          "；你的在那里是：{text}"),
    "check hint for": ("hint ({case}): {hint}",
                       "提示（{case}）：{hint}"),
    "check hint general": ("hint: {hint}",
                           "提示：{hint}"),
    "check long value": (" ({n:,d} in all)",
                         "（共 {n:,d}）"),
    "check input": ("input: {args}\n      ",
                    "输入：{args}\n      "),
    "check no check yet": ("No check has run yet: run a checker's cell first.",
                           "还没有运行过检查：先运行一个检查单元格。"),
    # a wrong answer: how the learner's own value is off, never the expected value (check.py's WAYS)
    "check then": ("; ",
                   "；"),
    "check too high": ("too high",
                       "偏大"),
    "check too low": ("too low",
                      "偏小"),
    "check wrong": ("not what it should be",
                    "不对"),
    "check should be type": ("should be {want_type}, not {have_type}",
                             "应为 {want_type}，不是 {have_type}"),
    "check not this type": ("the wrong kind of value: yours is {have_type}",
                            "值的种类不对：你的是 {have_type}"),
    "check text from": ("the text is wrong from character {at:,d} on",
                        "文本从第 {at:,d} 个字符起不对"),
    "check too many": ("too many items (yours has {m})",
                       "项太多（你的有 {m} 项）"),
    "check too few": ("too few items (yours has {m})",
                      "项太少（你的有 {m} 项）"),
    "check item wrong": ("item {i} is wrong: {what}",
                         "第 {i} 项不对：{what}"),
    "check item extra": ("has an item it should not: {item}",
                         "有一项不该有：{item}"),
    "check item missing": ("misses an item",
                           "少了一项"),
    "check wrong order": ("the right items in the wrong order",
                          "项目对，顺序不对"),
    "check key missing": ("misses the key {name}",
                          "缺少键 {name}"),
    "check key extra": ("has a key it should not: {name}",
                        "有一个键不该有：{name}"),
    "check held back": ("Held back until you make the prediction above: fill it in, run its checker, "
                        "then run this cell again.",
                        "先做上面的预测：把它填好，运行它的检查，再运行这个单元格。"),
    # the offline model's answers to probes (compact_course/offline/model/probe_reply.py)
    "probe reading": ("Re-reading {path}, which this context names.",
                      "重新读取上下文里提到的 {path}。"),
    "probe quote": ("From {where}: {text}",
                    "出自{where}：{text}"),
    "probe yes": ("Yes: {where} shows {tool} on {path}.",
                  "是：{where}里有对 {path} 的 {tool} 调用。"),
    "probe in context": ("this context",
                         "当前上下文"),
    "probe in file": ("the file {path}",
                      "文件 {path}"),
    "probe in summary": ("the summary in this context (a summary's words, not the original)",
                         "上下文里的摘要（摘要的文字，不是原始文本）"),
    "why probe none": ("nothing in this context, in the files it names or in its summaries starts with {cue}",
                       "上下文、它提到的文件和摘要里都没有以 {cue} 开头的内容"),
    "why probe many": ("{n} different texts start with {cue}",
                       "有 {n} 段不同的文字以 {cue} 开头"),
    "why probe latest": ("the question says {name} took {values} values; what I read shows {seen}, "
                         "so one is missing, and it may be the latest",
                         "问题说 {name} 先后有 {values} 个值；我读到的只有 {seen} 个，"
                         "少了的那个可能正是最新的"),
    "why probe no use": ("nothing in this context, in the files it names or in its summaries "
                         "shows {tool} on {path}",
                         "上下文、它提到的文件和摘要里都看不到对 {path} 的 {tool} 调用"),
    # -- dropped.py (lab 06)
    "dropped: first only": ("every later thinking block goes too, not only the first that fails",
                            "之后的每个思考块也会一起丢弃，不只是第一个失败的块"),
    "dropped: earlier too": ("a block before the edit keeps its prefix: it stays",
                             "编辑之前的块，前缀没有变：它留下"),
    # -- forgets.py (lab 05)
    "forgets: not a list": (
        "return a list of sentences (strings), in the order of the text.",
        "返回一个句子（字符串）的列表，按文字里的顺序。"),
    "forgets: whole lines": (
        "cut each line into sentences: keep the sentence that holds the cue, not its whole line.",
        "把每一行切成句子：保留含有提示词的那一句，而不是整行。"),
    "forgets: case": (
        "find the cue words whatever their case: 'Do not' and 'DON'T' are instructions too.",
        "不论大小写都要找到提示词：'Do not' 和 'DON'T' 也是指示。"),
    "forgets: inside a word": (
        "whole words only: 'commonly' holds 'only', and is no cue; match an English cue "
        "only where no letter stands right before or after it.",
        "只认完整的词：'commonly' 里含有 'only'，但它不是提示词；英文提示词前后紧挨着的不能是字母。"),
    "forgets: Chinese cues": (
        "Chinese cues have no spaces around them: look for '不要' anywhere in a sentence.",
        "中文提示词前后没有空格：在句子的任何位置找 '不要'。"),
    # the exercises' feedback (compact_course/lessons/exercises/): what a checker says of a mistake
    # -- budget.py
    "budget: not a whole number": ("return one whole number (a limit), or None.",
                                                "返回一个整数（阈值），或者 None。"),
    "budget: the article's own limit": ("30,000 is the article's own limit, not the answer for "
                                            "this batch: work it out from the sizes.",
                                            "30,000 是文章自己的阈值，不是这一批的答案："
                                            "要从这些大小算出来。"),
    "budget: no limit works": ("before you look for the largest limit, ask whether any works: "
                               "replay step 1 on these sizes with large_limit = {floor:,d}. Where "
                               "does the batch end, against {batch_limit:,d}?",
                               "先别找最大的阈值，先问有没有阈值行得通：用 large_limit = {floor:,d} "
                               "在这些大小上重演第一步。这一批最后是多少，和 {batch_limit:,d} 比呢？"),
    "budget: a limit exists with step 1": ("a limit exists: replay step 1 on these sizes with a "
                                           "small limit, and see where the batch ends against "
                                           "{batch_limit:,d}.",
                                           "存在这样的阈值：用一个小阈值在这些大小上重演第一步，"
                                           "看这一批最后和 {batch_limit:,d} 比是多少。"),
    "budget: a result of exactly characters": ("a result of exactly {got:,d} characters is not longer "
                                               "than a limit of {got:,d}: step 1 leaves it.",
                                               "正好 {got:,d} 个字符的结果不比阈值 {got:,d} 长："
                                               "第一步不动它。"),
    "budget: with your limit step 1 leaves": ("with your limit step 1 leaves {left:,d} characters, "
                                              "still over {batch_limit:,d}: a persisted result still "
                                              "takes its 2,000-character preview, so each move saves "
                                              "less than its size.",
                                              "用你的阈值，第一步之后还剩 {left:,d} 个字符，仍超过 "
                                              "{batch_limit:,d}：转存的结果仍占 2,000 个字符的预览，"
                                              "每转存一个省下的比它的大小少。"),
    "budget: a larger limit works too": ("a larger limit works too: step 1 goes "
                                              "largest first and stops as soon as the batch fits, so "
                                              "only the results it needs must be longer than the limit.",
                                              "更大的阈值也行：第一步从最大的开始，"
                                              "一放得下就停，所以只有它需要转存的那些结果必须比阈值长。"),
    # -- payoff.py
    "payoff: return a whole number of calls": ("return a whole number of calls (an int), or None when "
                                               "the step never pays for itself.",
                                               "返回调用次数（一个 int）；步骤永远回不了本时返回 None。"),
    "payoff: saves nothing": ("this step leaves a list no shorter than before: every later call "
                              "costs the same with it or without it, so the first call's extra "
                              "cost is never paid back.",
                              "这个步骤留下的列表并不比原来短：之后每次调用，有它没它花费一样，"
                              "第一次调用多付的钱永远收不回来。"),
    "payoff: it always pays in the end": ("the list got shorter, so every call after the first "
                                          "one saves 0.1 per token removed: in the end the step "
                                          "pays for itself.",
                                          "列表变短了，所以第一次之后的每次调用，每少一个 token "
                                          "就省 0.1：这个步骤终究会回本。"),
    "payoff: the unchanged start is not read": ("the cache holds whole earlier requests only: "
                                                "once the step changed a message, the next call "
                                                "reads nothing, not even the messages before it "
                                                "that the step left unchanged. All of after is "
                                                "written at 1.25.",
                                                "缓存只保存完整的先前请求：步骤一旦改了某条消息，"
                                                "下一次调用就什么也读不到，连步骤没动过的、排在它"
                                                "前面的消息也读不到。after 全部按 1.25 写入。"),
    "payoff: the summary call is billed": ("step 4's summary call is billed too: its input at 1 a "
                                           "token (never cached) and its output at 5.",
                                           "第四步的摘要调用同样计费：输入每个 token 按 1 计"
                                           "（从不命中缓存），输出按 5 计。"),
    "payoff: a cold cache": ("after a long pause the cache has expired: without the step, the "
                             "first call writes all of before again at 1.25, so the step costs "
                             "less than it seems.",
                             "长停顿之后缓存已经过期：没有这个步骤，第一次调用也要把 before "
                             "全部按 1.25 重新写入，所以这个步骤并不像看上去那么贵。"),
    "payoff: the first call saves nothing": ("count the call right after the step as call 1: it "
                                             "pays the extra, and each call from the second on "
                                             "saves 0.1 per token removed.",
                                             "把步骤之后的那次调用算作第 1 次：多付的钱在这次，"
                                             "从第 2 次起，每次调用每少一个 token 省 0.1。"),
    "payoff: the first call writes everything": ("a smaller list is not cheaper at once: the call "
                                                 "right after the step writes all of after at 1.25, "
                                                 "where without it that call reads before at 0.1.",
                                                 "列表小了，并不马上就便宜：步骤之后的那次调用要把 "
                                                 "after 全部按 1.25 写入，而没有这个步骤，这次调用"
                                                 "按 0.1 读取 before。"),
    # -- micro.py
    "micro: a result of at most 120": ("a result of at most 120 characters is left as it is.",
                                       "不超过 120 个字符的结果保持原样。"),
    "micro: read the path from the line": ("read the path from the line that starts 'Full output: ' "
                                           "inside the <persisted-output> block, up to the end of that "
                                           "line.",
                                           "从 <persisted-output> 块里以 'Full output: ' "
                                           "开头的那一行读出路径，一直读到行尾。"),
    "micro: this result starts with step 1's": ("this result starts with step 1's <persisted-output> "
                                                "block: point at its copy.",
                                                "这个结果以第一步的 <persisted-output> 块开头："
                                                "要指向它的副本。"),
    "micro: only step 1's own block counts": ("only step 1's own block counts: the text must start "
                                              "with '<persisted-output>'; a 'Full output:' line "
                                              "anywhere else is just text.",
                                              "只认第一步自己的块：文本必须以 '<persisted-output>' "
                                              "开头；别处的 'Full output:' 行只是普通文本。"),
    "micro: an older result over 120 characters": ("an older result over 120 characters with no saved "
                                                   "copy says it was omitted.",
                                                   "超过 120 个字符、又没有保存副本的较早结果，"
                                                   "要写明它已被省略（omitted）。"),
    # -- order.py
    "order: return a list of tool_use ids": ("return a list of tool_use ids.",
                                             "返回一个 tool_use id 的列表。"),
    "order: not lost, in a transcript": ("{extra_0} is not lost: a transcript holds the list as "
                                              "it was, look for the original in every transcript's "
                                              "tool results too.",
                                              "{extra_0} 没有丢失：transcript（完整记录）"
                                              "保存着原来的列表，也要在每个 transcript "
                                              "的工具结果里找原始输出。"),
    "order: not lost, its marker's path": ("{extra_0} is not lost: its marker's path (the 'Full "
                                             "output: ' line, or the placeholder's 'saved at') names a "
                                             "saved file holding the original.",
                                             "{extra_0} 没有丢失：它的标记里的路径（'Full output: ' "
                                             "行，或占位符的 'saved at'）指向一个保存着原始输出的文件。"),
    "order: still readable": ("{extra_0} is still readable: compare whole "
                                                     "texts, not only whether the id is there.",
                                                     "{extra_0} 仍然读得到：要比较完整的文本，"
                                                     "而不只是看 id 在不在。"),
    "order: a result is lost when no": ("a result is lost when no readable text for its id equals the "
                                        "original: a preview or '[Earlier tool result omitted.]' is "
                                        "not the original.",
                                        "一个结果丢失，是指它的 id 对应的所有可读文本都不等于原始输出："
                                        "预览或 '[Earlier tool result omitted.]' 都不是原始输出。"),
    # -- own.py
    "own: hint": ("two forces: near the window every call sends nearly the window; far below "
                  "it, compactions come often and each rewrites the prompt the cache holds. The "
                  "bill is lowest in between, and jagged from one limit to the next: aim for the "
                  "middle of the valley, not its edge.",
                  "两股力量：阈值贴近窗口时，每次调用都发送将近一整个窗口；远低于窗口时，压缩来得频繁，"
                  "每次都改写缓存里的提示。账单在两者之间最低，而且相邻阈值之间高低不平：瞄准谷底的"
                  "中间，而不是它的边缘。"),
    "own: unknown keys": ("unknown keys {unknown}: a choice takes {keys}",
                          "未知的键 {unknown}：选择只接受 {keys}"),
    "own: expected a dict": ("expected a dict with {keys}",
                             "需要一个包含 {keys} 的 dict"),
    "own: the choice lacks": ("the choice lacks {missing}",
                              "选择里缺少 {missing}"),
    "own: give one context limit": ("give one context limit: {one_limit}",
                                    "给出一个上下文阈值：{one_limit}"),
    "own: profile is seed or default": ("profile is 'seed' or 'default'",
                                        "profile 只能是 'seed' 或 'default'"),
    "own: fits the window": ("fits the window",
                             "放得进窗口"),
    "own: over the window": ("peak {row_peak_tokens:,} tokens > window {window:,}",
                                "峰值 {row_peak_tokens:,} 个 token > 窗口 {window:,}"),
    "own: loses no tool output": ("loses no tool output",
                                  "不丢失工具输出"),
    "own: outputs lost": ("{row_lost} outputs lost: the seed profile's step 3 keeps no copy",
                          "丢失 {row_lost} 个输出：原文配置（seed）的第三步不保存副本"),
    "own: within the budget": ("within the budget",
                               "不超预算"),
    "own: over the budget": ("cost {row_cost:,} > budget {budget:,}",
                         "成本 {row_cost:,} > 预算 {budget:,}"),
    "own: forgets no more than the default": ("forgets no more probes than the default profile",
                                              "遗忘的探针不比默认配置多"),
    "own: forgets more than the default": ("{row_forgotten} probes forgotten; the default profile at its "
                                           "defaults forgets {most}: what this choice drops has no copy",
                                           "遗忘了 {row_forgotten} 个探针；默认配置在默认设置下遗忘 "
                                           "{most} 个：这个选择丢掉的内容没有副本"),
    "own: no row of the grid qualifies": ("misses: n/a, no row of the grid fits this window, so "
                                          "there is no best row to compare with",
                                          "缺失：不适用，网格中没有一行放得进这个窗口，没有最佳行可比"),
    "own: misses no more than the best row": ("misses no more than the best row",
                                          "缺失不比最佳行多"),
    "own: misses more than the best row": ("{row_misses} misses (calls whose reply used a name only "
                                           "an earlier output held, missing from the request): "
                                           "another setting that meets the other lines misses fewer",
                                           "缺失 {row_misses} 次（回复用到的名字只在更早的输出里、"
                                           "请求里却没有的调用）：另有满足其余各条的设置缺失更少"),
    # -- live.py
    "live: no run": ("my_run: run live_run(...) first, and hand its result to the checker",
                     "my_run：先运行 live_run(...)，再把它的结果交给检查器"),
    "live: record": ("what your run did, at the calls where a step fired:",
                     "你的运行在有步骤触发的那些调用上做了什么："),
    "live: call": ("  call {n}: {steps}", "  第 {n} 次调用：{steps}"),
    "live: disk": ("  on disk after: {saved_results} in .task_outputs/tool-results/, "
                   "{transcripts} in .transcripts/",
                   "  运行后磁盘上：.task_outputs/tool-results/ 中 {saved_results} 个，"
                   ".transcripts/ 中 {transcripts} 个"),
    # -- profiles.py
    "profiles: return one count": ("return one count.", "返回一个数。"),
    "profiles: the newest 3 stay whole, unread too": (
        "the newest 3 results of the whole list stay whole, even unread ones: count only the "
        "unread results older than those 3 and longer than 120.",
        "整个列表中最新的 3 个结果保持完整，未读的也一样：只数比这 3 个更早、又超过 120 个字符的未读结果。"),
    "profiles: the read ones count too": ("you counted every older result shrunk, read ones too: "
                                          "only the last `fresh` results are unread.",
                                          "你把所有被缩短的旧结果都算上了，包括已读的：只有最后 "
                                          "`fresh` 个结果是未读的。"),
    "profiles: the newest 3 by position": ("the newest 3 results stay whole by position, whatever "
                                           "their size: a short one among them still takes a place.",
                                           "最新的 3 个结果按位置保留，不看大小：其中短的那个也占一个"
                                           "位置。"),
    "profiles: 120 is left alone": ("a result of exactly 120 characters is left alone: step 3 "
                                    "shrinks only results longer than 120.",
                                    "正好 120 个字符的结果不动：第三步只缩短超过 120 个字符的结果。"),
    "profiles: short ones stay whole": ("you counted every unread result older than the newest 3, "
                                        "whatever its size: step 3 leaves one of 120 characters or "
                                        "fewer whole.",
                                        "你把比最新 3 个更早的未读结果都算上了，不管大小：第三步不动"
                                        " 120 个字符及以下的结果。"),
    # -- prepare.py (08)
    "prepare: input": ("input: the history {label}, {n} messages, about {size:,d} characters; "
                       "active_request={request!r}",
                       "输入：历史 {label}，{n} 条消息，约 {size:,d} 个字符；active_request={request!r}"),
    "prepare: step 4 on every call": ("your prepare summarized although steps 1-3 had brought the "
                                      "list under the limit: step 4 runs only if the list is still "
                                      "over compactor.config.context_limit after them.",
                                      "你的 prepare 在第一到第三步已经让列表降到上限以下时仍然做了摘要："
                                      "只有在这三步之后列表仍然超过 compactor.config.context_limit，"
                                      "第四步才运行。"),
    "prepare: step 4 measured before steps 1-3": ("your prepare measured the list before steps 1-3: "
                                                  "measure it after them (compactor.size), since "
                                                  "they may already bring it under the limit.",
                                                  "你的 prepare 在第一到第三步之前量了列表的大小："
                                                  "要在它们之后量（compactor.size），"
                                                  "因为它们可能已经让列表降到上限以下。"),
    "prepare: step 4 although steps 1-3 were enough": (
        "steps 1-3 brought this list under the limit, and your prepare still summarized it: "
        "measure the list after them (compactor.size), and run step 4 only if it is still over "
        "compactor.config.context_limit.",
        "第一到第三步已经让这个列表降到上限以下，你的 prepare 仍然做了摘要：在这三步之后再量列表"
        "（compactor.size），只有仍然超过 compactor.config.context_limit 时才运行第四步。"),
    "prepare: step 4 never": ("this list is still over the limit after steps 1-3, and your prepare "
                              "did not summarize it: that is step 4's case.",
                              "这个列表在第一到第三步之后仍然超过上限，而你的 prepare 没有做摘要："
                              "这正是第四步要处理的情况。"),
    "prepare: step 3 before step 1": ("your prepare ran step 3 before step 1 (or step 2 before "
                                      "step 1): the article's order is 1, 2, 3, so that step 1 saves "
                                      "a huge result before step 3 would shrink it.",
                                      "你的 prepare 把第三步（或第二步）放在了第一步之前："
                                      "文章的顺序是 1、2、3，这样第一步先把大结果存到磁盘，"
                                      "第三步才去收缩它。"),
    "prepare: a step left out": ("your prepare left out one of steps 1-3: all three run on every "
                                 "call, each decides itself whether it has work to do.",
                                 "你的 prepare 漏掉了第一到第三步中的一步：这三步每次调用都运行，"
                                 "各自判断有没有事可做。"),
    "prepare: a different number of messages": ("the package's prepare leaves {want} messages, "
                                                "yours {have}: which step changes the count?",
                                                "本包的 prepare 留下 {want} 条消息，你的留下 {have} 条："
                                                "哪一步会改变消息的条数？"),

    # -- reactive.py
    "reactive: return one index the first message": ("return one index: the first message kept "
                                                     "verbatim.",
                                                     "返回一个下标：第一条原样保留的消息。"),
    "reactive: that is the article's tail message": ("that is the article's tail: message "
                                                     "{request_at}, the request, is in it and in the "
                                                     "summary message, so the model reads it twice.",
                                                     "这是文章的尾部：请求所在的第 {request_at} "
                                                     "条消息既在尾部里，又在摘要消息里，"
                                                     "模型会读到两次。"),
    "reactive: the tail starts at the request": ("the tail starts at the request, so the model reads "
                                                 "it twice.",
                                                 "尾部从请求开始，模型会读到两次。"),
    "reactive: the request message is already before": ("the request (message {request_at}) is already "
                                                        "before the tail, so only the summary holds it: "
                                                        "does the tail need to move?",
                                                        "请求（第 {request_at} 条消息）已经在尾部之前，"
                                                        "只有摘要里有它：尾部还需要移动吗？"),
    "reactive: your tail opens on kinds": ("your tail opens on kinds[{got}], a tool_result whose "
                                           "tool_use is just before it: the pair is parted.",
                                           "你的尾部从 kinds[{got}] 开始，它是 tool_result，而它的 "
                                           "tool_use 就在前面：这一对被拆开了。"),
    "reactive: never start below 0": ("never start below 0.",
                                      "绝不从小于 0 的位置开始。"),
    # -- server_edits.py
    "server_edits: hint": ("clear_at_least holds back the first clearing; after it, each new tool "
                           "use clears one more result and breaks the cache. Look at the table of "
                           "tools: a result of a few dozen or a thousand characters saves little "
                           "when cleared and costs a break all the same; exclude_tools keeps a "
                           "tool's results whole. Compaction loses what it summarizes.",
                           "clear_at_least 推迟第一次清除；之后每来一次新的工具调用，就多清除一个结果，"
                           "缓存也断一次。看看工具表：几十或一千来个字符的结果，清掉省不了多少，"
                           "却照样打断一次缓存；exclude_tools 让某个工具的结果保持完整。压缩会丢掉它"
                           "摘要掉的内容。"),
    "server_edits: cost at most": ("cost at most {budget_cost:,d}",
                                   "成本不超过 {budget_cost:,d}"),
    "server_edits: cache broken less often than without clear_at_least": (
        "cache broken less often than without clear_at_least",
        "缓存失效次数少于不设 clear_at_least 时"),
    "server_edits: no tool output lost for good": ("no tool output lost for good (clearing always "
                                                   "meets this: your list keeps every output; "
                                                   "compaction may not)",
                                                   "没有工具输出被永久丢失（清除总能满足这一条："
                                                   "你的列表保留每个输出；压缩未必）"),
    "server_edits: the newest tool uses kept whole": ("the newest {budget_keep} tool uses kept whole",
                                                      "最新的 {budget_keep} 次工具调用保持完整"),
    "server_edits: the server takes the edits": ("the server takes the edits",
                                                 "服务器接受这些 edits"),
    # -- snip.py
    "snip: return a list of call numbers": ("return a list of call numbers, the first call being 1.",
                                            "返回一个调用编号的列表，第一次调用是 1。"),
    "snip: that is the article's cut": ("that is the article's cut: it keeps {max_messages_1} "
                                        "messages, one over the trigger, so the next call archives "
                                        "again. This snip keeps `target`.",
                                        "这是文章的切法：它留下 {max_messages_1} 条消息，"
                                        "比触发条件多一条，所以下一次调用又要归档。这里的 snip 留下 "
                                        "`target` 条。"),
    "snip: after a cut the list holds": ("after a cut the list holds exactly {target} messages: the "
                                         "marker is one of them.",
                                         "切完之后列表正好有 {target} 条消息：标记也算其中一条。"),
    "snip: step 2 acts when the list": ("step 2 acts when the list is over {max_messages}, not when it "
                                        "reaches it.",
                                        "列表超过 {max_messages} 条时第二步才动手，达到时不算。"),
    "snip: number the calls from 1": ("number the calls from 1.",
                                      "调用从 1 开始编号。"),
    # -- summary.py
    "summary: a quarter from the start": (
        "the summarizer keeps a quarter of the limit from the start and the other three quarters "
        "from the end (limit // 4 first).",
        "摘要器从开头保留上限的四分之一，从结尾保留另外四分之三（先取 limit // 4）。"),
    "summary: count the brackets and separators": (
        "the input is json.dumps of the list: '[' first, ', ' between two messages, ']' last; "
        "each moves the messages after it.",
        "输入是整个列表的 json.dumps：开头一个 '['，两条消息之间一个 ', '，结尾一个 ']'；"
        "它们都会把后面的消息往后推。"),
    "summary: a message cut in two is partly seen": (
        "a message the cut passes through is partly sent: list only those of which not one "
        "character is sent.",
        "被切点穿过的消息有一部分被发送了：只列出一个字符都没有发送的消息。"),
    "summary: return a list of indexes": ("return a list of message indexes (ints), oldest first.",
                                         "返回消息下标（int）的列表，从最早的开始。"),
    "summary: under the limit all is sent": (
        "how long is this case's JSON, against the limit of {limit:,d}? Is anything cut at all?",
        "这个用例的 JSON 有多长，和上限 {limit:,d} 比呢？到底有没有被切掉的部分？"),
    # -- tool.py
    "tool: run tool_use raised and your function": ("run(tool_use) raised and your function let it "
                                                    "escape: catch the exception and answer the call "
                                                    "with 'Error: ' and the exception's message.",
                                                    "run(tool_use) 抛出了异常，而你的函数没有接住："
                                                    "捕获异常，用 'Error: ' "
                                                    "加上异常的消息回答这个调用。"),
    "tool: run every call of the batch": ("run every call of the batch, also the ones after a failure "
                                          "or a compact.",
                                          "运行这一批里的每个调用，失败之后、compact 之后的也要运行。"),
    "tool: compact has no handler answer": ("compact has no handler: answer it with "
                                            "context_compact.formats.COMPACT_TOOL_ACK, "
                                            "not run().",
                                            "compact 没有处理函数：用 "
                                            "context_compact.formats.COMPACT_TOOL_ACK "
                                            "回答它，不要调用 run()。"),
    "tool: the batch held a compact call": ("the batch held a compact call: the compaction still "
                                            "happens once the results are in, even when a call failed.",
                                            "这一批里有 compact 调用：结果都加进去之后，压缩仍然要"
                                            "进行，有调用失败时也一样。"),
    "tool: compact ran before the results were": ("compact ran before the results were appended: the "
                                                  "summary misses what the batch did, and the results "
                                                  "would answer nothing.",
                                                  "compact 在结果加进去之前就运行了："
                                                  "摘要漏掉了这一批做的事，这些结果也不再回应任何调用。"),
    "tool: no compact call in this batch": ("no compact call in this batch: return the list with the "
                                            "results appended.",
                                            "这一批里没有 compact 调用：返回加上结果之后的列表。"),
    "tool: every tool_use needs its tool_result": ("every tool_use needs its tool_result, a failed one "
                                                   "too: answer it with 'Error: ' and the exception's "
                                                   "message.",
                                                   "每个 tool_use 都要有它的 tool_result，"
                                                   "失败的也一样：用 'Error: ' 加上异常的消息回答它。"),
    "tool: one user message holds every result": ("one user message holds every result, in the order "
                                                  "of the calls; a failed call's is 'Error: ' and the "
                                                  "exception's message.",
                                                  "一条 user 消息按调用的顺序装下所有结果；"
                                                  "失败调用的结果是 'Error: ' 加上异常的消息。"),
}
BY_LANG = {lang: {key: pair[i] for key, pair in PHRASES.items()} for i, lang in enumerate(("en", "zh"))}


def say(key: str, lang: str | None = None, /, **values) -> str:
    """The phrase `key` in `lang` (default: the notebook's), filled with `values`."""
    return BY_LANG[lang or language()][key].format(**values)
