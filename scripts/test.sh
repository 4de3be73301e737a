#!/usr/bin/env bash
# Run every test: the package, the offline model, the notebooks (nbval, full
# output comparison) and the browser test (headless Debian chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test   # the course and the tests: requirements-test.txt
if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: sudo apt-get install chromium" >&2
  fi
fi
# Tests never use a key from .env: the live notebook runs against the offline model.
export COMPACT_OFFLINE=1
# Lint first: pyproject.toml's [tool.ruff] holds the project's rules and line length.
.venv/bin/ruff check --quiet .
exec .venv/bin/python -m pytest "$@"
