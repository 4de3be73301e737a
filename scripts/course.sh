#!/usr/bin/env bash
# Run the course: JupyterLab on the notebooks, offline model by default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/jupyter lab --notebook-dir=notebooks "$@"
