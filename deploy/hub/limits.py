"""Memory and process limits for each student's server and kernels, with what the machine offers.

Each student's server (and so every kernel and terminal it starts) runs in a control group
of its own, with a memory limit (the kernel's OOM killer stops that student's biggest
process, their kernel, and nobody else's) and a limit on processes and threads.

What the machine offers, in the order tried (`mode()`):

- systemd (Debian 12), where it holds the memory controller: right after the start the hub
  hands the server's pid to systemd (StartTransientUnit, as `systemd-run --scope` does): a
  scope `course-<student>-<pid>.scope` in the student's own slice `user-<uid>.slice`, with
  MemoryMax and TasksMax;
  user-slice.conf limits the whole slice, SSH logins included.
- cgroup v2 without systemd (containers): `<the hub's group>/course-students/<student>`
  with memory.max, memory.swap.max=0 and pids.max; the hub's own processes move to
  `<the hub's group>/hub` first, as v2 wants processes only in leaves. The server joins
  its group between fork and exec, before it becomes the student.
- cgroup v1 without systemd: the same folders under the memory and pids hierarchies
  (memory.limit_in_bytes, + memsw where swap is counted, pids.max), joined the same way.
- none writable: rlimits on the server and each kernel, RLIMIT_AS (memory, each
  process) and RLIMIT_NPROC (the student's uid).

The server is always started as the student by JupyterHub's own switch; a failure to set
a limit is logged and leaves the server running without it, never with more rights.
tests/deploy/test_hub.py runs the cgroup v1 path here, and the rlimit path in a Debian 12 booted by
systemd-nspawn (deploy/class/fresh_debian_class.sh), whose systemd has no memory controller.

COURSE_MEMORY_LIMIT (bytes, or with K/M/G; default 2G) and COURSE_TASKS_LIMIT (default 512)
set the figures. SSH logins are outside the hub: deploy/hub/user-slice.conf limits those.
Left out: CPU shares (2 cores shared fairly by the kernel's scheduler do well enough for a
class, docs/CLASS.md) and disk quotas (docs/CLASS.md: they belong to the file system).
"""

import asyncio
import os
import pwd
import resource
import shutil
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner

CGROUP = Path("/sys/fs/cgroup")
GROUP_NAME = "course-students"
UNITS = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}


def size(text: str) -> int:
    """'2G' -> bytes; a bare number is bytes."""
    text = text.strip().upper()
    if text[-1:] in UNITS:
        return int(float(text[:-1]) * UNITS[text[-1]])
    return int(text)


def memory_limit() -> int:
    return size(os.environ.get("COURSE_MEMORY_LIMIT", "2G"))


def tasks_limit() -> int:
    return int(os.environ.get("COURSE_TASKS_LIMIT", "512"))


def own_groups() -> dict:
    """The hub's control groups: {controller, or '' for v2: path}; a v2 path left at its leaf."""
    groups = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            groups[name] = path
    if groups.get("", "").endswith("/hub"):   # moved there by _leave_the_hub_in_a_leaf
        groups[""] = groups[""][: -len("/hub")] or "/"
    return groups


def mode() -> str:
    """'systemd', 'cgroup2', 'cgroup1' or 'rlimit': what this machine lets the hub use."""
    if Path("/run/systemd/system").is_dir() and shutil.which("busctl") and systemd_holds_memory():
        return "systemd"
    if "memory" in _read(CGROUP / "cgroup.controllers").split() and os.access(CGROUP, os.W_OK):
        return "cgroup2"
    if all(os.access(CGROUP / name, os.W_OK) for name in ("memory", "pids")):
        return "cgroup1"
    return "rlimit"


def systemd_holds_memory() -> bool:
    """systemd enforces MemoryMax only with the memory controller: in cgroup v2's root, or a
    writable v1 hierarchy. A container booted by systemd-nspawn on a cgroup v1 host gets it
    read-only: its systemd makes the scopes and slices but limits nothing (docs/CLASS.md)."""
    return "memory" in _read(CGROUP / "cgroup.controllers").split() or os.access(CGROUP / "memory", os.W_OK)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _write(path: Path, text: str) -> None:
    path.write_text(text)


