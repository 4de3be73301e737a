"""Reading a request the way a model reads it (View), and what the model answers with
(Plan): its text and the calls to make.

Left out: the files on disk; a saved copy is known by its path, and reading it takes a call.
"""

from dataclasses import dataclass, field

from context_compact import formats
from context_compact.messages import text_of, tool_results, tool_uses, user_text

from .tools import Tools


@dataclass
class Call:
    """One tool call in the request, with what is left of its result."""
    id: str
    name: str
    input: dict
    text: str | None = None      # the result's text; None while unanswered
    fresh: bool = False          # its result is in the last message

    def arg(self, key: str) -> str:
        """A text argument of the call ('' when absent or not a text)."""
        return self.input.get(key) if isinstance(self.input.get(key), str) else ""

    @property
    def path(self) -> str:
        return self.arg("path")

    @property
    def command(self) -> str:
        return self.arg("command")

    @property
    def kind(self) -> str:
        return "pending" if self.text is None else formats.kind_of_result(self.text)

    @property
    def saved(self) -> str | None:
        """Where its full text was saved, if a marker says so."""
        return formats.persisted_path(self.text or "") or formats.saved_path(self.text or "")

    @property
    def failed(self) -> bool:
        """Its result is the tools' error text."""
        return self.kind == "whole" and self.text.startswith("Error: ")

    @property
    def visible(self) -> str:
        """The part of the result still readable here: whole text or preview."""
        if self.kind == "whole":
            return self.text
        match = formats.PERSISTED_RE.match(self.text or "")
        return match["preview"] if match else ""


@dataclass
class View:
    """Everything the model can read in one request."""
    request: str = ""
    calls: list = field(default_factory=list)
    notes: list = field(default_factory=list)       # the assistant's own text, oldest first
    summaries: list = field(default_factory=list)   # decoded summary texts: compaction ran
    offered: frozenset = frozenset()                # the jobs the request's tools do (tools.py)
    tools: Tools = field(default_factory=lambda: Tools({}))

    @property
    def knowledge(self) -> str:
        """Its notes and summaries as one text, where a fact can be searched for."""
        return "\n".join(self.notes + self.summaries)

    def reads(self, path: str) -> list:
        return [c for c in self.calls if c.name == "read_file" and c.path == path]


@dataclass
class Plan:
    text: str
    calls: list = field(default_factory=list)   # (name, input) pairs, in the model's tool names

    @classmethod
    def after(cls, notes: list, text: str, *calls) -> "Plan":
        """My notes on the results just received, then `text`, then `calls`."""
        return cls("\n".join(line for line in [*notes, text] if line), list(calls))


def active_request(messages) -> str:
    """The last text the user typed, or the request a summary message carries."""
    for message in reversed(messages):
        text = user_text(message)
        if summary := formats.SUMMARY_RE.match(text):
            return summary["request"]
        if text and not formats.ARCHIVE_RE.match(text):
            return text
        if "\n\nCurrent user request:\n" in text:   # in an archive marker; one without is skipped
            return text.partition("\n\nCurrent user request:\n")[2]
    return ""


def read_view(messages, tools: Tools | None = None) -> View:
    """The View of a request's messages, each call read in the model's tool names."""
    tools = tools or Tools({})
    view = View(request=active_request(messages), offered=tools.names, tools=tools)
    pending = {}
    last = len(messages) - 1
    for i, message in enumerate(messages):
        if message.get("role") == "assistant":
            if note := text_of(message.get("content")).strip():
                view.notes.append(note)
            for use in tool_uses(message):
                tool_input = use.get("input") if isinstance(use.get("input"), dict) else {}
                call = Call(use["id"], *tools.to_model(str(use.get("name", "")), tool_input))
                pending[call.id] = call
                view.calls.append(call)
            continue
        for result in tool_results(message):
            if call := pending.get(result["tool_use_id"]):
                call.text, call.fresh = text_of(result.get("content", "")), i == last
        if match := formats.SUMMARY_RE.match(user_text(message)):
            view.summaries.append(formats.summary_text(match["summary"]))
    return view
