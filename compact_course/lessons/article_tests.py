"""The article's section 11, runnable: its tool-pair tests, on either profile.

The article's repository checks its compaction with
`tests/test_compaction_tool_pairs.py`, whose core is
`assert_no_orphan_tool_results`: every user message holding a tool_result must
come right after a message holding the matching tool_use. It runs four
scenarios, which `run_article_tests` replays here on small histories:

- snip_compact keeps the head's tool pair whole;
- snip_compact keeps the tail's tool pair whole;
- reactive_compact pulls the tool_use of a cut pair into the kept tail;
- the summary excludes that pulled-in pair: the summarizer sees only
  `messages[:3]`, what was really dropped.

Left out: the article's s15 variant of the same tests (there is no s15 here).
"""

import tempfile

from context_compact.compactor import ContextCompactor
from context_compact.config import CompactionConfig
from context_compact.messages import to_plain


def assert_no_orphan_tool_results(messages) -> None:
    """AssertionError naming the message and id of any tool_result without its tool_use."""
    messages = to_plain(messages)
    for i, message in enumerate(messages):
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        before = messages[i - 1].get("content") if i else None
        asked = {b.get("id") for b in before if isinstance(b, dict)
                 and b.get("type") == "tool_use"} if isinstance(before, list) else set()
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                assert block.get("tool_use_id") in asked, (
                    f"messages[{i}]: tool_result {block.get('tool_use_id')!r} has no tool_use "
                    f"in the message before it")


def _pair(tool_id: str, text: str = "ok") -> list:
    return [{"role": "assistant", "content": [
                {"type": "tool_use", "id": tool_id, "name": "bash", "input": {"command": "ls"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool_id, "content": text}]}]


def _turns(count: int, start: int = 0) -> list:
    """Text-only turns: `count` messages, user and assistant in turn (user at even `start`)."""
    roles = ("user", "assistant")
    return [{"role": roles[(start + n) % 2], "content": f"turn {start + n}"} for n in range(count)]


def head_pair_history() -> list:
    """54 messages whose head (the first 3) ends on a tool_use: the head must take its result."""
    return [{"role": "user", "content": "Fix the parser."},
            {"role": "user", "content": "The bug is in parse_line."},
            *_pair("head"), *_turns(50, start=1)]


def tail_pair_history(config: CompactionConfig, tail_start: int = 40) -> list:
    """A list whose newest kept part would open on a tool_result at `tail_start`."""
    newest = config.snip_keep_total - config.snip_keep_head - 1
    messages = _turns(tail_start + newest)
    messages[tail_start - 1:tail_start + 1] = _pair("tail")
    return messages


def reactive_history() -> list:
    """9 messages; the newest 5 would open on a tool_result."""
    return [{"role": "user", "content": "Fix it."}, {"role": "assistant", "content": "Looking."},
            {"role": "user", "content": "Also check the docs."},
            *_pair("t1", "one"), *_pair("t2", "two"), *_pair("t3", "three")]


class _Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, messages) -> str:
        self.calls.append(to_plain(messages))
        return "the summary"


def _compactor(root, profile: str, summarizer=None) -> ContextCompactor:
    return ContextCompactor(root, summarizer or _Recorder(), CompactionConfig.named(profile))


def snip_keeps_head_tool_pair(root, profile):
    messages = head_pair_history()
    out = _compactor(root, profile).snip_compact(messages)
    assert_no_orphan_tool_results(out)
    assert out[:4] == messages[:4], "the head lost the result of its tool_use"
    return f"{len(messages)} -> {len(out)} messages, head {out[2]['content'][0]['id']!r} kept whole"


def snip_keeps_tail_tool_pair(root, profile):
    compactor = _compactor(root, profile)
    messages = tail_pair_history(compactor.config)
    out = compactor.snip_compact(messages)
    assert_no_orphan_tool_results(out)
    assert out[4:] == messages[39:], "the tail does not open on the tool_use of its first result"
    return f"{len(messages)} -> {len(out)} messages, the tail opens on tool_use 'tail'"


def reactive_keeps_tail_tool_pair(root, profile):
    messages = reactive_history()
    out = _compactor(root, profile).reactive_compact(messages, "Fix it and the docs.")
    assert_no_orphan_tool_results(out)
    assert out[1:] == messages[3:], "the kept tail is not the newest 5 plus the pulled-in tool_use"
    return f"{len(messages)} -> {len(out)} messages: the summary + {len(out) - 1} kept"


def reactive_summary_excludes_tail_pair_pulled_in(root, profile):
    messages = reactive_history()
    recorder = _Recorder()
    _compactor(root, profile, recorder).reactive_compact(messages, "Fix it and the docs.")
    assert recorder.calls == [messages[:3]], "the summarizer saw more than the dropped part"
    return f"the summarizer saw {len(recorder.calls[0])} messages: messages[:3]"


ARTICLE_TESTS = (snip_keeps_head_tool_pair, snip_keeps_tail_tool_pair,
                 reactive_keeps_tail_tool_pair, reactive_summary_excludes_tail_pair_pulled_in)


def run_article_tests(profile: str = "seed") -> list[tuple[str, str]]:
    """(test name, "passed: <what it saw>" or "FAILED: <why>") for each test, each in a fresh folder."""
    rows = []
    for test in ARTICLE_TESTS:
        with tempfile.TemporaryDirectory(prefix="article-tests-") as root:
            try:
                rows.append((test.__name__, "passed: " + test(root, profile)))
            except AssertionError as error:
                rows.append((test.__name__, f"FAILED: {error}"))
    return rows
