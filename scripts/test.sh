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
# The hub test (tests/test_hub.py, root only) needs Node for its proxy and Debian's python3-venv
# for the students' venv.
if [ "$(id -u)" = 0 ]; then
  command -v configurable-http-proxy >/dev/null || command -v npm >/dev/null || missing+=(nodejs npm)
  /usr/bin/python3 -c "import ensurepip" 2>/dev/null || missing+=(python3-venv)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing: ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
  fi
fi
# configurable-http-proxy 5.1.0: the last release that runs on Debian 12's Node 18.
if [ "$(id -u)" = 0 ] && ! command -v configurable-http-proxy >/dev/null; then
  npm install --global --silent configurable-http-proxy@5.1.0
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
