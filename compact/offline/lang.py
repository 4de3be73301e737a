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


PHRASES = {
    "en": {
        # summaries
        "goal": "Current goal:", "files": "Files read or changed:", "decisions": "Decisions:",
        "done": "Done:", "pending": "Pending:", "none": "- (none)",
        "no_goal": "(no request in these messages)",
        "answer_goal": "answer the current goal",
        "no_result": "{call}: no result yet",
        "answered": "answered: {line}",
        "earlier": "earlier summary: {line}",
        "middle_cut": "(The middle of the conversation was not in my input; the full "
                      "transcript is on disk.)",
        # answers
        "sources": "Looked at: {where}.",
        "cannot": "The workspace does not answer this: {why}",
        "gone": "the result of {call} was shrunk to {omitted} and nothing in this context "
                "records it, so that text is gone",
        "error": "{call} failed: {line}",
        # the experiments' answers (docs_json.py, compare_code.py, compact_tool.py, titles.py)
        "json could not read": "I could not read {path}: {line}",
        "json gone": "I can't describe {path}: its tool result was shrunk to {omitted} "
                     "and nothing left in this context records its structure.",
        "json whole": "the whole file, as read in this context",
        "json peek": "the first {chars} characters of the saved copy {saved}",
        "json preview": "the persisted preview (full text: {saved})",
        "json head": "{path}: a JSON {root}", "json text": "text",
        "json fields": " with fields {top}",
        "json top": "Top level: {fields}.", "json field": "{name} ({kind})",
        "json where": " (the first element of '{within}')",
        "json record": "One record{where} has {n} main fields:",
        "json nested": ": a list of objects with {names}",
        "json goes on": "The record goes on past the text I have seen; these are its fields "
                        "up to that point.",
        "json no record": "No complete record is visible in the text I have.",
        "json source": "Source: {source}.",
        "code comparing": "Comparing {paths}:", "code and": " and ",
        "code failed": "- {path}: I could not read it, so I can't say how it works.",
        "code gone": "- {path}: no longer in this context (its result was shrunk and I "
                     "kept no note), so I can't say how it works.",
        "code lines": " ({n} lines)",
        "code facts": "- {path}{size}: current context through {context}; persistent "
                      "memory through {memory}. (From {source}.)",
        "code nothing": "nothing named for it",
        "code read": "the file as read in this context",
        "code note": "my own note, taken when I read it",
        "code summary": "the conversation summary",
        "code outline": "an outline of its class and def lines, taken after its text left "
                        "the context",
        "code in short": "In short: {context_side} manages the current context, keeping the "
                         "messages list under the window within one session; ",
        "code memory": "{memory_side} keeps persistent memory that outlives a compaction "
                       "or a new session.",
        "code no memory": "neither names a persistent memory.",
        "tool done": "Done: {written}.",
        "tool lessons": "The note lists the {n} lessons: {names}.",
        "tool compacted": "The compact tool ran after that batch, so the earlier conversation "
                          "is now a summary and the write is recorded in it; nothing needs "
                          "redoing.",
        "tool asked": "I asked for a compaction in the same batch.",
    },
    "zh": {
        "goal": "当前目标：", "files": "读过或改过的文件：", "decisions": "决定：",
        "done": "已完成：", "pending": "待完成：", "none": "- （无）",
        "no_goal": "（这些消息里没有请求）",
        "answer_goal": "回答当前目标",
        "no_result": "{call}：还没有结果",
        "answered": "已回答：{line}",
        "earlier": "之前的摘要：{line}",
        "middle_cut": "（对话的中间部分不在我的输入里；完整记录在磁盘上。）",
        "sources": "查看过：{where}。",
        "cannot": "工作区回答不了这个问题：{why}",
        "gone": "{call} 的结果已被缩成 {omitted}，上下文里没有任何记录，那段文字已经没了",
        "error": "{call} 失败：{line}",
        "json could not read": "我读不了 {path}：{line}",
        "json gone": "我描述不了 {path}：它的工具结果已被缩成 {omitted}，"
                     "上下文里没有任何东西记录它的结构。",
        "json whole": "这个上下文中读到的整个文件",
        "json peek": "保存副本 {saved} 的前 {chars} 个字符",
        "json preview": "转存后留下的预览（完整内容：{saved}）",
        "json head": "{path}：一个 JSON {root}", "json text": "文本",
        "json fields": "，字段有 {top}",
        "json top": "顶层：{fields}。", "json field": "{name}（{kind}）",
        "json where": "（'{within}' 的第一个元素）",
        "json record": "一条记录{where}有 {n} 个主要字段：",
        "json nested": "：对象列表，每个对象有 {names}",
        "json goes on": "这条记录在我看到的文本之后还没结束；以上是到那里为止的字段。",
        "json no record": "我手上的文本里看不到一条完整的记录。",
        "json source": "来源：{source}。",
        "code comparing": "比较 {paths}：", "code and": " 和 ",
        "code failed": "- {path}：我读不了它，所以说不出它怎样工作。",
        "code gone": "- {path}：已经不在这个上下文里（它的结果被缩掉了，我也没有留笔记），"
                     "所以说不出它怎样工作。",
        "code lines": "（{n} 行）",
        "code facts": "- {path}{size}：当前上下文靠 {context}；持久记忆靠 {memory}。（来自{source}。）",
        "code nothing": "没有为此命名的函数或类",
        "code read": "这个上下文中读到的文件",
        "code note": "我读它时记下的笔记",
        "code summary": "对话摘要",
        "code outline": "它的内容离开上下文之后取得的 class 和 def 行大纲",
        "code in short": "简而言之：{context_side} 管理当前上下文，在一次会话内让 messages "
                         "列表保持在窗口之内；",
        "code memory": "{memory_side} 保存持久记忆，压缩之后或新会话中依然存在。",
        "code no memory": "两个文件都没有提到持久记忆。",
        "tool done": "完成：{written}。",
        "tool lessons": "笔记列出了 {n} 节课程：{names}。",
        "tool compacted": "compact 工具在这一批之后运行了，所以之前的对话现在是一份摘要，"
                          "写入也记在摘要里；不需要重做任何事。",
        "tool asked": "我在同一批里请求了一次压缩。",
    },
}


def say(lang: str, key: str, **values) -> str:
    return PHRASES[lang][key].format(**values)
