#!/usr/bin/env bash
# The hub without systemd (a container, a machine booted otherwise), as root, after
# port 8000's proxy (start-hub-proxy.sh, which a hub restart leaves running):
#   setsid deploy/hub/start-hub-proxy.sh & setsid deploy/hub/start-hub.sh &   left running when your SSH session ends
# It runs in the state folder (COURSE_HUB_STATE, default /srv/jupyterhub, 700: docs/CLASS.md), with
# the same settings as jupyterhub.service; the log of the hub and of every student's server
# goes to jupyterhub.log there.
# Stop it with `kill $(cat /srv/jupyterhub/jupyterhub.pid)`: the students' servers and
# kernels go on running (cleanup_servers = False) and the next start finds them again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
course=${COURSE_DIR:-$(dirname "$(dirname "$here")")}
state=${COURSE_HUB_STATE:-/srv/jupyterhub}
umask 077
cd "$state"
exec >> "$state/jupyterhub.log" 2>&1
bash "$here/hub-certs.sh"   # the hub's internal TLS, made once (start-hub-proxy.sh has made it already)
echo $$ > jupyterhub.pid
exec "$course/.venv/bin/jupyterhub" -f "$here/jupyterhub_config.py"
