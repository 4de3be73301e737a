#!/usr/bin/env bash
# The class proxy without systemd, as root:   setsid deploy/proxy/start-proxy.sh &
# The same as course-proxy.service: the teacher's key read from /etc/course-proxy/env (600)
# here, as root, then LiteLLM behind serve.py's guard run as the user course-proxy, its log
# in its state folder, inside an address-space limit of COURSE_PROXY_MEMORY (default 4G):
# without systemd there is no MemoryMax, and RLIMIT_AS is what any machine offers (the
# proxy maps about 2.4 GB of address space for its ~450 MB of RSS, so the figure is higher
# than the unit's MemoryMax; a body is bounded by serve.py well before either).
# Variables: COURSE_PROXY_ENV, COURSE_PROXY_STATE, COURSE_PROXY_VENV, COURSE_PROXY_PORT,
# COURSE_PROXY_USER, COURSE_PROXY_MEMORY (tests/deploy/test_hub.py sets them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
env_file=${COURSE_PROXY_ENV:-/etc/course-proxy/env}
state=${COURSE_PROXY_STATE:-/var/lib/course-proxy}
venv=${COURSE_PROXY_VENV:-/opt/course-proxy}
user=${COURSE_PROXY_USER:-course-proxy}
umask 077
set -a
# shellcheck disable=SC1090
. "$env_file"
set +a
export CLASS_KEYS_FILE="$state/keys.json" CLASS_SPEND_FILE="$state/spend.json" LITELLM_LOCAL_MODEL_COST_MAP=True HOME="$state"
cd "$state"
exec prlimit --as="$(numfmt --from=iec "${COURSE_PROXY_MEMORY:-4G}")" --nofile=4096 -- \
  setpriv --reuid="$user" --regid="$user" --init-groups --no-new-privs --inh-caps=-all \
  "$venv/bin/python" "$here/serve.py" --config "$here/litellm.yaml" --host 127.0.0.1 --port "${COURSE_PROXY_PORT:-4000}" \
  >> "$state/litellm.log" 2>&1
