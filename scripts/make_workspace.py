"""Write the two generated files of the sample workspace, byte for byte the same every run.

    .venv/bin/python scripts/make_workspace.py

`data/workspace/` is the small course-like repository the canned histories
are made from. Its READMEs and code files are written by hand and committed
as they are; this script makes the two files that are large on purpose:

- web/src/data/generated/docs.json: lesson records, well over the 200,000
  character batch limit of step 1 (the article's experiment 2);
- logs/test_run.log: a long test run, for bash experiments (grep, tail, wc).

Everything comes from a seeded random generator and fixed word lists: no
dates, no machine names, no absolute paths.
"""

import json
import random
from pathlib import Path

WORKSPACE = Path(__file__).resolve().parent.parent / "data" / "workspace"
SEED = 8
PAGES = 7  # records per chapter: 84 records, about 285,000 characters

# number, slug, title: one chapter a line.
CHAPTERS = [tuple(line.split(" ", 2)) for line in """\
s01 agent_loop The Agent Loop
s02 tool_use Tool Use
s03 planning Planning
s04 subagents Subagents
s05 todo_write Todo Write
s06 permissions Permissions
s07 hooks Hooks
s08 context_compact Context Compaction
s09 memory Memory
s10 teams Agent Teams
s11 evaluation Evaluation
s12 deployment Deployment
""".splitlines()]
TOPICS = [
    "the messages list", "tool_use blocks", "tool_result pairing", "stop reasons",
    "the dispatch table", "workspace paths", "the deny list", "parallel tool calls",
    "a written plan", "re-planning after errors", "the task tool", "child agents",
    "todo items", "status rules", "permission prompts", "pre-tool hooks",
    "post-tool hooks", "the batch budget", "archived transcripts", "placeholders",
    "state summaries", "the active request", "prompt too long", "memory files",
    "session notes", "retrieval by keyword", "team mailboxes", "graders",
    "regression suites", "rate limits", "retries with backoff", "cost per task",
]
VERBS = ["explains", "shows", "compares", "measures", "walks through", "tests",
         "revisits", "replaces", "limits", "records"]
ADJECTIVES = ["small", "careful", "cheap", "lossless", "recoverable", "strict",
              "deterministic", "readable", "bounded", "explicit"]
SECTION_HEADS = ["Why it matters", "The shape of it", "A worked example",
                 "Common mistakes", "Cost and limits", "How to test it",
                 "Edge cases", "Try it", "Check yourself", "Further reading"]
LEVELS = ["intro", "core", "advanced"]


def sentence(rng) -> str:
    a, b = rng.sample(TOPICS, 2)
    return (f"This part {rng.choice(VERBS)} {a} and why a {rng.choice(ADJECTIVES)} "
            f"design of {b} keeps the agent {rng.choice(ADJECTIVES)}.")


def paragraph(rng, n: int) -> str:
    return " ".join(sentence(rng) for _ in range(n))


def section(rng, chapter: str, page: int, k: int, heading: str) -> dict:
    anchor = heading.lower().replace(" ", "-")
    return {
        "heading": heading,
        "anchor": f"{chapter}-{page:02d}-{anchor}",
        "words": rng.randint(80, 900),
        "excerpt": paragraph(rng, rng.randint(1, 3)),
        "has_code": rng.random() < 0.5,
        "order": k + 1,
    }


