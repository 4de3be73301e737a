"""Everything the compactor writes to disk, in one place under one root.

    <root>/.transcripts/transcript_<uuid4 hex>.jsonl    one JSON message a line (-2, -3, ... if taken)
    <root>/.task_outputs/tool-results/<name>.txt       a tool result's full text

Paths handed back (and written into markers) are relative to the root, in
POSIX form, so the agent can `read_file` them from its workspace.

What the article does and this store does differently, in both profiles:
- files appear whole and are never replaced: written to a temporary name,
  then renamed to a name that must be free (Linux's renameat2 with
  RENAME_NOREPLACE fails if it is taken; where there is no such rename, a hard
  link, which fails too), so concurrent writers on one root never swap texts.
  One open and one rename a file, no fsync; the next free name is made only
  when the one before it is taken, and a call holds its folders open
  (`held_folders`) rather than walking them again for every file;
- names are collision-safe (flaw 7 in docs/DESIGN.md): the article's sanitized
  id is kept when it is the id itself; otherwise a hash of the real id is
  added; and an existing file is reused only when it holds the very same text;
- a transcript never replaces an earlier one: a restarted `new_id` (a notebook
  cell run twice) gets a numbered name instead of overwriting a file that an
  older marker still points at;
- a saved copy is trusted only when it lies in our own folder and exists
  (flaw 6), and a copy this store wrote only while it still holds the text
  written (its size and SHA-256 are kept in memory): a bash command that
  rewrote it after the preview makes it untrusted;
- a temporary file of the store's own naming left by a writer that died
  (`kill -9` between the write and the link) is removed by the next store that
  writes into that folder, once it is older than STALE_TEMPORARY seconds.

Hostile file systems (the agent's bash can plant anything at a name it can
read in its context): every folder is opened one step at a time from the root
and must be a real folder, never a symlink, so nothing outside the root is read
or written; a file is read only when it is a regular file (never a link, a FIFO
or a device: it is opened non-blocking and checked with fstat), and never more
than the bytes expected + 1; a file is reused only when it has no other name
(a hard link's other name could change it). A tool result's text that cannot
be encoded as UTF-8 (a lone surrogate) is a failed write like a full disk:
StoreError, and no file is left; in a transcript such a message is written
with JSON escapes instead, which read back exactly.

Left out: deleting or rotating old files; the transcripts are the record.
"""

import ctypes
import errno
import hashlib
import json
import os
import random
import re
import stat
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

TRANSCRIPTS = ".transcripts"
TOOL_RESULTS = ".task_outputs/tool-results"
READ_LIMIT = 64 * 1024 * 1024  # bytes: the most read back from a file whose size we cannot know
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_TRANSCRIPT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_MAX_NAMES = 1000  # name, name-2, ... name-999
# `.<name>.<12 hex>.tmp`, as `_temporary_name` makes them; older than this, no writer is on it.
_TEMPORARY = re.compile(r"\..+\.[0-9a-f]{12}\.tmp")
STALE_TEMPORARY = 300  # seconds: writing the largest result takes far less

_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: should a FIFO be swapped in after the check, opening it cannot wait for a writer.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# A file system without hard links says so with one of these; the name is then created with O_EXCL.
_NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS}

SEED = 8
_RENAME_NOREPLACE = 1   # renameat2's flag: fail with EEXIST rather than replace
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP}
_renameat2 = []         # libc's renameat2 once looked up: [function] or [None]


def _rename_noreplace(dir_fd: int, old: str, new: str) -> bool | None:
    """Rename `old` to `new` in one folder unless `new` exists: True when renamed, False
    when taken, None when the system or the file system has no such rename."""
    if not _renameat2:
        _renameat2.append(_load_renameat2())
    function = _renameat2[0]
    if function is None:
        return None
    if function(dir_fd, os.fsencode(old), dir_fd, os.fsencode(new), _RENAME_NOREPLACE) == 0:
        return True
    code = ctypes.get_errno()
    if code == errno.EEXIST:
        return False
    if code in _UNSUPPORTED:
        return None
    raise OSError(code, os.strerror(code))


def _load_renameat2():
    """Linux's renameat2 from the C library (glibc 2.28 and later), or None."""
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    function.restype = ctypes.c_int
    return function


def _free_names(stem: str, suffix: str):
    """name, name-2, ... name-999, one at a time: most writes need only the first."""
    yield f"{stem}{suffix}"
    for n in range(2, _MAX_NAMES):
        yield f"{stem}-{n}{suffix}"


def seeded_ids(seed: int | None = SEED):
    """A `new_id` for the store: uuid4-shaped 32-hex names drawn from `seed`.

    A number gives the same names in the same order every run (replays,
    notebooks, the benchmark, the tests); None seeds from the operating system,
    a new sequence each time (the store's default, for a live session).
    """
    rng = random.Random(seed)
    return lambda: uuid.UUID(int=rng.getrandbits(128), version=4).hex


