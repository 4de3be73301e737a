#!/usr/bin/env bash
# Run every test: the package, the offline model, the notebooks (nbval, full
# output comparison) and the browser test (headless Debian chromium). The bash
# tool's sandbox tests need bubblewrap; without it they are skipped.
#   bash scripts/test.sh               everything (what .ci/run runs)
#   bash scripts/test.sh quick         the contributors' quick loop: tests/pipeline and
#                                      tests/lessons but the tests marked slow (pytest.ini)
#   bash scripts/test.sh ROOM          one room of tests/ alone (offline, agent, bench, ...)
#   bash scripts/test.sh ARGS...       pytest ARGS (a file, -k NAME, -m slow, ...)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
if [ "${1:-}" = quick ]; then
  quick=1
  shift
elif [ -n "${1:-}" ] && [ -f "tests/$1/__init__.py" ]; then
  room=$1
  shift
  set -- "tests/$room" "$@"
fi
bash scripts/setup.sh test   # the course and the tests: requirements-test.txt
# What runs is said before it runs, and while it prints nothing, scripts/heartbeat.py says
# every 7 s how long it has run and what it is on (pytest tells it through -p scripts.heartbeat:
# the file it collects, the test it runs).
beat() { .venv/bin/python scripts/heartbeat.py "$@"; }
# What the slow tests need (the browser, the sandbox, the hub as root); the quick loop needs none.
if [ $quick = 0 ]; then
  missing=()
  command -v chromium >/dev/null || missing+=(chromium)
  command -v bwrap >/dev/null || missing+=(bubblewrap)
  # The hub test (tests/deploy/test_hub.py, root only) needs Node for its proxy and Debian's python3-venv
  # for the students' venv and LiteLLM's. With NodeSource's nodejs (npm included), apt's npm
  # conflicts: Node is installed only when there is no npm at all.
  if [ "$(id -u)" = 0 ]; then
    command -v configurable-http-proxy >/dev/null || command -v npm >/dev/null || missing+=(nodejs npm)
    /usr/bin/python3 -c "import ensurepip" 2>/dev/null || missing+=(python3-venv)
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
      echo "test.sh: installing ${missing[*]} with apt-get"
      beat "test.sh: installing ${missing[*]}" -- sh -c 'apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null' apt "${missing[@]}"
    else
      echo "missing: ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
    fi
  fi
  # configurable-http-proxy 5.1.0: the last release that runs on Debian 12's Node 18.
  if [ "$(id -u)" = 0 ] && ! command -v configurable-http-proxy >/dev/null; then
    echo "test.sh: installing configurable-http-proxy with npm"
    beat "test.sh: installing configurable-http-proxy" -- npm install --global --silent configurable-http-proxy@5.1.0
  fi
  # The hub test's class proxy: LiteLLM in a venv of its own (docs/CLASS.md, "Live runs for a class"),
  # every package pinned by deploy/proxy/requirements.txt; installed again when that changes.
  if [ "$(id -u)" = 0 ]; then
    proxy=/opt/course-proxy
    want=$(sha256sum deploy/proxy/requirements.txt | cut -d' ' -f1)
    if [ "$(cat "$proxy/.requirements.sha" 2>/dev/null)" != "$want" ]; then
      echo "test.sh: installing the class proxy (LiteLLM) into $proxy"
      [ -x "$proxy/bin/python" ] || beat "test.sh: making $proxy" -- /usr/bin/python3 -m venv "$proxy"
      pins=$(grep -cE '^[A-Za-z0-9_.-]+==' deploy/proxy/requirements.txt)
      site=$("$proxy/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
      log=$(mktemp)
      if ! beat --pip "$pins" --log "$log" --site "$site" "test.sh: installing the class proxy" -- \
          "$proxy/bin/pip" install --disable-pip-version-check --progress-bar off -r deploy/proxy/requirements.txt; then
        cat "$log" >&2
        rm -f "$log"
        exit 1
      fi
      rm -f "$log"
      echo "$want" > "$proxy/.requirements.sha"
    fi
  fi
fi
# Tests never use a key from .env: the live notebook runs against the offline model.
export COMPACT_OFFLINE=1
# Lint first: pyproject.toml's [tool.ruff] holds the project's rules and line length.
echo "test.sh: lint (ruff check)"
beat "test.sh: lint" -- .venv/bin/ruff check --quiet .
status=0
if [ $quick = 1 ]; then
  # -n auto (pytest-xdist): one worker a core, each collecting the tests itself; the quick
  # loop's tests share no port, folder or file, so they run in any order and side by side.
  echo "test.sh: pytest -n auto -m 'not slow' tests/pipeline tests/lessons: each worker collects the tests, then a dot a test"
  beat "test.sh: pytest" -- .venv/bin/python -m pytest -p scripts.heartbeat -q -n auto -m "not slow" \
    tests/pipeline tests/lessons "$@" || status=$?
else
  echo "test.sh: pytest $*: it collects the tests first, then prints a line a file"
  beat "test.sh: pytest" -- .venv/bin/python -m pytest -p scripts.heartbeat "$@" || status=$?
fi
# nbval stops each notebook kernel with SIGKILL; remove the last one's replay scratch folder.
.venv/bin/python -c "from compact_course.lessons.replay import remove_stale_scratch; remove_stale_scratch()"
exit $status
