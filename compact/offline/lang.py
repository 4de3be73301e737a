"""The language of a request, and the offline model's fixed phrases in English and Chinese.

A request with any Chinese character is answered in Chinese, any other in
English: the request's own language, decided from its characters alone.
`say(lang, key, **values)` fills one phrase of PHRASES.

Left out: any other language, and translation: quoted lines, file names and
values are copied as they are, whatever the language of the sentence around them.
"""

import re

CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def language(text: str) -> str:
    """'zh' when the text holds a Chinese character, else 'en'."""
    return "zh" if CJK_RE.search(text or "") else "en"


# Each phrase in both languages, side by side, so a new one cannot miss its translation.
PHRASES_BY_KEY = {
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
    # answers
    "sources": ("Looked at: {where}.",
                "查看过：{where}。"),
    "cannot": ("The workspace does not answer this: {why}",
               "工作区回答不了这个问题：{why}"),
    "gone": ("the result of {call} was shrunk to {omitted} and nothing in this context records it, so that "
             "text is gone",
             "{call} 的结果已被缩成 {omitted}，上下文里没有任何记录，那段文字已经没了"),
    "error": ("{call} failed: {line}",
              "{call} 失败：{line}"),
    # the experiments' answers (docs_json.py, compare_code.py, compact_tool.py, titles.py)
    "json could not read": ("I could not read {path}: {line}",
                            "我读不了 {path}：{line}"),
    "json gone": ("I can't describe {path}: its tool result was shrunk to {omitted} and nothing left in "
                  "this context records its structure.",
                  "我描述不了 {path}：它的工具结果已被缩成 {omitted}，上下文里没有任何东西记录它的结构。"),
    "json whole": ("the whole file, as read in this context",
                   "这个上下文中读到的整个文件"),
    "json peek": ("the first {chars} characters of the saved copy {saved}",
                  "保存副本 {saved} 的前 {chars} 个字符"),
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
                   "- {path}{size}：当前上下文靠 {context}；持久记忆靠 {memory}。（来自{source}。）"),
    "code nothing": ("nothing named for it",
                     "没有为此命名的函数或类"),
    "code read": ("the file as read in this context",
                  "这个上下文中读到的文件"),
    "code note": ("my own note, taken when I read it",
                  "我读它时记下的笔记"),
    "code summary": ("the conversation summary",
                     "对话摘要"),
    "code outline": ("an outline of its class and def lines, taken after its text left the context",
                     "它的内容离开上下文之后取得的 class 和 def 行大纲"),
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
}
PHRASES = {lang: {key: pair[i] for key, pair in PHRASES_BY_KEY.items()}
           for i, lang in enumerate(("en", "zh"))}


def say(lang: str, key: str, **values) -> str:
    return PHRASES[lang][key].format(**values)
