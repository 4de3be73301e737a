"""The limits on one bash call: processes, memory, CPU time, file size and /tmp.

Each call gets them by the means the machine has:
- resource limits (`prlimit` inside the sandbox, else `setrlimit` before the
  exec), always: address space and CPU time per process, the size of a file,
  no core dump, and a number of processes (RLIMIT_NPROC);
- a size on the sandbox's RAM-backed /tmp and /dev/shm (bwrap's `--size`);
- a cgroup of its own where one can be made (as root, cgroup v2 or v1): the
  number of tasks and the memory of the whole call;
- a watcher thread that counts the call's processes and the memory they allocated
  every POLL seconds, and ends the call at MAX_PROCESSES or MAX_MEMORY.

RLIMIT_NPROC counts the tasks of a user id, not of a call, and root is exempt
from it. Unprivileged, bwrap runs the call in a user namespace of its own, and
since Linux 5.14 the count there holds the call's tasks only: the cap is
MAX_PROCESSES plus a margin. Where the call shares the count with the user's
other processes (no user namespace: bwrap setuid, or no sandbox) the cap is
what the user already runs plus MAX_PROCESSES plus the margin, so a user with a
busy session still gets a whole call. For root the cgroup and the watcher are
the cap; where no cgroup can be made, the watcher alone, which a fork bomb can
starve of CPU: run the agent as an unprivileged user there.

When a call ends on a limit, `note` gives one line that says which, for the
tool's result: the agent reads it and goes on, and the next call starts fresh.

Left out: disk quotas on the workspace (a file is capped, the folder is not),
and limits on I/O bandwidth.
"""

import os
import re
import shutil
import signal
import threading
import time
from pathlib import Path

MiB = 1024 * 1024
MAX_PROCESSES = 128                 # processes of one call at once (the watcher ends it there)
PROCESS_MARGIN = 16                 # the kernel's cap, a little above, so the watcher speaks first
MAX_ADDRESS_SPACE = 1024 * MiB      # per process (RLIMIT_AS): a 2 GiB allocation fails
MAX_MEMORY = 1536 * MiB             # memory the whole call holds (cgroup; the watcher: anonymous)
MAX_CPU_SECONDS = 60                # CPU time per process (RLIMIT_CPU), then SIGXCPU
MAX_FILE_SIZE = 256 * MiB           # the largest file one call may write (RLIMIT_FSIZE)
TMP_SIZE = 64 * MiB                 # the sandbox's /tmp, and its /dev/shm, in RAM
POLL = 0.1                          # seconds between two looks of the watcher
PRLIMIT = shutil.which("prlimit") or "/usr/bin/prlimit"    # util-linux

# Signals that end a process on a limit, as the shell reports them (128 + signal).
SIGNALLED = {signal.SIGXCPU: "cpu", signal.SIGXFSZ: "file"}
# What programs print when a limit refuses them.
# (A bare "Resource temporarily unavailable" is also a non-blocking read's EAGAIN: not enough.)
SAID = (("processes", re.compile(r"fork: (retry: )?Resource temporarily unavailable|Cannot fork"
                                 r"|can't start new thread")),
        ("memory", re.compile(r"MemoryError|Cannot allocate memory|bad_alloc|out of memory",
                              re.IGNORECASE)),
        ("file", re.compile(r"File too large|File size limit exceeded")),
        ("space", re.compile(r"No space left on device")),
        ("cpu", re.compile(r"CPU time limit exceeded")))
# The shell's own words when it cannot fork: dash's "/bin/sh: 1: Cannot fork", bash's
# "bash: fork: retry: Resource temporarily unavailable".
SHELL_REFUSED_FORK = re.compile(r"^(?:/bin/)?(?:sh|bash|dash): (?:line )?(?:\d+: )?"
                                r"(?:Cannot fork|fork: (?:retry: )?Resource temporarily unavailable)",
                                re.MULTILINE)


def _size(n: int) -> str:
    return f"{n // 1024 // MiB} GiB" if n % (1024 * MiB) == 0 else f"{n // MiB} MiB"


NOTES = {
    "processes": f"the sandbox's limit of {MAX_PROCESSES} processes",
    "memory": f"the sandbox's memory limit ({_size(MAX_ADDRESS_SPACE)} of address space a "
              f"process, {_size(MAX_MEMORY)} for the call)",
    "cpu": f"the sandbox's limit of {MAX_CPU_SECONDS} s of CPU time a process",
    "file": f"the sandbox's file size limit ({_size(MAX_FILE_SIZE)})",
    "space": f"a full file system (the sandbox's /tmp holds {_size(TMP_SIZE)})",
}


