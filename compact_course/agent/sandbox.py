"""Where the bash tool's commands run: in a bubblewrap sandbox when one can start.

With `bwrap` (Debian's bubblewrap) a command sees the whole file system
read-only except its workspace, a private /tmp, no network (a network
namespace of its own, loopback included) and only its own processes; it dies
with the agent. It holds no capability, even when the agent runs as root
(`--cap-drop ALL`: no remount, no umount; `/proc/sys` read-only, since uid 0
writes a sysctl without any), and cannot get any: it runs in a user namespace
bwrap made (`--unshare-user`) in which no other may be made
(`--disable-userns`, bubblewrap 0.8), so `unshare -Ur` fails where it used to
hand an unprivileged user every capability over namespaces of its own. `/run`
is an empty folder of its own (no D-Bus, docker or other host socket there),
inside the workspace the compactor's folders (`.transcripts/`,
`.task_outputs/`) are read-only, and every settings file the agent's process
was pointed at (tools.secret_files) is covered by an empty file it may not read.
A bwrap older than 0.8 runs without `--disable-userns`, and one older than 0.7
without `--size`, each with a warning that says what is missing.
Without it, or when bwrap cannot start (no user namespaces, say), the command
runs as a plain child process with the user's rights, and a warning says so,
once. In both modes:
- the environment is built from an allow-list (PATH, LANG, TERM, ...; HOME is
  the workspace), so no key or token reaches the command;
- the command runs in a session of its own; when the time limit passes, the
  whole process group is killed, and so is any background job it left;
- output is read up to a cap from a pipe that is never waited on after the
  shell has ended, and bytes that are not UTF-8 are replaced, not fatal.

- each call runs within `limits.py`'s limits (processes, address space and
  memory, CPU time, file size; in the sandbox, a sized /tmp and /dev/shm too),
  and the result says which limit ended it.

Left out: a quota on the workspace's disk, and hiding other files outside the
workspace (they stay readable; tools.py redacts keys from output).
Without bwrap none of the above holds but the environment, the session, the
time limit and the resource limits: a command can read what the user can, and
`setsid` takes it out of the group that is killed (tools.py refuses plain
commands while a key is set).
"""

import os
import re
import shutil
import signal
import stat
import subprocess
import threading
import warnings

from . import limits

BWRAP_NAME = "bwrap"
ALLOWED_VARIABLES = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "COLUMNS")
GRACE = 2.0  # seconds given to the output pipe to drain once the shell has ended

_mode = None      # "bubblewrap" or "unsandboxed", decided by the first command
_isolation = None  # one of VARIANTS' isolations, the first this bwrap starts; decided with the mode
_warned = False


class UnsandboxedWarning(UserWarning):
    """bash commands run without a sandbox, with the user's rights."""


def clean_environment(workspace) -> dict:
    """The allow-listed variables of this process, and HOME set to the workspace."""
    env = {name: os.environ[name] for name in ALLOWED_VARIABLES if name in os.environ}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env["HOME"] = str(workspace)
    return env


# Everything read-only, then a private /tmp, no network, only its own processes.
# No capability (as root, bwrap would keep them all), and no host socket folder.
# /proc/sys read-only too: without capabilities uid 0 may still write a sysctl (core_pattern!).
# The RAM-backed folders it may write (/tmp, /dev/shm, /run) have a size (limits.py).
RUN_SIZE = 1024 * 1024
ISOLATION = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
             "--ro-bind", "/proc/sys", "/proc/sys",
             "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
             "--size", str(limits.TMP_SIZE), "--tmpfs", "/tmp",
             "--size", str(limits.TMP_SIZE), "--tmpfs", "/dev/shm",
             *(arg for folder in ("/run", "/var/run") if os.path.isdir(folder)
               and not os.path.islink(folder) for arg in ("--size", str(RUN_SIZE), "--tmpfs", folder)),
             "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
             "--cap-drop", "ALL", "--new-session", "--die-with-parent")
