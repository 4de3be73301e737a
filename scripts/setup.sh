#!/usr/bin/env bash
# Make .venv (Python 3.11) with the pinned requirements; reinstall only when
# requirements.txt changes. Sourced by course.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null || PY=python3
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.requirements.sha
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
  echo "$want" > "$stamp"
fi
# Make `import compact` work from the notebooks folder and anywhere else.
site=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
echo "$PWD" > "$site/compact-course.pth"
# Build matplotlib's font cache now, so no notebook kernel reports it on stderr.
.venv/bin/python -c "import matplotlib.font_manager" >/dev/null 2>&1
