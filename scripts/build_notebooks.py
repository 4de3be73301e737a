"""Build the course notebooks from their plain-text sources, outputs included.

    .venv/bin/python scripts/build_notebooks.py                # every source, both editions
    .venv/bin/python scripts/build_notebooks.py 00 03_micro    # those whose name starts so
    .venv/bin/python scripts/build_notebooks.py labs/01 labs   # a lab; every lab
    .venv/bin/python scripts/build_notebooks.py --check        # build in memory, diff, no write
    .venv/bin/python scripts/build_notebooks.py --check-sources   # no kernel: cells == sources?
    .venv/bin/python scripts/build_notebooks.py zh/03 zh/labs/0  # the Chinese 03; its labs 0*
    .venv/bin/python scripts/build_notebooks.py zh             # the whole Chinese edition
    .venv/bin/python scripts/build_notebooks.py en             # the whole English edition

With no name, both editions are built; a bare prefix (`03`) is the English notebook.

The series has two parts: the core path, notebooks/src/NN_name.py (built into
notebooks/), and the labs, notebooks/src/labs/NN_name.py (built into
notebooks/labs/), which a learner takes after it. Each edition has the same two
parts: notebooks/zh/ and notebooks/zh/labs/, from notebooks/src/zh/ and
notebooks/src/zh/labs/.

A source is a Python script in jupytext's percent format: a line starting
`# %%` opens a code cell, `# %% [markdown] id="run-step-1"` a markdown cell
(each line written as a `# ` comment), and either may carry tags:
`# %% tags=["nbval-ignore-output"]`. A magic is written commented,
`# %matplotlib inline`, so the source stays plain Python (ruff lints it) and
jupytext turns it back into the magic. jupytext reads the sources here (the
header's `key=value` pairs become the cell's metadata), and JupyterLab's
jupytext extension opens and saves them as notebooks (notebooks/jupytext.toml
keeps them headerless, with the id and tags only).

Every cell has a stable id, and a built cell's id is it:
- a markdown cell names its own (`id="..."`: lower-case words joined by `-`,
  unique in its notebook);
- a code cell takes the id of the markdown cell above it plus `-code`
  (`-code-2`, `-code-3` for the next ones before another markdown cell), so it
  needs no name of its own and keeps its id when cells are added elsewhere.
So nbval's comparison and a notebook's diff show the same ids build after build.

The Chinese edition (notebooks/zh/) has no sources of its own for code: its
notebook NN_name is the English source's cells, each markdown cell's text
replaced by the text of the cell with the same id in notebooks/src/zh/NN_name.py
(a lab's: notebooks/src/zh/labs/NN_name.py), the notebook's catalogue of Chinese
prose: markdown cells only, each with the id of the English cell it translates
(docs/GLOSSARY.md has the terms). So the code cells of the two editions are the
same text; a catalogue that lacks an English id, or has one the English source
does not, is an error that names the file and those ids. Its cell ids carry a
`zh-` prefix; it is executed the same way, in notebooks/zh/ (a lab in
notebooks/zh/labs/), which is how the course's helpers know to speak Chinese
(compact_course/display/lang.py).

Each notebook is executed top to bottom by nbclient (kernel python3, working
folder: the notebook's own, a timeout per cell) and saved WITH its outputs, because
nbval compares every later run against them. So the saved file must be the
same bytes on every build and every machine:
- cell ids are the sources' stable ids (above), not jupytext's random ones;
- no execution timestamps, and `language_info` is pinned to "3.11", not the
  patch release of whoever built it (the course's JupyterLab serves each notebook
  with its kernel's own, so opening one marks nothing unsaved:
  compact_course/lessons/lab_contents.py);
- a widget's view is replaced by a fixed line: its model id is random and its
  state lives in the kernel that made it, so a saved copy could only ever show
  "model not found". The cell that follows draws the default view instead;
- consecutive stream outputs of one name are merged into one: a cell that
  prints, waits and prints again yields one output or two depending on when
  the kernel flushed, and the saved file must not depend on that.
A cell that raises, or writes anything to stderr (a warning), fails the build:
such outputs must never be stored. The kernel is always this interpreter (the
course's .venv), even when the machine has another kernel named python3.

Left out on purpose: pairing a source with its .ipynb (the .ipynb is never
edited by hand, not even through jupytext: edit the source and rebuild).
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
from ipykernel.kernelspec import RESOURCES, get_kernel_dict
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOURCES = NOTEBOOKS / "src"
ZH = "zh"
ZH_SOURCES = SOURCES / ZH        # markdown cells only, one file per English source
ZH_NOTEBOOKS = NOTEBOOKS / ZH    # the built Chinese notebooks; their kernels run here
LABS = "labs"                    # the deep dives after the core path, in each edition
LANG_ENV = "COMPACT_LANG"        # the build lets the folder decide the language, never this
CELL_TIMEOUT = 180  # seconds; the live agent run is the slowest cell

SOURCE_FORMAT = "py:percent"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = "[interactive widget: run this cell in JupyterLab to move the thresholds]"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
LANGUAGE_INFO = {
    "name": "python",
    "version": "3.11",
    "mimetype": "text/x-python",
    "file_extension": ".py",
    "pygments_lexer": "ipython3",
    "codemirror_mode": {"name": "ipython", "version": 3},
    "nbconvert_exporter": "python",
}


class BuildError(Exception):
    """A source that cannot become a clean notebook; the text says where."""


# -- source to cells -----------------------------------------------------------

def read_source(text: str, name: str) -> list[nbformat.NotebookNode]:
    """The cells of a percent-format source, as jupytext reads them."""
    first = next((line for line in text.splitlines() if line.strip()), None)
    if first is None:
        raise BuildError(f"{name}: no cells (lines starting '# %%')")
    if not first.startswith("# %%"):
        # jupytext would make a cell of it; here every cell is opened on purpose.
        raise BuildError(f"{name}: text before the first '# %%' line: {first!r}")
    try:
        cells = jupytext.reads(text, fmt=SOURCE_FORMAT).cells
    except Exception as error:  # jupytext and nbformat (tags that are not a list) raise many kinds
        raise BuildError(f"{name}: jupytext cannot read it: {str(error).splitlines()[0]}") from error
    for index, cell in enumerate(cells):
        if cell.cell_type not in ("code", "markdown"):
            raise BuildError(f"{name} cell {index}: a {cell.cell_type} cell; use code or markdown")
        if not cell.source.strip():
            raise BuildError(f"{name} cell {index}: empty cell")
    return cells


# A stable id: lower-case words joined by "-". With "-code-NN" and "zh-" added it stays
# within nbformat's 64 characters.
CELL_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
CELL_ID_MAX = 40
CODE = "code"   # what a code cell's id adds to the id of the markdown cell above it


def markdown_id(cell, name: str, index: int) -> str:
    """The id a markdown cell's header gives it (`# %% [markdown] id="..."`), checked."""
    given = cell.metadata.get("id")
    if given is None:
        raise BuildError(f"{name} cell {index}: a markdown cell without an id; write its header "
                         f"as '# %% [markdown] id=\"a-short-name\"'")
    if not isinstance(given, str) or len(given) > CELL_ID_MAX or not CELL_ID.fullmatch(given):
        raise BuildError(f"{name} cell {index}: id {given!r} is not lower-case words joined by '-' "
                         f"(at most {CELL_ID_MAX} characters)")
    return given


