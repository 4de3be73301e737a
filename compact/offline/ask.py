"""The general policy: any question about the workspace, in English or in Chinese.

`plan_question(view)` reads the question (`question.parse`), then walks the
steps of its kind. Each step names the tool calls it needs from what the
earlier steps found; the first step with a call still to make becomes the
reply's tool batch, and when every step has its results the answer is written
from them (`answers.answer`). The steps, by kind:

    folder     glob <folder>/* (or * for the workspace), then read_file, limit 3, of its files
    mention    grep for the name (exact) or the words (any case) across the workspace
    value      grep -w for the identifier, in the file the question names if it names one
    failures   read the log it names, whole; or glob **/*.log, then grep their FAILED lines
    count      grep the workspace for "<number> <word>" with the question's words
    packages   the requirements file it names (or glob **/requirements*.txt), then read it
    describe   read_file, limit 80, of the files it names (or grep them for its words)
    search     grep for lines where two of the question's words meet, else for any of them

Left out: any step a kind does not list, and a second try with other words
when a search finds nothing: the answer then says where it looked.
"""

from .answers import answer, best_lines
from .lookup import Got, fetch, grep, grep_lines, grep_pattern, listing, term_pattern
from .plan import Plan
from .question import Question, is_file_path, parse
from .view import View

READ_LIMIT = 80     # lines of a file read to describe it
PEEK_LIMIT = 3      # lines of each file of a folder
MAX_FILES = 3       # files read for one question
LOG_GLOB = "**/*.log"
REQUIREMENTS_GLOB = "**/requirements*.txt"
FAILURE_PATTERN = r"FAILED|FAIL:|ERROR|[0-9]+ failed"
NUMBER = "[0-9][0-9,]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"


def folder_steps(q: Question, done: list) -> list:
    if len(done) > 1:
        return []
    if not done:
        if q.folder is None:
            return [("glob", {"pattern": "*"})]
        where = q.folder if "/" in q.folder else f"**/{q.folder}"
        return [("glob", {"pattern": f"{where}/*"})]
    files = [p for p in listing(done[0].text()) if is_file_path(p)][:MAX_FILES]
    return [("read_file", {"path": p, "limit": PEEK_LIMIT}) for p in files]


def mention_steps(q: Question, done: list) -> list:
    if done or not q.terms:
        return []
    return [("bash", grep(q.terms, q.paths, exact=bool(q.exact)))]


def value_steps(q: Question, done: list) -> list:
    if done:
        return []
    return [("bash", grep(q.exact[:1], q.paths, exact=True, words=True))]


def failures_steps(q: Question, done: list) -> list:
    """The log the question names is read whole; without one, logs are found and grepped."""
    named = [p for p in q.files if p.endswith(".log")]
    if not done:
        if named:
            return [("read_file", {"path": p}) for p in named[:MAX_FILES]]
        return [("glob", {"pattern": LOG_GLOB})]
    if len(done) == 1 and not named:
        logs = listing(done[0].text())[:MAX_FILES]
        return [("bash", grep_pattern(FAILURE_PATTERN, logs, ignore_case=False))] if logs else []
    return []


def count_steps(q: Question, done: list) -> list:
    words = [w for w in q.words if w.isascii()]
    if done or not words:
        return []
    # The whole workspace: "how many records did generate write to docs.json" is stated in
    # the log, not in docs.json; the answer ranks the lines that name the file first.
    return [("bash", grep_pattern(rf"\b({NUMBER}) +({'|'.join(words)})[a-z]*", []))]


def packages_steps(q: Question, done: list) -> list:
    named = [p for p in q.files if "requirement" in p or p.endswith(("pyproject.toml",
                                                                    "package.json"))]
    if not done:
        return [] if named else [("glob", {"pattern": REQUIREMENTS_GLOB})]
    if len(done) == 1:
        files = named or listing(done[0].text())[:MAX_FILES]
        return [("read_file", {"path": p}) for p in files]
    return []


def describe_steps(q: Question, done: list) -> list:
    if done:
        return []
    if q.terms:
        return [("bash", grep(q.terms, q.paths, exact=bool(q.exact)))]
    return [("read_file", {"path": p, "limit": READ_LIMIT}) for p in q.files[:MAX_FILES]]


def search_steps(q: Question, done: list) -> list:
    """Lines where two of the question's words meet first; any line with one, if none do."""
    terms = q.exact + q.words
    if not terms or len(done) > 1:
        return []
    if not done:
        if len(terms) < 2:
            return []
        either = "(" + "|".join(term_pattern(t) for t in terms) + ")"
        return [("bash", grep_pattern(f"{either}.*{either}", q.paths))]
    if done[0].texts and best_lines(q, grep_lines(done[0].text()), 2):
        return []
    return [("bash", grep_pattern("|".join(term_pattern(t) for t in terms), q.paths))]


STEPS = {"folder": folder_steps, "mention": mention_steps, "value": value_steps,
         "failures": failures_steps, "count": count_steps, "packages": packages_steps,
         "describe": describe_steps, "search": search_steps}
WORKING = {"en": "Looking this up: {calls}.", "zh": "先查一下：{calls}。"}


def plan_question(view: View) -> Plan:
    """The next lookup the question needs, or the answer once every step has its results."""
    q = parse(view.request)
    steps, done = STEPS[q.kind], []
    # A step with nothing to call (the log named, say) still counts, so the next can run.
    for _ in range(3):
        calls = steps(q, done)
        got = fetch(view, calls) if calls else Got()
        if got.need:
            shown = ", ".join(f"{name} {next(iter(i.values()))}" for name, i in got.need)
            return Plan(WORKING[q.lang].format(calls=shown), got.need)
        done.append(got)
    return Plan(answer(q, done))
