"""Message-history builders and checks shared by the tests of the compact package.

Builders make plain dicts in the Messages API format (user requests, assistant
turns with tool_use blocks, user tool_result batches), with texts that are
unique per tool call so a test can tell every result apart. `Archive` follows
the compactor's markers back to disk: it is how the tests check that nothing
taken out of context was lost (the Lossless invariant in docs/DESIGN.md) and
that no marker points at a missing file (Fail safe). `offline_model` runs the
offline model with an SDK client for the tests that talk to a model; `sdk_error` is
the SDK's own error for a refusal, for the tests that script one.

Left out on purpose: anything random without a seed; the hypothesis strategies
live in test_invariants.py, the only place that needs them.
"""

import json
import random
import re
from contextlib import contextmanager
from pathlib import Path

from compact_course.offline.model.extractive import extractive_summary
from context_compact import CompactionConfig, ContextCompactor, formats
from context_compact.messages import non_text_blocks, request_positions, text_of, to_plain, tool_results
from context_compact.steps import ALWAYS, ON_REFUSAL, STEPS
from context_compact.store import seeded_ids

IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}


# -- builders ---------------------------------------------------------------------

def user(text: str) -> dict:
    return {"role": "user", "content": text}


def tool_use(tool_id: str, name: str = "read_file", **tool_input) -> dict:
    return {"type": "tool_use", "id": tool_id, "name": name,
            "input": tool_input or {"path": f"src/{len(tool_id)}.py"}}


def tool_result(tool_id: str, content) -> dict:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content}


def assistant(*blocks, note: str | None = None) -> dict:
    content = ([{"type": "text", "text": note}] if note else []) + list(blocks)
    return {"role": "assistant", "content": content}


