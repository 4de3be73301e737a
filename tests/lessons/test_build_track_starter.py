"""The learner's starter, notebooks/my_compact.py, and its Chinese twin (issue 52).

The starter holds every function of the build track with the article's numbers as defaults, a
docstring that says what it must do, and `raise NotImplementedError`: no code of a step, no
import. The twin, notebooks/zh/my_compact.py, is written from it by scripts/make_my_compact_zh.py
and is current: the same code, Chinese docstrings and section comments.
"""

import ast
import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGLISH = ROOT / "notebooks" / "my_compact.py"
CHINESE = ROOT / "notebooks" / "zh" / "my_compact.py"
SCRIPT = ROOT / "scripts" / "make_my_compact_zh.py"

# The build track's signature table (the lead's design of issue 52), one row a function.
SIGNATURES = {
    "tool_result_budget": "(messages, root, batch_limit=200000, large_limit=30000, preview_chars=2000)",
    "snip_compact": "(messages, root, max_messages=50, keep_head=3)",
    "micro_compact": "(messages, root, keep_recent=3, min_chars=120)",
    "summary_input": "(messages, limit=80000)",
    "compact_history": "(messages, root, active_request, summarize)",
    "cheap_steps": "(messages, root)",
    "is_prompt_too_long": "(error)",
    "reactive_compact": "(messages, root, active_request, summarize, keep_recent=5)",
    "run_tool_batch": "(tool_uses, handlers)",
    "prepare": "(messages, root, active_request, summarize, limit=50000)",
}


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"starter_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def without_docstrings(path: Path) -> str:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in [tree, *tree.body]:
        body = getattr(node, "body", [])
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body[0].value.value = ""
    return ast.dump(tree)


@pytest.mark.parametrize("path", [ENGLISH, CHINESE], ids=["en", "zh"])
def test_every_function_of_the_table_with_the_articles_numbers(path):
    module = load(path)
    functions = {name: f for name, f in vars(module).items() if inspect.isfunction(f)}
    assert {name: str(inspect.signature(f)) for name, f in functions.items()} == SIGNATURES


@pytest.mark.parametrize("path", [ENGLISH, CHINESE], ids=["en", "zh"])
def test_no_code_of_a_step_only_the_contract_and_not_implemented(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    for node in tree.body[1:]:
        assert isinstance(node, ast.FunctionDef), ast.dump(node)[:80]
        docstring, body = node.body[0], node.body[1:]
        assert isinstance(docstring, ast.Expr) and len(docstring.value.value) > 80, node.name
        assert len(body) == 1 and isinstance(body[0], ast.Raise) and body[0].exc.id == "NotImplementedError"
    module = load(path)
    for name in SIGNATURES:
        with pytest.raises(NotImplementedError):
            getattr(module, name)(*[None] * len(inspect.signature(getattr(module, name)).parameters))


def test_the_docstrings_carry_the_articles_words_and_numbers():
    module = load(ENGLISH)
    said = {name: inspect.getdoc(getattr(module, name)) for name in SIGNATURES}
    for text in ("<persisted-output>", "Full output: ", "Preview:", "</persisted-output>", "[A-Za-z0-9._-]",
                 "120", "largest first"):
        assert text in said["tool_result_budget"], text
    assert "[<N> messages archived at" in said["snip_compact"]
    assert "[Earlier tool result saved at <path>]" in said["micro_compact"]
    assert "[Earlier tool result omitted.]" in said["micro_compact"]
    assert "\\n...[middle omitted; full transcript is on disk]...\\n" in said["summary_input"]
    for line in ("[Compacted]", "Current user request:", "Conversation summary (reference only):",
                 "Full transcript:"):
        assert line in said["compact_history"]
    assert "prompt is too long: 210445 tokens > 200000 maximum" in said["is_prompt_too_long"]
    assert "Compaction requested after this tool batch." in said["run_tool_batch"]


def test_the_chinese_twin_is_current_and_the_same_code():
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert without_docstrings(CHINESE) == without_docstrings(ENGLISH)
    module = load(CHINESE)
    for name in SIGNATURES:
        assert any("\u4e00" <= ch <= "\u9fff" for ch in inspect.getdoc(getattr(module, name))), name
    assert all(not line.startswith("# -- ") or any("\u4e00" <= ch <= "\u9fff" for ch in line)
               for line in CHINESE.read_text(encoding="utf-8").splitlines())


def test_a_function_without_a_chinese_docstring_stops_the_script(monkeypatch):
    spec = importlib.util.spec_from_file_location("make_my_compact_zh", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    extra = '\n\ndef extra(messages):\n    """New."""\n    raise NotImplementedError\n'
    english = ENGLISH.read_text(encoding="utf-8") + extra
    with pytest.raises(SystemExit, match=r"without a Chinese docstring: \['extra'\]"):
        script.chinese(english)
    with pytest.raises(SystemExit, match="no Chinese for the section comment"):
        script.chinese(ENGLISH.read_text(encoding="utf-8") + "\n# -- a new section --\n")
