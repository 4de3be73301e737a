"""What a real session file holds that a clean one would not, and what every importer does with it.

    ODD["call never answered"]          # what is done with such a record: one table, every format
    items = repair(items, report)       # messages the pipeline and the API both accept
    for line, value in readable(records, report, convert): ...   # a record it cannot read, counted
    tool_input, problem = call_input(arguments_text)

Real files end mid-batch (a live session's calls have no result yet), lose
records, carry redacted or cut arguments and record types newer than this
reader. The policy is the same in every importer: keep what can be kept in
a form the pipeline's validator and the API's pairing rules accept, leave
out the rest, and count each case under its kind in `ODD` (the report says
them in one line, `report.odd`). A file is refused only when no message can
be built from it.

`repair` works on the converted messages of any format, turn by turn (a run of
one role is one turn, as the API reads it):
- a call no result answers gets a result saying so (`NO_RESULT`), so the call
  and its arguments stay in context;
- a result whose call is not in the turn before becomes text marked as having
  no call (`NO_CALL`), its images kept beside it; a second result for one call
  the same, marked as a repeat;
- a second call with an id already used gets a new id, and so does its result;
- an empty message or text block, a block in the wrong role's message and a
  block the API cannot read are left out.

Left out: guessing which call an orphaned result belonged to (its text is
kept, marked, and the model reads it as such) and any change to a message
that is not odd.
"""

import json

from .source import SessionFileError

# kind -> what every importer does with a record or block of that kind (the report's words).
ODD = {
    "call never answered": "kept, with a result saying the file has none",
    "result without its call": "kept as text marked as having no call",
    "second result for a call": "kept as text marked as a repeat",
    "call id used twice": "kept under a new id, its result too",
    "arguments not JSON": "kept, the raw text as the call's input",
    "parent not in the file": "kept; read on from the message written before it",
    "parent loop": "kept; the thread starts there",
    "unknown record type": "left out",
    "unknown item type": "left out",
    "unknown content part": "left out",
    "block in the wrong message": "left out",
    "unreadable record": "left out",
    "not JSON": "left out",
    "half-written line": "left out",
    "empty message": "left out",
    "one JSON document": "read as the records it holds",
    "no typed request": "read; the active request is empty",
}

NO_RESULT = "[No result in the session file: the call was never answered there.]"
NO_CALL = "[A tool result whose call is not in the session file (tool_use_id {id}).]"
REPEAT = "[A second result for call {id}, which the file answers before.]"
MARKERS = ("[No result in the session file", "[A tool result whose call is not in the session file",
           "[A second result for call ")
_MEDIA = ("image", "document")


def call_input(arguments) -> tuple:
    """(a tool_use input, the odd kind or None) for a call's arguments: a JSON object text
    (or an object) as it is; anything else kept raw under `arguments`."""
    if isinstance(arguments, dict):
        return arguments, None
    if arguments is None or arguments == "":
        return {}, None
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except json.JSONDecodeError:
            return {"arguments": arguments}, "arguments not JSON"
        return (value, None) if isinstance(value, dict) else ({"arguments": value}, "arguments not JSON")
    return {"arguments": arguments}, "arguments not JSON"


def readable(records, report, convert):
    """(line, what `convert(line, value)` made) for each record it reads; one that raises
    SessionFileError is left out and counted as unreadable, with its problem."""
    for line, value in records:
        try:
            made = convert(line, value)
        except SessionFileError as error:
            report.odd("unreadable record", line, error.problem)
            continue
        yield line, made


# -- the blocks: each one the API can read, in its role's message -------------------------

def _text_block(value) -> dict | None:
    if isinstance(value, str):
        return {"type": "text", "text": value}
    if isinstance(value, dict) and "type" not in value and isinstance(value.get("text"), str):
        return {"type": "text", "text": value["text"]}     # an older writer's text part
    return None


def _result_content(content):
    """A tool_result's content as the API takes it: a text, or a list of text and media blocks."""
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        return json.dumps(content, ensure_ascii=False)
    parts = []
    for part in content:
        typed = isinstance(part, dict) and isinstance(part.get("type"), str)
        if typed and (part["type"] != "text" or isinstance(part.get("text"), str)):
            parts.append(part)
        else:
            parts.append(_text_block(part) or {"type": "text", "text": json.dumps(part, ensure_ascii=False)})
    return [p for p in parts if p["type"] != "text" or p["text"].strip()] or ""


WRONG_ROLE = {"tool_use": "user", "tool_result": "assistant"}


def _block(role: str, block, line: int, report):
    """The block as the API reads it, or None (left out and counted)."""
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        block = _text_block(block)
        if block is None:
            report.odd("unknown content part", line)
            return None
    kind = block["type"]
    if WRONG_ROLE.get(kind) == role:
        report.odd("block in the wrong message", line, kind)
        return None
    if kind == "text":
        if not isinstance(block.get("text"), str):
            report.odd("unknown content part", line, "text")
            return None
        return block if block["text"].strip() else None          # the API refuses empty text
    if kind == "tool_use":
        if not (isinstance(block.get("id"), str) and block["id"] and isinstance(block.get("name"), str)):
            report.odd("unknown content part", line, "tool_use without an id or a name")
            return None
        tool_input, odd = call_input(block.get("input"))
        if odd:
            report.odd(odd, line, block["id"])
        return {**block, "input": tool_input}
    if kind == "tool_result":
        content = _result_content(block.get("content"))
        if not isinstance(block.get("tool_use_id"), str) or not block["tool_use_id"]:
            report.odd("result without its call", line, "no tool_use_id")
            return {"type": "text", "text": NO_CALL.format(id="none") + _joined_text(content)}
        return {**block, "content": content}
    return block