def body(tag: str, length: int, filler: str = "lorem ipsum dolor ") -> str:
    """A text of exactly `length` characters that starts with its own tag."""
    head = f"<{tag}>\n"
    return (head + filler * (length // max(1, len(filler)) + 1))[:max(length, 0)]


def call(results: dict, note: str | None = None, name: str = "read_file") -> list:
    """One model turn and its answers: {tool_use_id: content} -> [assistant, user]."""
    uses = [tool_use(tool_id, name) for tool_id in results]
    answers = [tool_result(tool_id, content) for tool_id, content in results.items()]
    return [assistant(*uses, note=note), {"role": "user", "content": answers}]


def pairs_history(turns: int, size: int = 200, request: str = "Fix the failing test.") -> list:
    """A request, then `turns` single-call turns: 1 + 2 * turns messages."""
    messages = [user(request)]
    for n in range(turns):
        tool_id = f"toolu_{n:02d}"
        messages += call({tool_id: body(tool_id, size)})
    return messages


def short_summary(messages) -> str:
    """The offline summarizer, kept short so a summary message fits small limits."""
    return extractive_summary(messages, max_chars=300)


class RecordingSummarizer:
    """A summarizer that remembers what it was asked to summarize."""

    def __init__(self, answer: str = "Summary: goal, files, remaining work."):
        self.answer = answer
        self.calls: list[list] = []

    def __call__(self, messages) -> str:
        self.calls.append(to_plain(messages))
        return self.answer


# The step order, from the pipeline's one list (context_compact/steps.py), never written out.
ARTICLE_STEPS = [step.name for step in STEPS if step.number is not None]   # the article's 1-4
EVERY_CALL = [step.name for step in STEPS if step.when == ALWAYS]          # prepare runs each call
IN_PREPARE = [step.name for step in STEPS if step.when != ON_REFUSAL]      # prepare may run


def prepare_steps(config) -> list:
    """The steps `prepare` may run under `config`, in order: its rows whose switch is on."""
    return [step.name for step in STEPS if step.when != ON_REFUSAL
            and (step.switch is None or getattr(config, step.switch))]


# The profiles every profile-wide test runs: the names CompactionConfig.named knows
# (tests/pipeline/test_config.py checks). Tests take the `profile` fixture (conftest.py); a
# hypothesis test, which cannot take a function-scoped fixture, parametrizes with this.
PROFILES = ("seed", "default")


def make_compactor(root, profile: str = "default", summarizer=short_summary, **overrides):
    config = CompactionConfig.named(profile, **overrides)
    return ContextCompactor(root, summarizer, config, new_id=seeded_ids())


def tool_heavy_session(turns: int, seed: int) -> list:
    """Chunks of a long coding session, for replay one model call at a time.

    Each chunk is what arrives before one model call: a typed request, or an
    assistant turn with 1-4 tool calls and their results (some tens of
    thousands of characters, like a long file or a build log).
    """
    rng = random.Random(seed)
    chunks = [[user("[task 000] Port the build to the new toolchain.")]]
    n = 0
    for turn in range(turns):
        if turn and turn % 30 == 0:
            chunks.append([assistant(note=f"Done with part {turn // 30}."),
                           user(f"[task {turn:03d}] Now continue with part {turn // 30 + 1}.")])
            continue
        results = {}
        for k in range(rng.randint(1, 4)):
            n += 1
            # Now and then a batch over 200000 (a build log and a data dump).
            size = 120000 if turn % 40 == 20 and k < 2 else rng.choice([60, 400, 1500, 4000, 9000, 36000])
            results[f"toolu_{n:04d}"] = body(f"toolu_{n:04d}", size, rng.choice(FILLERS))
        chunks.append(call(results, note=f"Step {turn}: reading more." if turn % 3 == 0 else None))
    return chunks


FILLERS = ("def build(target):\n    return run(target)\n", "ERROR: link failed; ",
           "中文字符的输出行。", 'quote " and backslash \\ ')


def replay(compactor, chunks, check=None) -> tuple[list, list, str]:
    """Agent-style replay: append each chunk, `prepare` before each model call.

    Returns (context, every message ever appended, the active request).
    """
    messages, originals, active = [], [], ""
    for chunk in chunks:
        for message in chunk:
            if message["role"] == "user" and isinstance(message["content"], str):
                active = message["content"]
        messages = messages + chunk
        originals += chunk
        messages = compactor.prepare(messages, active)
        if check:
            check(messages, active)
    return messages, originals, active


# -- reading results back from disk -------------------------------------------------

def marker_path(message: dict) -> str | None:
    """The transcript an archive marker or a summary message points at."""
    if message.get("role") != "user":
        return None
    text = text_of(message.get("content"))
    match = formats.ARCHIVE_RE.match(text) or formats.SUMMARY_RE.match(text)
    return match["path"] if match else None


def result_path(text: str) -> str | None:
    return formats.persisted_path(text) or formats.saved_path(text)


class Archive:
    """Everything that can be read back through a context's markers."""

    def __init__(self, store):
        self.store = store
        self._transcripts: dict[str, list | None] = {}
        self._normals: dict[str, tuple] = {}
        self._saved: dict[str, str | None] = {}

    def transcript(self, path: str) -> list | None:
        if path not in self._transcripts:
            self._transcripts[path] = self.store.read_transcript(path)
        return self._transcripts[path]

    def full_text(self, text: str) -> str:
        """Follow persisted blocks and placeholders to the saved text."""
        path = result_path(text)
        if not path:
            return text
        if path not in self._saved:  # saved files never change: read each once
            self._saved[path] = self.store.saved_text(path)
        saved = self._saved[path]
        return text if saved is None or saved == text else self.full_text(saved)

    def normal(self, message) -> str:
        """A message with every tool result's full text, as comparable JSON."""
        message = to_plain(message)
        content = message.get("content")
        if isinstance(content, list):
            content = [self._normal_block(b) for b in content]
        return json.dumps({**message, "content": content}, ensure_ascii=False, sort_keys=True)

    def _normal_block(self, block):
        if not (isinstance(block, dict) and block.get("type") == "tool_result"):
            return block
        inner = block.get("content", "")
        return {**block, "content": None, "text": self.full_text(text_of(inner)),
                "others": non_text_blocks(inner)}

    def reachable(self, context) -> set:
        """Normal forms of the context and of every transcript its markers lead to."""
        found, seen = set(), set()
        todo = self._expand(to_plain(context), found)
        while todo:
            path = todo.pop()
            if path in seen:
                continue
            seen.add(path)
            normals, children = self._transcript_normals(path)
            found |= normals
            todo.extend(children)
        return found

    def _expand(self, messages, found: set) -> list:
        """Add the messages' normal forms to `found`; return the transcripts they name."""
        paths = []
        for message in messages:
            found.add(self.normal(message))
            path = marker_path(message)
            if path:
                paths.append(path)
        return paths

    def _transcript_normals(self, path: str):
        # Transcripts and saved results never change, so each is read once.
        if path not in self._normals:
            normals = set()
            children = self._expand(self.transcript(path) or [], normals)
            self._normals[path] = (normals, children)
        return self._normals[path]

    def lost(self, originals, context) -> list:
        """Original messages that cannot be read back, whole, from context or disk."""
        found = self.reachable(context)
        return [m for m in to_plain(originals) if self.normal(m) not in found]

    def dangling(self, context, originals=()) -> list[str]:
        """Our markers in context whose file is missing.

        A tool output that merely looks like a marker (it is in `originals`,
        untouched) is not ours and may point anywhere.
        """
        foreign = set(whole_results(originals).values())
        problems = []
        for i, message in enumerate(to_plain(context)):
            path = marker_path(message)
            if path and self.transcript(path) is None:
                problems.append(f"messages[{i}] points at missing transcript {path}")
            for block in tool_results(message):
                text = text_of(block.get("content", ""))
                path = result_path(text)
                if path and text not in foreign and self.store.saved_text(path) is None:
                    problems.append(f"messages[{i}] {block['tool_use_id']} points at missing {path}")
        return problems


def result_texts(messages) -> list[str]:
    """The text of every tool result, oldest first."""
    return [text_of(b.get("content", "")) for m in to_plain(messages) for b in tool_results(m)]


def whole_results(messages) -> dict:
    """{tool_use_id: text} of every tool result, as the messages hold it."""
    return {b["tool_use_id"]: text_of(b.get("content", ""))
            for m in to_plain(messages) for b in tool_results(m)}


def request_count(messages, request: str) -> int:
    return len(request_positions(to_plain(messages), request))


def files_under(folder) -> list[str]:
    folder = Path(folder)
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


# -- the offline model ----------------------------------------------------------------

@contextmanager
def offline_model(window: int = 200_000, faults=(), max_retries: int = 0):
    """(server, client): the offline model on 127.0.0.1 and an SDK client for it."""
    from compact_course.agent.model import offline_client
    from compact_course.offline.api.server import start_offline_server

    with start_offline_server(window=window, faults=faults) as server:
        client = offline_client(server.base_url, max_retries=max_retries)
        try:
            yield server, client
        finally:
            client.close()


def sdk_error(status: int, message: str, kind: str = "invalid_request_error",
              request_id: str | None = None):
    """The SDK's own error for an API refusal: an SDK client is answered `status` with the
    API's error body (and `request-id`), so the error's class and its `str()` are the
    pinned SDK's, whatever form that SDK gives them (2.10.0 wrote "Error code: 400 - {body}",
    2.17.0 "400 <message> (path: ..., type: ...)"); nothing leaves the process."""
    import anthropic
    import httpx2

    body = {"type": "error", "error": {"type": kind, "message": message}}
    headers = {"request-id": request_id} if request_id else {}

    def refuse(request):
        return httpx2.Response(status, json=body, headers=headers)

    client = anthropic.Anthropic(api_key="not-a-key", base_url="http://127.0.0.1:9", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(refuse)))
    try:
        client.messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}])
    except anthropic.APIStatusError as error:
        return error
    finally:
        client.close()
    raise AssertionError(f"the SDK took a {status} as an answer")


