"""The notebooks as files: each one holds its source's cells, and keeps the course's shape.

Fast and without a kernel (nbval runs the notebooks; this only reads them):
- every .ipynb holds exactly the cells of its notebooks/src/*.py, executed, so
  a source edited without a rebuild fails here, not in a learner's hands;
- each notebook opens with a goal cell ("**Goal.**", with its length in
  minutes) and ends with a recap ("**Recap.**": three points, then "**Next:**");
- each notebook has a chart (a stored PNG) and check-yourself exercises whose
  checkers ran and found the stubs not attempted yet; at least 9 notebooks,
  and every step's notebook, have one where the learner writes code;
- notebook 00 draws the pipeline (the picture's content is checked here too);
- notebooks 00-04 teach the article's design alone: no default profile;
- the threshold explorer appears only where moving a threshold teaches
  something new (EXPLORERS), after a "**Try this.**" prompt, in a cell tagged
  nbval-ignore-output followed by an untagged cell that draws a view of it;
- each source is what jupytext writes for its own cells (percent format, no
  header), so opening and saving it in JupyterLab changes nothing, and a
  magic is written commented (`# %matplotlib inline`) and comes back a magic;
- every cell has a stable id (a markdown cell its own, a code cell the one above
  it plus "-code"), which is the built cell's id in both editions: a cell added
  renames no other, and a missing, malformed or clashing id is refused by position;
- no stored output is an error or stderr, none names an absolute scratch or
  checkout path, and none mentions the project's internal spec (learners have
  docs/DESIGN.md instead).
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

from compact_course.lessons.exercises import CHECKERS, WRITES_CODE
from compact_course.lessons.pipeline_picture import drawn_texts, pipeline_picture, pipeline_steps
from context_compact.config import CompactionConfig
from tests.helpers import ARTICLE_STEPS, check_recap, load_builder

ROOT = Path(__file__).resolve().parents[2]
BUILD = load_builder()
SERIES = [BUILD.Notebook(source) for source in BUILD.sources()]   # the core path, then the labs
NOTEBOOKS = [item.target for item in SERIES]
KEYS = {item.target: item.key for item in SERIES}             # "03", "labs/01"
SOURCE_OF = {item.target: item.source for item in SERIES}
LABELS = [item.label for item in SERIES]
IGNORE = "nbval-ignore-output"
ABSOLUTE = re.compile(r"(/tmp/|/work/|/home/|/private/var/|/var/folders/)")
# Where moving a threshold teaches something new: step 1's trigger, step 3's two
# numbers, a limit in characters against a window in tokens, and the two profiles.
EXPLORERS = ("01", "03", "labs/01")  # 06 teaches the refusal and the retry; its explorer went
STEPS_NOTEBOOKS = ("01", "02", "03", "04", "06", "07")



def code_cells(nb) -> list:
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def tags(cell) -> list:
    return cell.metadata.get("tags", [])


def output_texts(cell) -> list:
    """Every text a cell's stored outputs hold: streams, plain text, HTML, tracebacks."""
    texts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            texts.append(output.text)
        for mime, value in output.get("data", {}).items():
            if mime.startswith("text/") or mime.endswith("json"):
                texts.append(value if isinstance(value, str) else str(value))
        texts += output.get("traceback", [])
    return texts


def stdout_of(cell) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream")


def has_png(cell) -> bool:
    return any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=LABELS)
def notebook(request):
    return request.param, nbformat.read(request.param, as_version=4)


