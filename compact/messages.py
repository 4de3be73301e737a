"""Reading a `messages` list in the Messages API format.

Every step works on plain dicts. The `anthropic` SDK hands back typed objects
(`TextBlock`, `ToolUseBlock`, ...); `to_plain` turns them into dicts first, since
`json.dumps(default=str)` would measure and write their Python repr instead
(flaw 12 in docs/DESIGN.md). A `tool_result`'s content may be a string or a
list of blocks; its text is what we measure, save and preview, never `str()`
of a list (flaw 11).

`validate_messages` checks the API's pairing rule, the shapes the steps read
(text blocks inside a tool result included), that every value is one JSON can
hold (no NaN or Infinity, no integer too long for the JSON encoder), that no
two tool_use blocks share an id, and that nothing is nested deeper than
MAX_DEPTH; it names the message, the block and the id when it fails. A hostile
shape (a text that is a number, 500 nested lists) is a MessageFormatError, never
a TypeError, ValueError of the encoder or RecursionError; so is an active request
that is not a text.

One validator for two users: the pipeline and the offline server
(`workbench.offline.api.rules`) check roles, block shapes and pairs with the same
code (`check_message`, `check_pairs`), one table of problems with each side's
text (PROBLEMS). Where the API's rules differ from what the pipeline needs (the
API merges consecutive messages of one role into a turn, wants a result for
every tool_use, names its block types, checks every field), the difference is a
named field of `Rules`.

Left out: the request's other fields (model, system, tools: the server's rules).
"""

import json
import math
from dataclasses import dataclass

ROLES = ("user", "assistant")
# Levels of dicts and lists from the message list down. Real messages need a
# handful; the limit keeps to_plain and json.dumps far from Python's recursion limit.
MAX_DEPTH = 100
_JSON_SCALARS = (str, int, float, bool, type(None))


class MessageFormatError(ValueError):
    """A message list the API would refuse; the text says where."""


class _TooDeep(Exception):
    pass


def to_plain(value):
    """A deep copy made only of dicts, lists and JSON scalars.

    MessageFormatError (naming the message, block and id when `value` is a
    message list) if it is nested more than MAX_DEPTH levels deep.
    """
    try:
        return _plain(value, 0)
    except _TooDeep:
        raise MessageFormatError(
            f"{_deep_place(value)} is nested more than {MAX_DEPTH} levels deep") from None


def _plain(value, depth: int):
    if depth > MAX_DEPTH:
        raise _TooDeep
    if isinstance(value, dict):
        return {key: _plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item, depth + 1) for item in value]
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump(mode="json", exclude_none=True), depth)
    return value


def _children(value):
    """(key, child) pairs of a dict, list or SDK object; none for a scalar."""
    if hasattr(value, "model_dump") and not isinstance(value, (dict, list, tuple)):
        value = value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, (list, tuple)):
        return list(enumerate(value))
    return []


def _deep_path(value) -> tuple:
    """The keys down to the first value deeper than MAX_DEPTH (walked without recursion)."""
    stack = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) > MAX_DEPTH:
            return path
        stack.extend((child, (*path, key)) for key, child in _children(item))
    return ()


def _deep_place(value) -> str:
    path = _deep_path(value)
    if len(path) < 3 or path[1] != "content" or not isinstance(path[2], int):
        return "a value" if not path or not isinstance(path[0], int) else f"messages[{path[0]}]"
    block = dict(_children(dict(_children(value[path[0]]))["content"])).get(path[2])
    return _block_place(path[0], path[2], dict(_children(block)))


def _block_place(i: int, j: int, block) -> str:
    """messages[i].content[j], and the block's id when it has one."""
    key = next((k for k in ("id", "tool_use_id") if isinstance(block, dict)
                and isinstance(block.get(k), str)), None)
    return f"messages[{i}].content[{j}]" + (f" ({key} {block[key]!r})" if key else "")


def estimate_chars(messages) -> int:
    """The article's measure: characters of the JSON of the whole list."""
    return len(json.dumps(to_plain(messages), ensure_ascii=False))


