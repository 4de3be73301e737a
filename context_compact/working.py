"""The compactor's working list and each message's JSON: a call costs about one `json.dumps`.

The working list holds the caller's messages (SDK objects made plain) until a step edits one:
`replace` copies it first, as deep as a step edits (message, content list, blocks), so the
caller's list never changes and the output shares only what no step edited. A message whose
JSON, found at its place in the whole list's, is the one it had in the last output was checked
then; any other is encoded and checked alone, with its pairs. The size: the messages' JSON plus
2 a message (", " and brackets). Left out: a custom measure, asked for the whole list.
"""

from itertools import repeat
from operator import contains

from .media import extra_chars
from .messages import MessageFormatError, encode, to_plain, validate_messages


def _json_or_none(value) -> str | None:   # None: not plain JSON yet (SDK objects, a cycle, ...)
    try:
        return encode(value)
    except (TypeError, ValueError, RecursionError):
        return None


def _texts(messages: list, kept: list) -> tuple[list, list]:
    """Each message's JSON (or None), and the indexes of those not kept: a list's JSON is its
    messages' joined by ", ", and kept JSON found at a message's place is all of that message's."""
    whole = _json_or_none(messages) if kept else None
    if whole is None:   # a first call, or not plain JSON: each message alone
        texts = [_json_or_none(m) for m in messages]
        return texts, [i for i, text in enumerate(texts) if text is None or i >= len(kept) or text != kept[i]]
    texts, changed, at = [], [], 1   # at: after "["
    for i, message in enumerate(messages):
        same = i < len(kept) and whole.startswith(kept[i], at)
        texts.append(kept[i] if same else encode(message))
        at += len(texts[-1]) + 2
        if not same:
            changed.append(i)
    return texts, changed


def _copy(message):   # as deep as a step edits: the message, its content list, its blocks
    if not isinstance(message, dict):
        return message
    copy = message.copy()
    if isinstance(copy.get("content"), (list, tuple)):
        copy["content"] = [b.copy() if isinstance(b, dict) else b for b in copy["content"]]
    return copy


class Working:
    """The call's list and each message's JSON; a message a step edits or makes: when asked for."""

    def __init__(self):
        self.kept: list[str] = []   # each message's JSON in the last output
        self.change = 0             # characters the current step's edits added (or took)
        self._list, self._texts, self._ours = [], [], {}

    def begin(self, messages) -> list:
        """The call's working list; MessageFormatError, naming the message, if it breaks a rule."""
        if not isinstance(messages, list):
            messages = to_plain(messages)   # a tuple becomes a list; anything else is refused
            if not isinstance(messages, list):
                raise MessageFormatError(f"messages must be a list, got {type(messages).__name__}")
        texts, changed = _texts(messages, self.kept)
        working, self._ours = list(messages), {}
        for i in changed:
            if texts[i] is None:   # SDK objects, or values JSON cannot hold: made plain (or named)
                working[i] = to_plain(messages[i], at=i)
        try:
            validate_messages(working, changed)
        except MessageFormatError:   # blocks given as a tuple: taken as a list, as JSON has them
            for i in changed:
                working[i] = to_plain(working[i], at=i)
            validate_messages(working, changed)
        for i in changed:
            texts[i] = texts[i] if texts[i] is not None else encode(working[i])
        self._list, self._texts = working, texts
        return working

    def _own(self, message):   # the compactor's copy of a message, made once a call
        if id(message) in self._ours:
            return message
        copy = _copy(message)
        self._ours[id(copy)] = (copy, message)
        return copy

    def finish(self, messages: list) -> list:
        self.kept = self.texts(messages)   # no copies: a message no step edited is the caller's (issue 51)
        self._list, self._ours = [], {}   # the caller's messages are no longer held
        return messages

    def texts(self, messages: list) -> list:
        if messages is not self._list:
            return list(map(encode, messages))
        if self._ours:
            return [encode(m) if id(m) in self._ours else t for m, t in zip(messages, self._texts)]
        return self._texts

    def sizes(self, messages: list) -> list:   # each message's JSON, its media by the API's rule
        return [len(text) + extra_chars(m, text) for m, text in zip(messages, self.texts(messages))]

    def size(self, messages: list) -> int:   # estimate_chars(messages), from each message's JSON
        texts = self.texts(messages)   # no medium in the list: no call a message (the no-op's speed)
        media = any(map(contains, texts, repeat('"source"')))
        extra = sum(map(extra_chars, messages, texts)) if media else 0
        return sum(map(len, texts)) + extra + 2 * max(len(messages), 1)

    def replace(self, messages: list, index: int, block: dict, content) -> int:
        """Put `content` in `block` of messages[index] (copied first): the change in characters."""
        messages[index] = copy = self._own(messages[index])
        theirs = self._ours[id(copy)][1]
        for j, b in enumerate(theirs["content"] if theirs is not copy else ()):
            if b is block:   # read from the caller's message before the copy: the copy's block
                block = copy["content"][j]
                break
        change = len(encode(content)) - len(encode(block.get("content", "")))
        block["content"] = content
        self.change += change
        return change