def test_there_is_one_notebook_per_source_numbered_without_a_gap():
    # The core path in notebooks/, the labs in notebooks/labs/, each edition the same.
    core = sorted(p.stem for p in (ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
    labs = sorted(p.stem for p in (ROOT / "notebooks" / "src" / "labs").glob("[0-9][0-9]_*.py"))
    assert sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) == core
    assert sorted(p.stem for p in (ROOT / "notebooks" / "labs").glob("[0-9][0-9]_*.ipynb")) == labs
    assert LABELS == core + [f"labs/{name}" for name in labs]
    # The capstone (08) comes just before the live run, which ends the core path.
    assert [name[:2] for name in core] == [f"{n:02d}" for n in range(len(core))]
    assert core[8:10] == ["08_build_prepare", "09_live_agent"]
    assert [name[:2] for name in labs] == [f"{n:02d}" for n in range(1, len(labs) + 1)]


@pytest.mark.slow
def test_every_notebook_holds_its_sources_cells(capsys):
    # The same check as `scripts/build_notebooks.py --check-sources`.
    assert BUILD.main(["--check-sources"]) == 0, capsys.readouterr().out
    assert "STALE" not in capsys.readouterr().out


def test_the_source_check_sees_an_edit_made_without_a_rebuild(tmp_path):
    source = ROOT / "notebooks" / "src" / "03_micro_compact.py"
    edited = tmp_path / source.name
    edited.write_text(source.read_text(encoding="utf-8").replace(
        "KEEP_RECENT_RESULTS = ", "KEEP_RECENT_RESULTS is ", 1), encoding="utf-8")
    problems = BUILD.same_cells(edited, ROOT / "notebooks" / "03_micro_compact.ipynb")
    assert problems and all("source differs" in p for p in problems)


SOURCES = BUILD.sources()


@pytest.mark.parametrize("source", SOURCES, ids=LABELS)
def test_jupytext_writes_each_source_back_unchanged(source):
    # What JupyterLab's jupytext extension saves (notebooks/jupytext.toml: percent, no header).
    text = source.read_text(encoding="utf-8")
    assert jupytext.writes(jupytext.reads(text, fmt="py:percent"), fmt="py:percent") == text


def test_a_commented_magic_becomes_a_magic_in_the_notebook():
    text = (ROOT / "notebooks" / "src" / "00_why_compaction.py").read_text(encoding="utf-8")
    assert "\n# %matplotlib inline\n" in text and "\n%matplotlib" not in text
    first_code = code_cells(BUILD.to_notebook(text, "00_why_compaction"))[0]
    assert first_code.source.splitlines()[0] == "%matplotlib inline"


@pytest.mark.parametrize("text, problem", [
    ("x = 1\n# %%\ny = 2\n", "text before the first '# %%' line"),
    ("\n\n", "no cells"),
    ("# %%\nx = 1\n\n# %%\n\n# %% [markdown]\n# hi\n", "cell 1: empty cell"),
    ('# %% tags="ignore"\nx = 1\n', "jupytext cannot read it"),
    ("# %% [raw]\nx\n", "cell 0: a raw cell"),
])
def test_a_source_jupytext_cannot_make_a_clean_notebook_of_is_refused(text, problem):
    with pytest.raises(BUILD.BuildError, match=re.escape(problem)):
        BUILD.to_notebook(text, "99_bad")


def test_cell_ids_and_tags_come_from_the_source_not_from_jupytext():
    text = ('# %% [markdown] id="title"\n# Title\n\n# %% tags=["nbval-ignore-output"]\nx = 1\n\n'
            '# %%\ny = 2\n\n# %% [markdown] id="recap"\n# Recap\n')
    nb = BUILD.to_notebook(text, "99_demo")
    # A code cell's id is the markdown id above it, "-code", then "-code-2" and on.
    assert [c.id for c in nb.cells] == ["title", "title-code", "title-code-2", "recap"]
    assert [dict(c.metadata) for c in nb.cells] == [{}, {"tags": ["nbval-ignore-output"]}, {}, {}]
    assert BUILD.render(nb) == BUILD.render(BUILD.to_notebook(text, "99_demo"))


def test_a_cell_added_renames_no_other_cell():
    # Position-derived ids would shift every cell after the new one in the notebook's diff.
    text = (ROOT / "notebooks" / "src" / "03_micro_compact.py").read_text(encoding="utf-8")
    before = [c.id for c in BUILD.to_notebook(text, "03_micro_compact").cells]
    at = text.index("# %% [markdown] id=", 1)
    added = text[:at] + '# %% [markdown] id="added"\n# New prose.\n\n# %%\nz = 3\n\n' + text[at:]
    after = [c.id for c in BUILD.to_notebook(added, "03_micro_compact").cells]
    assert [i for i in after if i not in before] == ["added", "added-code"]
    assert [i for i in after if i in before] == before


@pytest.mark.parametrize("text, problem", [
    ("# %% [markdown]\n# Title\n", "99_bad cell 0: a markdown cell without an id"),
    ('# %% [markdown] id="a"\n# A\n\n# %% [markdown]\n# B\n', "99_bad cell 1: a markdown cell without an id"),
    ('# %% [markdown] id="Run Step"\n# A\n', "99_bad cell 0: id 'Run Step' is not lower-case words"),
    ('# %% [markdown] id="a_b"\n# A\n', "cell 0: id 'a_b' is not"),
    (f'# %% [markdown] id="{"x" * 41}"\n# A\n', "(at most 40 characters)"),
    ('# %% [markdown] id=3\n# A\n', "cell 0: id 3 is not"),
    ('# %% [markdown] id="a"\n# A\n\n# %% id="mine"\nx = 1\n',
     "99_bad cell 1: a code cell takes its id from the markdown cell above it"),
    ('# %% [markdown] id="a"\n# A\n\n# %% [markdown] id="a"\n# B\n', "99_bad: cell ids used twice: a"),
    ('# %% [markdown] id="a-code"\n# A\n\n# %% [markdown] id="a"\n# B\n\n# %%\nx = 1\n',
     "cell ids used twice: a-code"),
])
def test_a_cell_without_a_stable_id_or_with_a_clashing_one_is_refused(text, problem):
    with pytest.raises(BUILD.BuildError, match=re.escape(problem)):
        BUILD.to_notebook(text, "99_bad")


@pytest.mark.parametrize("source", BUILD.sources(), ids=[item.label for item in SERIES])
def test_each_notebooks_cell_ids_are_its_sources_stable_ids(source):
    # Both editions: the English ids, and the same with "zh-" in the Chinese notebook.
    for item, prefix in ((BUILD.Notebook(source), ""), (BUILD.Notebook(source, zh=True), "zh-")):
        stored = [cell.id for cell in nbformat.read(item.target, as_version=4).cells]
        text = source.read_text(encoding="utf-8")
        assert stored == [prefix + i for i in BUILD.cell_ids(BUILD.read_source(text, item.name), item.name)]


@pytest.mark.slow
def test_nbval_names_a_failing_cells_stable_id(tmp_path):
    # notebooks/conftest.py: nbval says "Cell 0" (code cells counted); the report adds the id.
    shutil.copy(ROOT / "notebooks" / "conftest.py", tmp_path)
    nb = BUILD.to_notebook('# %% [markdown] id="run-step-1"\n# Run\n\n# %%\nprint(2)\n', "99_demo")
    code = nb.cells[1]
    code.outputs, code.execution_count = [nbformat.v4.new_output("stream", name="stdout", text="1\n")], 1
    nbformat.write(nb, tmp_path / "99_demo.ipynb")
    run = subprocess.run([sys.executable, "-m", "pytest", "--nbval", "-p", "no:cacheprovider",
                          "-p", "no:randomly", "99_demo.ipynb"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 1, run.stdout[-2000:]
    assert re.search(r"-+ cell id -+\nrun-step-1-code\n", run.stdout), run.stdout[-2000:]


def test_a_chart_is_stored_as_a_png(notebook):
    path, nb = notebook
    assert any(has_png(cell) for cell in code_cells(nb)), f"{path.name}: no chart"


def test_every_exercise_checker_ran_on_the_stub(notebook):
    path, nb = notebook
    for check in CHECKERS.get(KEYS[path], ()):   # 08's is the build track's (test_build_track_starter)
        calls = [cell for cell in code_cells(nb) if re.search(rf"\b{check.__name__}\(", cell.source)]
        assert len(calls) == 1, f"{path.name}: expected one cell calling {check.__name__}"
        out = stdout_of(calls[0])
        # Shipped unsolved: the checker printed its verdict on the stub, not a traceback.
        # The hint stays closed until the learner runs hint(): the line says how.
        assert "not attempted yet" in out and "run hint()" in out and "hint:" not in out, out


def writes_code(nb) -> bool:
    """A cell where the learner writes a function: a stub that raises, checked by a code checker."""
    for cell in code_cells(nb):
        stub = re.search(r"^def \w+\(.*\).*:\n\s+raise NotImplementedError", cell.source, re.M)
        if stub and any(re.search(rf"\b{c.__name__}\(", cell.source) for c in WRITES_CODE):
            return True
    return False


def test_nine_notebooks_and_every_steps_notebook_have_code_to_write():
    having = {KEYS[path] for path in NOTEBOOKS if writes_code(nbformat.read(path, as_version=4))}
    assert len(having) >= 9, sorted(having)
    assert set(STEPS_NOTEBOOKS) <= having, sorted(having)


def markdown_cells(nb) -> list:
    return [cell for cell in nb.cells if cell.cell_type == "markdown"]


def test_the_notebook_opens_with_its_goal_and_length(notebook):
    path, nb = notebook
    goal = [cell for cell in nb.cells[:2]
            if cell.cell_type == "markdown" and cell.source.startswith("**Goal.** You will ")]
    assert len(goal) == 1, f"{path.name}: no goal cell among the first two"
    assert re.search(r"About\s+\d+\s+minutes", goal[0].source), goal[0].source


def test_the_notebook_ends_with_a_three_point_recap_and_what_comes_next(notebook):
    path, nb = notebook
    check_recap([cell.source for cell in markdown_cells(nb)], "**Recap.**", "**Next:**", path.name)


def test_every_relative_link_in_the_prose_exists(notebook):
    # A lab in notebooks/labs/ links to the core path as ../NN_name.ipynb, and to docs/ as
    # ../docs/ (notebooks/docs is a link to the repository's docs/).
    path, nb = notebook
    for cell in markdown_cells(nb):
        for link in re.findall(r"\]\(([^)\s]+)\)", cell.source):
            if not link.startswith(("http://", "https://", "#")):
                target = Path(os.path.normpath(path.parent / link.split("#")[0]))
                assert target.exists(), f"{path.relative_to(ROOT)}: broken link {link}"


def test_notebook_00_draws_the_pipeline():
    nb = nbformat.read(ROOT / "notebooks" / "00_why_compaction.ipynb", as_version=4)
    cells = [cell for cell in code_cells(nb) if "pipeline_picture()" in cell.source]
    assert len(cells) == 1 and has_png(cells[0])


def test_the_pipeline_picture_names_each_step_its_trigger_and_what_it_leaves():
    seed = CompactionConfig.seed()
    texts = drawn_texts(pipeline_picture())
    steps = pipeline_steps()
    assert [step["name"] for step in steps] == ARTICLE_STEPS
    for step in steps:
        assert f"{step['number']}. {step['name']}" in texts
        for key in ("trigger", "context", "disk"):
            assert step[key] in texts, (step["name"], key)
    joined = "\n".join(texts)
    for fact in (f"over {seed.tool_result_batch_char_limit:,d} characters",
                 f"more than {seed.snip_max_messages} messages", "every call",
                 f"still over {seed.context_char_limit:,d}",
                 ".task_outputs/tool-results/<id>.txt", ".transcripts/transcript_<hex>.jsonl",
                 "Full output:", "[Compacted]", "omitted"):
        assert fact in joined, fact
    # The numbers follow the configuration it is given.
    other = drawn_texts(pipeline_picture(CompactionConfig.seed(snip_max_messages=70)))
    assert any("more than 70 messages" in text for text in other)


def test_the_first_notebooks_teach_the_article_alone():
    for path in NOTEBOOKS[:5]:
        source = SOURCE_OF[path].read_text(encoding="utf-8")
        assert not re.search(r"default profile|[\"']default[\"']|CompactionConfig\(\)", source), path.name


def test_the_explorer_appears_only_where_it_teaches_with_a_prompt(notebook):
    path, nb = notebook
    cells = code_cells(nb)
    explorers = [i for i, cell in enumerate(cells) if "threshold_explorer(" in cell.source]
    if KEYS[path] not in EXPLORERS:
        assert explorers == [], f"{path.name}: an explorer where it teaches nothing new"
        return
    assert len(explorers) == 1, f"{path.name}: expected one threshold_explorer cell"
    widget = cells[explorers[0]]
    assert tags(widget) == [IGNORE]
    assert stdout_of(widget) == "" and output_texts(widget) == [BUILD.WIDGET_NOTE]
    view = cells[explorers[0] + 1]
    assert IGNORE not in tags(view)
    assert "explore(" in view.source and has_png(view), f"{path.name}: {view.source!r}"
    prompt = nb.cells[nb.cells.index(widget) - 1]
    assert prompt.cell_type == "markdown" and "**Try this.**" in prompt.source, path.name


def test_only_the_widget_cell_is_left_out_of_the_comparison(notebook):
    # Everything else is compared by nbval, so it must be the same on every run:
    # no timings, no random names, no ports.
    path, nb = notebook
    ignored = [cell.source for cell in code_cells(nb) if IGNORE in tags(cell)]
    assert all("threshold_explorer(" in source for source in ignored), ignored
    assert len(ignored) == (KEYS[path] in EXPLORERS)


def test_no_stored_output_is_an_error_or_stderr(notebook):
    path, nb = notebook
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            assert output.output_type != "error", f"{path.name} cell {index}: {output.evalue}"
            assert not (output.output_type == "stream" and output.name == "stderr"), \
                f"{path.name} cell {index} stored stderr: {output.text[:200]}"


def test_every_cell_ran_and_streams_are_merged(notebook):
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb)):
        assert cell.execution_count is not None, f"{path.name} code cell {index} not run"
        kinds = [(o.output_type, o.get("name")) for o in cell.outputs]
        assert all(a != b or a[0] != "stream" for a, b in zip(kinds, kinds[1:])), \
            f"{path.name} code cell {index}: two stream outputs in a row"


def test_no_stored_output_names_an_absolute_path(notebook):
    path, nb = notebook
    for index, cell in enumerate(nb.cells):
        for text in output_texts(cell):
            found = ABSOLUTE.search(text)
            assert not found, f"{path.name} cell {index}: {text[max(0, found.start() - 40):][:120]!r}"


def test_learners_are_pointed_at_docs_design_not_the_internal_spec(notebook):
    path, nb = notebook
    source = SOURCE_OF[path].read_text(encoding="utf-8")
    assert not re.search(r"\bSPEC\b", source)
    for cell in nb.cells:
        assert not any(re.search(r"\bSPEC\b", text) for text in output_texts(cell))


def test_the_flaw_table_points_at_docs_design():
    nb = nbformat.read(ROOT / "notebooks" / "labs" / "01_seed_vs_default.ipynb", as_version=4)
    intro = nb.cells[0].source
    assert "](../docs/DESIGN.md)" in intro and "| flaw |" in intro
    assert (ROOT / "docs" / "DESIGN.md").is_file()


# -- the build's own output rules ------------------------------------------------------

def stream(name, text):
    return nbformat.v4.new_output("stream", name=name, text=text)


def test_consecutive_streams_of_one_name_are_merged_in_order():
    picture = nbformat.v4.new_output("display_data", data={"text/plain": "<Figure>"})
    merged = BUILD.merge_streams([stream("stdout", "a\n"), stream("stdout", "b\n"),
                                  stream("stderr", "w\n"), stream("stdout", "c\n"), picture,
                                  stream("stdout", "d\n"), stream("stdout", "e\n")])
    assert [(o.output_type, o.get("name"), o.get("text")) for o in merged] == [
        ("stream", "stdout", "a\nb\n"), ("stream", "stderr", "w\n"),
        ("stream", "stdout", "c\n"), ("display_data", None, None),
        ("stream", "stdout", "d\ne\n")]


def test_merging_leaves_a_single_output_alone():
    only = [stream("stdout", "one line\n")]
    assert BUILD.merge_streams(only) == only and BUILD.merge_streams([]) == []


ZH_NOTEBOOKS = [BUILD.Notebook(source, zh=True).target for source in BUILD.sources()]
HAN = r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]"
CJK_BREAK = re.compile(HAN + r"\n[ ]{0,3}" + HAN)