# One encoder, made once: json.dumps makes one a call, and JSONEncoder.encode a C encoder.
_ENCODER, _MARKS = json.JSONEncoder(ensure_ascii=False), {}   # _MARKS: the C one's cycle check
_C = json.encoder.c_make_encoder and json.encoder.c_make_encoder(
    _MARKS, _ENCODER.default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True)


def encode(value) -> str:
    """json.dumps(value, ensure_ascii=False), by the C encoder made once (if this Python has it)."""
    try:
        return "".join(_C(value, 0)) if _C else _ENCODER.encode(value)
    except BaseException:
        _MARKS.clear()   # a failed call leaves its marks behind: the next one starts clean
        raise


def json_len(value) -> int:
    """Characters of one value's JSON, as the article's measure counts them."""
    return len(encode(value))


def blocks(message) -> list:
    content = message.get("content")
    return content if isinstance(content, list) else []


def tool_results(message) -> list:
    return [b for b in blocks(message) if isinstance(b, dict) and b.get("type") == "tool_result"]


def tool_uses(message) -> list:
    return [b for b in blocks(message) if isinstance(b, dict) and b.get("type") == "tool_use"]


def is_tool_result(message) -> bool:
    return message.get("role") == "user" and bool(tool_results(message))


def has_tool_use(message) -> bool:
    return message.get("role") == "assistant" and bool(tool_uses(message))


def thinking_count(messages) -> int:
    """The thinking and redacted_thinking blocks of the assistant messages in `messages`."""
    return sum(isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking")
               for m in messages if isinstance(m, dict) and m.get("role") == "assistant"
               and isinstance(m.get("content"), list) for b in m["content"])


def text_of(content) -> str:
    """The text of a content value: the string itself, or its text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join([b.get("text", "") for b in content   # a list: faster than a generator
                          if isinstance(b, dict) and b.get("type") == "text"])
    return ""


def non_text_blocks(content) -> list:
    """The blocks of a content value that are not text (images, documents)."""
    return [b for b in content if not (isinstance(b, dict) and b.get("type") == "text")] \
        if isinstance(content, list) else []


def with_text(content, text: str):
    """Replace the text of a content value, keeping images and other blocks."""
    others = non_text_blocks(content)
    return [{"type": "text", "text": text}, *others] if others else text


def all_tool_results(messages) -> list:
    """(message index, block) for every tool result, oldest first."""
    return [(i, b) for i, m in enumerate(messages) for b in tool_results(m)]


def user_text(message) -> str:
    """What a person typed: a user message's text, tool results left out."""
    return text_of(message.get("content")) if message.get("role") == "user" else ""


def check_request(active_request) -> None:
    """MessageFormatError unless the active request is a text (or None: no request)."""
    if active_request is not None and not isinstance(active_request, str):
        raise MessageFormatError(f"active_request must be a text, got {type(active_request).__name__}")


def request_positions(messages, active_request: str) -> list[int]:
    """Indexes of user messages where the current request can be read."""
    check_request(active_request)
    # user_text inline: a call a message is most of the time on a long list.
    return [i for i, m in enumerate(messages) if m.get("role") == "user"
            and active_request in text_of(m.get("content"))] if active_request else []


def validate_messages(messages, changed=None) -> None:
    """Raise MessageFormatError unless the list follows the API's rules.

    A final assistant message may still wait for its tool results. `changed`
    (the compactor's incremental check, compact/working.py): only the messages
    at these indexes, and the pairs on both sides of each; None checks them all.
    """
    if not isinstance(messages, list):
        raise MessageFormatError(f"messages must be a list, got {type(messages).__name__}")
    if changed is not None and len(changed) < len(messages):
        for i in changed:
            _check_shape(i, messages[i])
    elif _check_all(messages):   # a fresh list: one pass; True when pairs and ids hold too
        return
    check_pairs(messages, PIPELINE, changed)   # the pairs' first problem, named
    _check_unique_ids(messages)   # ids are global: one pass over the blocks, whatever changed


def _strings(pairs) -> bool:
    return all(type(k) is str and type(v) is str for k, v in pairs)