def cell_ids(cells: list, name: str) -> list[str]:
    """Each cell's stable id: a markdown cell's own, a code cell's from the markdown cell above it."""
    ids, anchor, run = [], "", 0
    for index, cell in enumerate(cells):
        if cell.cell_type == "markdown":
            anchor, run = markdown_id(cell, name, index), 0
            ids.append(anchor)
            continue
        if "id" in cell.metadata:
            raise BuildError(f"{name} cell {index}: a code cell takes its id from the markdown "
                             "cell above it; remove its id=")
        run += 1
        ids.append("-".join(part for part in (anchor, CODE, str(run) if run > 1 else "") if part))
    twice = sorted({cell_id for cell_id in ids if ids.count(cell_id) > 1})
    if twice:
        raise BuildError(f"{name}: cell ids used twice: {', '.join(twice)} (a code cell's is the "
                         f"markdown id above it + '-{CODE}')")
    return ids


def to_notebook(text: str, name: str, prose: dict | None = None,
                prefix: str = "") -> nbformat.NotebookNode:
    """The notebook of a source; `prose` (id -> text), when given, replaces its markdown cells' text."""
    cells = read_source(text, name)
    ids = cell_ids(cells, name)
    nb = nbformat.v4.new_notebook()
    for cell, cell_id in zip(cells, ids):
        if cell.cell_type == "markdown":
            source = cell.source if prose is None else joined_lines(prose[cell_id])
            node = nbformat.v4.new_markdown_cell(source)
        else:
            node = nbformat.v4.new_code_cell(cell.source)
        node.id = prefix + cell_id
        # Only tags reach the notebook; jupytext's own layout hints stay out of it.
        if cell.metadata.get("tags"):
            node.metadata["tags"] = list(cell.metadata["tags"])
        nb.cells.append(node)
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO)}
    return nb


