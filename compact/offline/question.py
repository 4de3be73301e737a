"""Reading a question about the workspace: its language, its kind, and what it names.

`parse(request) -> Question` splits the request into
- the paths it names (`logs/test_run.log`, `requirements.txt`, `logs/`);
- the identifiers and quoted words (`KEEP_RECENT_RESULTS`, `snip_cut`, "timeout"),
  which are searched for exactly;
- its other content words, in English cut to a stem (`failed` -> `fail`), in
  Chinese mapped through a small glossary (失败 -> fail) or kept as they are;
- its kind: the first entry of KINDS whose cue words it contains (in English
  or in Chinese) and whose needs it meets. The kinds are tried in a fixed
  order, most specific first, so a question about a constant's value that also
  says "how many" is still about the value.

Left out: grammar. A question is a bag of cue words and names; word order
matters only to find the name next to "folder" / 文件夹.
"""

import re
from dataclasses import dataclass, field

from .lang import language

FILE_EXT = ("md", "py", "json", "txt", "log", "toml", "yaml", "yml", "cfg", "ini", "js", "ts",
            "tsx", "html", "css", "sh", "csv", "lock", "jsonl")
TOKEN_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./*-]*")
QUOTED_RE = re.compile(r"`([^`]+)`|\"([^\"]+)\"|“([^”]+)”|「([^」]+)」|'([^'\s][^']*[^'\s])'")
CJK_RUN_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
CONSTANT_RE = re.compile(r"^[A-Z][A-Z0-9]*_[A-Z0-9_]+$")
IDENT_RE = re.compile(r"^(?:[A-Za-z_]*_[A-Za-z0-9_]*|[A-Z][A-Z0-9]+|[a-z]+[A-Z]\w*)$")

STOP = set("""a an the of in on at to for from by with and or is are was were be been do does
did what which who whom whose where when why how this that these those it its there here
me my i you your we our us please tell show give say said set value values equal equals
file files folder folders directory directories dir contain contains containing mention
mentions mentioned mentioning list lists listed name names about any some all each every
many much number count workspace can could would should will has have had into inside
under above than then so as last latest describe summarize summarise read show explain say
says look see find get use uses used""".split())

# Chinese words that only frame the question, longest first so 哪些 goes before 哪.
ZH_STOP = sorted("""哪个文件 哪些文件 文件夹 工作区 什么 哪里 哪个 哪些 多少 上次 最近 一次 列出 提到 提及
出现 包含 里面 告诉 请问 请 的 了 是 在 有 个 里 中 吗 呢 和 与 及 把 被 我 你 这 那 哪 几 值 设为 等于
文件 目录 一下 为 被设 设置""".split(), key=len, reverse=True)
# Chinese content words the workspace (in English) can be searched for.
GLOSSARY = {"测试": "test", "通过": "pass", "失败": "fail", "错误": "error", "警告": "warning",
            "跳过": "skip", "记录": "record", "课程": "lesson", "课": "lesson", "日志": "log",
            "包": "package", "依赖": "package", "章节": "section", "常量": "constant",
            "运行": "run", "行": "line"}


def stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


@dataclass
class Kind:
    name: str
    en: tuple        # English cues: words (matched as stems) or phrases
    zh: tuple        # Chinese cues: substrings
    needs: str = ""  # "ident" / "constant" / "path": one is named; "no file": no file named


# Tried in this order; the first whose cues appear and whose needs are met wins.
KINDS = (
    Kind("value", ("set to", "value", "equal", "defined as", "assigned"),
         ("的值", "值是", "设为", "设置为", "等于", "是多少"), needs="ident"),
    # "What is MAX_TURNS?": a constant's name alone asks for its value.
    Kind("value", ("what is", "what's"), ("是什么", "是多少"), needs="constant"),
    Kind("failures", ("fail",), ("失败",)),
    Kind("count", ("how many", "number of"), ("多少", "几个", "几")),
    Kind("packages", ("packag", "dependenc", "requirement", "depend"),
         ("哪些包", "什么包", "软件包", "个包", "的包", "依赖")),
    Kind("folder", ("folder", "director", "what is in", "what's in"), ("文件夹", "目录", "有什么"),
         needs="no file"),
    Kind("mention", ("mention", "which file", "refer", "where is", "contain"),
         ("提到", "提及", "出现", "哪个文件", "哪些文件", "包含")),
    Kind("describe", (), (), needs="path"),
    Kind("search", (), ()),
)


@dataclass
class Question:
    text: str
    lang: str
    kind: str = "search"
    paths: list = field(default_factory=list)      # files and folders it names
    exact: list = field(default_factory=list)      # identifiers and quoted words
    words: list = field(default_factory=list)      # other content words, as stems
    folder: str | None = None                      # the folder a "folder" question names

    @property
    def files(self) -> list:
        return [p for p in self.paths if is_file_path(p)]

    @property
    def terms(self) -> list:
        """What to search for: the exact names first, else the content words."""
        return self.exact or self.words


def is_file_path(token: str) -> bool:
    return bool(re.search(r"\.(?:" + "|".join(FILE_EXT) + r")$", token))


def is_path(token: str) -> bool:
    return "/" in token or is_file_path(token)


def cue_in(kind: Kind, lower: str, stems: set) -> bool:
    en = any((cue in lower) if " " in cue else any(s.startswith(cue) for s in stems)
             for cue in kind.en)
    return en or any(cue in lower for cue in kind.zh)


def zh_terms(text: str) -> list:
    """The content words of the Chinese parts: glossary words, then what is left."""
    found = []
    for run in CJK_RUN_RE.findall(text):
        for word, english in GLOSSARY.items():
            if word in run:
                found.append(english)
                run = run.replace(word, " ")
        for stop in ZH_STOP:
            run = run.replace(stop, " ")
        found += [w for w in run.split() if len(w) >= 2]
    return found


def folder_named(text: str, tokens: list) -> str | None:
    """The folder a question names: a path ending in '/', or the word next to 'folder'."""
    for token in tokens:
        if token.endswith("/"):
            return token.rstrip("/")
    words = re.findall(r"[A-Za-z0-9_./-]+|[\u3400-\u9fff]+", text)
    lower = [w.lower() for w in words]
    for i, word in enumerate(lower):
        if word.startswith(("folder", "director", "文件夹", "目录")) or "文件夹" in word:
            for j in (i - 1, i + 1):
                if 0 <= j < len(words) and lower[j] not in STOP and TOKEN_RE.fullmatch(words[j]):
                    return words[j].strip("./") or None
    # "What is in s09_memory?": the one name that is not a file.
    names = [t for t in tokens if t.lower() not in STOP and not is_file_path(t) and len(t) > 1]
    return names[0].strip("./") or None if names else None


def parse(request: str) -> Question:
    """What a request asks and names."""
    text = " ".join(request.split())
    lower = text.lower()
    quoted = [next(g for g in m.groups() if g) for m in QUOTED_RE.finditer(text)]
    tokens = [t.rstrip(".,;:!?") or t for t in TOKEN_RE.findall(text)]
    paths = list(dict.fromkeys(t for t in tokens if is_path(t)))
    exact = list(dict.fromkeys(quoted + [t for t in tokens if not is_path(t)
                                         and IDENT_RE.match(t) and t.lower() not in STOP]))
    words = [stem(t) for t in tokens if not is_path(t) and t not in exact
             and t.lower() not in STOP and not t.isdigit() and len(t) > 1]
    words = list(dict.fromkeys(words + zh_terms(text)))
    question = Question(text, language(text), paths=paths, exact=exact, words=words,
                        folder=folder_named(text, tokens))
    # Cue words are read outside the paths: package.json asks nothing about packages.
    bare = " ".join(w for w in lower.split() if not is_path(w.rstrip(".,;:!?？。")))
    stems = {stem(w) for w in re.findall(r"[a-z]+", bare)}
    for kind in KINDS:
        if kind.needs == "ident" and not exact:
            continue
        if kind.needs == "constant" and not any(CONSTANT_RE.match(e) for e in exact):
            continue
        if kind.needs == "path" and not paths:
            continue
        if kind.needs == "no file" and question.files:
            continue
        if (kind.en or kind.zh) and not cue_in(kind, bare, stems):
            continue
        question.kind = kind.name
        break
    return question
