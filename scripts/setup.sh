#!/usr/bin/env bash
# Make .venv (Python 3.11) with the pinned requirements, this project included (pip
# installs it editable: requirements.txt says `-e .`). Run by course.sh and test.sh:
#   bash scripts/setup.sh          the course: requirements.txt
#   bash scripts/setup.sh test     the course and the tests: requirements-test.txt
# Installs again only when a requirements file or pyproject.toml changes, or when the
# tests' set is asked for and only the course's is there.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-course}" in
  course) wanted=course; lock=requirements.txt ;;
  test) wanted=test; lock=requirements-test.txt ;;
  *) echo "setup.sh: unknown set '$1' (course or test)" >&2; exit 2 ;;
esac
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null || PY=python3
# Every step that can take more than a few seconds runs under scripts/heartbeat.py: while it
# prints nothing, a line every 7 s says how long it has run and what it is on.
beat() { "$PY" scripts/heartbeat.py "$@" >&2; }
if [ ! -x .venv/bin/python ]; then
  echo "setup.sh: making .venv with $PY" >&2
  beat "setup.sh: making .venv" -- "$PY" -m venv .venv
fi
stamp=.venv/.requirements.sha
files=$(cat requirements.txt requirements-test.txt pyproject.toml | sha256sum | cut -d' ' -f1)
have=$(cat "$stamp" 2>/dev/null || true)
# The stamp says which set is installed and from which files: "test <sha>" covers the course too.
# A first install takes minutes: one progress line a package pip collects (on one line
# rewritten in place on a terminal), and while pip installs them, quietly, how many are in;
# pip's own output only when it fails.
if [ "$have" != "$wanted $files" ] && [ "$have" != "test $files" ]; then
  total=$(cat requirements.txt "$lock" | grep -E '^[A-Za-z0-9_.-]+==' | sort -u | wc -l)
  echo "setup.sh: installing about $total pinned packages ($lock) into .venv; the first time takes a few minutes" >&2
  log=$(mktemp)
  site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null || true)
  if ! beat --pip "$total" --log "$log" --site "$site" "setup.sh: installing" -- \
      .venv/bin/python -m pip install --disable-pip-version-check --progress-bar off -r "$lock"; then
    cat "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  echo "$wanted $files" > "$stamp"
fi
# The Chinese edition's charts need a CJK font: Debian's fonts-noto-cjk (Noto Sans CJK SC).
cjk=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
if [ ! -e "$cjk" ] && ! fc-list 2>/dev/null | grep -q "Noto Sans CJK SC"; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup.sh: installing fonts-noto-cjk with apt-get" >&2
    beat "setup.sh: installing fonts-noto-cjk" -- sh -c \
      'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null'
  else
    echo "fonts-noto-cjk is missing: the Chinese charts will show boxes (sudo apt-get install fonts-noto-cjk)" >&2
  fi
fi
# Build matplotlib's font cache now, so no notebook kernel reports it on stderr; build it
# again when it was made before the CJK font was installed (matplotlib never rescans).
beat --log /dev/null "setup.sh: building matplotlib's font cache" -- .venv/bin/python -c "
from pathlib import Path
import matplotlib
from matplotlib import font_manager as fm
if Path('$cjk').exists() and not any(
        f.name == 'Noto Sans CJK SC' for f in fm.fontManager.ttflist):
    fm.json_dump(fm.FontManager(), Path(matplotlib.get_cachedir(), f'fontlist-v{fm.FontManager.__version__}.json'))
"
