"""Sizes the notebooks' prose states of a canned history, checked against the history itself.

- lab 05 (both editions) names the size of `huge_result`'s big read, rounded to
  the thousand, the figure notebooks 01 and 05 print and state (issue 34: it said
  200,000, step 1's batch limit, where the read is about 288,000).

Left out: figures a notebook prints (nbval compares those) and sizes of other histories.
"""

import re
from pathlib import Path

import pytest

from compact_course.sessions.histories import load_history
from context_compact.messages import text_of, tool_results

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "notebooks" / "src" / "labs" / "05_what_each_design_forgets.py",
           ROOT / "notebooks" / "src" / "zh" / "labs" / "05_what_each_design_forgets.py"]


def largest_read() -> int:
    """The longest tool result of huge_result, in characters."""
    messages = load_history("huge_result")["messages"]
    return max(len(text_of(block["content"])) for m in messages if isinstance(m["content"], list)
               for block in tool_results(m))


@pytest.mark.parametrize("source", SOURCES, ids=["en", "zh"])
def test_notebook_12_names_the_size_of_the_read_step_1_moves(source):
    size = f"{round(largest_read(), -3):,}"
    assert size == "288,000"
    text = source.read_text(encoding="utf-8")
    claim = text[text.index("huge_result"):][:400]   # the cell checking the article's claim
    assert re.search(rf"{size}[- \n#]*(-character|字符)", claim), claim


@pytest.mark.parametrize("source", [ROOT / "notebooks" / "src" / "00_why_compaction.py",
                                    ROOT / "notebooks" / "src" / "zh" / "00_why_compaction.py"],
                         ids=["en", "zh"])
def test_notebook_00_gives_long_sessions_count_and_size(source):
    # Issue 40: "64 short messages" misled (step 3 still acts on them); the line now gives
    # the count against step 2's trigger and the size, rounded to the thousand.
    from context_compact import CompactionConfig, estimate_chars
    messages = load_history("long_session")["messages"]
    assert len(messages) > CompactionConfig.seed().snip_max_messages
    size = f"{round(estimate_chars(messages), -3):,}"
    line = next(line for line in source.read_text(encoding="utf-8").splitlines()
                if line.startswith("# - `long_session`"))
    assert f"{len(messages)} " in line and size in line and "50" in line, line