# A user namespace of bwrap's own, in which the command may make none (bubblewrap 0.8).
NO_USER_NAMESPACE = ("--unshare-user", "--disable-userns")


def bwrap_arguments(bwrap: str, workspace, hidden=(), read_only=()) -> list:
    """The bwrap command line that wraps a command run in `workspace`.

    The workspace is bound after /tmp, so a workspace under /tmp is still the
    real one. Each file of `hidden` (a file of secrets) is covered by /dev/null,
    which bwrap binds without device access: reading it is refused. Each folder
    of `read_only` (inside the workspace) is bound onto itself read-only.
    """
    workspace = str(workspace)
    masks = [arg for path in hidden for arg in ("--ro-bind", "/dev/null", str(path))]
    frozen = [arg for path in read_only for arg in ("--ro-bind", str(path), str(path))]
    return [bwrap, *isolation(), "--bind", workspace, workspace, *frozen, *masks,
            "--chdir", workspace]


def isolation() -> tuple:
    """The isolation this bwrap starts (VARIANTS' first until the probe has run)."""
    return _isolation or VARIANTS[0][0]


def mode() -> str:
    """'bubblewrap' when bwrap starts here, else 'unsandboxed'; decided once."""
    global _mode
    if _mode is None:
        _mode, reason = _probe()
        if _mode == "unsandboxed":
            _warn(reason)
    return _mode


def unsized(isolation) -> tuple:
    """The isolation without its `--size N` pairs."""
    out, skip = [], False
    for arg in isolation:
        if skip or arg == "--size":
            skip = arg == "--size"
            continue
        out.append(arg)
    return tuple(out)


# The isolations tried in turn, and what a warning says is missing from each: bubblewrap
# 0.8 (Debian 12) starts the first; 0.7 has no --disable-userns, older ones no --size either.
# A bwrap that cannot make a user namespace (setuid, with them turned off) starts the second.
NO_USERNS_WARNING = ("this bwrap cannot keep a command from making a user namespace of its own "
                     "(--disable-userns needs bubblewrap 0.8 and user namespaces): there an "
                     "unprivileged command holds every capability over its own namespaces")
VARIANTS = ((ISOLATION + NO_USER_NAMESPACE, ()),
            (ISOLATION, (NO_USERNS_WARNING,)),
            (unsized(ISOLATION), (NO_USERNS_WARNING, "this bwrap has no --size: the sandbox's "
                                                     "/tmp and /dev/shm have no size limit")))


def _probe() -> tuple:
    global _isolation
    path = shutil.which(BWRAP_NAME)
    if path is None:
        return "unsandboxed", "bwrap (bubblewrap) is not installed"
    said = ""
    for isolation, missing in VARIANTS:
        try:
            done = subprocess.run([path, *isolation, "true"], stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=30, env=clean_environment("/"))
        except (OSError, subprocess.TimeoutExpired) as error:
            return "unsandboxed", f"bwrap could not start ({error})"
        if done.returncode == 0:
            _isolation = isolation
            for warning in missing:
                warnings.warn(warning, UnsandboxedWarning, stacklevel=3)
            return "bubblewrap", ""
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        said = said or (lines[-1] if lines else str(done.returncode))
    return "unsandboxed", f"bwrap could not start ({said})"


