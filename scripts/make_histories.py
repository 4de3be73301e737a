"""Make the canned histories in data/histories/ from the sample workspace, byte for byte.

    .venv/bin/python scripts/make_histories.py          # write them
    .venv/bin/python scripts/make_histories.py --check  # exit 1 if any file would change

Each history is a conversation in the Messages API format that the course
replays through the pipeline: one per experiment, plus a long
session for the timeline. The tool calls are scripted here; their results are
not: every result is the real output of `compact_course.agent.tools.run_tool` on a scratch
copy of `data/workspace/` (a copy, so `write_file` and `edit_file` leave the
committed workspace alone). Commands are chosen so their output does not
depend on the machine: relative paths, sorted listings, no dates.

What is scripted is the assistant's side: its notes, its choice of tools and
its answers, written from the results it just got, the way a model would.
"""

import json
import shutil
import sys
import tempfile
from pathlib import Path

from compact_course.agent.tools import run_tool
from compact_course.offline.model.extractive import extractive_summary
from compact_course.sessions.histories import model_calls
from context_compact import CompactionConfig, ContextCompactor, estimate_chars, validate_messages
from context_compact.formats import COMPACT_TOOL_ACK
from context_compact.snip import cut_points

ROOT = Path(__file__).resolve().parent.parent

WORKSPACE = ROOT / "data" / "workspace"
OUT = ROOT / "data" / "histories"
LESSONS = ["s01_agent_loop", "s02_tool_use", "s03_planning", "s04_subagents", "s05_todo_write"]
DOCS = "web/src/data/generated/docs.json"
LOG = "logs/test_run.log"
S08 = "s08_context_compact/code.py"
S09 = "s09_memory/code.py"
OVERFLOW_WINDOW_TOKENS = 8000


