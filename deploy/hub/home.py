"""The hub's pre-spawn hook: the student's copy of the course, their socket folder, their key.

The hub runs as root, and a student may have processes running (an SSH login, a `nohup`
left from a terminal) that change their home while the hook works. So root never touches
a student's home: the copy is made by a child process running as the student
(student_copy.py, with the student's uid and gids and an environment of PATH and LANG
only), so a link they plant leads nowhere they could not go themselves. Root only makes
the student's socket folder, in a root-owned folder no student can write to, through one
descriptor opened without following links, and checks the parent before that.

The class key: when the teacher's class key file (deploy/proxy/class_keys.py writes it,
600 in the hub's state folder) names the student, their server gets ANTHROPIC_BASE_URL
(the class proxy), ANTHROPIC_API_KEY (their own virtual key, with its budget) and MODEL_ID.
Never the teacher's key: that one stays in the proxy's environment.

Left out: copying again over a student's copy (they delete it to get a new one), and any
spawner but the local one (Zero to JupyterHub: docs/CLASS.md).
"""

import asyncio
import json
import os
import pwd
import stat
from pathlib import Path

HERE = Path(__file__).resolve().parent
COPY_SCRIPT = HERE / "student_copy.py"
# What the copy as the student gets of the hub's environment: nothing else (the hub's holds
# the proxy's token, and a student can read the environment of their own processes).
CHILD_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


async def copy_as_student(course: Path, account: pwd.struct_passwd, timeout: float = 120) -> str:
    """Run student_copy.py as the student; its one line, or RuntimeError with its output."""
    # The course venv's interpreter: every student can run it (docs/CLASS.md), whatever runs the hub.
    child = await asyncio.create_subprocess_exec(
        str(course / ".venv" / "bin" / "python"), "-I", str(COPY_SCRIPT), str(course), account.pw_dir,
        user=account.pw_uid, group=account.pw_gid, extra_groups=[], cwd="/", env=CHILD_ENV,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        output, _ = await asyncio.wait_for(child.communicate(), timeout)
    except TimeoutError:
        child.kill()
        raise RuntimeError(f"copying the course for {account.pw_name} took over {timeout:.0f} s") from None
    text = output.decode(errors="replace").strip()
    if child.returncode != 0:
        raise RuntimeError(f"copying the course for {account.pw_name} failed "
                           f"(exit {child.returncode}): {text[-2000:]}")
    return text


def check_root_folder(fd: int, folder: Path) -> None:
    """The folder open at `fd` must be root's and writable by root alone."""
    info = os.fstat(fd)
    if info.st_uid != 0 or info.st_mode & 0o022:
        raise RuntimeError(f"{folder} must be a folder of root's that only root may write to "
                           f"(mode {stat.filemode(info.st_mode)}, owner uid {info.st_uid})")


def socket_folder(root: Path, account: pwd.struct_passwd) -> Path:
    """ROOT/<uid>, 700 and the student's: made and handed over through descriptors opened
    once, without following a link."""
    root.mkdir(parents=True, exist_ok=True)
    parent = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        check_root_folder(parent, root)
        os.fchmod(parent, 0o755)   # the hub's umask is 077: students must cross it
        name = str(account.pw_uid)
        try:
            os.mkdir(name, 0o700, dir_fd=parent)
        except FileExistsError:
            pass
        folder = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
        try:
            os.fchown(folder, account.pw_uid, account.pw_gid)
            os.fchmod(folder, 0o700)
        finally:
            os.close(folder)
    finally:
        os.close(parent)
    return root / name


def class_key(path: Path, student: str) -> dict:
    """The student's proxy settings from the class key file, or {} when it has none for them."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return {}
    if info.st_uid != 0 or info.st_mode & 0o077:
        raise RuntimeError(f"{path} holds the class's keys: it must be root's and 600 "
                           f"(it is {stat.filemode(info.st_mode)}, uid {info.st_uid}): chmod 600 {path}")
    keys = json.loads(path.read_text())
    key = keys.get("keys", {}).get(student)
    if not key:
        return {}
    return {"ANTHROPIC_BASE_URL": keys["base_url"], "ANTHROPIC_API_KEY": key, "MODEL_ID": keys["model"]}


def make_hook(course: Path, runtime_root: Path, key_file: Path):
    """The pre_spawn_hook for the course at `course`."""

    async def prepare_home(spawner) -> None:
        account = pwd.getpwnam(spawner.user.name)
        said = await copy_as_student(course, account)
        spawner.log.info("%s: %s", account.pw_name, said)
        runtime = socket_folder(runtime_root, account)
        # A new dict: this spawner's own, whatever its configured one is shared with.
        spawner.environment = {**spawner.environment, "JUPYTER_RUNTIME_DIR": str(runtime),
                               **class_key(key_file, account.pw_name)}

    return prepare_home
