"""Where the agent may work: never where the course lives.

The agent's tools write in its workspace, and its bash runs there. The course's
package, its venv and its settings file run or configure the next start of the
agent, outside the sandbox and with the key: a workspace that holds any of
them, sits above them, or lies inside the package or the venv, is refused
(`check_workspace` raises `UnsafeWorkspace`, a ValueError that says why and
what to use instead). Inside the checkout, only `data/` and `scratch/` may
hold a workspace: the rest (notebooks, scripts, tests) is code a person runs.

With no `--workspace`, the command line works on a fresh copy of the sample
workspace (`data/workspace`) in a temporary folder, removed at exit
(`default_workspace`).

Left out: other folders that configure a person's tools (a shell's rc files,
`~/.config`): keep the workspace out of your home's top level.
"""

import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import context_compact

from . import model

# Both packages run the agent: the pipeline (context_compact/) and the course around it (compact_course/).
PACKAGES = (Path(context_compact.__file__).resolve().parent, Path(__file__).resolve().parents[1])
CHECKOUT = PACKAGES[1].parent
SAMPLE = CHECKOUT / "data" / "workspace"
# Inside the checkout, the folders a workspace may be in: the sample data and the ignored scratch.
ALLOWED_IN_CHECKOUT = ("data", "scratch")
ADVICE = ("use --workspace data/workspace (the sample, from the checkout's root) or a copy of it "
          "(cp -r data/workspace /tmp/workspace)")


class UnsafeWorkspace(ValueError):
    """A workspace where the agent could rewrite the course or its settings."""


def course_places(settings_files=()) -> list:
    """(path, what it is) for everything the agent must not be able to write."""
    places = [(package, "the course's package") for package in PACKAGES]
    places += [(path, "the course's settings") for path in model.settings_files()]
    places += [(model.env_file_path(path), "the course's settings") for path in settings_files]
    if sys.prefix != sys.base_prefix:
        places.append((Path(sys.prefix), "the course's venv"))
    if (CHECKOUT / ".venv").exists():
        places.append((CHECKOUT / ".venv", "the course's venv"))
    return [(_resolved(path), what) for path, what in places]


def _resolved(path: Path) -> Path:
    return Path(path).expanduser().resolve()


def is_checkout(folder: Path) -> bool:
    return (folder / "pyproject.toml").is_file() and (folder / "context_compact").resolve() == PACKAGES[0]


def check_workspace(workspace, settings_files=()) -> Path:
    """The workspace, resolved; `UnsafeWorkspace` where the course lives (`settings_files`:
    a settings file named on the command line, besides the course's own)."""
    folder = _resolved(workspace)
    for place, what in course_places(settings_files):
        if folder == place or folder in place.parents:
            raise UnsafeWorkspace(f"workspace {folder} holds {what} ({place}): the agent could "
                                  f"rewrite what runs or configures it next time; {ADVICE}")
        if place.is_dir() and place in folder.parents:
            raise UnsafeWorkspace(f"workspace {folder} is inside {what} ({place}); {ADVICE}")
    if is_checkout(CHECKOUT) and CHECKOUT in folder.parents:
        top = folder.relative_to(CHECKOUT).parts[0]
        if top not in ALLOWED_IN_CHECKOUT:
            raise UnsafeWorkspace(f"workspace {folder} is inside the course's checkout "
                                  f"({CHECKOUT}/{top}): only data/ and scratch/ may hold one; "
                                  f"{ADVICE}")
    return folder


def fresh_workspace(folder) -> Path:
    """A copy of the sample workspace (data/workspace) at folder/workspace, without the
    transcripts and saved results an earlier run left there."""
    copy = Path(folder) / "workspace"
    shutil.copytree(SAMPLE, copy, symlinks=True,
                    ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
    return copy


@contextmanager
def default_workspace(echo=print):
    """A fresh copy of the sample workspace in a temporary folder, removed at exit."""
    if not SAMPLE.is_dir():
        raise UnsafeWorkspace(f"no sample workspace at {SAMPLE}: name one with --workspace DIR")
    with tempfile.TemporaryDirectory(prefix="compact-workspace-") as scratch:
        copy = fresh_workspace(scratch)
        if echo:
            echo(f"Workspace: a fresh copy of data/workspace at {copy} (removed at exit; "
                 f"--workspace DIR keeps your work)")
        yield copy
