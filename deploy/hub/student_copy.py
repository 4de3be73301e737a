"""A student's copy of the course, made by the student: run as them by the hub's hook (home.py).

`python -I student_copy.py COURSE HOME` closes HOME to 700, then copies COURSE/notebooks
and COURSE/docs into it, once: a `notebooks` or `docs` already in HOME is the student's
work and is left as it is. docs/ comes along because the notebooks link to it
(notebooks/docs -> ../docs, and `../docs/NAME.md` in their text); the teacher's notes
(TEACHING.md, the solutions) and any `.env` never do. Each folder is copied into a new
hidden folder first and renamed into place in one step, so a half copy is never taken for
the student's work.

This runs with the student's uid, gids and nothing else of the hub's (its environment is
PATH and LANG): whatever links the student plants in their home, it can only do what the
student could do themselves. Left out: refreshing a copy the student already has (they
delete theirs to get a new one), and anything outside HOME.
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

COPIED = ("docs", "notebooks")   # notebooks last: its arrival says the copy is complete
NEVER = shutil.ignore_patterns("TEACHING.md", ".env", ".env.*", ".ipynb_checkpoints", "__pycache__")


def copy_once(source: Path, home: Path) -> bool:
    """Copy `source` to HOME/<its name> unless something of that name is there; True if copied."""
    target = home / source.name
    if os.path.lexists(target):
        return False
    staging = Path(tempfile.mkdtemp(prefix=f".{source.name}-", dir=home))
    try:
        shutil.copytree(source, staging / source.name, symlinks=True, ignore=NEVER)
        os.rename(staging / source.name, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return True


def main(course: str, home: str) -> int:
    os.umask(0o077)
    home_path = Path(home)
    # useradd's HOME_MODE may have left it open: the student closes their own home.
    os.chmod(home_path, 0o700)
    copied = [name for name in COPIED if copy_once(Path(course) / name, home_path)]
    print(f"copied: {', '.join(copied) or 'nothing (the student has their copy)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