def note(reason: str) -> str:
    return f"[limit: the command ran into {NOTES[reason]}; the next command starts afresh]"


def reason_for(returncode: int, output: str, watched: str | None) -> str | None:
    """Which limit ended the call, if one did: the watcher's word first, then the
    signal that ended the shell, then what the command printed."""
    if watched:
        return watched
    if returncode > 128 and (signalled := SIGNALLED.get(returncode - 128)):
        return signalled
    if returncode == 0:
        # A fork bomb can die out at RLIMIT_NPROC between two of the watcher's looks, the
        # shell exiting 0: then only the shell's own refusal, at the start of a line,
        # names the limit (text that merely mentions it, as in a file's lines, does not).
        return "processes" if SHELL_REFUSED_FORK.search(output) else None
    return next((reason for reason, said in SAID if said.search(output)), None)


# -- resource limits -----------------------------------------------------------------------------

def tasks_of_user(uid: int) -> int:
    """The tasks (threads included) this user runs now: what RLIMIT_NPROC counts."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                status = Path(entry.path, "status").read_text()
            except OSError:
                continue
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            if fields.get("Uid", "").split()[:1] == [str(uid)]:
                count += int(fields.get("Threads", "1"))
    return count


def process_cap(own_namespace: bool) -> int:
    """RLIMIT_NPROC for a call: its own count in a user namespace, else on top of the user's."""
    if own_namespace or os.getuid() == 0:      # root is exempt: no need to count
        return MAX_PROCESSES + PROCESS_MARGIN
    return tasks_of_user(os.getuid()) + MAX_PROCESSES + PROCESS_MARGIN


def rlimits(own_namespace: bool) -> dict:
    """prlimit's option names and values."""
    return {"as": MAX_ADDRESS_SPACE, "cpu": MAX_CPU_SECONDS, "fsize": MAX_FILE_SIZE, "core": 0,
            "nproc": process_cap(own_namespace)}


def prlimit_prefix(own_namespace: bool) -> list:
    """`prlimit --as=... -- ` to put before the shell, or [] where prlimit is missing."""
    if not os.access(PRLIMIT, os.X_OK):
        return []
    limits = rlimits(own_namespace)
    # CPU: the hard limit a second later, so SIGXCPU (and its message) comes first.
    options = [f"--{name}={value}" if name != "cpu" else f"--cpu={value}:{value + 1}"
               for name, value in limits.items()]
    return [PRLIMIT, *options, "--"]


def set_rlimits(own_namespace: bool):
    """A preexec function that sets the limits itself (where prlimit is missing)."""
    import resource
    limits = rlimits(own_namespace)
    pairs = [(resource.RLIMIT_AS, limits["as"]), (resource.RLIMIT_FSIZE, limits["fsize"]),
             (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, limits["nproc"]),
             (resource.RLIMIT_CPU, limits["cpu"])]

    def apply():
        for which, value in pairs:
            hard = value + 1 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, hard))
    return apply


# -- a cgroup, where one can be made -------------------------------------------------------------

CGROUP_ROOT = Path("/sys/fs/cgroup")