# The common blocks: each holds only the fields the one pass reads, all strings (told by its
# size; a tool_use's input a dict of strings), so its values need no walk.
_COMMON = {
    "text": lambda block: len(block) == 2,
    "tool_result": lambda block: len(block) == 2 + ("content" in block),
    "tool_use": lambda block: len(block) == 4 and type(block.get("name")) is str
    and type(block.get("input")) is dict and _strings(block["input"].items()),
}


def _check_all(messages) -> bool:
    """Each shape, raised as _check_shape would, in order; True when the pairs and ids hold too."""
    ok, ids, asked = True, set(), []
    for i, message in enumerate(messages):
        role, content = (message.get("role"), message.get("content")) if type(message) is dict else (0, 0)
        # A role and a content and no other field (told by the size), or others all strings.
        plain = type(content) in (str, list) and role in ROLES and (len(message) == 2 and type(role) is str
                or all(type(k) is str and type(v) is str for k, v in message.items() if k != "content"))
        uses, answers = [], []
        for j, block in enumerate(content if plain and type(content) is list else ()):
            kind = block.get("type") if type(block) is dict and type(block.get("type")) is str else None
            if kind in ROLE_OF:   # in its role's message, with an id; a result's content a string
                tool_id = block.get(FIELDS[kind][0][0])
                (uses if kind == "tool_use" else answers).append(tool_id)
                plain = role == ROLE_OF[kind][0] and type(tool_id) is str and tool_id != "" \
                    and type(block.get("content", "")) is str
            else:
                plain = kind is not None and (kind != "text" or type(block.get("text")) is str)
            if not plain:   # _check_shape names the problem (a value's first, as it checks them first)
                break
            common = _COMMON.get(kind)
            if not (common and common(block) or _strings(block.items())):
                _check_values(lambda i=i, j=j, block=block: _block_place(i, j, block), block, 3)
        if not plain:   # anything else: the general check, then its blocks by kind
            _check_shape(i, message)
            found = _by_kind(messages, i)
            uses, answers = ([b[FIELDS[k][0][0]] for *_, b in found[k]] for k in ROLE_OF)
        # Each result answers the message before, each use is answered (a last one may wait),
        # and no id is used twice: the set of ids grows by every use.
        known = len(ids)
        ids.update(uses)
        ok = ok and (answers == asked or set(answers) == set(asked)) and len(ids) == known + len(uses)
        asked = uses
    return ok


def _check_unique_ids(messages) -> None:
    """No two tool_use blocks share an id (the API refuses it: which result is whose?)."""
    first = {}
    for i, message in enumerate(messages):
        for j, block in enumerate(blocks(message)):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                if block["id"] in first:
                    raise MessageFormatError(
                        f"messages[{i}].content[{j}]: tool_use id {block['id']!r} is already "
                        "used by messages[{}].content[{}]; tool_use ids must be unique"
                        .format(*first[block["id"]]))
                first[block["id"]] = (i, j)


def _check_number(where, item) -> None:
    """A number JSON can carry: finite, and an integer the encoder can write out."""
    if isinstance(item, float) and not math.isfinite(item):
        raise MessageFormatError(f"{where()} holds {item!r}; JSON has no NaN or Infinity")
    if isinstance(item, int) and not isinstance(item, bool):
        try:
            str(item)
        except ValueError:   # over sys.get_int_max_str_digits(): json.dumps would raise it
            raise MessageFormatError(f"{where()} holds an integer too long to write as JSON "
                                     f"(over {item.bit_length()} bits)") from None


def plain_message(messages, i: int):
    """to_plain of messages[i] alone; the error names the place as to_plain(messages) would."""
    try:
        return _plain(messages[i], 1)   # depth 1: a message inside its list
    except _TooDeep:
        raise MessageFormatError(
            f"{_deep_place(messages)} is nested more than {MAX_DEPTH} levels deep") from None


