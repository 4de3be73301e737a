#!/usr/bin/env bash
# Run the course: JupyterLab on the notebooks, on this machine only (127.0.0.1).
# The live notebook uses the offline model unless .env holds a key and a model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-root)   # containers and classroom VMs often run as root
exec .venv/bin/jupyter lab --ip=127.0.0.1 --notebook-dir=notebooks "${extra[@]}" "$@"
