"""Everything the compactor writes to disk, in one place under one root.

    <root>/.transcripts/transcript_<uuid4 hex>.jsonl    one JSON message a line (-2, -3, ... if taken)
    <root>/.task_outputs/tool-results/<name>.txt       a tool result's full text

Paths handed back are relative to the root. Its two promises to any agent whose bash can plant a
name: never through a link (folders opened a step at a time, O_NOFOLLOW; only regular files read),
never a partial file (a temporary name, then linked to a free name: a link never replaces one).
Names are collision-safe (flaw 7 in docs/DESIGN.md); a taken name is reused only if it holds the
very text; a saved copy is our folder's file holding the preview (flaw 6); a text with no UTF-8 form
is a StoreError. Left out, for the agent's sandbox (compact_course/agent/sandbox.py mounts these
folders read-only to bash): hard links, huge or sparse files, a copy rewritten after it was saved.
"""

import errno
import hashlib
import json
import os
import random
import re
import stat
import uuid
from contextlib import suppress
from pathlib import Path

TRANSCRIPTS = ".transcripts"
TOOL_RESULTS = ".task_outputs/tool-results"
SEED = 8
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_TRANSCRIPT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC   # a FIFO: no wait for a writer
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def seeded_ids(seed: int | None = SEED):
    """A `new_id`: uuid4-shaped names, the same every run from a seed (None: the system's)."""
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
    # surrogatepass: an id holding a lone surrogate still gets a name.
    return f"{name[:107]}-{hashlib.sha256(tool_use_id.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"


def _regular_bytes(dir_fd: int, name: str, limit: int | None = None) -> bytes | None:
    """A regular file's bytes (at most `limit`); None for a link, a FIFO, a device, or none."""
    try:
        fd = os.open(name, _READ, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        return os.read(fd, info.st_size if limit is None else limit) if stat.S_ISREG(info.st_mode) else None
    except OSError:
        return None
    finally:
        os.close(fd)


class Store:
    def __init__(self, root, new_id=None):
        self.root = Path(root).resolve()
        self._new_id = new_id or seeded_ids(None)
        self.written: list[str] = []  # relative paths, in the order written

    def _folder(self, folder: str, create: bool) -> int:   # each step a real folder, else OSError
        if create:
            os.makedirs(self.root, exist_ok=True)
        fd, walked = os.open(self.root, _FOLDER), []
        for part in folder.split("/"):
            walked.append(part)
            try:
                try:
                    child = os.open(part, _FOLDER, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise
                    with suppress(FileExistsError):   # made a moment ago by another writer
                        os.mkdir(part, dir_fd=fd)
                    child = os.open(part, _FOLDER, dir_fd=fd)
            except OSError:
                if os.path.islink(self.root.joinpath(*walked)):
                    raise OSError(errno.ELOOP, f"{'/'.join(walked)} is a symbolic link, and the store "
                                               "follows none (it could lead outside the root)") from None
                raise
            finally:
                os.close(fd)
            fd = child
        return fd

    def _save(self, folder: str, stem: str, suffix: str, data: bytes, reuse: bool) -> str:
        """`data` under the first free name, name-2, ... (if `reuse`: or one that holds it)."""
        dir_fd, temporary = None, f".{stem}{suffix}.{uuid.uuid4().hex[:12]}.tmp"
        try:
            dir_fd = self._folder(folder, create=True)
            fd = os.open(temporary, _NEW, 0o666, dir_fd=dir_fd)
            try:   # no fsync: what a power cut takes, the session in memory loses too
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            for name in (f"{stem}-{n}{suffix}" if n > 1 else stem + suffix for n in range(1, 1000)):
                try:
                    os.link(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
                except FileExistsError:
                    if reuse and _regular_bytes(dir_fd, name, len(data) + 1) == data:
                        return f"{folder}/{name}"
                    continue
                self.written.append(f"{folder}/{name}")
                return f"{folder}/{name}"
        except OSError as error:
            raise StoreError(f"could not write {folder}/{stem}{suffix}: {error.strerror or error}") from error
        finally:
            if dir_fd is not None:
                with suppress(OSError):
                    os.unlink(temporary, dir_fd=dir_fd)
                os.close(dir_fd)
        raise StoreError(f"no free file name for {stem}{suffix}")

    def write_transcript(self, messages, texts=None) -> str:
        """`texts`: each message's JSON when the caller has it already (the compactor does)."""
        new_id = self._new_id()
        # The id becomes part of a path: refuse anything that could leave the folder.
        if not isinstance(new_id, str) or not _TRANSCRIPT_ID.fullmatch(new_id):
            raise ValueError(f"new_id() must return 1-64 letters, digits, '_' or '-', got {new_id!r}")
        texts = texts or [json.dumps(m, ensure_ascii=False) for m in messages]
        try:
            data = "".join(text + "\n" for text in texts).encode("utf-8")
        except UnicodeEncodeError:   # a lone surrogate: as a JSON escape (\ud800) it reads back exactly
            data = "".join(json.dumps(m) + "\n" for m in messages).encode("utf-8")
        return self._save(TRANSCRIPTS, f"transcript_{new_id}", ".jsonl", data, reuse=False)

    def persist_result(self, tool_use_id: str, text: str) -> str:
        """Save a tool result's full text; reuse a file only if it holds this text."""
        stem = safe_name(tool_use_id)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise StoreError(f"could not write {TOOL_RESULTS}/{stem}.txt: the text could not be encoded "
                             f"as UTF-8 ({error.reason} at character {error.start})") from None
        return self._save(TOOL_RESULTS, stem, ".txt", data, reuse=True)

    # -- reading back: only our own folders' regular files -----------------------------------
    def _bytes(self, relative_path, folder: str, suffix: str, limit: int | None = None):
        # _regular_bytes of folder/<name><suffix>, when `relative_path` is exactly that
        name = relative_path[len(folder) + 1:] if isinstance(relative_path, str) \
            and relative_path.startswith(folder + "/") else ""
        if "/" in name or "\x00" in name or not name.endswith(suffix):
            return None
        try:
            dir_fd = self._folder(folder, create=False)
        except OSError:
            return None
        try:
            return _regular_bytes(dir_fd, name, limit)
        finally:
            os.close(dir_fd)

    def saved_text(self, relative_path: str) -> str | None:
        """A saved tool result's text, only if the path is one of ours and a regular file."""
        data = self._bytes(relative_path, TOOL_RESULTS, ".txt")
        with suppress(UnicodeDecodeError):
            return None if data is None else data.decode("utf-8")

    def is_saved_copy(self, relative_path: str, preview: str) -> bool:
        """True for one of our saved files that starts with `preview` (only that much is read)."""
        try:
            expected = preview.encode("utf-8")
        except UnicodeEncodeError:   # a lone surrogate: no file of ours holds it
            return False
        return self._bytes(relative_path, TOOL_RESULTS, ".txt", len(expected)) == expected

    def read_transcript(self, relative_path: str) -> list | None:
        """A transcript's messages, only if the path is one of ours and a regular file of JSON lines."""
        data = self._bytes(relative_path, TRANSCRIPTS, ".jsonl")
        with suppress(ValueError):   # not UTF-8, or a line that is not JSON: not a transcript of ours
            return None if data is None else [json.loads(line) for line in data.decode().splitlines() if line]
