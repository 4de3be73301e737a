"""A student's server the hub can tell from any other: an address of its own, a certificate naming it alone.

JupyterHub's internal_ssl (jupyterhub_config.py) has the hub's own CA sign a certificate
for every server it starts, and both the hub (its readiness check, user.py `_wait_up`,
with utils.py's `make_ssl_context`: CERT_REQUIRED and check_hostname) and
configurable-http-proxy (every request it forwards to an https target: http-proxy-3 sets
rejectUnauthorized, and Node checks the certificate names the address it connects to)
refuse a server whose certificate is not the CA's or does not name the address they
connect to (the hub's check also trusts the system's CAs, which the CA/Browser Forum's
rules forbid to sign for a reserved address such as a loopback one). That is what keeps
student B out when B listens first on student A's port: the hub no longer takes any
answer there for A's server.

It holds only if no other student's certificate names A's address. By default every
certificate names 127.0.0.1 and localhost (`Spawner.ssl_alt_names_include_local`), and
every server listens on 127.0.0.1; then B's certificate is good for A's address. So:

- each server listens on a loopback address of its own, from the student's uid
  (`student_address`: 127.0.0.0/8 is all loopback on Linux), never 127.0.0.1, which the
  hub and its proxy use;
- its certificate names that address and nothing else (`alt_names`, with
  `ssl_alt_names_include_local = False` in jupyterhub_config.py);
- its port is JupyterHub's own pick, a free port from the kernel, drawn anew at every
  start (after a failed start JupyterHub keeps the spawner, and would keep its port);
- its key, certificate and CA bundle go to a folder of root's for that student,
  RUNTIME_ROOT/<uid>.tls (711), each file the student's and 400, written through
  descriptors opened without following links (`place_certs`).
  LocalProcessSpawner.move_certs would put them in ~/.jupyterhub and chown them as root,
  following any link the student planted there; the hub never touches a student's home
  (home.py).

A squatter on A's address and port can still make A's start fail (A's server cannot bind,
and the hub refuses the squatter's certificate); the next start draws another port.
Left out: uids of 254 * 65536 and above (refused, with the reason), IPv6, servers on
other machines.
"""

import os
import pwd
from pathlib import Path

from home import check_root_folder
from limits import LimitedSpawner
from traitlets import Unicode, default

# 127.<1..254>.x.y: never 127.0.0.0/16 (127.0.0.1 is the hub's), never 127.255.255.255 (broadcast).
UID_LIMIT = 254 * 65536
CERT_FILES = {"keyfile": "server.key", "certfile": "server.crt", "cafile": "ca.crt"}


def student_address(uid: int) -> str:
    """The loopback address of the server of the user with `uid`: one uid, one address."""
    if not 0 <= uid < UID_LIMIT:
        raise ValueError(f"uid {uid} has no loopback address of its own: the hub gives one to uids "
                         f"0 to {UID_LIMIT - 1} (deploy/hub/identity.py)")
    return f"127.{1 + uid // 65536}.{uid // 256 % 256}.{uid % 256}"


def alt_names(spawner) -> list:
    """Spawner.ssl_alt_names: the server's own address, and nothing else."""
    return [f"IP:{spawner.ip}"]


def place_certs(paths: dict, root: Path, account: pwd.struct_passwd) -> dict:
    """Copy the key, certificate and CA bundle the hub made into ROOT/<uid>.tls, the
    student's and 400 each; remove the hub's copy of the key and certificate (as
    LocalProcessSpawner.move_certs moves them). The paths the server is given."""
    folder_name = f"{account.pw_uid}.tls"
    root.mkdir(parents=True, exist_ok=True)   # made by the pre-spawn hook already (home.py)
    parent = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        check_root_folder(parent, root)
        try:
            os.mkdir(folder_name, 0o700, dir_fd=parent)
        except FileExistsError:
            pass
        folder = os.open(folder_name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
    finally:
        os.close(parent)
    try:
        check_root_folder(folder, root / folder_name)
        os.fchmod(folder, 0o711)   # the student crosses it to their files, and lists nothing
        for what, name in CERT_FILES.items():
            _write_theirs(folder, name, Path(paths[what]).read_bytes(), account)
    finally:
        os.close(folder)
    for what in ("keyfile", "certfile"):
        Path(paths[what]).unlink(missing_ok=True)
    return {what: str(root / folder_name / name) for what, name in CERT_FILES.items()}


def _write_theirs(folder: int, name: str, data: bytes, account: pwd.struct_passwd) -> None:
    """A new file `name` in the folder open at `folder`, the student's and 400."""
    try:
        os.unlink(name, dir_fd=folder)   # a link is removed, never followed
    except FileNotFoundError:
        pass
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o400, dir_fd=folder)
    try:
        os.write(fd, data)
        os.fchown(fd, account.pw_uid, account.pw_gid)
        os.fchmod(fd, 0o400)
    finally:
        os.close(fd)


class CourseSpawner(LimitedSpawner):
    """LimitedSpawner (limits.py) on the student's own address, with their certificate in tls_root."""

    tls_root = Unicode("/run/course-kernels", config=True,
                       help="A folder of root's where each student's server gets <uid>.tls")

    @default("ip")
    def _own_address(self) -> str:
        return student_address(pwd.getpwnam(self.user.name).pw_uid)

    async def move_certs(self, paths: dict) -> dict:
        return place_certs(paths, Path(self.tls_root), pwd.getpwnam(self.user.name))

    async def start(self):
        self.port = 0   # JupyterHub's random pick, again at every start
        return await super().start()

