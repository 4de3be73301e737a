"""The pipeline's steps in one list: the order `prepare` runs them, and what each needs.

    tool_result_budget -> snip_compact -> micro_compact -> persist_largest -> compact_history

`prepare`, the compactor's step methods, replay and the charts read the rows (a new step:
docs/CONTRIBUTING.md). Left out: the order's reasons (compactor.py), how a chart draws a step.
"""

from collections.abc import Callable
from dataclasses import dataclass

from . import budget, micro, reactive, snip, summary

ALWAYS = "always"           # on every prepare call
OVER_LIMIT = "over limit"   # only while the list is still over config.context_limit
ON_REFUSAL = "on refusal"   # never in prepare: the agent loop calls it when the API refuses


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable               # run(messages, compactor, *needs) -> messages
    number: int | None          # step N of the article; None for steps it does not have
    needs: tuple = ()           # "request": the active request; "size": the list's size now
    when: str = ALWAYS
    switch: str | None = None   # a CompactionConfig switch that must be on
    says: str | None = None     # the line the article's agent prints when the step runs
    edits_past: bool = False    # rewrites messages the model has already read, in place

    def runs_in_prepare(self, config, chars: int, thinking: bool = False) -> bool:
        """Whether `prepare` runs it now, the list `chars` long (`thinking`: with a thinking block)."""
        if self.switch is not None and not getattr(config, self.switch):
            return False
        if self.edits_past and thinking and config.append_only_thinking:
            return False
        if self.when == OVER_LIMIT:
            return chars > config.context_limit
        return self.when == ALWAYS


STEPS = (
    Step("tool_result_budget", budget.tool_result_budget, 1),
    Step("snip_compact", snip.snip_compact, 2, needs=("request", "size"), edits_past=True),
    Step("micro_compact", micro.micro_compact, 3, needs=("size",), edits_past=True),
    # flaw 8: a summary where a file write would do (the default's pass before step 4).
    Step("persist_largest", budget.persist_largest, None, needs=("size",), when=OVER_LIMIT,
         switch="persist_before_summary", edits_past=True),
    Step("compact_history", summary.compact_history, 4, needs=("request",), when=OVER_LIMIT,
         says="[auto compact]"),
    Step("reactive_compact", reactive.reactive_compact, None, needs=("request",), when=ON_REFUSAL),
)

BY_NAME = {step.name: step for step in STEPS}
NAMES = tuple(BY_NAME)


def step_named(name: str) -> Step:
    """The row of a step; ValueError naming the known steps for any other name."""
    if name not in BY_NAME:
        raise ValueError(f"unknown step {name!r}: use one of {', '.join(NAMES)}")
    return BY_NAME[name]
