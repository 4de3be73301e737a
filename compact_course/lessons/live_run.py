"""The live notebook's "Your turn": experiment 3 again, with the learner's settings and prepare.

    your_run(question, profile="seed", limit=50_000, prepare=None, offline=False)

In a fresh copy of the sample workspace, with a model of its own (offline unless a
key is set; never recorded into a cassette), the article's agent runs `question`
with the profile, the `context_char_limit` and the `prepare` given: the learner's
own from notebook 08 (`prepare(compactor, messages, active_request)`), or None for
the package's `ContextCompactor.prepare`; the first line says which. It prints the
run's model calls and summary calls, the steps that fired, what it wrote and the
agent's answer, then closes the model and removes the copy, so it runs again and
again. Returns the Agent.

Left out: the cassette (a run of the learner's own is not the class's recording).
"""

import shutil
import tempfile
from pathlib import Path

from context_compact import CompactionConfig

from ..agent.loop import Agent
from ..agent.model import choose_model
from ..display.phrases import say
from ..sessions.histories import data_dir
from .replay import seeded_ids


def your_run(question: str, profile: str = "seed", limit: int = 50_000, prepare=None,
             offline: bool = False) -> Agent:
    name = getattr(prepare, "__name__", "prepare")
    print(say("live run: prepare own", name=name) if prepare is not None
          else say("live run: prepare the package's"))
    with tempfile.TemporaryDirectory(prefix="my-run-") as folder:
        workspace = Path(folder) / "workspace"
        shutil.copytree(data_dir() / "workspace", workspace,
                        ignore=shutil.ignore_patterns(".transcripts", ".task_outputs"))
        choice = choose_model(offline=offline, echo=None, record=False)
        try:
            run = Agent(workspace, choice.client, choice.model, echo=None, new_id=seeded_ids(seed=5),
                        config=CompactionConfig.named(profile, context_char_limit=limit),
                        prepare=prepare)
            answer = run.ask(question)
        finally:
            choice.close()
    records = run.compactor.records
    print(f"profile {profile}, context_char_limit {limit:,d}: model calls {run.model_calls}, "
          f"summary calls {sum(r.model_calls for r in records)}")
    print("steps that fired:", sorted({r.step for r in records if r.fired}) or "none")
    print("written:", [name.split("/")[0] for name in run.compactor.store.written] or "nothing")
    print(f"\nthe agent's answer:\n{answer}")
    return run