def _check_values(where, value, depth: int) -> None:
    """Every value JSON can hold, string keys, at most MAX_DEPTH levels; walked without recursion.
    `where()` names the place, asked only when there is a problem to name."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if type(item) is str:   # most values: nothing to check, so the first test
            continue
        if level > MAX_DEPTH:
            raise MessageFormatError(f"{where()} is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, dict):
            for key, inner in item.items():
                if not isinstance(key, str):
                    raise MessageFormatError(
                        f"{where()} holds a key of type {type(key).__name__} ({key!r}); keys must be strings")
                if type(inner) is not str:
                    stack.append((inner, level + 1))
        elif isinstance(item, (list, tuple)):
            stack.extend((inner, level + 1) for inner in item)
        elif not isinstance(item, _JSON_SCALARS):
            raise MessageFormatError(
                f"{where()} holds a value of type {type(item).__name__}; only JSON values "
                f"(dicts, lists, strings, numbers, booleans, None) can be sent")
        elif isinstance(item, (int, float)):
            _check_number(where, item)


def _check_shape(i, message):
    """The pipeline's check of one message: values JSON can hold (the server gets them from its
    JSON parser), then the shared rules."""
    if isinstance(message, dict):
        # Values first: the checks below read them, and depth 1 is the message itself.
        content = message.get("content")
        others = [(k, v) for k, v in message.items() if k != "content"
                  and (type(k) is not str or type(v) is not str)]   # most are: the role
        if others:
            _check_values(lambda: f"messages[{i}]", dict(others), 1)
        if isinstance(content, list):
            for j, block in enumerate(content):
                _check_values(lambda i=i, j=j, block=block: _block_place(i, j, block), block, 3)
        else:
            _check_values(lambda: f"messages[{i}].content", content, 2)
    check_message(i, message, PIPELINE)


# -- one validator, two users ------------------------------------------------------------
#
# The pipeline (validate_messages) and the offline server (workbench.offline.api.rules)
# check a message list with the code below: one walk, one table of problems. Where the
# API's rules differ from what the pipeline needs, the difference is a named field of
# `Rules`; each problem has the pipeline's text and the API's own (SPEC 5.1).

@dataclass(frozen=True)
class Rules:
    """How one user of the shared validator reads a message list."""
    wording: int                  # the column of PROBLEMS: 0 the pipeline's texts, 1 the API's
    error: type                   # the exception raised with the text
    turns: bool                   # consecutive messages of one role are one turn (the API merges them)
    open_last: bool               # a final assistant turn may still wait for its results
    block_types: tuple | None     # the block types accepted (None: any named type)
    inner_types: tuple | None     # the same, inside a tool_result's content
    inner_text: bool              # a text block inside a tool_result holds a string (the steps read it)
    every_field: bool             # every field of a block (the API), or those the steps read
    nonempty: tuple               # fields that may not be an empty string
    nonempty_content: bool        # no empty content but a final assistant message's (the API)
    first_user: bool = False      # the first message is the user's (the API's rule for a request)


PIPELINE = Rules(wording=0, error=MessageFormatError, turns=False, open_last=True, block_types=None,
                 inner_types=None, inner_text=True, every_field=False, nonempty=("id", "tool_use_id"),
                 nonempty_content=False)

_NEXT = "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
_AFTER = "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
PROBLEMS = {   # problem: (the pipeline's text, the API's text)
    "message": ("{at} must be a dict, got {got}", "{at}: Input should be a valid dictionary"),
    "no_role": ("{at} has no role", "{at}.role: Field required"),
    "role": ("{at} has role {role!r}; expected 'user' or 'assistant'",
             "{at}.role: Input should be 'user' or 'assistant'"),
    "no_content": ("{at}.content must be a string or a list of blocks, got NoneType",
                   "{at}.content: Field required"),
    "content": ("{at}.content must be a string or a list of blocks, got {got}",
                "{at}.content: Input should be a valid string or list"),
    # Bedrock's (and the API's until late 2024): the property test holds every output to it.
    "first_role": ("{at} is the first message and has role {role!r}; the API wants 'user'",
                   "messages: first message must use the \"user\" role"),
    "empty_content": ("", "{at}: all messages must have non-empty content except for the optional "
                          "final assistant message"),
    "block": ("{at} must be a dict with a 'type'", "{at}: Input should be a valid dictionary"),
    "block_type": ("{at} must be a dict with a 'type'",
                   "{at}.type: Input should be one of {types}; got {kind!r}"),
    "use_role": ("{at} is a tool_use in a {role} message",
                 "{at}: tool_use blocks may only appear in assistant messages"),
    "result_role": ("{at} is a tool_result in a {role} message",
                    "{at}: tool_result blocks may only appear in user messages"),
    "field_missing": ("{at} {phrase}", "{at}.{field}: Field required"),
    "field_type": ("{at} {phrase}", "{at}.{field}: Input should be a valid {type_name}"),
    "field_empty": ("{at} {phrase}", "{at}.{field}: {field} content blocks must be non-empty"),
    "result_content": ("{at} (tool_use_id {id!r}) has content of type {got}; expected a string or a "
                       "list of blocks", "{at}.content: Input should be a valid string or list"),
    "inner_block": ("{at} (tool_use_id {id!r}) must be a dict with a 'type'",
                    "{at}: Input should be a text, image or document block"),
    "inner_text": ("{at} (tool_use_id {id!r}) is a text block without a string 'text'", ""),
    "orphan": ("{at}: tool_result for id {id!r} has no tool_use with that id in {before}",
               "{at}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. " + _NEXT),
    "unanswered": ("{at}: tool_use ids {id_list} have no tool_result in {after}",
                   "{at}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                   "{ids}. " + _AFTER),
}
# The fields a block's checks read: (field, type, the type's name, the steps read it,
# the pipeline's words when it is missing, mistyped or empty).
FIELDS = {
    "tool_use": (("id", str, "string", True, "is a tool_use without an id"),
                 ("name", str, "string", False, "is a tool_use without a name"),
                 ("input", dict, "dictionary", False, "is a tool_use without an input")),
    "tool_result": (("tool_use_id", str, "string", True, "is a tool_result without a tool_use_id"),),
    "text": (("text", str, "string", True, "is a text block without a string 'text'"),),
}
ROLE_OF = {"tool_use": ("assistant", "use_role"), "tool_result": ("user", "result_role")}


def _fail(rules: Rules, problem: str, **facts):
    # A place comes as its keys and is written only here: a check that passes writes none.
    for name in ("at", "before", "after"):
        if isinstance(facts.get(name), tuple):
            facts[name] = place(rules, *facts[name])
    raise rules.error(PROBLEMS[problem][rules.wording].format(**facts))


def place(rules: Rules, i: int, *keys) -> str:
    """`messages[1].content[0]` in the pipeline's texts, `messages.1.content.0` in the API's."""
    if rules.wording:
        return ".".join(["messages", str(i), *map(str, keys)])
    return f"messages[{i}]" + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in keys)


def check_message(i: int, message, rules: Rules, last: bool = False) -> None:
    """One message's shape: a dict, its role, its content, each block."""
    at = (i,)
    if not isinstance(message, dict):
        _fail(rules, "message", at=at, got=type(message).__name__)
    if "role" not in message:
        _fail(rules, "no_role", at=at)
    role = message["role"]
    if role not in ROLES:
        _fail(rules, "role", at=at, role=role)
    if "content" not in message:
        _fail(rules, "no_content", at=at)
    content = message["content"]
    if not isinstance(content, (str, list)):
        _fail(rules, "content", at=at, got=type(content).__name__)
    if rules.first_user and i == 0 and role != "user":
        _fail(rules, "first_role", at=at, role=role)
    if rules.nonempty_content and not content and not (last and role == "assistant"):
        _fail(rules, "empty_content", at=at)
    for j, block in enumerate(content if isinstance(content, list) else []):
        _check_block(rules, (i, "content", j), role, block)


