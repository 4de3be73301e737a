"""The start of every compactor call in one pass: the working copy, each message's JSON,
and the check of only what changed since the compactor's last output.

A `prepare` that changes nothing should cost about one `json.dumps` of the list.
So, at the start of a call:
- each message's JSON is made once, with the measure's own encoder; the list's
  size is the sum of their lengths plus 2 a message (", " between them and the
  brackets), and a step that replaces one block's content changes its message's
  length by the difference (`ContextCompactor.replace_content`);
- a message whose JSON is the one at its place in the compactor's last output
  is vouched for: it was checked then, and so were the pairs it forms with
  vouched neighbours. Every other message is checked whole, as
  `validate_messages` checks a list (shapes, values, depth), and so are the
  pairs on both sides of it. A message changed in place (the same dict with new
  content) has new JSON, so it is checked again;
- the copy is deep (`to_plain`: SDK objects become dicts) for a message that is
  not plain JSON yet, and as deep as the steps edit for every other: the
  message, its content list and its blocks. A step replaces a block's content,
  never anything inside it, so deeper values can be shared with the caller's list.

Left out: the steps themselves, and a token measure (a custom `measure` is
asked for the whole list, as before; it can keep its own cache per message).
"""

import json

from .messages import MessageFormatError, plain_message, to_plain, validate_messages

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


def _json_or_none(message) -> str | None:
    """The message's JSON, or None when it is not plain JSON yet (SDK objects, a cycle, ...)."""
    try:
        return encode(message)
    except (TypeError, ValueError, RecursionError):
        return None


def _editable(message: dict) -> dict:
    """A copy as deep as the steps edit (they replace a block's content): the message, its
    content list and its blocks, the common block (a plain dict) inline, without a call."""
    copy = message.copy()
    content = copy.get("content")
    if isinstance(content, (list, tuple)):
        copy["content"] = [b.copy() if type(b) is dict and not isinstance(b.get("content"), tuple)
                           else _editable_block(b) for b in content]
    return copy


def _editable_block(block):
    if not isinstance(block, dict):
        return block
    block = block.copy()
    if isinstance(block.get("content"), tuple):   # a tool result's blocks given as a tuple
        block["content"] = list(block["content"])
    return block


def start(messages, kept: list) -> tuple[list, list]:
    """(copy, texts): a checked copy of `messages` safe to edit, and each message's JSON.

    `kept` holds the JSON of each message of the compactor's last output.
    MessageFormatError, naming the message, when the list breaks a rule.
    """
    if not isinstance(messages, list):
        messages = to_plain(messages)   # a tuple becomes a list; anything else is refused below
        if not isinstance(messages, list):
            raise MessageFormatError(f"messages must be a list, got {type(messages).__name__}")
    texts, changed = _texts(messages, kept)
    # A message the encoder wrote is plain JSON already (no SDK object, no cycle): copied
    # as deep as the steps edit, like a vouched one. Any other is made plain, whole.
    copy = [_editable(m) if text is not None and isinstance(m, dict) else plain_message(messages, i)
            for i, (m, text) in enumerate(zip(messages, texts))]
    validate_messages(copy, changed)
    for i in changed:
        if texts[i] is None:
            texts[i] = encode(copy[i])
    return copy, texts


def _texts(messages: list, kept: list) -> tuple[list, list]:
    """Each message's JSON (None where it has none yet), and the indexes of the
    messages that are not the kept ones, from one encoding of the whole list.

    JSON of the list is its messages' JSON joined by ", " in brackets. Where the
    text at a message's place starts with the kept JSON of that place, the
    message's JSON is that text: a complete JSON value ends where its brackets
    close, so it cannot be the start of a longer one. Other messages are
    encoded alone, to know where the next one starts.
    """
    if not kept:   # a first call, or after a compaction's new list: each message alone, all new
        return [_json_or_none(m) if isinstance(m, dict) else None for m in messages], [*range(len(messages))]
    whole = _json_or_none(messages)   # the whole list's JSON, to compare with `kept`
    texts, changed, at, known = [], [], 1, len(kept)   # at: after "["
    for i, message in enumerate(messages):
        if whole is None:   # not plain JSON (SDK objects, ...): each message alone
            text = _json_or_none(message) if isinstance(message, dict) else None
            same = text is not None and i < known and text == kept[i]
        else:
            same = i < known and whole.startswith(kept[i], at)
            text = kept[i] if same else encode(message)
            at += len(text) + 2
        if not same:
            changed.append(i)
        texts.append(text)
    return texts, changed


class Lengths:
    """Each message's JSON and its length, for the messages of one call's working list.

    Keyed by the message object; an entry keeps the object alive, so its id is
    never reused for another message during the call. A step that edits a
    message in place says so (`forget`); a message a step makes (a marker, a
    summary) is encoded when first asked for. A call that changes nothing never
    builds the table: its list and texts come back as they went in.
    """

    def __init__(self, messages: list, texts: list):
        self._messages, self._texts = messages, texts
        self._by_id, self._edited = None, set()   # the table; ids of the messages edited in place

    def _table(self) -> dict:
        if self._by_id is None:
            self._by_id = {id(m): (m, t) for m, t in zip(self._messages, self._texts)}
        return self._by_id

    def text(self, message) -> str:
        table = self._table()
        entry = table.get(id(message))
        if entry is None or entry[0] is not message:
            entry = (message, encode(message))
            table[id(message)] = entry
        return entry[1]

    def size(self, messages: list) -> int:
        """len(json.dumps(messages, ensure_ascii=False)), from the messages' own JSON."""
        return sum(len(t) for t in self.texts(messages)) + 2 * max(len(messages), 1)

    def forget(self, message) -> None:
        self._table().pop(id(message), None)
        self._edited.add(id(message))

    def texts(self, messages: list) -> list:
        if messages is self._messages:   # the call's own list: its texts, but for what was edited
            return [self.text(m) if id(m) in self._edited else t
                    for m, t in zip(messages, self._texts)] if self._edited else self._texts
        return [self.text(m) for m in messages]
