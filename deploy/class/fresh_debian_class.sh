#!/usr/bin/env bash
# The class set-up of docs/CLASS.md on a fresh Debian 12, followed as written, for its class of 30.
#
#   sudo bash deploy/class/fresh_debian_class.sh [FOLDER]      (default FOLDER: /srv/fresh-debian)
#
# Root only, on a Debian or Ubuntu host that reaches Debian's mirror, PyPI and npm; about 4 GB
# in FOLDER and 10 to 15 minutes (2 cores). Not part of the test suite (CI cannot afford it). In order:
#  1. debootstrap a Debian 12 (bookworm, minbase with systemd, dbus and ca-certificates) in
#     FOLDER/root, and boot it with `systemd-nspawn -b` (systemd as PID 1, the host's network);
#     where systemd cannot boot (or with FRESH_BOOT=chroot), it says so and uses a chroot
#     with /proc, /sys and /dev bound, and docs/CLASS.md's lines without systemd.
#  2. Put a clone of this checkout's HEAD at /srv/course-src.git in it: docs/CLASS.md's
#     `COURSE_REPO=` (the teacher's fork) names it instead (file://), and its clone takes it.
#  3. Run docs/CLASS.md's two blocks ("Every step, as root, on a fresh Debian 12" and the first
#     one of "Live runs for a class") as the page gives them, read from docs/CLASS.md, with
#     only these changes: the URL above; `passwd teacher` reads the password from a
#     file. The class has no key: the lines marked `# no key` run, and the offline model
#     (course-offline-model.service) is the proxy's upstream. The block makes
#     /root/students.txt (30 students, `name:password`, 600) as the page does.
#  4. deploy/class/class_live_run.py: every student logs in, starts their server and runs
#     notebook 09 live through the proxy, all at once; bursts of 30 calls at once at a
#     student's budget's edge (--burst); the teacher records notebook 09 into a cassette
#     and a student replays it ("Cassettes for a class", --cassette); then `class_keys.py
#     spend`, as the teacher (not root).
# The container shares the host's uids (no --private-users): a test on the host that ends its
# throwaway users' processes by uid ends the container's processes of the same uid too, so run
# it while no other test runs here.
# Everything it prints goes to FOLDER/run.log too. At the end the container is stopped and
# FOLDER kept (rm -rf FOLDER removes it): run it again and it boots the same root afresh,
# which is no longer fresh (remove FOLDER/root first for a fresh one).
set -euo pipefail
checkout=$(cd "$(dirname "$0")/../.." && pwd)
folder=${1:-/srv/fresh-debian}
root=$folder/root
[ "$(id -u)" = 0 ] || { echo "fresh_debian_class.sh: run it as root" >&2; exit 2; }
mkdir -p "$folder"
chmod 700 "$folder"   # the container's root and the log: root's alone (the log names the students)
exec > >(tee -a "$folder/run.log") 2>&1
say() { echo "[fresh $(date +%H:%M:%S)] $*"; }

# -- 1. a fresh Debian 12, booted ------------------------------------------------------
command -v debootstrap >/dev/null && command -v systemd-nspawn >/dev/null ||
  apt-get install -y debootstrap systemd-container
if [ ! -x "$root/bin/bash" ]; then
  say "debootstrap bookworm into $root"
  debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,ca-certificates \
    bookworm "$root" http://deb.debian.org/debian > "$folder/debootstrap.log"
fi
echo fresh-class > "$root/etc/hostname"
# A host whose network passes through a TLS proxy of its own (this one's did) trusts its CA
# in /usr/local/share/ca-certificates: so does the container, and pip and npm are told of
# it (they keep CA lists of their own). Not a step of docs/CLASS.md: a fact of this network.
site_cas=""
if compgen -G "/usr/local/share/ca-certificates/*.crt" > /dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  site_cas=/etc/ssl/certs/ca-certificates.crt
fi

leader="" state="" nspawn=""
if [ "${FRESH_BOOT:-systemd}" = systemd ]; then
  say "booting it: systemd-nspawn -b"
  systemd-nspawn -D "$root" -b --register=no --keep-unit --machine=fresh-class \
    --console=passive > "$folder/boot.log" 2>&1 &
  nspawn=$!
else
  say "FRESH_BOOT=$FRESH_BOOT: no boot, a chroot and docs/CLASS.md's lines without systemd"
  echo "(not booted)" > "$folder/boot.log"
