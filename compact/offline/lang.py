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
    "middle_cut": ("(The middle of the conversation was not in my input; the full "
                   "transcript is on disk.)",
                   "（对话的中间部分不在我的输入里；完整记录在磁盘上。）"),
    # answers
    "sources": ("Looked at: {where}.",
                "查看过：{where}。"),
    "cannot": ("The workspace does not answer this: {why}",
               "工作区回答不了这个问题：{why}"),
    "gone": ("the result of {call} was shrunk to {omitted} and nothing in this context "
             "records it, so that text is gone",
             "{call} 的结果已被缩成 {omitted}，上下文里没有任何记录，那段文字已经没了"),
    "error": ("{call} failed: {line}",
              "{call} 失败：{line}"),
}
PHRASES = {lang: {key: pair[i] for key, pair in PHRASES_BY_KEY.items()}
           for i, lang in enumerate(("en", "zh"))}


def say(lang: str, key: str, **values) -> str:
    return PHRASES[lang][key].format(**values)
