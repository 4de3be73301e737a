"""Reading a question about the workspace: `parse(request) -> Question`.

Left out: grammar; word order matters only to find the name next to "folder" / 文件夹.
"""

import re
from dataclasses import dataclass, field

from ...display.lang import language_of

FILE_EXT = ("md", "py", "json", "txt", "log", "toml", "yaml", "yml", "cfg", "ini", "js", "ts",
            "html", "css", "sh", "csv", "lock", "jsonl")
FILE_RE = re.compile(r"\.(?:" + "|".join(FILE_EXT) + r")$")
TOKEN_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./*-]*")
QUOTED_RE = re.compile(r"`([^`]+)`|\"([^\"]+)\"|“([^”]+)”|「([^」]+)」")
CJK_RUN_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
IDENT_RE = re.compile(r"^(?:[A-Za-z_]*_[A-Za-z0-9_]*|[A-Z][A-Z0-9]+|[A-Za-z][a-z]+[A-Z]\w*)$")
LESSON_RE = re.compile(r"^s\d\d(?:_\w+)?$")
ENDINGS = ("ing", "ed", "es", "s")

STOP = set("""a an the of in on at to for from by with and or is are was were be been do does
did what which who whom whose where when why how this that these those it its there here me my
i you your we our us please tell show give say said file files folder folders directory dir
about any some all each every many much number workspace can could would should will has
have had into inside under than then so as last latest read look see find get use used lesson
lessons hold holds code mention mentions mentioned contain contains refer refers""".split())
# Chinese content words the workspace (in English) can be searched for.
GLOSSARY = {"测试": "test", "通过": "pass", "失败": "fail", "错误": "error", "跳过": "skip",
            "记忆": "memory", "笔记": "note", "保存": "store", "日志": "log", "网站": "site",
            "版本": "version", "依赖": "package", "包": "package", "标题": "title", "行": "line",
            "转存": "persist", "输出": "output", "大": "large", "工具": "tool", "结果": "result"}


def stem(word: str) -> str:
    """The word without its first ending that leaves three letters or more."""
    return next((word[: -len(end)] for end in ENDINGS if word.endswith(end) and len(word) - len(end) >= 3),
                word)


@dataclass
class Question:
    text: str
    lang: str
    paths: list = field(default_factory=list)      # the files and folders it names
    names: list = field(default_factory=list)      # identifiers and quoted words
    words: list = field(default_factory=list)      # other content words, lower-cased
    folder: str | None = None                      # the folder it names

    @property
    def files(self) -> list:
        return [p for p in self.paths if FILE_RE.search(p)]

    @property
    def stems(self) -> set:
        return {stem(w.lower()) for w in self.words}

    def bare(self) -> str:
        """The question in lower case without its paths: package.json asks about no package."""
        return " ".join(w for w in self.text.lower().split() if not is_path(w.rstrip(".,;:!?？。")))


def is_path(token: str) -> bool:
    return "/" in token or bool(FILE_RE.search(token))


def folder_named(text: str, tokens: list) -> str | None:
    """A path ending in '/', a lesson's code, or the word next to 'folder' / 文件夹."""
    for token in tokens:
        if token.endswith("/") and not FILE_RE.search(token):
            return token.rstrip("/")
        if LESSON_RE.match(token):
            return token
    words = re.findall(r"[A-Za-z0-9_./-]+|[\u3400-\u9fff]+", text)
    for i, word in enumerate(words):
        if word.lower().startswith(("folder", "director")) or "文件夹" in word or "目录" in word:
            for j in (i - 1, i + 1):
                if 0 <= j < len(words) and words[j].lower() not in STOP \
                        and TOKEN_RE.fullmatch(words[j]):
                    return words[j].strip("./") or None
    return None


def parse(request: str) -> Question:
    """What a request names."""
    text = " ".join(request.split())
    quoted = [next(g for g in m.groups() if g) for m in QUOTED_RE.finditer(text)]
    tokens = [t.rstrip(".,;:!?") or t for t in TOKEN_RE.findall(text)]
    paths = list(dict.fromkeys(t for t in tokens if is_path(t)))
    names = list(dict.fromkeys(quoted + [t for t in tokens if not is_path(t) and IDENT_RE.match(t)
                                         and not LESSON_RE.match(t) and t.lower() not in STOP]))
    words = [t.lower() for t in tokens if not is_path(t) and t not in names and len(t) > 1
             and t.lower() not in STOP and not t.isdigit() and not LESSON_RE.match(t)]
    runs = CJK_RUN_RE.findall(text)   # Chinese words: the glossary's English, then each run as it is
    words += [english for run in runs for word, english in GLOSSARY.items() if word in run]
    words += [run for run in runs if len(run) >= 2]
    return Question(text, language_of(text), paths=paths, names=names, words=list(dict.fromkeys(words)),
                    folder=folder_named(text, tokens))
