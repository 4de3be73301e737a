"""Notebook 09: the learner's own `prepare` (notebooks/my_compact.py), live in the article's agent.

    prepare = your_prepare()                          # my_compact.py's prepare, or the article's
    run = live_run(DOCS_JSON, COMPARE_CODE)           # the agent with it before every model call
    choice = page_model()                             # the set-up of 09's first cell
    workspace = fresh_workspace(folder)

`your_prepare` reads my_compact.py afresh (as the build track's check does) and returns its
`prepare(messages, root, active_request, summarize, limit)`. While that still raises
NotImplementedError (the starter, as when the stored notebook is built: tried once on a
one-message list in a scratch folder) it returns the article's own pipeline at the same
signature (compact_course/article.py) instead, and its first printed line says so.

`live_run` copies the sample workspace to a scratch folder, starts a model of its own (offline
unless a key is set, or CI or COMPACT_OFFLINE is; never recorded into a cassette: a learner's
run is not the class's recording) and asks the article's agent its questions in turn, in one
conversation, with that `prepare` before every model call. It
watches the steps (the file's functions, or the article's methods): a step fired at a call
when it changed the list, and compact_history whenever it ran. It prints whose prepare ran,
the model calls and the answer's first line, and returns a `LiveRun` holding the steps fired
at each call and the files on disk after; what fired is printed by notebook 09's checker
(exercises/live.py), once the learner has written a prediction.

`page_model` is 09's own model for the article's runs: chosen from the environment as
docs/INSTALL.md says (a cassette replays or records), printing which model answers and the
cassette line; `calls_only` cuts the agent's echo to its tool calls and the compactor's lines.

Left out: the agent's reactive compaction and the compact tool (the loop's, not prepare's:
the package's own run them), and a learner's file that imports the course (the build track's
checks refuse it; here it simply runs).
"""

import functools
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from context_compact import CompactionConfig
from context_compact.formats import SUMMARY_SYSTEM
from context_compact.messages import text_of, to_plain

from ..agent.loop import Agent
from ..agent.model import choose_model
from ..agent.workspace import fresh_workspace
from ..display.lang import choose
from ..display.phrases import say
from .replay import seeded_ids

STEPS = ("tool_result_budget", "snip_compact", "micro_compact", "compact_history")
FOLDERS = {"saved_results": ".task_outputs/tool-results", "transcripts": ".transcripts"}

SAID = {
    "yours": ("your prepare, from {file}, before every model call",
              "你的 prepare（来自 {file}），在每次模型调用之前运行"),
    "article": ("your prepare is not written yet: running the article's, compact_course/article.py",
                "你的 prepare 还没有写：运行文章的 prepare，compact_course/article.py"),
    "done": ("model calls: {calls}; the answer's first line: {line}",
             "模型调用：{calls} 次；回答的第一行：{line}"),
}


def said(key: str, **values) -> str:
    return choose(*SAID[key]).format(**values)


@dataclass
class LiveRun:
    whose: str                                    # "yours" or "article"
    fired: list = field(default_factory=list)     # per model call, the steps that fired, in order
    on_disk: dict = field(default_factory=dict)   # saved_results, transcripts: files counted
    model_calls: int = 0
    answer: str = ""

    def at_calls(self, step: str) -> list:
        """The calls (from 1) at which `step` fired."""
        return [n for n, steps in enumerate(self.fired, 1) if step in steps]

    def values(self) -> dict:
        """What the prediction names: each step's calls, then the files on disk."""
        return {**{step: self.at_calls(step) for step in STEPS}, **self.on_disk}


def _json(messages) -> str:
    return json.dumps(to_plain(messages), ensure_ascii=False, default=str)


def watched(function, name: str, fired: list):
    """`function` noting its name in fired[-1] when it changes the list (compact_history: when it runs)."""
    @functools.wraps(function)
    def step(messages, *args, **kwargs):
        before = _json(messages)
        out = function(messages, *args, **kwargs)
        if fired and (name == "compact_history" or _json(out) != before):
            fired[-1].append(name)
        return out
    return step


def summarizer(client, model: str):
    """summarize(text) -> str: the model call a learner's step 4 is handed."""
    def summarize(text: str) -> str:
        response = client.messages.create(model=model, system=SUMMARY_SYSTEM, max_tokens=2000,
                                          messages=[{"role": "user", "content": text}])
        return text_of(to_plain(response.content)).strip()
    return summarize