def _joined_text(content) -> str:
    texts = [content] if isinstance(content, str) else [p["text"] for p in content if p.get("type") == "text"]
    body = "\n".join(t for t in texts if t)
    return "\n" + body if body else ""


def _cleaned(items: list, report) -> list:
    """Each message with only blocks the API reads; a message left with none is left out.
    Items here are (line, message, index in the importer's list)."""
    kept = []
    for line, message, origin in items:
        content = message["content"]
        if isinstance(content, str):        # a text stays a text
            blocks = content if content.strip() else []
        else:
            blocks = [b for b in (_block(message["role"], b, line, report) for b in content) if b]
        if blocks:
            kept.append((line, {**message, "content": blocks}, origin))
        else:
            report.odd("empty message", line)
    return kept


# -- the pairs: every call answered right after, every result answering the turn before -----

def _blocks(message) -> list:
    return message["content"] if isinstance(message["content"], list) else []


def _turns(items: list) -> list:
    turns = []
    for item in items:
        if turns and turns[-1][0][1]["role"] == item[1]["role"]:
            turns[-1].append(item)
        else:
            turns.append([item])
    return turns


def _unique_ids(turn: list, used: set, report) -> tuple:
    """The turn with each call whose id was used before renamed; {old id: new id}."""
    renamed, out = {}, []
    for line, message, origin in turn:
        if isinstance(message["content"], str):
            out.append((line, message, origin))
            continue
        blocks = []
        for block in message["content"]:
            if block["type"] == "tool_use":
                if block["id"] in used:
                    new = _fresh(block["id"], used)
                    report.odd("call id used twice", line, block["id"])
                    renamed[block["id"]] = new
                    block = {**block, "id": new}
                used.add(block["id"])
            blocks.append(block)
        out.append((line, {**message, "content": blocks}, origin))
    return out, renamed


def _fresh(tool_id: str, used: set) -> str:
    n = 2
    while f"{tool_id}_{n}" in used:
        n += 1
    return f"{tool_id}_{n}"


def _as_text(block: dict, header: str) -> list:
    """A result that answers no call here, as a marked text and the media it held."""
    content = block.get("content", "")
    media = [p for p in content if p.get("type") in _MEDIA] if isinstance(content, list) else []
    return [{"type": "text", "text": header + _joined_text(content)}, *media]


def _answer(turn: list, asked: dict, renamed: dict, report) -> tuple:
    """The user turn with each result kept only where it answers a call of `asked`
    ({id: line}); the ids it answers."""
    answered, out = set(), []
    for line, message, origin in turn:
        if isinstance(message["content"], str):
            out.append((line, message, origin))
            continue
        blocks = []
        for block in message["content"]:
            if block["type"] != "tool_result":
                blocks.append(block)
                continue
            tool_id = block["tool_use_id"]
            if tool_id in renamed and renamed[tool_id] not in answered:
                tool_id = renamed[tool_id]
                block = {**block, "tool_use_id": tool_id}
            if tool_id in asked and tool_id not in answered:
                answered.add(tool_id)
                blocks.append(block)
            elif tool_id in answered:
                report.odd("second result for a call", line, tool_id)
                blocks += _as_text(block, REPEAT.format(id=tool_id))
            else:
                report.odd("result without its call", line, tool_id)
                blocks += _as_text(block, NO_CALL.format(id=tool_id))
        out.append((line, {**message, "content": blocks}, origin))
    return out, answered


def _unanswered(asked: dict, answered: set, report) -> list:
    missing = [tool_id for tool_id in asked if tool_id not in answered]
    for tool_id in missing:
        report.odd("call never answered", asked[tool_id], tool_id)
    return [{"type": "tool_result", "tool_use_id": tool_id, "content": NO_RESULT} for tool_id in missing]


def _paired(turns: list, report) -> list:
    used, out, asked, renamed = set(), [], {}, {}
    for turn in turns:
        if turn[0][1]["role"] == "assistant":      # turns alternate: `asked` is empty here
            turn, renamed = _unique_ids(turn, used, report)
            asked = {b["id"]: line for line, m, _ in turn for b in _blocks(m) if b["type"] == "tool_use"}
            out += turn
            continue
        turn, answered = _answer(turn, asked, renamed, report)
        missing = _unanswered(asked, answered, report)
        if missing:
            line, first, origin = turn[0]
            content = first["content"]
            content = [{"type": "text", "text": content}] if isinstance(content, str) else content
            turn[0] = (line, {**first, "content": missing + content}, origin)
        out += turn
        asked, renamed = {}, {}
    if asked:          # the file ends on calls with no result yet (a live session)
        out.append((out[-1][0], {"role": "user", "content": _unanswered(asked, set(), report)}, None))
    return out


def repair(items: list, report) -> tuple:
    """([(line, message)] that the pipeline's validator and the API's pairing rules accept,
    each change counted in `report` under its kind in ODD; and for each of `items`, the
    index in that list of the first message from it or after it)."""
    done = _paired(_turns(_cleaned([(*item, n) for n, item in enumerate(items)], report)), report)
    where, first = [len(done)] * (len(items) + 1), {}
    for position, (_, _, origin) in enumerate(done):
        if origin is not None:
            first.setdefault(origin, position)
    for n in range(len(items) - 1, -1, -1):
        where[n] = first.get(n, where[n + 1])
    return [(line, message) for line, message, _ in done], where


def is_marker(text: str) -> bool:
    """True for a text this module wrote in place of a result (never a request)."""
    return text.lstrip().startswith(MARKERS)