def read_prose(text: str, name: str, english: str, english_name: str = "the English source") -> dict:
    """A zh file's catalogue, id -> text, checked against its English source's markdown ids."""
    catalogue = {}
    for index, cell in enumerate(read_source(text, name)):
        if cell.cell_type != "markdown":
            raise BuildError(f"{name} cell {index}: a code cell; a zh file holds only markdown "
                             "cells (the code comes from the English source)")
        cell_id = markdown_id(cell, name, index)
        if cell_id in catalogue:
            raise BuildError(f"{name} cell {index}: id {cell_id!r} used twice")
        if cell.metadata.get("tags"):
            raise BuildError(f"{name} cell {index} ({cell_id}): tags; a cell's tags come from "
                             "the English source")
        catalogue[cell_id] = cell.source
    cells = read_source(english, english_name)
    wanted = [i for cell, i in zip(cells, cell_ids(cells, english_name)) if cell.cell_type == "markdown"]
    missing = [cell_id for cell_id in wanted if cell_id not in catalogue]
    extra = [cell_id for cell_id in catalogue if cell_id not in wanted]
    if missing or extra:
        raise BuildError(f"{name}: its ids are not the markdown ids of {english_name}: " + "; ".join(
            [f"missing {', '.join(missing)}"] * bool(missing) + [f"extra {', '.join(extra)}"] * bool(extra)))
    return catalogue


# Chinese, its punctuation and its quotes: a line break with one of these on both sides
# is no word break.
CJK = re.compile(r"[\u2014\u2018\u2019\u201c\u201d\u2026\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
BLOCK_START = re.compile(r"\s*([-*+>|#]|\d+[.)]\s|```)")


def joined_lines(text: str) -> str:
    """A zh cell's text with its lines joined where Chinese meets Chinese.

    Markdown turns a line break into a space, and a browser draws that space between
    two Chinese characters (Chromium does), so a wrapped Chinese sentence would show a
    gap at every wrap. The sources stay wrapped for review; the notebook gets the
    joined text. Never joined: a line that opens a block (a list item, a heading, a
    table row, a quote, a fence) and an indented code line (four spaces or more)."""
    out, fenced = [], False
    for line in text.split("\n"):
        opens_block = bool(BLOCK_START.match(line)) or line.startswith("    ")
        if (out and not fenced and not opens_block and line.strip()
                and not out[-1].startswith("    ") and CJK.match(line.lstrip())
                and out[-1] and CJK.match(out[-1][-1])):
            out[-1] += line.lstrip()
        else:
            out.append(line)
        if line.lstrip().startswith("```"):
            fenced = not fenced
    return "\n".join(out)


# -- execution -------------------------------------------------------------------

class ThisPython(KernelSpecManager):
    """`python3` is this interpreter, not whatever a user-wide kernelspec points at."""

    def get_kernel_spec(self, kernel_name):
        if kernel_name == KERNELSPEC["name"]:
            return self.kernel_spec_class(resource_dir=RESOURCES, **get_kernel_dict())
        return super().get_kernel_spec(kernel_name)


def execute(nb: nbformat.NotebookNode, name: str,
            folder: Path = NOTEBOOKS) -> nbformat.NotebookNode:
    kernel = KernelManager(kernel_name=KERNELSPEC["name"], kernel_spec_manager=ThisPython())
    client = NotebookClient(
        nb, km=kernel, timeout=CELL_TIMEOUT, kernel_name=KERNELSPEC["name"],
        resources={"metadata": {"path": str(folder)}},
        record_timing=False, store_widget_state=False, allow_errors=True)
    # The kernel's own stderr (a notice about its TCP transport) is not a
    # cell output; nbval discards it the same way. Cell stderr is checked below.
    # The working folder, not an inherited COMPACT_LANG, says which edition this is.
    env = {key: value for key, value in os.environ.items() if key != LANG_ENV}
    client.execute(stderr=subprocess.DEVNULL, env=env)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            _check_outputs(cell, name, index)
            cell.outputs = merge_streams([_stable_output(output) for output in cell.outputs])
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO)}
    return nb


