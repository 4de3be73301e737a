"""Build the course notebooks from their plain-text sources, outputs included.

    .venv/bin/python scripts/build_notebooks.py                # every notebooks/src/*.py
    .venv/bin/python scripts/build_notebooks.py 00 03_micro    # those whose name starts so
    .venv/bin/python scripts/build_notebooks.py --check        # build in memory, diff, no write
    .venv/bin/python scripts/build_notebooks.py --check-sources   # no kernel: cells == sources?

A source is a Python script in jupytext's percent format: a line starting
`# %%` opens a code cell, `# %% [markdown]` a markdown cell (each line written
as a `# ` comment), and either may carry tags: `# %% tags=["nbval-ignore-output"]`.
A magic is written commented, `# %matplotlib inline`, so the source stays plain
Python (ruff lints it) and jupytext turns it back into the magic. jupytext reads
the sources here, and JupyterLab's jupytext extension opens and saves them as
notebooks (notebooks/jupytext.toml keeps them headerless, with tags only).

Each notebook is executed top to bottom by nbclient (kernel python3, working
folder notebooks/, a timeout per cell) and saved WITH its outputs, because
nbval compares every later run against them. So the saved file must be the
same bytes on every build and every machine:
- cell ids come from the notebook's name and the cell's position, not uuids;
- no execution timestamps, and `language_info` is pinned to "3.11", not the
  patch release of whoever built it;
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


def to_notebook(text: str, name: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    for index, cell in enumerate(read_source(text, name)):
        if cell.cell_type == "markdown":
            node = nbformat.v4.new_markdown_cell(cell.source)
        else:
            node = nbformat.v4.new_code_cell(cell.source)
        # Ids from the name and position, not jupytext's random ones: same bytes on every build.
        node.id = f"{name[:50]}-{index:02d}"
        # Only tags reach the notebook; jupytext's own layout hints stay out of it.
        if cell.metadata.get("tags"):
            node.metadata["tags"] = list(cell.metadata["tags"])
        nb.cells.append(node)
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO)}
    return nb


# -- execution -------------------------------------------------------------------

class ThisPython(KernelSpecManager):
    """`python3` is this interpreter, not whatever a user-wide kernelspec points at."""

    def get_kernel_spec(self, kernel_name):
        if kernel_name == KERNELSPEC["name"]:
            return self.kernel_spec_class(resource_dir=RESOURCES, **get_kernel_dict())
        return super().get_kernel_spec(kernel_name)


def execute(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    kernel = KernelManager(kernel_name=KERNELSPEC["name"], kernel_spec_manager=ThisPython())
    client = NotebookClient(
        nb, km=kernel, timeout=CELL_TIMEOUT, kernel_name=KERNELSPEC["name"],
        resources={"metadata": {"path": str(NOTEBOOKS)}},
        record_timing=False, store_widget_state=False, allow_errors=True)
    # The kernel's own stderr (a notice about its TCP transport) is not a
    # cell output; nbval discards it the same way. Cell stderr is checked below.
    client.execute(stderr=subprocess.DEVNULL)
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

def select(names: list[str]) -> list[Path]:
    sources = sorted(SOURCES.glob("[0-9][0-9]_*.py"))
    if not names:
        return sources
    chosen = []
    for wanted in names:
        wanted = Path(wanted).stem
        hits = [s for s in sources if s.stem.startswith(wanted)]
        if not hits:
            raise BuildError(f"no source in {SOURCES.relative_to(ROOT)} starts with {wanted!r}")
        chosen += [h for h in hits if h not in chosen]
    return chosen


def same_cells(source: Path, target: Path) -> list[str]:
    """Differences between a source's cells and the saved notebook's (no kernel needed)."""
    if not target.exists():
        return [f"{target.relative_to(ROOT)} is missing: build it"]
    want = to_notebook(source.read_text(encoding="utf-8"), source.stem).cells
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


def build(source: Path) -> str:
    nb = to_notebook(source.read_text(encoding="utf-8"), source.stem)
    nbformat.validate(nb)
    return render(execute(nb, source.stem))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="notebooks to build (prefix of the name)")
    parser.add_argument("--check", action="store_true",
                        help="build in memory and report differences from the saved .ipynb")
    parser.add_argument("--check-sources", action="store_true",
                        help="without running anything: does each .ipynb hold its source's cells?")
    args = parser.parse_args(argv)
    try:
        sources = select(args.names)
        status = 0
        for source in sources:
            target = NOTEBOOKS / f"{source.stem}.ipynb"
            if args.check_sources:
                problems = same_cells(source, target)
                status |= bool(problems)
                print(f"{'same' if not problems else 'STALE'}  {target.relative_to(ROOT)}"
                      + "".join(f"\n    {p}" for p in problems))
                continue
            text = build(source)
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
