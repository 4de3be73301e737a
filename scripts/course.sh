#!/usr/bin/env bash
# Run the course: JupyterLab on the notebooks, on this machine only (127.0.0.1), opened
# on notebook 00. The live notebook uses the offline model unless .env holds a key and a model.
#   bash scripts/course.sh        the English edition (notebooks/)
#   bash scripts/course.sh zh     the Chinese edition (notebooks/zh/; 中文版)
# Further arguments go to jupyter lab.
set -euo pipefail
cd "$(dirname "$0")/.."
folder=notebooks
if [ "${1:-}" = zh ]; then
  folder=notebooks/zh   # its kernels start there, so the helpers speak Chinese (compact_course/display/lang.py)
  shift
fi
bash scripts/setup.sh
extra=()
hidden="['__pycache__', '*.pyc', '*.pyo', '.DS_Store', '*~', 'src', 'conftest.py', 'jupytext.toml', 'sanitize.cfg']"
[ "$(id -u)" = 0 ] && extra+=(--allow-root)   # containers and classroom VMs often run as root
# scripts/jupyterlab/overrides.json: no "Would you like to get notified about official Jupyter
# news?" pop-up over the first notebook, no news or update check, and no autosave (opening or
# running a lesson never rewrites the tracked notebook; Ctrl-S saves); a learner's own
# settings still win.
# The lessons' folder shows the lessons: their sources and build files are hidden (listing only).
# notebooks/docs is a link to docs/, so a lesson's ../docs/ links open inside JupyterLab.
# Kernels over IPC (Unix sockets in the 700 runtime folder): TCP ports that any local user can
# connect to, and that two servers can both pick, carry code and output in plain text.
# compact_course/lessons/lab_contents.py: a notebook is served with the language_info its kernel
# reports, so connecting the kernel changes nothing and no "unsaved" dot shows on open.
# JupyterLab takes some seconds to print its first line: scripts/heartbeat.py says it is
# starting until then, and then only copies its output.
echo "course.sh: starting JupyterLab on 127.0.0.1 for $folder/; it prints its address when ready" >&2
exec .venv/bin/python scripts/heartbeat.py --until-output "course.sh: starting JupyterLab" -- \
  .venv/bin/jupyter lab --ip=127.0.0.1 --notebook-dir="$folder" \
  --KernelManager.transport=ipc \
  --ServerApp.contents_manager_class=compact_course.lessons.lab_contents.CourseContentsManager \
  --LabApp.app_settings_dir="$PWD/scripts/jupyterlab" \
  --ContentsManager.hide_globs="$hidden" \
  --LabApp.default_url=/lab/tree/00_why_compaction.ipynb \
  "${extra[@]}" "$@"
