"""The course's tasks, as constants: the article's three experiments (section 13)
in English, plus one for the compact tool (section 10), each with its Chinese text.

Notebooks, tests and `python -m compact_course run NAME` use these very strings, and
the offline model's policy plans its tool calls from them (in either language).
The Chinese texts of the three experiments are the article's own prompts,
word for word (docs/ZH_PROMPTS.md); the article gives none for the compact
tool, so its Chinese text is the course's own translation, not a quotation.

`TITLES`, `DOCS_JSON`, `COMPARE_CODE` and `COMPACT_TOOL` are the text in the
notebook's language (compact_course/display/lang.py: Chinese in notebooks/zh/, where
the two editions' shared code cells import them); `EN` and `ZH` hold both.
"""

from ..display.lang import language

NOTES_PATH = "notes/progress.md"

EN = {
    "TITLES": ("Read the README.md of the five lessons s01_agent_loop to s05_todo_write, "
               "compare their first-level titles, and summarize how the titles are named."),
    "DOCS_JSON": ("Analyse the structure of web/src/data/generated/docs.json and explain which "
                  "main fields one lesson record has."),
    "COMPARE_CODE": ("Compare s08_context_compact/code.py and s09_memory/code.py and explain how "
                     "each manages the current context and persistent memory."),
    "COMPACT_TOOL": (f"List the lesson folders, then write a short progress note to {NOTES_PATH} "
                     f"and, in the same tool batch, call the compact tool to free context space "
                     f"before the next stage."),
}
ZH = {
    # The article, section 13 (十三、动手实验), experiments 1 to 3.
    "TITLES": ("请读取 s01_agent_loop 到 s05_todo_write 五节课程的 README.md，"
               "比较它们的一级标题，并总结这些标题的命名规律。"),
    "DOCS_JSON": "请分析 web/src/data/generated/docs.json 的数据结构，并说明一条课程记录包含哪些主要字段。",
    "COMPARE_CODE": ("请比较 s08_context_compact/code.py 和 s09_memory/code.py，"
                     "说明它们分别怎样管理当前上下文和持久记忆。"),
    # Not the article's: the course's translation of the English task.
    "COMPACT_TOOL": (f"列出课程文件夹，然后把一段简短的进度笔记写入 {NOTES_PATH}，并在同一个工具批次中"
                     f"调用 compact 工具，在进入下一阶段之前释放上下文空间。"),
}
NAMES = {"titles": "TITLES", "docs-json": "DOCS_JSON", "compare-code": "COMPARE_CODE",
         "compact-tool": "COMPACT_TOOL"}


def texts(lang: str | None = None) -> dict:
    """{constant name: task text} in `lang` ('en' or 'zh'; default: the notebook's)."""
    return ZH if (lang or language()) == "zh" else EN


def __getattr__(name: str) -> str:
    # TITLES, DOCS_JSON, ... : read on each import, so the Chinese edition gets its prompts.
    if name in EN:
        return texts()[name]
    if name == "BY_NAME":
        return {short: texts()[constant] for short, constant in NAMES.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def task_text(name_or_text: str, lang: str | None = None) -> str:
    """A task by its short name (`titles`, ...), in `lang` or the notebook's; or the text itself."""
    constant = NAMES.get(name_or_text.strip())
    return texts(lang)[constant] if constant else name_or_text