def _check_outputs(cell, name: str, index: int) -> None:
    for output in cell.outputs:
        if output.output_type == "error":
            raise BuildError(f"{name} cell {index}: {output.ename}: {output.evalue}\n"
                             f"{cell.source}")
        if output.output_type == "stream" and output.name == "stderr":
            raise BuildError(f"{name} cell {index} wrote to stderr (a warning?):\n"
                             f"{output.text}\n--- cell ---\n{cell.source}")


def merge_streams(outputs: list) -> list:
    """Join each stream output to the one before it when both are stdout (or both stderr)."""
    merged = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (output.output_type == "stream" and previous is not None
                and previous.output_type == "stream" and previous.name == output.name):
            merged[-1] = nbformat.v4.new_output(
                "stream", name=output.name, text=previous.text + output.text)
        else:
            merged.append(output)
    return merged


def _stable_output(output):
    data = output.get("data", {})
    if WIDGET_VIEW in data:
        return nbformat.v4.new_output("display_data", data={"text/plain": WIDGET_NOTE})
    return output


def render(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb, version=4) + "\n"


# -- command line -----------------------------------------------------------------

class Notebook:
    """One notebook of one edition: its source(s), its .ipynb, and the folder it runs in."""

    def __init__(self, source: Path, zh: bool = False):
        self.source, self.zh, self.name = source, zh, source.stem
        part = Path(LABS if source.parent.name == LABS else ".")   # a lab, or the core path
        self.prose = ZH_SOURCES / part / source.name if zh else None
        self.folder = (ZH_NOTEBOOKS if zh else NOTEBOOKS) / part
        self.target = self.folder / f"{source.stem}.ipynb"
        # Its name in the series (`03_micro_compact`, `labs/01_seed_vs_default`) and number
        # as the exercises' catalogue keys it (`03`, `labs/01`).
        self.label = (part / source.stem).as_posix()
        self.key = self.label.split("_", 1)[0]

    def notebook(self) -> nbformat.NotebookNode:
        text = self.source.read_text(encoding="utf-8")
        if not self.zh:
            return to_notebook(text, self.name)
        if not self.prose.exists():
            raise BuildError(f"{self.prose.relative_to(ROOT)} is missing: the Chinese edition "
                             f"needs the prose of {self.source.relative_to(ROOT)}")
        label = self.prose.relative_to(SOURCES).as_posix()
        prose = read_prose(self.prose.read_text(encoding="utf-8"), label, text,
                           self.source.relative_to(SOURCES).as_posix())
        return to_notebook(text, self.name, prose, prefix=f"{ZH}-")


def sources() -> list[Path]:
    """The English sources in the series' order: the core path, then the labs."""
    return sorted(SOURCES.glob("[0-9][0-9]_*.py")) + sorted((SOURCES / LABS).glob("[0-9][0-9]_*.py"))


