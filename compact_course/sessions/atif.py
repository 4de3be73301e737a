"""ATIF trajectories: the Agent Trajectory Interchange Format of the harbor project (v1.x).

A trajectory is one JSON object, by the format's own specification (the RFC
"0001-trajectory-format" in harbor's docs):

    {"schema_version": "ATIF-v1.4", "session_id", "agent": {"name", "version"},
     "steps": [{"step_id", "source": "system" | "user" | "agent", "message",
                "reasoning_content", "tool_calls": [{"tool_call_id", "function_name", "arguments"}],
                "observation": {"results": [{"source_call_id", "content"}]}, "metrics"}, ...]}

A step becomes what the model saw: a `user` step a user message; an `agent`
step an assistant message (its `message` text, then a tool_use for each
tool call), and its observation the user message after it: a tool_result for
each result that names a call (`source_call_id`), a text for one that names
none (an action without tool calling). Each message carries the line its
step starts on.

Left out, each counted in the report: `system` steps (the system prompt,
and what the harness did), `reasoning_content` (the agent's own reasoning:
no text the model read back), a result's `subagent_trajectory_ref` (another
file: import it alone), and `metrics`, `final_metrics`, `notes`, `extra`. A
tool call no result answers is kept, with a result saying so; a step that
cannot be read is left out; each counted (odd.py).
"""

import json
from functools import partial

from .build import to_history
from .odd import call_input, readable
from .report import ImportReport
from .source import SessionFileError, document_note, json_elements, not_json, read_text

SOURCES = ("system", "user", "agent")


def _text(path, line: int, message) -> list:
    """A step's message as blocks: a text, or (later versions) a list of text parts."""
    if message is None or message == "":
        return []
    if isinstance(message, str):
        return [{"type": "text", "text": message}]
    if isinstance(message, list) and all(isinstance(p, dict) and p.get("type") == "text"
                                         and isinstance(p.get("text"), str) for p in message):
        return [{"type": "text", "text": p["text"]} for p in message if p["text"]]
    raise SessionFileError(path, line, "a step's message must be a text (or a list of text parts)")


def _tool_use(path, line: int, call, report: ImportReport) -> dict:
    if not isinstance(call, dict) or not isinstance(call.get("tool_call_id"), str) \
            or not isinstance(call.get("function_name"), str):
        raise SessionFileError(path, line, "a tool call without a tool_call_id or function_name")
    tool_input, odd = call_input(call.get("arguments", {}))
    if odd:
        report.odd(odd, line, call["tool_call_id"])
    return {"type": "tool_use", "id": call["tool_call_id"], "name": call["function_name"],
            "input": tool_input}


def _results(path, line: int, observation, report: ImportReport) -> list:
    results = observation.get("results") if isinstance(observation, dict) else None
    if not isinstance(results, list):
        raise SessionFileError(path, line, "an observation without a 'results' list")
    blocks = []
    for result in results:
        if not isinstance(result, dict):
            raise SessionFileError(path, line, "an observation result must be an object")
        if result.get("subagent_trajectory_ref"):
            report.leave_out("subagent_trajectory_ref", line)
        content = result.get("content")
        content = "" if content is None else content if isinstance(content, str) else json.dumps(content)
        if result.get("source_call_id"):
            blocks.append({"type": "tool_result", "tool_use_id": result["source_call_id"],
                           "content": content})
        elif content:
            blocks.append({"type": "text", "text": content})
    return blocks


def _step(path, report: ImportReport, line: int, step) -> list:
    """The messages of one step: none, a user message, or an assistant message and its observation."""
    source = step.get("source") if isinstance(step, dict) else None
    if source not in SOURCES:
        raise SessionFileError(path, line, f"a step of source {source!r}: expected one of "
                                           f"{', '.join(SOURCES)}")
    if source == "system":
        report.leave_out("system step", line)
        return []
    if source == "user":
        return [{"role": "user", "content": _text(path, line, step.get("message"))}]
    if step.get("reasoning_content"):
        report.leave_out("reasoning_content", line)
    calls = step.get("tool_calls") or []
    if not isinstance(calls, list):
        raise SessionFileError(path, line, "tool_calls must be a list")
    reply = {"role": "assistant", "content": _text(path, line, step.get("message"))
             + [_tool_use(path, line, call, report) for call in calls]}
    messages = [reply] if reply["content"] else []
    if step.get("observation") is not None:
        results = _results(path, line, step["observation"], report)
        messages += [{"role": "user", "content": results}] if results else []
    return messages


def looks_like(whole) -> bool:
    return isinstance(whole, dict) and str(whole.get("schema_version", "")).startswith("ATIF") \
        and isinstance(whole.get("steps"), list)


def load(path) -> dict:
    report, text = ImportReport(), read_text(path)
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as error:
        raise not_json(path, error) from None
    if not looks_like(whole):
        raise SessionFileError(path, None, "not an ATIF trajectory: no schema_version 'ATIF-v1.x' "
                                           "and 'steps' list")
    document_note(path, report)
    steps = json_elements(path, text, "steps")[1]
    for line, step in steps:
        report.read(f"{step.get('source')} step" if isinstance(step, dict) else type(step).__name__, line)
    items = [(line, message) for line, messages in readable(steps, report, partial(_step, path, report))
             for message in messages]
    return to_history(path, "atif", items, report=report)