fi
for _ in $(seq 90); do
  [ -n "$nspawn" ] || break
  leader=$(pgrep -P "$nspawn" -x systemd || true)
  if [ -n "$leader" ]; then
    state=$(nsenter -t "$leader" -a systemctl is-system-running 2>/dev/null || true)
    case $state in running|degraded) break ;; esac
  fi
  kill -0 "$nspawn" 2>/dev/null || break
  sleep 1
done
case $state in running|degraded) ;; *) leader="" ;; esac
if [ -n "$leader" ]; then
  say "systemd is PID 1 in the container (host pid $leader): $(nsenter -t "$leader" -a systemctl is-system-running || true)"
  mode=systemd
  # Each command runs as a transient service of the container's systemd, as a login's would run under it.
  inside() { nsenter -t "$leader" -a systemd-run --quiet --wait --pipe --collect --service-type=exec \
               -E PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin -E HOME=/root \
               -E LANG=C.UTF-8 -E DEBIAN_FRONTEND=noninteractive ${site_cas:+-E PIP_CERT=$site_cas} \
               ${site_cas:+-E NODE_EXTRA_CA_CERTS=$site_cas} "$@"; }
else
  say "systemd did not boot in the container; the last lines of systemd-nspawn -b:"
  tail -n 20 "$folder/boot.log"
  [ -z "$nspawn" ] || kill "$nspawn" 2>/dev/null || true
  mode=chroot
  for place in proc sys dev dev/pts; do mountpoint -q "$root/$place" || mount --bind "/$place" "$root/$place"; done
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  inside() { chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
               HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive ${site_cas:+PIP_CERT=$site_cas} \
               ${site_cas:+NODE_EXTRA_CA_CERTS=$site_cas} "$@"; }
fi
stop_container() {
  if [ "$mode" = systemd ]; then
    kill -TERM "$nspawn" 2>/dev/null || true   # nspawn asks the container's systemd to power off
    wait "$nspawn" 2>/dev/null || true
  else   # what the steps started in the chroot (the hub, the proxy, servers, kernels): by pid
    for proc in /proc/[0-9]*; do
      if [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ]; then kill -TERM "${proc#/proc/}" 2>/dev/null || true; fi
    done
    sleep 5
    for proc in /proc/[0-9]*; do
      if [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ]; then kill -KILL "${proc#/proc/}" 2>/dev/null || true; fi
    done
    for place in dev/pts dev sys proc; do umount -l "$root/$place" 2>/dev/null || true; done
  fi
}
trap stop_container EXIT

# -- 2. the course's source, in place of GitHub -----------------------------------------
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$checkout/pyproject.toml")
rm -rf "$root/srv/course-src.git"
git clone --quiet --bare --no-local "$checkout" "$root/srv/course-src.git"
say "the course: $(git -C "$checkout" rev-parse --short HEAD) of $checkout (version $version), no tag"

# -- 3. docs/CLASS.md's steps -----------------------------------------------------------------
block() {   # the indented lines of docs/CLASS.md's first code block after the line matching $1
  awk -v start="$1" '$0 ~ start {on=1; next} on && /^    / {print substr($0, 5); seen=1; next}
                     on && seen && !/^    / && !/^$/ {exit}' "$checkout/docs/CLASS.md"
}
teacher_password=$(head -c 12 /dev/urandom | base64 | tr -d '/+=')
( umask 077; echo "teacher:$teacher_password" > "$root/root/teacher.txt" )
{
  echo 'set -euxo pipefail'
  echo 'PS4="+ [\$(date +%H:%M:%S)] "'
  echo 'cd /root'
  block '^Every step, as root, on a fresh Debian 12'
  block '^### Live runs for a class'
} | sed -e 's|^COURSE_REPO=.*|COURSE_REPO=file:///srv/course-src.git|' \
        -e 's|passwd teacher|chpasswd < /root/teacher.txt|' \
        -e 's|^\(echo "LITELLM_MASTER_KEY=.*\)$|{ set +x; } 2>/dev/null   # keys stay out of the log\n\1\nset -x|' \
        -e 's|^\(printf .*ANTHROPIC_API_KEY=.*\)$|{ set +x; } 2>/dev/null   # keys stay out of the log\n\1\nset -x|' \
        -e 's|^\((.*/root/students.txt.*\)$|{ set +x; } 2>/dev/null   # passwords stay out of the log\n\1\nset -x|' \
        -e 's|^\(\.venv/bin/python -m pytest tests/deploy/test_hub.py[^#]*\)|\1\|\| echo "README STEP FAILED: the hub test" |' \
  > "$root/root/readme-steps.sh"
