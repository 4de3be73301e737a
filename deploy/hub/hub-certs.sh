#!/usr/bin/env bash
# The hub's internal TLS (jupyterhub_config.py: internal_ssl): its CA and the certificates of
# the hub and of port 8000's proxy, made once by JupyterHub itself (`jupyterhub --generate-certs`)
# in the state folder's internal-ssl/ and kept, as root. start-hub-proxy.sh runs it before the
# proxy starts, start-hub.sh and jupyterhub.service (ExecStartPre) before the hub: under one
# lock, since two at once would make two CAs.
#   bash deploy/hub/hub-certs.sh [FOLDER]
# With FOLDER (start-hub-proxy.sh's proxy-ssl), the files configurable-http-proxy reads are
# copied there, each whole, under the same lock: the hub writes its trust bundles again at
# every start, and the proxy must never read one half written.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
course=${COURSE_DIR:-$(dirname "$(dirname "$here")")}
state=${COURSE_HUB_STATE:-/srv/jupyterhub}
umask 077
cd "$state"
exec 9> "$state/internal-ssl.lock"
flock 9
"$course/.venv/bin/jupyterhub" --generate-certs -f "$here/jupyterhub_config.py"
if [ -n "${1:-}" ]; then
  mkdir -p "$1"
  made=internal-ssl
  for file in "$made/proxy-api/proxy-api.key" "$made/proxy-api/proxy-api.crt" "$made/proxy-api-ca_trust.crt" \
              "$made/proxy-client/proxy-client.key" "$made/proxy-client/proxy-client.crt" \
              "$made/proxy-client-ca_trust.crt"; do
    cp "$file" "$1/.new" && mv "$1/.new" "$1/$(basename "$file")"
  done
fi
