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
    },
}


def say(lang: str, key: str, **values) -> str:
    return PHRASES[lang][key].format(**values)
