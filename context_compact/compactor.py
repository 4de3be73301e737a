"""ContextCompactor: the article's class, and `prepare`, the fixed order.

    tool_result_budget -> snip_compact -> micro_compact -> compact_history (only if still over)

`prepare` runs the rows of `context_compact.steps.STEPS`, each also a method by the article's name,
on plain dicts or SDK objects, checked, the caller's list unchanged (context_compact/working.py), a
StepRecord a step in `records`; with a thinking block in the list it edits nothing in place
(flaw 19). Left out: the model call and its refusal (the agent loop's), the `compact` tool.
"""

import warnings
from pathlib import Path

from . import media, summary, working
from .config import CompactionConfig
from .messages import check_request, estimate_chars, has_tool_use, thinking_count
from .record import StepRecord
from .steps import STEPS, step_named
from .store import Store


class CompactionWarning(UserWarning):
    """A write failed; the text stayed in context."""


class ContextCompactor:
    def __init__(self, root, summarizer=None, config: CompactionConfig | None = None, *,
                 client=None, model: str | None = None, measure=None, new_id=None, echo=None):
        self.config = config or CompactionConfig()
        self.store = Store(Path(root), new_id=new_id)
        self.measure = measure or estimate_chars
        # Tokens against characters would fire four times too late or early without a word.
        unit = getattr(self.measure, "unit", "characters")
        if unit != self.config.unit:
            raise ValueError(f"the measure counts {unit} but the config's context limit is in "
                             f"{self.config.unit}: set context_token_limit with a token measure")
        # Asked for now, not at the first call over the limit: a summary is what step 4 pays for.
        if summarizer is None and (client is None or not model):
            raise ValueError("ContextCompactor needs summarizer= (messages -> the summary's text), or "
                             "client= and model= to ask" + " (this client has no model name)" * bool(client))
        self._summarizer = summarizer or summary.client_summarizer(client, model,
                                                                   self.config.summary_input_char_limit)
        self.echo = echo  # callable(str) for the lines the article prints
        self.records: list[StepRecord] = []
        self.calls, self._model_calls, self._errors, self._working = 0, 0, [], working.Working()

    # -- what the steps use ----------------------------------------------------
    def summarize(self, messages) -> str:
        """Ask the summarizer (a model call, counted in the step's record); each image and document
        goes as a short text naming it (kind, media type, size), never as base64."""
        self._model_calls += 1
        return self._summarizer(media.without_media(messages))

    def report(self, problem: str) -> None:
        """A write failed and the text stayed: warn now, and say so in the step's record."""
        self._errors.append(problem)
        warnings.warn(problem, CompactionWarning, stacklevel=3)

    def echo_line(self, line: str) -> None:
        """Print, through echo if set, a line the article's agent prints ("[auto compact]", ...)."""
        if self.echo:
            self.echo(line)

    def size(self, messages) -> int:   # by the compactor's measure (the article's: each message's JSON)
        return self._working.size(messages) if self.measure is estimate_chars else self.measure(messages)

    def sizes(self, messages) -> list:   # each message's share of the size, in characters
        return self._working.sizes(messages)

    def texts(self, messages) -> list:   # each message's JSON, made once a call (a transcript's lines)
        return self._working.texts(messages)

    def replace_content(self, messages, index: int, block, content, chars: int | None):
        """Put `content` in `block` of messages[index] (the only way a step edits); the size after, given
        `chars` before: plus the change, or (another measure) that of the message and its call (issue 51)."""
        pair = slice(index - 1 if index and has_tool_use(messages[index - 1]) else index, index + 1)
        before = None if chars is None or self.measure is estimate_chars else self.measure(messages[pair])
        change = self._working.replace(messages, index, block, content)
        if chars is not None:
            return chars + (change if before is None else self.measure(messages[pair]) - before)

    # -- bookkeeping -----------------------------------------------------------
    def _run(self, step, messages, active_request=None, chars=None):
        """Run one step (a row of STEPS) and record it; `chars` is the size when known."""
        before_chars = self.size(messages) if chars is None else chars
        before_files, before_calls = len(self.store.written), self._model_calls
        self._errors, self._working.change = [], 0
        needs = {"request": active_request, "size": before_chars}
        thinking = self._thinking_in(messages)
        seen = self.texts(messages) if thinking else None
        out = step.run(messages, self, *(needs[need] for need in step.needs))
        in_place = out is messages and self.measure is estimate_chars   # each change counted
        after_chars = before_chars + self._working.change if in_place else self.size(out)
        self.records.append(StepRecord(
            call=self.calls, step=step.name, messages_before=self._count, messages_after=len(out),
            chars_before=before_chars, chars_after=after_chars,
            files=self.store.written[before_files:], model_calls=self._model_calls - before_calls,
            error="; ".join(self._errors) or None, **self._thinking_cost(seen, out, thinking)))
        self._count = len(out)
        return out, after_chars

    def _thinking_cost(self, seen, out, thinking: int) -> dict:   # seen: each message's JSON before
        if not thinking:
            return {}
        now = self.texts(out)
        first = next((i for i, text in enumerate(seen) if i >= len(now) or now[i] != text), None)
        return {"thinking_dropped": max(thinking - self._thinking_in(out), 0), "cache_restart_at": first,
                "thinking_invalidated": 0 if first is None else thinking_count(out[first:])}

    def _thinking_in(self, messages) -> int:   # once a list: edits in place touch no assistant block
        if self._counted[0] is not messages:
            self._counted = (messages, thinking_count(messages))
        return self._counted[1]

    def _start(self, messages):
        messages = self._working.begin(messages)   # checked; the caller's list is never changed
        self._count, self._counted = len(messages), (None, 0)
        return messages

    # -- the article's entry points: each step alone, by its name (its module says what it does)
    def run_step(self, name: str, messages, active_request=None):
        """One step alone, by its name in STEPS, on a copy of `messages`."""
        step = step_named(name)
        return self._working.finish(self._run(step, self._start(messages), active_request)[0])

    def tool_result_budget(self, messages):
        return self.run_step("tool_result_budget", messages)

    def snip_compact(self, messages, active_request=None):
        return self.run_step("snip_compact", messages, active_request)

    def micro_compact(self, messages):
        return self.run_step("micro_compact", messages)

    def persist_largest(self, messages):
        return self.run_step("persist_largest", messages)

    def compact_history(self, messages, active_request=None):
        return self.run_step("compact_history", messages, active_request)

    def reactive_compact(self, messages, active_request=None):
        return self.run_step("reactive_compact", messages, active_request)

    def prepare(self, messages, active_request):
        """Before every model call: the steps of STEPS in order, each when its row says. The
        three cheap steps cost no model call and leave a copy on disk (or, in the article's
        step 3, a short placeholder); only then, if still over the limit, is a summary paid
        for. Step 1 runs before step 3, or a large old result would lose its saved copy."""
        check_request(active_request)
        self.calls += 1
        messages = self._start(messages)
        chars = self.size(messages)
        thinking = self._thinking_in(messages) > 0   # then the default edits nothing in place
        for step in STEPS:
            # flaw 8: persist_largest's row needs persist_before_summary: only the default runs it.
            if not step.runs_in_prepare(self.config, chars, thinking):
                continue
            if step.says:
                self.echo_line(step.says)
            messages, chars = self._run(step, messages, active_request, chars=chars)
        return self._working.finish(messages)