def _warn(reason: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(f"{reason}: the agent's bash commands run without a sandbox, with your "
                      f"rights (install it: apt-get install bubblewrap)",
                      UnsandboxedWarning, stacklevel=3)


def own_user_namespace() -> bool:
    """Whether bwrap runs a call in a user namespace of its own, where RLIMIT_NPROC
    counts the call's tasks alone: unprivileged, with `--unshare-user` or a bwrap that
    is not setuid (it makes one to mount anything), on Linux 5.14 or later (before, the
    count was the user's across namespaces). Root is exempt from the count either way."""
    path = shutil.which(BWRAP_NAME)
    return (mode() == "bubblewrap" and os.geteuid() != 0 and path is not None
            and ("--unshare-user" in isolation() or not os.stat(path).st_mode & stat.S_ISUID)
            and kernel_at_least(5, 14))


def kernel_at_least(major: int, minor: int) -> bool:
    found = re.match(r"(\d+)\.(\d+)", os.uname().release)
    return bool(found) and (int(found[1]), int(found[2])) >= (major, minor)


def run_command(workspace, command: str, timeout: float, max_bytes: int, hidden=(),
                read_only=()) -> tuple:
    """Run `command` with /bin/sh, within `limits`; (output text, bytes cut, timed out,
    the limit that ended it or None).

    `hidden`: files the command must not read; `read_only`: folders it must not
    change (both sandboxed only)."""
    prefix = limits.prlimit_prefix(own_user_namespace())
    argv = [*prefix, "/bin/sh", "-c", command]
    if mode() == "bubblewrap":
        argv = bwrap_arguments(shutil.which(BWRAP_NAME), workspace, hidden, read_only) + argv
    cgroup = limits.Cgroup.make()
    try:
        process, cgroup = _start(argv, workspace, cgroup, not prefix)
        reader = _Reader(process.stdout, max_bytes)
        watcher = limits.Watcher(process.pid, lambda: _kill_group(process.pid), cgroup)
        timed_out = False
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            # Whatever the shell left running in its group (a background job, a child
            # still writing) ends with the call.
            _kill_group(process.pid)
            process.wait()
            watcher.finish()
        reader.join(GRACE)
    finally:
        if cgroup is not None:
            cgroup.remove()
    output = reader.text()
    return output, reader.cut, timed_out, limits.reason_for(process.returncode, output,
                                                            watcher.reason)


def _start(argv, workspace, cgroup, set_rlimits: bool) -> tuple:
    """(the call's Popen, its cgroup): should joining the cgroup fail in the child,
    the call starts again without one (the cgroup removed, None)."""
    options = dict(cwd=workspace, env=clean_environment(workspace), stdin=subprocess.DEVNULL,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        return subprocess.Popen(argv, preexec_fn=_before_exec(cgroup, set_rlimits),
                                **options), cgroup
    except subprocess.SubprocessError:
        if cgroup is None:
            raise
        cgroup.remove()     # nothing joined it
        return subprocess.Popen(argv, preexec_fn=_before_exec(None, set_rlimits),
                                **options), None


def _before_exec(cgroup, set_rlimits: bool):
    """What the child does before it execs bwrap (or the shell): enter the cgroup, and
    set the resource limits itself where prlimit is missing."""
    steps = ([cgroup.joiner()] if cgroup is not None else []) + \
            ([limits.set_rlimits(False)] if set_rlimits else [])
    if not steps:
        return None

    def run():
        for step in steps:
            step()
    return run


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _Reader:
    """Reads a pipe in a thread, keeping the first `max_bytes` and counting the rest.

    Draining keeps a chatty command from blocking on a full pipe; a writer that
    escaped the process group cannot hold the call, since the caller waits for
    this thread only GRACE seconds (the thread ends when that writer does).
    """

    def __init__(self, pipe, max_bytes: int):
        self.pipe, self.max_bytes = pipe, max_bytes
        self.kept, self.cut = bytearray(), 0
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        try:
            while chunk := self.pipe.read1(65536):
                with self.lock:
                    room = self.max_bytes - len(self.kept)
                    self.kept += chunk[:room]
                    self.cut += max(0, len(chunk) - room)
        except (OSError, ValueError):
            pass
        finally:
            self.pipe.close()

    def join(self, grace: float) -> None:
        self.thread.join(grace)

    def text(self) -> str:
        with self.lock:
            return bytes(self.kept).decode("utf-8", errors="replace")