def _written(path: Path):
    """my_compact.py's module, run afresh, if its prepare is written; None while it raises
    NotImplementedError. Any other error is the learner's, raised as it is."""
    from .build_track import learner
    module = learner.load(path)
    with tempfile.TemporaryDirectory(prefix="my-prepare-") as scratch:
        try:
            module.prepare([{"role": "user", "content": "hi"}], Path(scratch), "hi", lambda text: "")
        except NotImplementedError:
            return None
    return module


def your_prepare(path=None, fired: list | None = None):
    """prepare(messages, root, active_request, summarize, limit=50_000): my_compact.py's (beside
    the notebook, or `path`) if written, else the article's; the first printed line says which.
    With `fired`, each step notes in fired[-1] when it fired (live_run's record)."""
    path = Path(path) if path else Path.cwd() / "my_compact.py"
    module = _written(path)
    print(said("yours", file=path.name) if module else said("article"))
    if module is not None:
        for name in STEPS if fired is not None else ():
            if callable(getattr(module, name, None)):
                setattr(module, name, watched(getattr(module, name), name, fired))
        module.prepare.whose = "yours"
        return module.prepare

    def prepare(messages, root, active_request, summarize, limit=50_000):
        from ..article import ArticleCompactor
        article = ArticleCompactor(root, lambda system, text, max_tokens: summarize(text),
                                   CONTEXT_CHAR_LIMIT=limit)
        for name in STEPS if fired is not None else ():
            setattr(article, name, watched(getattr(article, name), name, fired))
        return article.prepare(messages, active_request)
    prepare.whose = "article"
    return prepare


def offline_forced() -> bool:
    """CI or COMPACT_OFFLINE set: the offline model even when a key is configured."""
    return any(os.environ.get(name) for name in ("CI", "COMPACT_OFFLINE"))


def page_model():
    """09's model (a ModelChoice), with two lines said: which model answers (the offline
    server's port, new on every run, masked) and whether a cassette records or replays."""
    cassette = os.environ.get("COMPACT_CASSETTE")
    choice = choose_model(offline=offline_forced(), echo=None, cassette=cassette,
                          record=os.environ.get("COMPACT_RECORD"))
    print(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", choice.description))
    if choice.recorder is not None:
        print(say("cassette recording", path=choice.recorder.path))
    elif choice.server is not None and choice.server.cassette is not None:
        print(say("cassette replaying", path=cassette, what=choice.server.cassette.describe()))
    else:
        print(say("cassette none"))
    return choice


def calls_only(line: str) -> None:
    """The agent's echo cut to tool calls (`>`) and what the compactor prints (`[...]`)."""
    if line.startswith((">", "[")):
        print(line)


def on_disk(root: Path) -> dict:
    return {key: sum(1 for p in (root / folder).glob("*") if p.is_file())
            for key, folder in FOLDERS.items()}


def live_run(*questions: str, limit: int = 50_000, path=None, offline: bool | None = None) -> LiveRun:
    """The agent asked `questions` in turn (one conversation), in a fresh copy of the workspace,
    with your_prepare() before every call. offline None: offline_forced()."""
    fired: list = []
    prepare = your_prepare(path, fired)
    run = LiveRun(prepare.whose)
    with tempfile.TemporaryDirectory(prefix="my-run-") as folder:
        workspace = fresh_workspace(folder)
        offline = offline_forced() if offline is None else offline
        choice = choose_model(offline=offline, echo=None, record=False)
        try:
            summarize = summarizer(choice.client, choice.model)

            def before_each_call(compactor, messages, request):
                fired.append([])
                return prepare(messages, workspace, request, summarize, limit)
            agent = Agent(workspace, choice.client, choice.model, echo=None, new_id=seeded_ids(seed=5),
                          config=CompactionConfig.seed(context_char_limit=limit), prepare=before_each_call)
            for question in questions:
                run.answer = agent.ask(question)
        finally:
            choice.close()
        run.fired, run.on_disk, run.model_calls = fired, on_disk(workspace), agent.model_calls
    print(said("done", calls=run.model_calls, line=(run.answer.splitlines() or [""])[0][:120]))
    return run
