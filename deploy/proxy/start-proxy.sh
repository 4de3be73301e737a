#!/usr/bin/env bash
# The class proxy without systemd, as root:   setsid deploy/proxy/start-proxy.sh &
# The same as course-proxy.service: the teacher's key read from /etc/course-proxy/env (600)
# here, as root, then LiteLLM run as the user course-proxy, its log in its state folder.
# Variables: COURSE_PROXY_ENV, COURSE_PROXY_STATE, COURSE_PROXY_VENV, COURSE_PROXY_PORT,
# COURSE_PROXY_USER (tests/test_hub.py sets them).
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
exec setpriv --reuid="$user" --regid="$user" --init-groups --no-new-privs --inh-caps=-all \
  "$venv/bin/litellm" --config "$here/litellm.yaml" --host 127.0.0.1 --port "${COURSE_PROXY_PORT:-4000}" \
  >> "$state/litellm.log" 2>&1