class StoreError(OSError):
    """A write that failed; the text it was meant to hold stays in context."""


def sanitize_id(tool_use_id: str) -> str:
    """The article's file name: unsafe characters to '_', cut to 120."""
    return _UNSAFE.sub("_", tool_use_id)[:120]


def safe_name(tool_use_id: str) -> str:
    """The article's name when it is the id itself, else that name and a hash of the id."""
    name = sanitize_id(tool_use_id)
    if name == tool_use_id and name not in ("", ".", ".."):
        return name
    # surrogatepass: an id holding a lone surrogate still gets a name (UTF-8 ids hash as before).
    digest = hashlib.sha256(tool_use_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{name[:107]}-{digest}"


def _encoded(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise OSError(errno.EILSEQ, f"the text could not be encoded as UTF-8 "
                                    f"({error.reason} at character {error.start})") from None


def _json_line(message, text: str | None = None) -> str:
    line = json.dumps(message, ensure_ascii=False) if text is None else text
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate has no UTF-8 form; as a JSON escape (\ud800) it reads back exactly.
        line = json.dumps(message)
    return line + "\n"


def _read_at_most(fd: int, limit: int) -> bytes:
    """Up to limit + 1 bytes: one more than allowed is enough to see a file is too long."""
    chunks, left = [], limit + 1
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _write_whole(fd: int, data: bytes) -> None:
    """All of `data` to `fd`; `fd` is closed even when a write fails.

    No fsync: readers see the file whole from the moment it has its name (a
    rename is atomic); what a power cut would take is also what the session in
    memory would lose, and an fsync per file made step 3 take seconds.
    """
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _unlink_quietly(dir_fd: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except OSError:
        pass


def _temporary_name(name: str) -> str:
    """Where `name`'s bytes are written before they appear under `name` (see _TEMPORARY)."""
    return f".{name}.{uuid.uuid4().hex[:12]}.tmp"


class Store:
    def __init__(self, root, new_id=None):
        self.root = Path(root).resolve()
        self._new_id = new_id or seeded_ids(None)
        self.written: list[str] = []  # relative paths, in the order written
        self._held: dict | None = None  # folder -> descriptor, inside held_folders()
        self._copies: dict[str, tuple] = {}  # relative path -> (bytes, sha256) of what it holds
        self._swept: set[str] = set()  # folders already cleared of stale temporary files

    # -- paths -------------------------------------------------------------
    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    @staticmethod
    def _name_in(relative_path, folder: str, suffix: str) -> str | None:
        """The file name, when `relative_path` is exactly folder/<one name><suffix>."""
        if not isinstance(relative_path, str) or not relative_path.startswith(folder + "/"):
            return None
        name = relative_path[len(folder) + 1:]
        if "/" in name or "\x00" in name or not name.endswith(suffix) or name.strip(".") == "":
            return None
        return name

    # -- folders, one real folder at a time ------------------------------------
    @contextmanager
    def held_folders(self):
        """Inside the block, each folder is walked from the root once, not once a file.

        The compactor holds its folders for one call: a call that saves many
        results walks `.task_outputs/tool-results` once. Nothing else runs in
        the call (the agent's tools run between calls), so nothing can swap a
        folder in between; the next call walks them again.
        """
        if self._held is not None:   # already held by an outer block
            yield
            return
        self._held = {}
        try:
            yield
        finally:
            held, self._held = self._held, None
            for fd in held.values():
                os.close(fd)

    def _folder_fd(self, folder: str, create: bool) -> tuple[int, bool]:
        """(descriptor of root/folder, whether the caller closes it): a held one if any."""
        if self._held is not None and folder in self._held:
            return self._held[folder], False
        fd = self._open_folder(folder, create)
        if self._held is None:
            return fd, True
        self._held[folder] = fd
        return fd, False

    def _open_folder(self, folder: str, create: bool) -> int:
        """A descriptor of root/folder; OSError if a step is missing (unless `create`) or no folder."""
        if create:
            os.makedirs(self.root, exist_ok=True)
        fd = os.open(self.root, _FOLDER_FLAGS)
        walked = []
        for part in folder.split("/"):
            walked.append(part)
            try:
                child = self._open_step(fd, part, create, "/".join(walked))
            finally:
                os.close(fd)
            fd = child
        return fd

    @staticmethod
    def _open_step(fd: int, part: str, create: bool, where: str) -> int:
        try:
            try:
                return os.open(part, _FOLDER_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, dir_fd=fd)
                except FileExistsError:
                    pass  # a concurrent writer made it a moment ago
                return os.open(part, _FOLDER_FLAGS, dir_fd=fd)
        except OSError as error:
            # O_NOFOLLOW refuses a link; say so plainly rather than "Not a directory".
            if error.errno in (errno.ENOTDIR, errno.ELOOP) and Store._is_link(fd, part):
                raise OSError(errno.ELOOP, f"{where} is a symbolic link, and the store "
                                           f"follows none (it could lead outside the root)") from None
            raise

    @staticmethod
    def _is_link(fd: int, name: str) -> bool:
        try:
            return stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
        except OSError:
            return False

    # -- files ------------------------------------------------------------------
    @staticmethod
    def _open_regular(dir_fd: int, name: str):
        """(descriptor, fstat) of a regular file `name`, or None: links, FIFOs, devices
        and folders are never opened (lstat first), and fstat checks what was opened."""
        try:
            if not stat.S_ISREG(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
                return None
            fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
        except OSError:
            return None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # swapped between the two looks
            os.close(fd)
            return None
        return fd, info

    def _read_bytes(self, folder: str, name: str, limit: int, whole: bool = True) -> bytes | None:
        """A regular file's bytes (its first `limit` if not `whole`); None if not one, or longer."""
        try:
            dir_fd, owned = self._folder_fd(folder, create=False)
        except OSError:
            return None
        try:
            opened = self._open_regular(dir_fd, name)
        finally:
            if owned:
                os.close(dir_fd)
        if opened is None:
            return None
        fd, info = opened
        try:
            if whole and info.st_size > limit:
                return None
            data = _read_at_most(fd, limit)
        except OSError:
            return None
        finally:
            os.close(fd)
        if len(data) > limit:
            return None if whole else data[:limit]
        return data

    def _state(self, dir_fd: int, name: str, data: bytes | None) -> str:
        """'missing', 'same' (a regular file with one name holding exactly `data`) or 'taken'."""
        try:
            os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return "missing"
        except OSError:
            return "taken"
        opened = self._open_regular(dir_fd, name) if data is not None else None
        if opened is None:
            return "taken"
        fd, info = opened
        try:
            # One name only: through a hard link's other name the text could change under us.
            if info.st_nlink != 1 or info.st_size != len(data):
                return "taken"
            return "same" if _read_at_most(fd, len(data)) == data else "taken"
        except OSError:
            return "taken"
        finally:
            os.close(fd)

    @staticmethod
    def _temporary(dir_fd: int, name: str, data: bytes) -> str:
        """A new file holding `data` under a temporary name (the one open of a write)."""
        temporary = _temporary_name(name)
        fd = os.open(temporary, _CREATE_FLAGS, 0o666, dir_fd=dir_fd)
        try:
            _write_whole(fd, data)
        except OSError:
            _unlink_quietly(dir_fd, temporary)
            raise
        return temporary

    @staticmethod
    def _place(dir_fd: int, temporary: str, name: str, data: bytes) -> bool:
        """Give the temporary file the name `name` if it is free, never replacing what is
        there; False if taken. After True the temporary name is gone."""
        renamed = _rename_noreplace(dir_fd, temporary, name)
        if renamed is not None:
            return renamed
        # No such rename here: a hard link never replaces either (the name is free or it fails).
        try:
            os.link(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
        except FileExistsError:
            return False
        except OSError as error:
            if error.errno not in _NO_HARD_LINKS:
                raise
            if not Store._create_in_place(dir_fd, name, data):
                return False
        _unlink_quietly(dir_fd, temporary)
        return True

    @staticmethod
    def _create_in_place(dir_fd: int, name: str, data: bytes) -> bool:
        """Without hard links: O_EXCL on the name itself (whole once this returns)."""
        try:
            fd = os.open(name, _CREATE_FLAGS, 0o666, dir_fd=dir_fd)
        except FileExistsError:
            return False
        try:
            _write_whole(fd, data)
        except OSError:
            os.unlink(name, dir_fd=dir_fd)
            raise
        return True

    # -- writing -------------------------------------------------------------
    def _save(self, folder: str, stem: str, suffix: str, text: str, reuse: bool) -> str | None:
        """Give the first free name of `stem` + `suffix` the text `text` (or reuse a file
        that holds it); None if no name is free.

        One open (the temporary file) and one rename per file, in the common case.
        """
        try:
            data = _encoded(text)
            dir_fd, owned = self._folder_fd(folder, create=True)
        except OSError as error:
            raise self._failed(f"{folder}/{stem}{suffix}", error) from error
        temporary = None
        try:
            self._sweep(folder, dir_fd)
            for name in _free_names(stem, suffix):
                path = f"{folder}/{name}"
                try:
                    temporary = temporary or self._temporary(dir_fd, name, data)
                    placed = self._place(dir_fd, temporary, name, data)
                except OSError as error:
                    raise self._failed(path, error) from error
                if placed:
                    temporary = None
                    self.written.append(path)
                    return self._remember(path, data)
                # Taken (by an earlier call, a concurrent writer, or something planted):
                # reuse it only if it holds our text; else try the next name.
                if reuse and self._state(dir_fd, name, data) == "same":
                    return self._remember(path, data)
            return None
        finally:
            if temporary is not None:
                _unlink_quietly(dir_fd, temporary)
            if owned:
                os.close(dir_fd)

    def _remember(self, path: str, data: bytes) -> str:
        self._copies[path] = (len(data), hashlib.sha256(data).digest())
        return path

    def _intact(self, path: str, data: bytes | None) -> bool:
        """False when `data` is not what this store saved at `path` (unknown paths pass)."""
        known = self._copies.get(path)
        return known is None or (data is not None
                                 and (len(data), hashlib.sha256(data).digest()) == known)

    def _sweep(self, folder: str, dir_fd: int) -> None:
        """Remove our own stale temporary files from `folder`, once per store."""
        if folder in self._swept:
            return
        self._swept.add(folder)
        now = time.time()
        for name in os.listdir(dir_fd):
            if not _TEMPORARY.fullmatch(name):
                continue
            try:
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                if stat.S_ISREG(info.st_mode) and now - info.st_mtime > STALE_TEMPORARY:
                    os.unlink(name, dir_fd=dir_fd)
            except OSError:
                pass  # gone already, or not ours to remove

    @staticmethod
    def _failed(path: str, error: OSError) -> StoreError:
        return StoreError(f"could not write {path}: {error.strerror or error}")

    def write_transcript(self, messages, texts=None) -> str:
        """`texts`: each message's JSON when the caller has it already (the compactor does)."""
        stem = f"transcript_{self._transcript_id()}"
        lines = "\n".join(texts) + "\n" if texts and messages else ""
        try:
            lines.encode("utf-8")   # one check for the whole text; a line that fails is redone
        except UnicodeEncodeError:
            lines = ""
        if not lines:
            lines = "".join(_json_line(m, t) for m, t in zip(messages, texts or [None] * len(messages)))
        path = self._save(TRANSCRIPTS, stem, ".jsonl", lines, reuse=False)
        if path is None:
            raise StoreError(f"no free file name for {stem}.jsonl")
        return path

    def _transcript_id(self) -> str:
        value = self._new_id()
        # The id becomes part of a path: refuse anything that could leave the folder.
        if not isinstance(value, str) or not _TRANSCRIPT_ID.fullmatch(value):
            raise ValueError(f"new_id() must return 1-64 letters, digits, '_' or '-', got {value!r}")
        return value

    def persist_result(self, tool_use_id: str, text: str) -> str:
        """Save a tool result's full text; reuse a file only if it holds this text."""
        stem = safe_name(tool_use_id)
        path = self._save(TOOL_RESULTS, stem, ".txt", text, reuse=True)
        if path is None:
            raise StoreError(f"no free file name for tool_use_id {tool_use_id!r}")
        return path

    # -- reading back --------------------------------------------------------
    def saved_text(self, relative_path: str) -> str | None:
        """A saved tool result's text, only if the path is one of ours and a regular file."""
        name = self._name_in(relative_path, TOOL_RESULTS, ".txt")
        data = self._read_bytes(TOOL_RESULTS, name, READ_LIMIT) if name else None
        if not self._intact(relative_path, data):
            return None
        try:
            return None if data is None else data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def is_saved_copy(self, relative_path: str, preview: str | None = None) -> bool:
        """True for one of our saved files that starts with `preview` (only that much is read)."""
        if preview is None or relative_path in self._copies:
            # One of ours: the whole text is checked, not only the preview.
            text = self.saved_text(relative_path)
            return text is not None and (preview is None or text.startswith(preview))
        name = self._name_in(relative_path, TOOL_RESULTS, ".txt")
        try:
            expected = preview.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return bool(name) and self._read_bytes(TOOL_RESULTS, name, len(expected), whole=False) == expected

    def read_transcript(self, relative_path: str) -> list | None:
        """A transcript's messages, only if the path is one of ours and a regular file of JSON lines."""
        name = self._name_in(relative_path, TRANSCRIPTS, ".jsonl")
        data = self._read_bytes(TRANSCRIPTS, name, READ_LIMIT) if name else None
        if data is None or not self._intact(relative_path, data):
            return None
        try:
            return [json.loads(line) for line in data.decode("utf-8").splitlines() if line]
        except ValueError:  # not UTF-8, or a line that is not JSON: not a transcript of ours
            return None