def student_folders(name: str) -> list:
    """The student's control group folders, made and set; [] where there are none (systemd, rlimit)."""
    groups, how = own_groups(), mode()
    if how == "cgroup2":
        top = _leave_the_hub_in_a_leaf(CGROUP / groups[""].lstrip("/"))
        folder = top / name
        folder.mkdir(exist_ok=True)
        _write(folder / "memory.max", str(memory_limit()))
        if (folder / "memory.swap.max").exists():
            _write(folder / "memory.swap.max", "0")
        _write(folder / "pids.max", str(tasks_limit()))
        return [folder]
    if how == "cgroup1":
        memory = CGROUP / "memory" / groups["memory"].lstrip("/") / GROUP_NAME / name
        pids = CGROUP / "pids" / groups["pids"].lstrip("/") / GROUP_NAME / name
        for folder in (memory, pids):
            folder.mkdir(parents=True, exist_ok=True)
        _write(memory / "memory.limit_in_bytes", str(memory_limit()))
        if (memory / "memory.memsw.limit_in_bytes").exists():
            _write(memory / "memory.memsw.limit_in_bytes", str(memory_limit()))
        _write(pids / "pids.max", str(tasks_limit()))
        return [memory, pids]
    return []


def _leave_the_hub_in_a_leaf(own: Path) -> Path:
    """cgroup v2: move the hub's processes to own/hub, turn on memory and pids below; own/GROUP_NAME."""
    if not {"memory", "pids"} <= set(_read(own / "cgroup.subtree_control").split()):
        (own / "hub").mkdir(exist_ok=True)
        for pid in _read(own / "cgroup.procs").split():
            try:
                _write(own / "hub" / "cgroup.procs", pid)
            except OSError:   # gone already
                pass
        _write(own / "cgroup.subtree_control", "+memory +pids")
    top = own / GROUP_NAME
    top.mkdir(exist_ok=True)
    if not {"memory", "pids"} <= set(_read(top / "cgroup.subtree_control").split()):
        _write(top / "cgroup.subtree_control", "+memory +pids")
    return top


def remove_student(name: str) -> None:
    """Remove the student's (empty) control groups: for tests and for removed students."""
    for folder in student_folders_made(name):
        for empty in (folder, folder.parent):   # course-students too, once no student is left
            try:
                empty.rmdir()
            except OSError:
                pass


def student_folders_made(name: str) -> list:
    groups = own_groups()
    found = [CGROUP / groups.get("", "/").lstrip("/") / GROUP_NAME / name]
    for controller in ("memory", "pids"):
        if controller in groups:
            found.append(CGROUP / controller / groups[controller].lstrip("/") / GROUP_NAME / name)
    return [f for f in found if f.is_dir() and f != CGROUP]


def joiner(name: str):
    """A function for the child between fork and exec: join the student's groups, or set rlimits."""
    how = mode()
    folders = student_folders(name)
    procs = [str(folder / "cgroup.procs") for folder in folders]
    memory, tasks = memory_limit(), tasks_limit()

    def join() -> None:
        pid = str(os.getpid()).encode()
        for path in procs:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)
        if not procs and how == "rlimit":
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_NPROC, (tasks, tasks))

    return join


async def into_systemd_scope(name: str, pid: int) -> None:
    """systemd: move the server into course-<name>.scope in the student's slice, with limits."""
    uid = pwd.getpwnam(name).pw_uid
    command = ["busctl", "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
               "org.freedesktop.systemd1.Manager", "StartTransientUnit", "ssa(sv)a(sa(sv))",
               f"course-{name}-{pid}.scope", "fail", "5", "PIDs", "au", "1", str(pid),
               "Slice", "s", f"user-{uid}.slice", "MemoryMax", "t", str(memory_limit()),
               "MemorySwapMax", "t", "0", "TasksMax", "t", str(tasks_limit()), "0"]
    child = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE,
                                                 stderr=asyncio.subprocess.STDOUT)
    output, _ = await child.communicate()
    if child.returncode != 0:
        raise RuntimeError(f"busctl StartTransientUnit: {output.decode(errors='replace').strip()}")


class LimitedSpawner(LocalProcessSpawner):
    """LocalProcessSpawner whose server runs inside the student's limits (see above)."""

    async def start(self):
        address = await super().start()
        if mode() == "systemd":
            try:
                await into_systemd_scope(self.user.name, self.pid)
            except (OSError, RuntimeError) as error:
                self.log.warning("%s runs without limits: %s", self.user.name, error)
        return address

    def make_preexec_fn(self, name):
        become_the_student = super().make_preexec_fn(name)
        join = joiner(name)   # here, in the hub: the folders are made before the fork

        def preexec() -> None:
            join()
            become_the_student()

        return preexec