def load_script(name: str):
    """scripts/<name>.py as a module (a script, not part of the package)."""
    import importlib.util
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_builder():
    """scripts/build_notebooks.py as a module."""
    return load_script("build_notebooks")


def check_recap(texts: list, opening: str, next_line: str, name: str) -> None:
    """One recap cell (`opening`), three points and `next_line`, with nothing taught after it."""
    recaps = [i for i, text in enumerate(texts) if text.startswith(opening + "\n")]
    assert len(recaps) == 1, f"{name}: expected one recap cell"
    recap = texts[recaps[0]]
    assert len(re.findall(r"^- ", recap, re.M)) == 3, recap
    assert f"\n{next_line} " in recap
    # Nothing taught after it: only clean-up code may follow.
    assert all(not re.search(r"^#+ ", text, re.M) for text in texts[recaps[0] + 1:]), name


def prepare_in_time(c, messages, request, bound: float, unblock):
    """prepare in a thread: (output, its CompactionWarnings), or a failed test when it does
    not return within `bound` seconds; `unblock()` first frees a thread stuck on a FIFO."""
    import threading
    import warnings

    import pytest

    from context_compact import CompactionWarning

    box = {}

    def work():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                box["out"] = c.prepare(messages, request)
            except BaseException as error:  # handed to the test thread below
                box["error"] = error
        box["warned"] = [w for w in caught if issubclass(w.category, CompactionWarning)]

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(bound)
    if thread.is_alive():
        unblock()
        thread.join(5)
        pytest.fail(f"prepare did not return within {bound} s")
    if "error" in box:
        raise box["error"]
    return box["out"], box["warned"]
