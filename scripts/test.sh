#!/usr/bin/env bash
# Run every test: the package, the offline model, the notebooks (nbval, full
# output comparison) and the browser test (headless Debian chromium). The bash
# tool's sandbox tests need bubblewrap; without it they are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test   # the course and the tests: requirements-test.txt
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v bwrap >/dev/null || missing+=(bubblewrap)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing: ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
  fi
fi
# Tests never use a key from .env: the live notebook runs against the offline model.
export COMPACT_OFFLINE=1
# Lint first: pyproject.toml's [tool.ruff] holds the project's rules and line length.
.venv/bin/ruff check --quiet .
status=0
.venv/bin/python -m pytest "$@" || status=$?
# nbval stops each notebook kernel with SIGKILL; remove the last one's replay scratch folder.
.venv/bin/python -c "from compact.course.replay import remove_stale_scratch; remove_stale_scratch()"
exit $status
