"""Everything the compactor writes to disk, in one place under one root.

    <root>/.transcripts/transcript_<uuid4 hex>.jsonl    one JSON message a line (-2, -3, ... if taken)
    <root>/.task_outputs/tool-results/<name>.txt       a tool result's full text

Paths handed back (and written into markers) are relative to the root, in
POSIX form, so the agent can `read_file` them from its workspace.

What the article does and this store does differently, in both profiles:
- files appear whole: written to a temporary name, then renamed;
- names are collision-safe (flaw 7 in docs/DESIGN.md): the article's sanitized
  id is kept when it is the id itself; otherwise a hash of the real id is
  added; and an existing file is reused only when it holds the very same text;
- a transcript never replaces an earlier one: a restarted `new_id` (a notebook
  cell run twice) gets a numbered name instead of overwriting a file that an
  older marker still points at;
- a saved copy is trusted only when it lies in our own folder and exists
  (flaw 6); nothing outside the root is read or written, even when one of
  our folders is a symlink that leads elsewhere.

Left out: deleting or rotating old files; the transcripts are the record.
"""

import hashlib
import json
import os
import random
import re
import uuid
from pathlib import Path

TRANSCRIPTS = ".transcripts"
TOOL_RESULTS = ".task_outputs/tool-results"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_TRANSCRIPT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
SEED = 8


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
    digest = hashlib.sha256(tool_use_id.encode("utf-8")).hexdigest()[:12]
    return f"{name[:107]}-{digest}"


class Store:
    def __init__(self, root, new_id=None):
        self.root = Path(root).resolve()
        self._new_id = new_id or seeded_ids(None)
        self.written: list[str] = []  # relative paths, in the order written

    # -- paths -------------------------------------------------------------
    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _folder(self, folder: str) -> Path | None:
        """Our folder, resolved; None if a symlink takes it outside the root."""
        base = (self.root / folder).resolve()
        return base if self.root in base.parents else None

    def inside(self, relative_path: str, folder: str) -> Path | None:
        """The absolute path, if `relative_path` lies in `folder` under the root."""
        if not relative_path or "\x00" in relative_path:
            return None
        base = self._folder(folder)
        candidate = (self.root / relative_path).resolve()
        if base is None or candidate.parent != base:
            return None
        return candidate

    # -- writing -------------------------------------------------------------
    def _write_whole(self, path: Path, text: str) -> None:
        tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            if self.root not in path.parent.resolve().parents:
                raise StoreError(f"{self.relative(path.parent)} leads outside {self.root}")
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except OSError as error:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
            raise StoreError(f"could not write {self.relative(path)}: "
                             f"{error.strerror or error}") from error
        self.written.append(self.relative(path))

    def write_transcript(self, messages) -> str:
        stem = f"transcript_{self._transcript_id()}"
        path = self.root / TRANSCRIPTS / f"{stem}.jsonl"
        number = 1
        while self._taken(path):
            number += 1
            path = path.with_name(f"{stem}-{number}.jsonl")
        lines = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)
        self._write_whole(path, lines)
        return self.relative(path)

    def _transcript_id(self) -> str:
        value = self._new_id()
        # The id becomes part of a path: refuse anything that could leave the folder.
        if not isinstance(value, str) or not _TRANSCRIPT_ID.fullmatch(value):
            raise ValueError(f"new_id() must return 1-64 letters, digits, '_' or '-', got {value!r}")
        return value

    @staticmethod
    def _taken(path: Path) -> bool:
        try:
            return path.exists() or path.is_symlink()
        except OSError:
            return False

    def persist_result(self, tool_use_id: str, text: str) -> str:
        """Save a tool result's full text; reuse a file only if it holds this text."""
        folder = self.root / TOOL_RESULTS
        stem = safe_name(tool_use_id)
        for attempt in range(1, 1000):
            name = stem if attempt == 1 else f"{stem}-{attempt}"
            path = folder / f"{name}.txt"
            existing = self._read(path)
            if existing == text:
                return self.relative(path)
            if existing is None and not self._taken(path):
                self._write_whole(path, text)
                return self.relative(path)
        raise StoreError(f"no free file name for tool_use_id {tool_use_id!r}")

    # -- reading back --------------------------------------------------------
    @staticmethod
    def _read(path: Path) -> str | None:
        """The file's text, or None when it is missing or cannot be read as ours."""
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def saved_text(self, relative_path: str) -> str | None:
        """A saved tool result's text, only if the path is one of ours and exists."""
        path = self.inside(relative_path, TOOL_RESULTS)
        return self._read(path) if path and path.suffix == ".txt" else None

    def is_saved_copy(self, relative_path: str, preview: str | None = None) -> bool:
        text = self.saved_text(relative_path)
        if text is None:
            return False
        return preview is None or text.startswith(preview)

    def read_transcript(self, relative_path: str) -> list | None:
        path = self.inside(relative_path, TRANSCRIPTS)
        raw = self._read(path) if path else None
        if raw is None:
            return None
        return [json.loads(line) for line in raw.splitlines() if line]