if [ "$mode" = chroot ]; then   # docs/CLASS.md's lines without systemd
  sed -i -e 's|^cp deploy/hub/jupyterhub-proxy.service .*|setsid deploy/hub/start-hub-proxy.sh \& COURSE_ADMINS=teacher setsid deploy/hub/start-hub.sh \&|' \
         -e '/user-slice.conf/d' \
         -e 's|^cp deploy/proxy/course-offline-model.service .*|setsid setpriv --reuid=course-proxy --regid=course-proxy --init-groups /opt/course/.venv/bin/compact-course serve --port 8765 --key-file /var/lib/course-proxy/offline-key >> /var/lib/course-proxy/offline-model.log 2>\&1 < /dev/null \&|' \
         -e 's|^cp deploy/proxy/course-proxy.service .*|setsid deploy/proxy/start-proxy.sh \&|' "$root/root/readme-steps.sh"
fi
[ -z "$site_cas" ] || inside update-ca-certificates
say "docs/CLASS.md's steps ($mode), as /root/readme-steps.sh in the container:"
cat "$root/root/readme-steps.sh"
started=$(date +%s)
inside bash /root/readme-steps.sh
say "docs/CLASS.md's steps took $(( $(date +%s) - started )) s"
if [ "$mode" = systemd ]; then
  inside systemctl --no-pager status jupyterhub-proxy jupyterhub course-proxy | grep -E "●|Active:|Memory:|Tasks:" || true
fi

# -- 4. the class, live ------------------------------------------------------------------------
for _ in $(seq 120); do inside bash -c 'exec 3<>/dev/tcp/127.0.0.1/4000' 2>/dev/null && break; sleep 2; done
say "$(grep -c . "$root/root/students.txt") students: log in, start, notebook 09 live through the proxy, all at once"
inside bash -c 'cd /opt/course && .venv/bin/python deploy/class/class_live_run.py /root/students.txt --teacher /root/teacher.txt \
  --burst --cassette /opt/course/live.cassette.json' || true
say "the class proxy's memory: $(inside bash -c 'ps -o rss= -u course-proxy | awk "{s+=\$1} END {printf \"%.0f MB RSS\", s/1024}"')"
say "each student's spend, as the teacher reads it (not root)"
inside su - teacher -c 'python3 /opt/course/deploy/proxy/class_keys.py spend'
say "the hub's log: the warnings a server's start used to write (count of lines)"
inside bash -c 'for text in "cannot be longer than the websocket_ping_interval" "No session ID specified" \
  "was found in both NotebookApp and ServerApp"; do echo "  $(grep -c "$text" /srv/jupyterhub/jupyterhub.log) $text"; done' || true
say "limits.py's mode here: $(inside bash -c "cd /opt/course && .venv/bin/python -c \"import runpy; print(runpy.run_path('deploy/hub/limits.py')['mode']())\"")"
if [ "$mode" = systemd ]; then
  say "the units: systemctl restart jupyterhub keeps every student's server (KillMode=process)"
  inside bash -c 'before=$(pgrep -f "[j]upyterhub-singleuser" | sort | tr "\n" " ")
    systemctl restart jupyterhub && sleep 15
    after=$(pgrep -f "[j]upyterhub-singleuser" | sort | tr "\n" " ")
    echo "  servers before: $(wc -w <<< "$before"), after: $(wc -w <<< "$after"), the same processes: $([ "$before" = "$after" ] && echo yes || echo no)"
    echo "  jupyterhub-proxy: $(systemctl is-active jupyterhub-proxy), jupyterhub: $(systemctl is-active jupyterhub), course-proxy: $(systemctl is-active course-proxy)"
    echo "  user-slice.conf on a student slice: $(systemctl show user-$(id -u class-01).slice -p MemoryMax -p TasksMax | tr "\n" " ")"
    echo "  the memory controller for systemd: $(if [ -w /sys/fs/cgroup/memory ] || grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then echo yes; else echo "no (read-only: $(findmnt -no OPTIONS /sys/fs/cgroup/memory))"; fi)"
    systemctl --no-pager list-units --type=scope,slice | grep -E "course-|user-" | head -n 8' || true
fi
say "done; the container's root stays in $root (rm -rf $folder removes it)"