def select(names: list[str]) -> list[Notebook]:
    """`03` is the English 03, `zh/03` the Chinese one, `labs/01` a lab (`zh/labs/01`),
    `labs` every lab, `en` and `zh` an edition; none: both editions."""
    every = sources()
    if not names:
        return [Notebook(s) for s in every] + [Notebook(s, zh=True) for s in every]
    chosen = []
    for wanted in names:
        parts = wanted.strip().removesuffix(".py").removesuffix(".ipynb").split("/")
        while parts and parts[0] in ("notebooks", "src", ""):
            parts.pop(0)
        edition = parts.pop(0) if parts and parts[0] in (ZH, "en") else "en"
        whole_edition = not parts
        part = parts.pop(0) if parts and parts[0] == LABS else ""
        prefix = "/".join(parts)
        if "/" in prefix:
            raise BuildError(f"{wanted!r}: name a notebook as 03, zh/03, labs/01 or zh/labs/01")
        folder = SOURCES / part
        hits = [s for s in every if whole_edition or (s.parent == folder and s.stem.startswith(prefix))]
        if not hits:
            raise BuildError(f"no source in {folder.relative_to(ROOT)} starts with {prefix!r}")
        for hit in hits:
            if not any(n.source == hit and n.zh == (edition == ZH) for n in chosen):
                chosen.append(Notebook(hit, zh=edition == ZH))
    return chosen


def same_cells(item, target: Path | None = None) -> list[str]:
    """Differences between a source's cells and the saved notebook's (no kernel needed).

    `item` is a Notebook, or the path of an English source (its notebook: `target`)."""
    if not isinstance(item, Notebook):
        item = Notebook(Path(item))
    target = target or item.target
    if not target.exists():
        return [f"{target.relative_to(ROOT)} is missing: build it"]
    want = item.notebook().cells
    have = nbformat.read(target, as_version=4).cells
    if len(want) != len(have):
        return [f"{len(want)} cells in the source, {len(have)} in the notebook"]
    problems = []
    for index, (w, h) in enumerate(zip(want, have)):
        for key in ("cell_type", "id", "source"):
            if w[key] != h[key]:
                problems.append(f"cell {index}: {key} differs")
        if w.metadata.get("tags", []) != h.metadata.get("tags", []):
            problems.append(f"cell {index}: tags differ")
        if h.cell_type == "code" and h.execution_count is None:
            problems.append(f"cell {index}: not executed")
    return problems


def build(item: Notebook) -> str:
    nb = item.notebook()
    nbformat.validate(nb)
    item.folder.mkdir(parents=True, exist_ok=True)  # the kernel starts there
    return render(execute(nb, item.name, item.folder))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*",
                        help="notebooks to build (a name's prefix; labs/PREFIX: a lab; zh/...: Chinese)")
    parser.add_argument("--check", action="store_true",
                        help="build in memory and report differences from the saved .ipynb")
    parser.add_argument("--check-sources", action="store_true",
                        help="without running anything: does each .ipynb hold its source's cells?")
    args = parser.parse_args(argv)
    try:
        status = 0
        for item in select(args.names):
            target = item.target
            if args.check_sources:
                problems = same_cells(item)
                status |= bool(problems)
                print(f"{'same' if not problems else 'STALE'}  {target.relative_to(ROOT)}"
                      + "".join(f"\n    {p}" for p in problems))
                continue
            text = build(item)
            old = target.read_text(encoding="utf-8") if target.exists() else ""
            if args.check:
                if text != old:
                    status = 1
                    diff = difflib.unified_diff(old.splitlines(), text.splitlines(),
                                                str(target), "rebuilt", lineterm="", n=1)
                    print("\n".join(list(diff)[:40]))
                print(f"{'same' if text == old else 'DIFFERS'}  {target.relative_to(ROOT)}")
            else:
                target.write_text(text, encoding="utf-8")
                print(f"built  {target.relative_to(ROOT)}")
        return status
    except BuildError as error:
        print(f"build_notebooks: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
