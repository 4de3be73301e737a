"""Experiment 1 of the article (section 13): the first-level titles of five READMEs.

The plan: glob the lesson folders, read each README in the asked range, one a
turn, then answer with every title, how the titles are named, and where each
came from (the file as read, a persisted preview, a saved copy read back, a
note, or the summary). A README whose result is a saved placeholder is read
back from its saved copy; one shrunk to `[Earlier tool result omitted.]` with
no note left is reported missing, never guessed.

Left out: lessons outside the asked range, and headings below the first level.
"""

import re

from .. import formats
from .lang import language
from .notes import LESSONS_GLOB, lessons_found, notes_on_fresh, title_in
from .plan import Plan, lines_note
from .view import View, failed


def summary_title_re(path: str):
    """A summary's line for a README read: `- <path> (read): <n> lines; title '# ...'`."""
    return re.compile(r"^- " + re.escape(path) + r" \(read\): [^\n]*?title '(# .*)'$", re.MULTILINE)


def lesson_range(request: str) -> range:
    numbers = [int(n) for n in re.findall(r"\bs(\d\d)_\w+", request)]
    if len(numbers) >= 2:
        return range(min(numbers), max(numbers) + 1)
    return range(1, 6)


def find_title(view: View, path: str) -> tuple:
    """(title, where it came from) or (None, why it is missing)."""
    calls = view.reads(path)
    for call in reversed(calls):
        title = title_in(call.visible)
        if title:
            return title, "read" if call.kind == "whole" else "preview"
        if call.kind == "whole":
            return None, "error" if failed(call) else "untitled"
    copies = {c.saved for c in calls if c.saved}
    for call in view.calls:
        if call.name == "read_file" and call.path in copies and title_in(call.visible):
            return title_in(call.visible), "saved copy"
    note = re.search(re.escape(path) + r": title '([^\n]*)'", view.knowledge)
    if note:
        return note[1], "note"
    summary = summary_title_re(path).search("\n".join(view.summaries))
    if summary:
        return summary[1], "summary"
    if copies:
        return None, "saved:" + sorted(copies)[0]
    if calls:
        return None, "omitted"
    return None, "unread"


def plan_titles(view: View) -> Plan:
    """The next README to read, or the answer once every title is known or gone."""
    learned = notes_on_fresh(view)
    folders = lessons_found(view)
    if folders is None:
        return Plan.tool(lines_note(*learned, "I'll find the lesson folders first."),
                         "glob", {"pattern": LESSONS_GLOB})
    wanted = lesson_range(view.request)
    readmes = [f"{name}/README.md" for name in folders if int(name[1:3]) in wanted]
    if not readmes:
        return Plan(lines_note(*learned, f"I found no lesson README in this workspace for "
                                         f"s{wanted.start:02d} to s{wanted.stop - 1:02d} (glob "
                                         f"{LESSONS_GLOB}), so there are no titles to compare."))
    for path in readmes:
        title, why = find_title(view, path)
        if title or why in ("omitted", "untitled", "error"):
            continue
        target = why[len("saved:"):] if why.startswith("saved:") else path
        return Plan.tool(lines_note(*learned, f"Next I read {target}."),
                         "read_file", {"path": target})
    return Plan(lines_note(*learned, titles_answer(view, readmes)))


# The answer's frame in each language; the facts in it are the same.
ANSWER_WORDS = {
    "en": {"head": "The first-level titles of the {n} lessons:", "found": "- {folder}: {title}",
           "missing": "- {folder}: title not available - {why}.", "named": "How they are named: ",
           "source": "Where this comes from: ", "join": "; ", "end": "."},
    "zh": {"head": "{n} 节课程的一级标题：", "found": "- {folder}：{title}",
           "missing": "- {folder}：拿不到标题，{why}。", "named": "命名规律：",
           "source": "信息来源：", "join": "；", "end": "。"},
}


def titles_answer(view: View, readmes: list) -> str:
    """The titles found, how they are named and where each came from, in the request's language."""
    zh = language(view.request) == "zh"
    words = ANSWER_WORDS["zh" if zh else "en"]
    missing_words, source_words = (MISSING_WORDS_ZH, SOURCE_WORDS_ZH) if zh else (MISSING_WORDS, SOURCE_WORDS)
    found, missing, sources = gather_titles(view, readmes, missing_words)
    lines = [words["head"].format(n=len(readmes))]
    lines += [words["found"].format(folder=folder, title=title) for folder, title in found]
    lines += [words["missing"].format(folder=folder, why=why) for folder, why in missing]
    lines += ["", words["named"] + (naming_pattern_zh if zh else naming_pattern)(found)]
    lines += ["", words["source"] + words["join"].join(
        f"{', '.join(codes)} {source_words[why]}" for why, codes in sources.items()) + words["end"]]
    return "\n".join(lines)


