#!/usr/bin/env bash
# The hub's public proxy (configurable-http-proxy on port 8000) as a process of its own, as
# root, before the hub: jupyterhub-proxy.service runs it, or without systemd
#   setsid deploy/hub/start-hub-proxy.sh &
# The hub (jupyterhub_config.py: should_start = False) only tells it its routes, so a restart
# of the hub leaves port 8000 open and every student's page answering (tests/deploy/test_hub.py).
# The token the hub and the proxy share is made once, in the state folder (root's, 600).
# The proxy talks TLS to the hub and to every student's server with the flags JupyterHub
# passes the proxy it starts itself (jupyterhub/proxy.py, `_get_ssl_options`): its API asks
# the hub for a certificate of the hub's CA, and it forwards only to a server whose
# certificate the CA signed for the address it connects to (hub-certs.sh makes them first).
# Stop it with `kill $(cat /srv/jupyterhub/jupyterhub-proxy.pid)`; the log is jupyterhub-proxy.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
state=${COURSE_HUB_STATE:-/srv/jupyterhub}
umask 077
cd "$state"
exec >> "$state/jupyterhub-proxy.log" 2>&1
# Made whole under another name, then linked: the hub (jupyterhub_config.py) makes it so too
# when it starts first, and whichever links first wins, so both read the same token.
if [ ! -s proxy-token ]; then
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "proxy-token.$$"
  ln "proxy-token.$$" proxy-token 2>/dev/null || true
  rm -f "proxy-token.$$"
fi
CONFIGPROXY_AUTH_TOKEN=$(cat proxy-token)
export CONFIGPROXY_AUTH_TOKEN
ssl=$state/proxy-ssl
bash "$here/hub-certs.sh" "$ssl"
hub_api=https://127.0.0.1:${COURSE_HUB_API_PORT:-8081}
echo $$ > jupyterhub-proxy.pid
exec "$(command -v configurable-http-proxy)" --ip 127.0.0.1 --port "${COURSE_HUB_PORT:-8000}" \
  --api-ip 127.0.0.1 --api-port "${COURSE_PROXY_API_PORT:-8001}" \
  --default-target "$hub_api" --error-target "$hub_api/hub/error" \
  --api-ssl-key "$ssl/proxy-api.key" --api-ssl-cert "$ssl/proxy-api.crt" \
  --api-ssl-ca "$ssl/proxy-api-ca_trust.crt" --api-ssl-request-cert --api-ssl-reject-unauthorized \
  --client-ssl-key "$ssl/proxy-client.key" --client-ssl-cert "$ssl/proxy-client.crt" \
  --client-ssl-ca "$ssl/proxy-client-ca_trust.crt" --client-ssl-request-cert --client-ssl-reject-unauthorized