@pytest.mark.parametrize("path", ZH_NOTEBOOKS, ids=LABELS)
def test_no_zh_markdown_breaks_a_line_between_two_chinese_characters(path):
    # A browser draws a wrapped line's break as a space, a gap inside a Chinese sentence.
    nb = nbformat.read(path, as_version=4)
    breaks = [(i, m.group()) for i, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
              for m in CJK_BREAK.finditer(cell.source)]
    assert breaks == [], breaks[:5]


@pytest.mark.parametrize("text, joined", [
    ("一段\n中文。", "一段中文。"),
    ("- 一项\n  续行", "- 一项续行"),
    ("中文\n- 新的一项", "中文\n- 新的一项"),
    ("    代码里的中文\n    代码", "    代码里的中文\n    代码"),
    ("中文\n\n中文", "中文\n\n中文"),
    ("中文 `code`\n中文", "中文 `code`\n中文"),
    ("```\n中文\n中文\n```", "```\n中文\n中文\n```"),
    ("中文\n| 表 |", "中文\n| 表 |"),
])
def test_the_builder_joins_only_chinese_to_chinese_in_running_text(text, joined):
    assert BUILD.joined_lines(text) == joined


def test_readme_zh_breaks_no_line_between_two_chinese_characters():
    text = (ROOT / "README.zh.md").read_text(encoding="utf-8")
    assert CJK_BREAK.findall(text) == []