def _check_block(rules: Rules, keys: tuple, role: str, block) -> None:
    at = keys
    if not isinstance(block, dict):
        _fail(rules, "block", at=at)
    kind = block.get("type")
    if not isinstance(kind, str) or (rules.block_types and kind not in rules.block_types):
        _fail(rules, "block_type", at=at, kind=kind,
              types=", ".join(repr(t) for t in rules.block_types or ()))
    if kind in ROLE_OF and role != ROLE_OF[kind][0]:
        _fail(rules, ROLE_OF[kind][1], at=at, role=role)
    for field, kind_of, type_name, read, phrase in FIELDS.get(kind, ()):
        if not (read or rules.every_field):
            continue
        value = block.get(field)
        problem = ("field_missing" if field not in block else "field_type"
                   if not isinstance(value, kind_of) else "field_empty"
                   if field in rules.nonempty and not value else None)
        if problem:
            _fail(rules, problem, at=at, field=field, type_name=type_name, phrase=phrase)
    if kind == "tool_result":
        _check_result_content(rules, keys, block)


def _check_result_content(rules: Rules, keys: tuple, block: dict) -> None:
    """A tool_result's content: a string or a list of blocks, each of a kind the rules take."""
    inner, tool_id = block.get("content", ""), block["tool_use_id"]
    if not isinstance(inner, (str, list)):
        _fail(rules, "result_content", at=keys, id=tool_id, got=type(inner).__name__)
    for k, part in enumerate(inner if isinstance(inner, list) else []):
        at = (*keys, "content", k)
        kind = part.get("type") if isinstance(part, dict) else None
        if not isinstance(kind, str) or (rules.inner_types and kind not in rules.inner_types):
            _fail(rules, "inner_block", at=at, id=tool_id)
        # The steps read these blocks' text: a number there would be a TypeError.
        if rules.inner_text and kind == "text" and not isinstance(part.get("text"), str):
            _fail(rules, "inner_text", at=at, id=tool_id)


