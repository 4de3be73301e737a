"""The course's tasks, as constants: the article's three experiments (section 13)
in English, plus one for the compact tool (section 10).

Notebooks, tests and `python -m compact run NAME` use these very strings, and
the offline model's policy plans its tool calls from them. Left out: the
article's Chinese wording (the sample workspace and the course are in English).
"""

TITLES = ("Read the README.md of the five lessons s01_agent_loop to s05_todo_write, compare "
          "their first-level titles, and summarize how the titles are named.")

DOCS_JSON = ("Analyse the structure of web/src/data/generated/docs.json and explain which "
             "main fields one lesson record has.")

COMPARE_CODE = ("Compare s08_context_compact/code.py and s09_memory/code.py and explain how "
                "each manages the current context and persistent memory.")

NOTES_PATH = "notes/progress.md"
COMPACT_TOOL = (f"List the lesson folders, then write a short progress note to {NOTES_PATH} "
                f"and, in the same tool batch, call the compact tool to free context space "
                f"before the next stage.")

BY_NAME = {
    "titles": TITLES,
    "docs-json": DOCS_JSON,
    "compare-code": COMPARE_CODE,
    "compact-tool": COMPACT_TOOL,
}


def task_text(name_or_text: str) -> str:
    """A task by its short name (`titles`, ...), or the text itself."""
    return BY_NAME.get(name_or_text.strip(), name_or_text)