class Conversation:
    """Builds one history, running each tool call for real as it goes."""

    def __init__(self, workspace: Path):
        self.workspace = workspace
        self.messages: list = []
        self.count = 0

    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def answer(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": [{"type": "text", "text": text}]})

    def act(self, *calls, note: str | None = None, as_blocks: bool = False) -> list:
        """One assistant turn with tool calls, then the user turn with their results.

        `calls` are (tool name, input) pairs; `as_blocks` gives each result's
        content as a list of text blocks, the other shape the API allows.
        """
        uses, results, outputs = [], [], []
        for name, tool_input in calls:
            self.count += 1
            tool_id = f"toolu_{self.count:04d}"
            uses.append({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
            output = run_tool(self.workspace, name, tool_input)
            if str(self.workspace) in output:
                raise RuntimeError(f"{name} {tool_input}: output names the scratch folder")
            outputs.append(output)
            content = [{"type": "text", "text": output}] if as_blocks else output
            results.append({"type": "tool_result", "tool_use_id": tool_id, "content": content})
        lead = [{"type": "text", "text": note}] if note else []
        self.messages.append({"role": "assistant", "content": lead + uses})
        self.messages.append({"role": "user", "content": results})
        return outputs

    def one(self, name: str, note: str | None = None, as_blocks: bool = False, **tool_input) -> str:
        return self.act((name, tool_input), note=note, as_blocks=as_blocks)[0]


def prose(text: str) -> str:
    """A paragraph written wrapped in the source, saved as one line."""
    return " ".join(text.split())


def read(path: str, **extra) -> tuple:
    return ("read_file", {"path": path, **extra})


def bash(command: str) -> tuple:
    return ("bash", {"command": command})


def first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


BUILDERS = []  # in the order the files are written


def scripted(name: str, title: str | None, lesson: str, step: str, opening: str | None = None):
    """Register the script of one history.

    The script gets a Conversation on a scratch copy of the workspace, opened
    by the user's `opening` request when there is one, plays its turns, and
    returns the history's other fields in the order they are saved (notes,
    window_tokens, ...). The active request is the opening one unless the
    script returns another; the title is the script's when it depends on the
    turns played (title=None here).
    """
    def register(script):
        def build(ws: Path) -> dict:
            c = Conversation(ws)
            if opening:
                c.user(opening)
            fields = script(c)
            validate_messages(c.messages)
            # A title or active request in `fields` keeps its place in the header.
            return {"name": name, "title": title, "lesson": lesson, "step": step,
                    "active_request": opening, **fields, "messages": c.messages}
        BUILDERS.append(build)
        return script
    return register


# --------------------------------------------------------------------------
# One history per experiment
# --------------------------------------------------------------------------

FIVE_READS_REQUEST = prose("""
    Read the README.md of the five lessons s01_agent_loop to s05_todo_write, compare their
    first-level titles and summarize the naming pattern of these titles.
""")


@scripted("five_reads", "Five README reads: older results become placeholders",
          "Step 3: micro_compact (the article's experiment 1)", "micro_compact", FIVE_READS_REQUEST)
def five_reads(c: Conversation) -> dict:
    c.one("glob", note="I'll find the five lesson READMEs first.", pattern="s0[1-5]_*/README.md")
    c.one("read_file", note="Reading them one at a time, oldest lesson first.",
          path="s01_agent_loop/README.md")
    c.one("read_file", as_blocks=True, path="s02_tool_use/README.md")
    c.act(read("s03_planning/README.md"), read("s04_subagents/README.md"),
          read("s05_todo_write/README.md"),
          note="Two read so far; the other three in one batch.")
    return dict(
        notes=prose("""
            Six tool results: a glob and five README reads, the last three in one batch. The seed
            profile keeps the newest 3 whole and turns the older long ones into '[Earlier tool result
            omitted.]'; the default profile leaves this small context alone. The s02 result's content is
            a list of text blocks.
        """))


HUGE_REQUEST = prose("""
    Analyze the data structure of web/src/data/generated/docs.json and explain which main fields a
    lesson record has.
""")


@scripted("huge_result", "One huge result: docs.json goes to disk with a preview",
          "Step 1: tool_result_budget (the article's experiment 2)", "tool_result_budget", HUGE_REQUEST)
def huge_result(c: Conversation) -> dict:
    c.one("glob", note="Let me locate the generated data first.", pattern="web/**/*.json")
    text, *_ = c.act(read(DOCS), bash(f"wc -c {DOCS}"), bash(f"grep -c '\"id\":' {DOCS}"),
                     bash(f"sed -n '6,22p' {DOCS}"),
                     note="Found it. I'll read it and, in the same batch, check its size, "
                          "count the ids and look at the first record.")
    return dict(
        notes=prose(f"""
            The newest batch is four calls: the read of docs.json ({len(text):,} characters), then three
            small commands. Together they are over TOOL_RESULT_BATCH_CHAR_LIMIT (200,000), so step 1
            saves the read to .task_outputs/tool-results/ and keeps a 2,000 character preview. The read
            is not among the newest 3 results: run step 3 before step 1 and it becomes '[Earlier tool
            result omitted.]' with no copy anywhere.
        """))


LONG_REQUEST = prose("""
    Go through the course workspace and prepare a status report: which lessons have a README and
    code, what their titles are, and the state of the last test run.
""")
LONG_CONSTRAINT = "Do not edit anything under web/. Keep the report under 300 words."
LONG_INTERJECTION = "Also look at the three failing tests in the log, and say which lesson each belongs to."
LONG_REMINDER = "[reminder] The report still has open items: the docs.json counts per chapter."
LONG_SECOND = "Good. Now check which functions of s08 write to disk."
LONG_FINAL = "Now write the status report to notes/status.md, in the format we agreed."


@scripted("long_session", "A long session: 64 messages, tool pairs at both cuts",
          "Step 2: snip_compact", "snip_compact", LONG_REQUEST)
def long_session(c: Conversation) -> dict:
    """64 messages, built so that both profiles' cuts land on a tool pair.

    The head (3 messages) ends on an assistant tool_use; the seed tail
    (47 newest) and the default tail (26 newest) would each open on a
    tool_result whose tool_use is just before it. Two user messages that
    follow a tool result directly (the user's interjection, the harness's
    reminder) shift the parity between the two cuts.
    """
    c.user(LONG_CONSTRAINT)
    c.one("glob", note="Plan: list the lessons, read each README's title, check the code, "
                       "then the test log.", pattern="**/README.md")          # 2, 3
    for lesson in LESSONS:                                                     # 4-13
        c.one("read_file", path=f"{lesson}/README.md", limit=12)
    c.one("glob", pattern="**/*.py")                                           # 14, 15
    c.act(bash(f"wc -l {S08} {S09}"), bash(f"grep -c '^def ' {S08} {S09}"),  # 16, 17
          note="Two code files; counting lines and functions.")
    c.one("bash", command=f"grep -n '^def \\|^class ' {S08} | head -40")       # 18, 19
    c.one("bash", command=f"grep -n '^def \\|^class ' {S09} | head -40")       # 20, 21
    c.one("bash", command=f"tail -n 3 {LOG}")                                  # 22, 23
    c.one("bash", command=f"grep -c PASSED {LOG}")                             # 24, 25
    c.user(LONG_INTERJECTION)                                                  # 26
    c.one("bash", note="Looking at the failures the user asked about.",
          command=f"grep -n FAILED {LOG}")                                     # 27, 28
    c.answer("Status so far: five lesson READMEs (s01-s05), code in s08 and s09; the last run "
             "had 3 failures (test_tools, test_compact, test_memory).")        # 29
    c.user(LONG_SECOND)                                                        # 30
    c.one("bash", command=f"grep -n 'write_whole\\|write_text' {S08}")       # 31, 32
    c.one("bash", command=f"sed -n '166,190p' {S08}")                          # 33, 34
    c.one("bash", command=f"grep -n 'def write_transcript' -A 6 {S08}")        # 35, 36
    c.one("bash", command=f"grep -n 'def persist_large_output' -A 6 {S08}")    # 37, 38
    c.one("bash", command=f"sed -n '665,700p' {LOG}")                          # 39, 40
    c.one("bash", command=f"grep -n 'test_compact.py' {LOG} | head -20")       # 41, 42
    c.act(bash(f"grep -c '\"chapter\": \"s01\"' {DOCS}"),
          bash(f"grep -c '\"chapter\": \"s08\"' {DOCS}"))                      # 43, 44
    c.one("bash", command=f"grep -o '\"chapter\": \"s[0-9]*\"' {DOCS} | sort | uniq -c")  # 45, 46
    c.one("bash", command=f"grep -n '\"count\"' {DOCS}")                       # 47, 48
    c.user(LONG_REMINDER)                                                      # 49
    c.one("bash", command=f"grep -c '\"level\": \"advanced\"' {DOCS}")         # 50, 51
    c.one("read_file", path="README.md")                                       # 52, 53
    c.one("read_file", path="requirements.txt")                                # 54, 55
    c.one("glob", pattern="notes/*")                                           # 56, 57
    c.one("glob", pattern="*")                                                 # 58, 59
    c.one("bash", command=f"grep -n 'def run_checks' -A 12 {S08}")             # 60, 61
    c.answer("Functions of s08 that write to disk: write_whole (temporary name, then rename), "
             "used by write_transcript (.transcripts/) and persist_large_output "
             "(.task_outputs/tool-results/). docs.json holds 84 records, 7 per chapter.")  # 62
    c.user(LONG_FINAL)                                                         # 63
    check_long_session_cuts(c.messages)
    return dict(
        active_request=LONG_FINAL,
        notes=prose("""
            64 messages over three requests. In the seed profile (3 head + 47 newest) the head ends on a
            tool_use whose result must come along, and the tail would open on a tool_result whose
            tool_use is just before it; the same holds for the default profile's cut (30 messages,
            marker included). One user interjection and one harness reminder follow tool results
            directly.
        """))


def check_long_session_cuts(messages) -> None:
    """Fail loudly if an edit above moved a cut off its tool pair."""
    for config in (CompactionConfig.seed(), CompactionConfig()):
        head = config.snip_keep_head
        naive_tail = len(messages) - (config.snip_keep_total - head - 1)
        assert messages[head - 1]["role"] == "assistant", (config.profile, "head")
        assert any(b["type"] == "tool_use" for b in messages[head - 1]["content"])
        tail_first = messages[naive_tail]
        assert tail_first["role"] == "user" and isinstance(tail_first["content"], list), (
            config.profile, naive_tail, "tail does not open on a tool_result")
        head_end, tail_start = cut_points(messages, config)
        assert head_end == head + 1 and tail_start == naive_tail - 1, (config.profile,
                                                                       head_end, tail_start)


CODE_REQUEST = prose("""
    Compare s08_context_compact/code.py and s09_memory/code.py and explain how each of them manages
    the current context and the persistent memory.
""")


@scripted("two_code_files", "Two large code files: over the limit, so a summary is paid for",
          "Step 4: compact_history (the article's experiment 3)", "compact_history", CODE_REQUEST)
def two_code_files(c: Conversation) -> dict:
    c.one("glob", note="Let me confirm both files exist.", pattern="s0[89]_*/code.py")
    c.act(read(S08), read(S09), note="Both are there; reading them side by side.")
    return dict(
        notes=prose("""
            The batch reads two code files of about 30,000 characters each: under the batch limit, so
            step 1 leaves them, but the context passes CONTEXT_CHAR_LIMIT (50,000). The seed profile
            prints [auto compact] and summarizes; the default profile first saves the largest results to
            disk and needs no summary.
        """))


OVERFLOW_REQUEST = prose("""
    Investigate the three failing tests in logs/test_run.log and propose the smallest fix for each.
""")


@scripted("overflow", "An overflow: under the character limit, over a small token window",
          "reactive_compact", "reactive_compact", OVERFLOW_REQUEST)
def overflow(c: Conversation) -> dict:
    c.one("bash", note="First the list of failures.", command=f"grep -n FAILED {LOG}")
    c.one("bash", command=f"sed -n '660,700p' {LOG}")
    c.act(read(S08, limit=260), note="The snip test fails on pairing; reading the s08 steps.")
    c.one("bash", command=f"sed -n '260,420p' {S08}")
    c.one("read_file", path=S09, limit=300)
    c.one("bash", command=f"sed -n '300,420p' {S09}")
    c.one("read_file", path="s02_tool_use/README.md")
    c.one("bash", command=f"grep -n 'timeout' {S08} {S09}")
    c.one("bash", command=f"grep -n 'snip_cut' -A 3 {S08}")
    c.one("bash", command=f"grep -c 'test_memory' {LOG}")
    check_overflow(c.messages)
    return dict(
        window_tokens=OVERFLOW_WINDOW_TOKENS,
        notes=prose(f"""
            {estimate_chars(c.messages):,} characters in {len(c.messages)} messages: under
            CONTEXT_CHAR_LIMIT, so prepare (default profile) leaves it as it is. At about four
            characters a token that is over {estimate_chars(c.messages) // 4000},000 tokens: serve it
            with a model window of {OVERFLOW_WINDOW_TOKENS:,} tokens and the API answers 'prompt is too
            long'; after reactive_compact (summary + the 5 newest messages) it fits.
        """))


def check_overflow(messages) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        compactor = ContextCompactor(scratch, summarizer=extractive_summary)
        after = compactor.prepare(messages, OVERFLOW_REQUEST)
        chars = estimate_chars(after)
        assert 40_000 < chars <= 50_000, f"overflow after prepare: {chars} characters"
        assert not any(r.fired for r in compactor.records), "prepare should leave it alone"
        small = compactor.reactive_compact(after, OVERFLOW_REQUEST)
        assert estimate_chars(small) < OVERFLOW_WINDOW_TOKENS * 2, estimate_chars(small)


COMPACT_REQUEST = prose("""
    Read the five lesson READMEs, write one line about each to notes/lessons.md, then compact the
    conversation: we start on s08 next.
""")


@scripted("compact_tool", "The compact tool: the batch runs first, then the summary",
          "The compact tool", "compact_history", COMPACT_REQUEST)
def compact_tool(c: Conversation) -> dict:
    c.one("glob", note="Finding the lesson READMEs.", pattern="s0[1-5]_*/README.md")
    outputs = c.act(*(read(f"{lesson}/README.md") for lesson in LESSONS),
                    note="Reading all five in one batch.")
    lines = [f"- {lesson}: {first_line(text).lstrip('# ')}" for lesson, text in zip(LESSONS, outputs)]
    notes = "# Lessons s01-s05\n\n" + "\n".join(lines) + "\n"
    c.act(("write_file", {"path": "notes/lessons.md", "content": notes}), ("compact", {}),
          note="Writing the notes, then asking for a compaction in the same batch.")
    return dict(
        notes=prose(f"""
            The last assistant turn writes notes/lessons.md and calls compact in one batch. The harness
            answers compact with '{COMPACT_TOOL_ACK}', appends both results, and only then runs
            compact_history on the closed turn.
        """))


# --------------------------------------------------------------------------
# The long session for the timeline: tasks of a few calls each
# --------------------------------------------------------------------------

S08_FUNCTIONS = ["tool_result_budget", "snip_cut", "micro_compact", "compact_history",
                 "reactive_compact", "prepare", "run_bash", "context_report"]
S09_FUNCTIONS = ["recall", "score", "consolidate", "candidate_preferences", "system_prompt",
                 "import_memory", "merge_notes"]
FAILING = ["test_bash_timeout", "test_snip_keeps_pairs", "test_forget_expired"]
CHAPTERS = ["s01", "s03", "s05", "s08", "s09", "s11"]


def def_line(ws: Path, path: str, name: str) -> int:
    for number, line in enumerate((ws / path).read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith(f"def {name}("):
            return number
    raise ValueError(f"no def {name} in {path}")


def task_lesson(c: Conversation, lesson: str) -> None:
    c.user(f"Summarize lesson {lesson} in two sentences.")
    c.one("glob", pattern=f"{lesson}/*")
    text = c.one("read_file", path=f"{lesson}/README.md")
    c.answer(f"{first_line(text).lstrip('# ')}. It is {len(text.split())} words long and ends "
             f"with a check-yourself section.")


def task_function(c: Conversation, path: str, name: str) -> None:
    c.user(f"Where is {name} defined in {path}, and what does it do?")
    c.one("bash", command=f"grep -n 'def {name}(' {path}")
    start = def_line(c.workspace, path, name)
    text = c.one("bash", command=f"sed -n '{start},{start + 30}p' {path}")
    doc = next((ln.strip().strip('"') for ln in text.splitlines()[1:4] if '"""' in ln), "")
    c.answer(f"{name} starts at line {start} of {path}. {doc or 'It has no docstring.'}")


def task_failure(c: Conversation, test: str) -> None:
    c.user(f"Why does {test} fail in the last test run?")
    c.one("bash", command=f"grep -n '{test}' {LOG}")
    text = c.one("bash", command=f"grep -n -A 7 '_ {test}' {LOG}")
    # grep -A numbers context lines "NNN-"; pytest marks the error lines with "E ".
    errors = [ln.split("-E ", 1)[1].strip() for ln in text.splitlines() if "-E " in ln]
    c.answer(f"{test} fails with: {errors[0] if errors else 'no error line found'}")


def task_count(c: Conversation, chapter: str) -> None:
    c.user(f"How many records does chapter {chapter} have in docs.json?")
    out = c.one("bash", command=f"grep -c '\"chapter\": \"{chapter}\"' {DOCS}")
    c.answer(f"{out.strip()} records have chapter {chapter}.")


def task_docs(c: Conversation) -> None:
    c.user(HUGE_REQUEST)
    c.one("glob", pattern="web/**/*.json")
    c.act(bash(f"wc -c {DOCS}"), read(DOCS), note="Size and content in one batch.")
    c.answer("Each lesson record has id, number, title, chapter, chapter_slug, level, summary, "
             "sections (heading, anchor, words, excerpt, has_code, order), code_refs, "
             "prerequisites, keywords, reading_minutes, exercises, translations and revision.")


def task_code(c: Conversation) -> None:
    c.user(CODE_REQUEST)
    c.one("glob", pattern="s0[89]_*/code.py")
    c.act(read(S08), read(S09), note="Reading both files.")
    c.answer("s08 keeps the current list small before every call (budget, snip, micro, summary); "
             "s09 keeps notes on disk with an index in the system prompt and recall by keyword.")


def task_log(c: Conversation) -> None:
    c.user("Show me the whole test log and tell me how long the run took.")
    out = c.one("bash", command=f"cat {LOG}")
    c.answer(f"The run ended with: {out.splitlines()[-1].strip('= ')}")


def task_edit(c: Conversation, lesson: str) -> None:
    c.user(f"In {lesson}/README.md, add a line 'Estimated time: 30 minutes' under the title.")
    text = c.one("read_file", path=f"{lesson}/README.md", limit=3)
    title = first_line(text)
    c.one("edit_file", path=f"{lesson}/README.md", old_text=title + "\n",
          new_text=title + "\n\nEstimated time: 30 minutes\n")
    c.one("read_file", path=f"{lesson}/README.md", limit=4)
    c.answer(f"Added the line under '{title}'.")


def task_compact(c: Conversation) -> None:
    c.user("Save what we learned about the failures to notes/failures.md, then compact.")
    c.act(("write_file", {"path": "notes/failures.md", "content":
                          "# Failures\n\n" + "\n".join(f"- {t}" for t in FAILING) + "\n"}),
          ("compact", {}), note="Writing the notes and compacting in one batch.")
    c.answer("Notes saved to notes/failures.md; the conversation was compacted.")


@scripted("timeline_150", None, "Timeline: every step over a long session", "prepare")
def timeline_150(c: Conversation) -> dict:
    small = []
    for i in range(10):
        small.append(lambda i=i: task_lesson(c, LESSONS[i % 5]))
        small.append(lambda i=i: task_function(c, S08, S08_FUNCTIONS[i % 8]))
        small.append(lambda i=i: task_count(c, CHAPTERS[i % 6]))
        small.append(lambda i=i: task_function(c, S09, S09_FUNCTIONS[i % 7]))
        small.append(lambda i=i: task_failure(c, FAILING[i % 3]))
    small += [lambda: task_edit(c, "s03_planning"), lambda: task_edit(c, "s05_todo_write")]
    big = {9: lambda: task_docs(c), 21: lambda: task_code(c), 30: lambda: task_log(c),
           38: lambda: task_compact(c)}
    for position, task in enumerate(small):
        task()
        if position in big:
            big[position]()
    calls = model_calls({"messages": c.messages})
    assert calls >= 150, f"timeline_150 has only {calls} model calls"
    request = next(m["content"] for m in reversed(c.messages)
                   if m["role"] == "user" and isinstance(m["content"], str))
    return dict(
        title=f"A long session: {calls} model calls for the timeline",
        active_request=request,
        notes=prose("""
            Many small tasks (lesson summaries, function look-ups, log questions, counts) with four
            large moments: docs.json in one batch (step 1), both code files (over the limit), the whole
            test log, and a compact tool call. Replay it call by call with
            compact_course.lessons.replay.timeline.
        """))


def render(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def build_all() -> dict:
    """{file name: text}; each history from its own fresh copy of the workspace."""
    files = {}
    for builder in BUILDERS:
        with tempfile.TemporaryDirectory() as scratch:
            ws = Path(scratch) / "workspace"
            shutil.copytree(WORKSPACE, ws, ignore=shutil.ignore_patterns(
                ".transcripts", ".task_outputs", "__pycache__", ".memory"))
            data = builder(ws)
        files[f"{data['name']}.json"] = render(data)
    return files


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    files = build_all()
    if "--check" in argv:
        stale = [name for name, text in files.items()
                 if not (OUT / name).is_file() or (OUT / name).read_text(encoding="utf-8") != text]
        for name in stale:
            print(f"would change: data/histories/{name}")
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (OUT / name).write_text(text, encoding="utf-8", newline="\n")
        data = json.loads(text)
        calls = model_calls(data)
        print(f"data/histories/{name}: {len(data['messages'])} messages, {calls} model calls, "
              f"{estimate_chars(data['messages']):,} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
