#!/usr/bin/env bash
# Run the course: JupyterLab on the notebooks, on this machine only (127.0.0.1), opened
# on notebook 00. The live notebook uses the offline model unless .env holds a key and a model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-root)   # containers and classroom VMs often run as root
# scripts/jupyterlab/overrides.json: no "Would you like to get notified about official Jupyter
# news?" pop-up over the first notebook, and no news or update check; a learner's own
# settings still win.
exec .venv/bin/jupyter lab --ip=127.0.0.1 --notebook-dir=notebooks \
  --LabApp.app_settings_dir="$PWD/scripts/jupyterlab" \
  --LabApp.default_url=/lab/tree/00_why_compaction.ipynb \
  "${extra[@]}" "$@"
