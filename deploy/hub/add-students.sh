#!/usr/bin/env bash
# Make the class's local users from a list, as root (docs/CLASS.md, "One machine for a class"):
#   bash deploy/hub/add-students.sh students.txt [group]
# students.txt holds one `name:password` a line (chpasswd's format; keep it 600 and delete
# it once the class has logged in). Each student gets a home of 700 (HOME_MODE: nobody
# else can read it, even before their first login), bash in terminals, and the group
# (default: students) that the hub lets in. A name that exists already is only given the
# group and its password. Left out: removing students. `userdel --remove NAME` takes only
# their home and mail; what they left in the shared temporary folders would belong to the
# next user given their uid, so first stop their processes and remove it:
#   pkill -KILL -u NAME; find /tmp /var/tmp /dev/shm -xdev -user NAME -delete; userdel --remove NAME
set -euo pipefail
list=${1:?usage: add-students.sh students.txt [group]}
group=${2:-students}
getent group "$group" >/dev/null || groupadd "$group"
while IFS=: read -r name _; do
  [ -n "$name" ] || continue
  if id "$name" >/dev/null 2>&1; then
    usermod --append --groups "$group" "$name"
  else
    useradd --create-home -K HOME_MODE=0700 --shell /bin/bash --groups "$group" "$name"
  fi
done < "$list"
chpasswd < "$list"
echo "$(grep -c . "$list") students in the group $group"
