"""The start of every compactor call in one pass: the working list, each message's JSON,
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
- nothing is copied yet (copy on write, `Working`): the working list holds the
  caller's own messages, but one that is not plain JSON yet is made plain whole
  (`to_plain`: SDK objects become dicts). A message is copied as deep as the
  steps edit (the message, its content list and its blocks) when a step edits
  it, and so is every message of the output: a compaction never copies what it
  archives, and the caller's list is never changed. A step replaces a block's
  content, never anything inside it, so deeper values can be shared with the
  caller's list.

Left out: the steps themselves, and a token measure (a custom `measure` is
asked for the whole list, as before; it can keep its own cache per message).
"""

from .messages import MessageFormatError, blocks, encode, json_len, plain_message, to_plain, validate_messages


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


def start(messages, kept: list) -> tuple[list, list, list]:
    """(working, texts, made): a checked list of `messages`, each message's JSON, and the
    messages of the list that are not the caller's (made plain, or copied to be checked).

    `kept` holds the JSON of each message of the compactor's last output.
    MessageFormatError, naming the message, when the list breaks a rule.
    """
    if not isinstance(messages, list):
        messages = to_plain(messages)   # a tuple becomes a list; anything else is refused below
        if not isinstance(messages, list):
            raise MessageFormatError(f"messages must be a list, got {type(messages).__name__}")
    texts, changed = _texts(messages, kept)
    # A message the encoder wrote is plain JSON already (no SDK object, no cycle): the
    # caller's own dict stays, copied only if a step edits it. Any other is made plain, whole.
    working = [m if text is not None and isinstance(m, dict) else plain_message(messages, i)
               for i, (m, text) in enumerate(zip(messages, texts))]
    try:
        validate_messages(working, changed)
    except MessageFormatError:
        # The copy makes a tuple of blocks a list, which passes: a list refused as it is
        # is checked again as copied, so it passes or fails, naming the same place, as it did.
        working = [_editable(m) if m is theirs else m for m, theirs in zip(working, messages)]
        validate_messages(working, changed)
    for i in changed:
        if texts[i] is None:
            texts[i] = encode(working[i])
    return working, texts, [m for m, theirs in zip(working, messages) if m is not theirs]


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


class Working:
    """A compactor's working lists, call after call: each message's JSON and its length,
    and which messages are the compactor's own (copy on write).

    `begin` starts a call (`start`); a step that replaces a block's content calls
    `replace`, which copies the message first when it is the caller's and counts
    the change in characters; `finish` copies each message still the caller's and
    keeps the output's JSON for the next call. A message a step makes (a marker, a
    summary), or one of another list, is encoded when first asked for. Entries are
    kept by the message object and keep it alive, so no id is reused for another
    message during a call. A call that changes nothing encodes nothing again.
    """

    def __init__(self):
        self.kept: list[str] = []   # each message's JSON in the last output
        self.change = 0             # characters the current step's edits added (or took)
        self.start = 2              # the working list's size when the call started
        self._call([], [])

    def _call(self, messages: list, texts: list, made=()) -> None:
        self._messages, self._texts = messages, texts   # the call's own list, and its JSON
        self._known, self._edited = {}, set()   # id -> (message, JSON); ids edited in place
        self._ours = {id(m): (m, m) for m in made}   # id -> (ours, the caller's it copies)

    def begin(self, messages) -> list:
        messages, texts, made = start(messages, self.kept)
        self._call(messages, texts, made)
        self.start = sum(map(len, texts)) + 2 * max(len(messages), 1)
        return messages

    def finish(self, messages: list) -> list:
        self.kept = self.texts(messages)
        messages = [m if id(m) in self._ours else _editable(m) for m in messages]
        self._call(messages, self.kept)   # the output's size is known without encoding it
        return messages

    def replace(self, messages: list, index: int, block, content) -> int:
        """Put `content` in `block`, a block of messages[index] (the caller's message is
        copied first, and its block found at its place in the copy): the change in characters."""
        if id(messages[index]) not in self._ours:
            copy = _editable(messages[index])
            self._ours[id(copy)] = (copy, messages[index])
            messages[index] = copy
        message, theirs = self._ours[id(messages[index])]
        # A step may still hold the caller's block, read before the copy was made.
        place = [j for j, b in enumerate(blocks(theirs)) if b is block] if theirs is not message else []
        block = message["content"][place[0]] if place else block
        change = json_len(content) - json_len(block.get("content", ""))
        block["content"] = content
        self._known.pop(id(message), None)
        self._edited.add(id(message))
        self.change += change
        return change

    def text(self, message) -> str:
        if id(message) not in self._known:
            self._known[id(message)] = (message, encode(message))
        return self._known[id(message)][1]

    def size(self, messages: list) -> int:
        """len(json.dumps(messages, ensure_ascii=False)), from the messages' own JSON."""
        return sum(len(t) for t in self.texts(messages)) + 2 * max(len(messages), 1)

    def texts(self, messages: list) -> list:
        if messages is self._messages:   # the call's own list: its texts, but for what was edited
            return [self.text(m) if id(m) in self._edited else t
                    for m, t in zip(messages, self._texts)] if self._edited else self._texts
        return [self.text(m) for m in messages]
