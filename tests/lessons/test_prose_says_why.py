"""Sentences of 08 and 09 that say why a chart shows what it shows (issue 52, review findings 7, 13).

08's huge_result run fires step 3 (micro_compact) as well as step 1: the block step 1 saved is
older than the newest 3 results, so step 3 shrinks it to a "saved at" placeholder (flaw 3); the
page says so in both editions. 09's timeline strip has a persist_largest row: the page says what
it is, in both editions. Left out: the charts' pixels.
"""

import tempfile
from pathlib import Path

from compact_course.lessons.build_track.looking import SAVED
from compact_course.lessons.replay import make_compactor
from compact_course.sessions.histories import load_history
from context_compact.messages import text_of, tool_results

ROOT = Path(__file__).resolve().parents[2]


def cell(path: Path, cell_id: str) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split(f'id="{cell_id}"', 1)[1].split("# %%", 1)[0]


def test_huge_result_fires_step_3_on_the_block_step_1_saved_and_08_says_why():
    history = load_history("huge_result")
    with tempfile.TemporaryDirectory() as folder:
        compactor = make_compactor(folder, "seed")
        sent = compactor.prepare(history["messages"], history["active_request"])
    fired = [r.step for r in compactor.records if r.fired]
    assert fired == ["tool_result_budget", "micro_compact"]
    shrunk = [b for m in sent for b in tool_results(m) if SAVED.match(text_of(b["content"]))]
    assert len(shrunk) == 1   # the one step 1 saved, now a placeholder the model never read
    for source, said in (("08_build_prepare.py", "flaw 3"), ("zh/08_build_prepare.py", "缺陷 3")):
        prose = cell(ROOT / "notebooks" / "src" / source, "huge-result-comes")
        assert said in prose and "saved at" in prose


def test_09_says_what_the_persist_largest_row_is():
    for source in ("09_live_agent.py", "zh/09_live_agent.py"):
        prose = cell(ROOT / "notebooks" / "src" / source, "experiment-2-a-huge-json-file")
        assert "`persist_largest`" in prose and ("flaw 8" in prose or "缺陷 8" in prose)