def _turns(messages, rules: Rules, changed=None):
    """(previous turn, turn, next turn) as lists of indexes. The API's turn is a run of
    messages of one role; the pipeline's is one message (only those around `changed`)."""
    if rules.turns:
        runs = []
        for i, message in enumerate(messages):
            if runs and messages[runs[-1][-1]]["role"] == message["role"]:
                runs[-1].append(i)
            else:
                runs.append([i])
        return [(runs[t - 1] if t else [], run, runs[t + 1] if t + 1 < len(runs) else [])
                for t, run in enumerate(runs)]
    n = len(messages)
    indexes = range(n) if changed is None or len(changed) == n else \
        sorted({j for i in changed for j in (i - 1, i, i + 1) if 0 <= j < n})
    return (([i - 1] if i else [], [i], [i + 1] if i + 1 < n else []) for i in indexes)


def _by_kind(messages, i: int) -> dict:
    """{"tool_use": [...], "tool_result": [...]}: (message index, block index, block) of
    messages[i], in one pass over its blocks."""
    found = {"tool_use": [], "tool_result": []}
    for j, b in enumerate(blocks(messages[i])):
        if isinstance(b, dict) and b.get("type") in found:
            found[b["type"]].append((i, j, b))
    return found


def check_pairs(messages, rules: Rules, changed=None) -> None:
    """The API's pairing rule: every tool_result answers a tool_use of the turn before it, and
    every tool_use has its tool_result in the turn right after (but a final assistant turn's
    when `rules.open_last`). Shapes are checked first: every block is a dict with a type,
    every id a string."""
    seen: dict = {}   # each message's blocks by kind, found once though read by up to 3 turns

    def of_kind(indexes, kind) -> list:
        for i in indexes:
            if i not in seen:
                seen[i] = _by_kind(messages, i)
        return [found for i in indexes for found in seen[i][kind]]

    for previous, turn, following in _turns(messages, rules, changed):
        results = of_kind(turn, "tool_result")
        if results:
            asked = {b["id"] for _, _, b in of_kind(previous, "tool_use")}
            for i, j, block in results:
                if block["tool_use_id"] not in asked:
                    _fail(rules, "orphan", at=(i, "content", j), id=block["tool_use_id"],
                          before=(previous[-1],) if previous
                          else "a message before it (there is none)")
        uses = of_kind(turn, "tool_use")
        if not uses or (rules.open_last and not following):
            continue
        answered = {b["tool_use_id"] for _, _, b in of_kind(following, "tool_result")}
        missing = [(i, b["id"]) for i, _, b in uses if b["id"] not in answered]
        if missing:
            after = (following[0],) if following else "the next message (there is none)"
            _fail(rules, "unanswered", at=(missing[0][0],), after=after,
                  id_list=[m[1] for m in missing], ids=", ".join(m[1] for m in missing))