def own_cgroup_v1(controller: str) -> Path:
    """The folder of this process's cgroup in a v1 hierarchy (its root if not listed)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return CGROUP_ROOT / controller / path.lstrip("/")
    return CGROUP_ROOT / controller


class Cgroup:
    """A cgroup (v2, or v1's pids and memory hierarchies) for one call, removed after it."""

    def __init__(self, folders: list, v2: bool):
        self.folders, self.v2 = folders, v2

    @classmethod
    def make(cls):
        """A new cgroup with the call's limits, or None where none can be made here."""
        name = f"compact-bash-{os.getpid()}-{time.monotonic_ns()}"
        try:
            if (CGROUP_ROOT / "cgroup.controllers").exists():
                enabled = (CGROUP_ROOT / "cgroup.subtree_control").read_text().split()
                if "pids" not in enabled:
                    return None
                folder = CGROUP_ROOT / name
                folder.mkdir()
                group = cls([folder], True)
                group.write(folder, "pids.max", MAX_PROCESSES + PROCESS_MARGIN)
                if "memory" in enabled:
                    group.write(folder, "memory.max", MAX_MEMORY)
                    group.write(folder, "memory.swap.max", 0, optional=True)
                return group
            # v1: below this process's own cgroup in each hierarchy, so a container's
            # limits still count the call.
            pids = own_cgroup_v1("pids") / name
            pids.mkdir()
            group = cls([pids], False)
            group.write(pids, "pids.max", MAX_PROCESSES + PROCESS_MARGIN)
            memory = own_cgroup_v1("memory") / name
            try:
                memory.mkdir()
            except OSError:
                return group
            group.folders.append(memory)
            group.write(memory, "memory.limit_in_bytes", MAX_MEMORY)
            return group
        except OSError:
            return None

    def write(self, folder: Path, name: str, value, optional: bool = False) -> None:
        try:
            (folder / name).write_text(str(value))
        except OSError:
            if not optional:
                self.remove()
                raise

    def joiner(self):
        """A function that moves the calling process in: run in the child before exec,
        so everything it starts is counted from the first fork. The paths are made
        here, before the fork, so the child only opens and writes."""
        procs = [os.fsencode(folder / "cgroup.procs") for folder in self.folders]

        def join():
            pid = str(os.getpid()).encode()
            for path in procs:
                fd = os.open(path, os.O_WRONLY)
                try:
                    os.write(fd, pid)
                finally:
                    os.close(fd)
        return join

    def tasks(self) -> int:
        return int(self._read("pids.current") or 0)

    def hit_process_cap(self) -> bool:
        """Whether a fork was refused at `pids.max` (v1 and v2 both count them in pids.events):
        a bomb that hits the cap between two of the watcher's looks, then dies out."""
        return bool(re.search(r"^max [1-9]", self._read("pids.events") or "", re.MULTILINE))

    def out_of_memory(self) -> bool:
        if self.v2:
            events = self._read("memory.events", self.folders[0])
            return bool(re.search(r"^oom_kill [1-9]", events or "", re.MULTILINE))
        memory = next((f for f in self.folders if "/memory/" in str(f)), None)
        control = self._read("memory.oom_control", memory) if memory else ""
        return bool(re.search(r"^oom_kill [1-9]", control or "", re.MULTILINE))

    def _read(self, name: str, folder: Path | None = None) -> str | None:
        try:
            return ((folder or self.folders[0]) / name).read_text()
        except OSError:
            return None

    def remove(self) -> None:
        """Remove the folders once the call's last process is gone (a second at most)."""
        for folder in self.folders:
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


# -- the watcher -----------------------------------------------------------------------------------

class Watcher:
    """Counts a call's processes and their memory every POLL seconds; at a limit it
    calls `stop` once and remembers why (`reason`)."""

    def __init__(self, pid: int, stop, cgroup: Cgroup | None = None):
        self.pid, self.stop_call, self.cgroup = pid, stop, cgroup
        self.reason = None
        self.done = threading.Event()
        self.page = os.sysconf("SC_PAGE_SIZE")
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.done.wait(POLL):
            processes, resident = self.measure()
            if processes >= MAX_PROCESSES:
                self.reason = "processes"
            elif resident > MAX_MEMORY or (self.cgroup and self.cgroup.out_of_memory()):
                self.reason = "memory"
            if self.reason:
                self.stop_call()
                return

    def measure(self) -> tuple:
        """(processes, allocated resident bytes) of the call: its process tree, from /proc."""
        count, resident, pending = 0, 0, [self.pid]
        while pending and count <= 4 * MAX_PROCESSES:
            pid = pending.pop()
            try:
                for task in os.scandir(f"/proc/{pid}/task"):
                    pending += Path(task.path, "children").read_text().split()
                # Resident less shared (file-backed) pages: the memory a process allocated,
                # so a hundred processes that share one library are not counted a hundred times.
                pages = Path(f"/proc/{pid}/statm").read_text().split()
                resident += (int(pages[1]) - int(pages[2])) * self.page
            except (OSError, ValueError, IndexError):
                continue
            count += 1
        if self.cgroup is not None:
            count = max(count, self.cgroup.tasks())
        return count, resident

    def finish(self) -> None:
        self.done.set()
        self.thread.join()
        if self.reason is None and self.cgroup is not None and self.cgroup.out_of_memory():
            self.reason = "memory"
        if self.reason is None and self.cgroup is not None and self.cgroup.hit_process_cap():
            self.reason = "processes"