def record(rng, number: int, chapter: tuple, page: int) -> dict:
    code, slug, name = chapter
    topic = rng.choice(TOPICS)
    heads = rng.sample(SECTION_HEADS, rng.randint(3, 6))
    return {
        "id": f"{code}-{page:02d}",
        "number": number,
        "title": f"{code}: {name} - part {page}: {topic}",
        "chapter": code,
        "chapter_slug": f"{code}_{slug}",
        "level": LEVELS[min(2, page // 3)],
        "summary": paragraph(rng, 2),
        "sections": [section(rng, code, page, k, h) for k, h in enumerate(heads)],
        "code_refs": [
            {"file": f"{code}_{slug}/code.py", "symbol": rng.choice(
                ["agent_loop", "run_tool", "estimate_chars", "micro_compact", "snip_compact",
                 "compact_history", "write_transcript", "load_memory", "save_note",
                 "tool_result_budget", "reactive_compact", "todo_write"]),
             "line": rng.randint(10, 900)}
            for _ in range(rng.randint(1, 4))
        ],
        "prerequisites": sorted({f"{CHAPTERS[i][0]}" for i in
                                 rng.sample(range(len(CHAPTERS)), rng.randint(0, 3))}),
        "keywords": sorted(set(rng.sample(TOPICS, 4))),
        "reading_minutes": rng.randint(3, 25),
        "exercises": [{"id": f"{code}-{page:02d}-ex{j + 1}", "prompt": sentence(rng),
                       "difficulty": rng.choice(LEVELS)} for j in range(rng.randint(0, 3))],
        "translations": sorted(rng.sample(["en", "zh", "ja", "es", "de"], rng.randint(1, 3))),
        "revision": rng.randint(1, 40),
    }


def docs_json() -> str:
    rng = random.Random(SEED)
    records, number = [], 0
    for chapter in CHAPTERS:
        for page in range(1, PAGES + 1):
            number += 1
            records.append(record(rng, number, chapter, page))
    data = {"schema": "course-docs/v2", "generator": "scripts/generate_docs.py",
            "count": len(records), "lessons": records}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


TEST_FILES = [
    ("tests/test_loop.py", ["stops_on_end_turn", "appends_assistant_turn", "runs_each_tool_use",
                            "pairs_results_by_id", "respects_turn_limit", "handles_max_tokens"]),
    ("tests/test_tools.py", ["read_file_limit", "read_file_outside_workspace", "write_file_creates_dirs",
                             "edit_file_missing_text", "glob_sorted", "bash_deny_list",
                             "bash_timeout", "bash_output_cut", "unknown_tool"]),
    ("tests/test_planning.py", ["plan_before_first_call", "replan_after_error", "plan_max_steps"]),
    ("tests/test_subagents.py", ["child_has_fresh_list", "child_no_task_tool", "child_answer_only",
                                 "child_read_only"]),
    ("tests/test_todo.py", ["one_in_progress", "unique_ids", "render_checklist", "nudge_open_items"]),
    ("tests/test_compact.py", ["budget_persists_largest", "budget_keeps_small", "snip_keeps_pairs",
                               "snip_marker_counts", "micro_keeps_recent", "micro_placeholder_path",
                               "summary_has_request", "summary_input_cut", "reactive_once",
                               "compact_tool_ack", "prepare_order", "transcript_jsonl"]),
    ("tests/test_memory.py", ["note_roundtrip", "index_rebuild", "search_by_keyword",
                              "forget_expired", "merge_duplicates", "memory_survives_compact"]),
]
FAILURES = {
    ("tests/test_compact.py", "snip_keeps_pairs", 7):
        ["    def test_snip_keeps_pairs(history):",
         "        kept = snip_compact(history)",
         ">       assert_pairs(kept)",
         "E       AssertionError: messages[3].content[0]: tool_result for id 'toolu_017' "
         "has no tool_use in messages[2]",
         "",
         "tests/test_compact.py:88: AssertionError"],
    ("tests/test_tools.py", "bash_timeout", 3):
        ["    def test_bash_timeout(workspace):",
         ">       assert run_bash('sleep 5', timeout=1).startswith('Error: timed out')",
         "E       AssertionError: assert False",
         "E        +  where False = <built-in method startswith of str object>('Error: timed out')",
         "",
         "tests/test_tools.py:141: AssertionError"],
    ("tests/test_memory.py", "forget_expired", 11):
        ["    def test_forget_expired(store):",
         "        store.add(Note('old', ttl_turns=2))",
         "        store.tick(3)",
         ">       assert store.search('old') == []",
         "E       AssertionError: assert [Note(key='old', ttl_turns=2)] == []",
         "",
         "tests/test_memory.py:64: AssertionError"],
}


def test_log() -> str:
    rng = random.Random(SEED + 1)
    lines = ["$ npm run build", "", "> agent-course-site@0.3.0 build", "> npm run generate && vite build",
             "", "> agent-course-site@0.3.0 generate", "> python scripts/generate_docs.py", ""]
    for chapter, slug, _ in CHAPTERS:
        lines.append(f"generate: {chapter}_{slug}: {PAGES} records, {rng.randint(12, 40)} sections")
    lines += [f"generate: wrote web/src/data/generated/docs.json ({PAGES * len(CHAPTERS)} records)", "",
              "vite v5.4.2 building for production...", "transforming..."]
    for i in range(40):
        lines.append(f"  src/lessons/{CHAPTERS[i % 12][0]}/page-{i:02d}.tsx")
    lines += ["rendering chunks...", "build finished.", "",
          "$ python -m pytest -v --tb=short -p no:cacheprovider",
              "============================= test session starts ==============================",
              "platform linux -- Python 3.11, pytest-8.3.2, pluggy-1.5.0",
              "rootdir: .", "configfile: pytest.ini", "collected 588 items", ""]
    failures, counts = [], {"passed": 0, "failed": 0, "skipped": 0}
    total = 588
    done = 0
    for round_ in range(14):
        for path, names in TEST_FILES:
            for name in names:
                if done >= total:
                    break
                done += 1
                case = f"{path}::test_{name}[case{round_:02d}]"
                status = "PASSED"
                if (path, name, round_) in FAILURES:
                    status = "FAILED"
                    failures.append((case, FAILURES[(path, name, round_)]))
                elif rng.random() < 0.008:
                    status = "SKIPPED (needs a model key)"
                counts[status.split()[0].lower()] += 1
                lines.append(f"{case} {status} [{done * 100 // total:3d}%]")
    lines += ["", "=================================== FAILURES ==================================="]
    for case, body in failures:
        lines.append(f"___________________ {case.split('::')[1]} ___________________")
        lines += body
    lines += ["=============================== warnings summary ===============================",
              "tests/test_compact.py::test_prepare_order[case04]",
              "  compact/micro.py:61: CompactionWarning: tool_result 'toolu_042' kept in context: "
              "could not write .task_outputs/tool-results/toolu_042.txt: No space left on device",
              "", "-- Docs: see the pytest guide on capturing warnings",
              "=========================== short test summary info ============================"]
    lines += [f"FAILED {case} - AssertionError" for case, _ in failures]
    lines.append(f"============ {counts['failed']} failed, {counts['passed']} passed, "
                 f"{counts['skipped']} skipped, 1 warning in 47.31s ============")
    return "\n".join(lines) + "\n"


def main() -> None:
    files = {"web/src/data/generated/docs.json": docs_json(), "logs/test_run.log": test_log()}
    for relative, text in files.items():
        path = WORKSPACE / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        print(f"{relative}: {len(text)} characters")


if __name__ == "__main__":
    main()
