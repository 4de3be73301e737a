"""Experiment 1 of the article (section 13): the first-level titles of five READMEs,
read one a turn, with where each came from; a title that is gone is never guessed.

Left out: lessons outside the asked range, and headings below the first level.
"""

import re

from context_compact import formats

from ....display.lang import language_of
from ....display.phrases import say
from ..facts import title_of
from ..view import Plan, View
from .notes import LESSONS_GLOB, lessons_found, notes_on_fresh

TITLE_RE = re.compile(r"#\s+(s\d\d):\s+(.+?)(?:\s+-\s+(.+))?$")


def find_title(view: View, path: str) -> tuple:
    """(title, where it came from) or (None, why it is missing)."""
    calls = view.reads(path)
    for call in reversed(calls):
        if title := title_of(call.visible):
            return title, "read" if call.kind == "whole" else "preview"
        if call.kind == "whole":
            return None, "error" if call.failed else "untitled"
    copies = {c.saved for c in calls if c.saved}
    for call in view.calls:
        if call.name == "read_file" and call.path in copies and title_of(call.visible):
            return title_of(call.visible), "saved copy"
    # My note (in either language), else the summary's line `- <path> (read): ...; title '# ...'`.
    if note := re.search(re.escape(path) + r"(?:: title |：标题 )'([^\n]*)'", view.knowledge):
        return note[1], "note"
    if summary := re.search(r"^- " + re.escape(path) + r" \(read\): [^\n]*?title '(# .*)'$",
                            "\n".join(view.summaries), re.MULTILINE):
        return summary[1], "summary"
    if copies:
        return None, "saved:" + sorted(copies)[0]
    return None, "omitted" if calls else "unread"


def plan_titles(view: View, paths: list) -> Plan:
    """The next README to read, or the answer once every title is known or gone: the titles
    found, how they are named and where each came from, in the request's language."""
    learned, lang = notes_on_fresh(view), language_of(view.request)
    folders = lessons_found(view)
    if folders is None:
        return Plan.after(learned, say("note find lessons", lang), ("glob", {"pattern": LESSONS_GLOB}))
    numbers = [int(n) for n in re.findall(r"\bs(\d\d)_\w+", view.request)]   # the asked range
    wanted = range(min(numbers), max(numbers) + 1) if len(numbers) >= 2 else range(1, 6)
    readmes = [f"{name}/README.md" for name in folders if int(name[1:3]) in wanted]
    if not readmes:
        return Plan.after(learned, say("note no readme", lang, first=wanted.start, last=wanted.stop - 1,
                                       glob=LESSONS_GLOB))
    found, missing, sources = [], [], {}
    for path in readmes:
        title, why = find_title(view, path)
        folder = path.split("/")[0]
        if title:
            found.append((folder, title))
            sources.setdefault(why, []).append(folder[:3])
        elif why in ("omitted", "untitled", "error"):
            missing.append((folder, say("title " + why, lang, omitted=formats.OMITTED)))
        else:   # unread, or only its saved copy is left to read
            target = why[len("saved:"):] if why.startswith("saved:") else path
            return Plan.after(learned, say("note next read", lang, path=target),
                              ("read_file", {"path": target}))
    lines = [say("titles head", lang, n=len(readmes))]
    lines += [say("titles found", lang, folder=folder, title=title) for folder, title in found]
    lines += [say("titles missing", lang, folder=folder, why=why) for folder, why in missing]
    lines += ["", say("titles named", lang) + naming_pattern(found, lang)]
    lines += ["", say("titles source", lang) + say("join", lang).join(
        f"{', '.join(codes)} {say('title ' + why, lang)}" for why, codes in sources.items())
        + say("end", lang)]
    return Plan.after(learned, "\n".join(lines))


def naming_pattern(found: list, lang: str = "en") -> str:
    """How the titles are named: '# sNN: Topic - subtitle', said from what they share."""
    parsed = [TITLE_RE.match(title) for _, title in found]
    if not found or not all(parsed):
        return say("names none" if found else "names no titles", lang)
    same_code = all(p[1] == folder[:3] for p, (folder, _) in zip(parsed, found))
    echoes = all(all(word in p[2].lower() for word in folder[4:].split("_"))
                 for p, (folder, _) in zip(parsed, found))
    parts = [say("names opens", lang, codes=", ".join(p[1] for p in parsed))
             + (say("names same code", lang) if same_code else ""),
             say("names topic", lang) + (say("names echoes", lang, folder=found[0][0][4:],
                                             topic=parsed[0][2]) if echoes else "")]
    if all(p[3] for p in parsed):
        parts.append(say("names subtitle", lang,
                         examples=say("join", lang).join(f"'{p[3]}'" for p in parsed[:2])))
    return say("comma", lang).join(parts) + say("end", lang)