def gather_titles(view: View, readmes: list, missing_words: dict) -> tuple:
    """([(folder, title)], [(folder, why it is missing)], {source: [lesson codes]})."""
    found, missing, sources = [], [], {}
    for path in readmes:
        title, why = find_title(view, path)
        folder = path.split("/")[0]
        if title:
            found.append((folder, title))
            sources.setdefault(why, []).append(folder[:3])
        else:
            missing.append((folder, missing_words[why]))
    return found, missing, sources

MISSING_WORDS = {
    "omitted": f"its tool result was shrunk to {formats.OMITTED} and nothing left in this "
               f"context records it",
    "untitled": "its README has no first-level ('# ') heading",
    "error": "reading it failed",
}
SOURCE_WORDS = {
    "read": "from the files as read in this context",
    "preview": "from the persisted previews",
    "saved copy": "from the saved copies I re-read",
    "note": "from my own notes (their results are no longer in context)",
    "summary": "from the conversation summary",
}


MISSING_WORDS_ZH = {
    "omitted": f"它的工具结果已被缩成 {formats.OMITTED}，这个上下文里没有任何东西记录它",
    "untitled": "它的 README 没有一级（'# '）标题",
    "error": "读取失败",
}
SOURCE_WORDS_ZH = {
    "read": "来自这个上下文中读到的文件",
    "preview": "来自转存后留下的预览",
    "saved copy": "来自我重新读取的保存副本",
    "note": "来自我自己的笔记（它们的结果已不在上下文中）",
    "summary": "来自对话摘要",
}


TITLE_RE = re.compile(r"#\s+(s\d\d):\s+(.+?)(?:\s+-\s+(.+))?$")


def parse_titles(found: list) -> list | None:
    """Each title as (code, topic, subtitle) matches; None when there are none or one does not fit."""
    parsed = [TITLE_RE.match(title) for _, title in found]
    return parsed if found and all(parsed) else None


def codes_match(parsed: list, found: list) -> bool:
    """Each title's lesson code is its folder's ('s03' in s03_planning)."""
    return all(p[1] == folder[:3] for p, (folder, _) in zip(parsed, found))


def naming_pattern_zh(found: list) -> str:
    """naming_pattern, said in Chinese."""
    parsed = parse_titles(found)
    if parsed is None:
        return "这些标题没有共同的格式。" if found else "我手上已经没有可以比较的标题。"
    same_code = codes_match(parsed, found)
    parts = ["每个标题都以课程编号和冒号开头（" + ", ".join(p[1] for p in parsed) + "）"
             + ("，编号和文件夹的相同" if same_code else ""), "接着是一个简短的主题名"]
    if all(p[3] for p in parsed):
        parts.append("然后是 ' - ' 和一个说明这节课新增内容的副标题（"
                     + "；".join(f"'{p[3]}'" for p in parsed[:2]) + "……）")
    return "，".join(parts) + "。"


def naming_pattern(found: list) -> str:
    """How the titles are named: '# sNN: Topic - subtitle', said from what they share."""
    parsed = parse_titles(found)
    if parsed is None:
        return "the titles do not share one pattern." if found else "I have no titles left to compare."
    same_code = codes_match(parsed, found)
    echoes = all(all(word in p[2].lower() for word in folder[4:].split("_"))
                 for p, (folder, _) in zip(parsed, found))
    subtitles = all(p[3] for p in parsed)
    parts = ["every title opens with the lesson's code and a colon ("
             + ", ".join(p[1] for p in parsed) + ")"
             + (", the same code as its folder" if same_code else "")]
    parts.append("then a short topic name" + (
        " that spells out the folder name (" + found[0][0][4:] + " -> " + parsed[0][2] + ")"
        if echoes else ""))
    if subtitles:
        parts.append("then ' - ' and a subtitle saying what the lesson adds ("
                     + "; ".join(f"'{p[3]}'" for p in parsed[:2]) + ", ...)")
    return ", ".join(parts) + "."
