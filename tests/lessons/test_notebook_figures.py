"""Sizes the notebooks' prose states of a canned history, checked against the history itself.

Left out: figures a notebook prints (nbval compares those) and sizes of other histories.
"""

from pathlib import Path

import pytest

from compact_course.sessions.histories import load_history

ROOT = Path(__file__).resolve().parents[2]


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
