"""How a compaction changes what the offline model can answer about the workspace: a saved
placeholder is read back, an omitted result is gone and the answer says so, a summary means
the lookup runs again. (The questions themselves, checked against the files, are in
tests/offline/test_offline_truth.py.)"""

import pytest

from compact_course.agent.tools import TOOLS
from compact_course.offline import MODEL_NAME, respond
from context_compact import formats

pytestmark = pytest.mark.usefixtures("no_network")  # nothing but loopback (conftest.py)

# -- what a compaction leaves: re-read a saved copy, or say the text is gone ----------------------

def asked_before(result_text: str) -> dict:
    """The mention question, after its grep ran and its result became `result_text`."""
    question = "Which file mentions snip_cut?"
    first = respond({"model": MODEL_NAME, "tools": TOOLS,
                     "messages": [{"role": "user", "content": question}]})
    use = next(b for b in first["content"] if b["type"] == "tool_use")
    return {"model": MODEL_NAME, "tools": TOOLS, "messages": [
        {"role": "user", "content": question},
        {"role": "assistant", "content": first["content"]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"],
                                      "content": result_text}]}]}


def test_a_saved_placeholder_is_read_back_from_its_copy():
    saved = ".task_outputs/tool-results/toolu_x.txt"
    reply = respond(asked_before(formats.saved_placeholder(saved)))
    assert reply["stop_reason"] == "tool_use"
    assert [b["input"] for b in reply["content"] if b["type"] == "tool_use"] == [{"path": saved}]


def test_an_omitted_result_means_the_text_is_gone_and_the_answer_says_so():
    reply = respond(asked_before(formats.OMITTED))
    text = reply["content"][0]["text"]
    assert reply["stop_reason"] == "end_turn"
    assert text.startswith("I can't tell from what I read")
    assert formats.OMITTED in text and "s08_context_compact/code.py" not in text


def test_the_same_result_whole_gives_the_answer():
    hit = "./s08_context_compact/code.py:229:def snip_cut(messages) -> tuple:"
    text = respond(asked_before(hit))["content"][0]["text"]
    assert "s08_context_compact/code.py, line 229: 'def snip_cut(messages) -> tuple:'" in text
    assert text.startswith("snip_cut appears in 1 file(s)")


def test_after_a_summary_the_question_is_looked_up_again_not_guessed():
    question = "Which file mentions snip_cut?"
    summary = "Current goal:\n" + question + "\n\nDone:\n- bash(grep ...) -> 2 lines"
    message = formats.summary_message("Compacted", question, summary, ".transcripts/t.jsonl")
    reply = respond({"model": MODEL_NAME, "tools": TOOLS, "messages": [message]})
    assert reply["stop_reason"] == "tool_use"
    assert "snip_cut" in next(b for b in reply["content"] if b["type"] == "tool_use")["input"][
        "command"]


def test_one_very_long_word_is_read_in_linear_time():
    """Path patterns anchored at a word's start: a 200,000-letter word once kept the
    policy busy for minutes (every start position backtracked to the word's end).
    A subprocess, because a regex holds the GIL: the 60 s bound is a hang guard."""
    import subprocess
    import sys

    code = ("from compact_course.offline import respond; "
            "r = respond({'model': 'm', 'max_tokens': 100, 'messages': "
            "[{'role': 'user', 'content': 'x' * 200000 + ' in notes.md'}]}); "
            "print(r['content'][0]['type'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "text", done.stderr
