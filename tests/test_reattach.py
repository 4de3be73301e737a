"""compact_course.agent.reattach: the files an agent gets back after a compaction."""

from compact_course.agent.reattach import files_worked_on, reattach


def call(n, name, path):
    return {"role": "assistant", "content": [
        {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": {"path": path}}]}


def answer(n):
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}",
                                         "content": "ok"}]}


TRANSCRIPT = [{"role": "user", "content": "Compare a.py and big.py."},
              call(1, "read_file", "a.py"), answer(1),
              call(2, "bash", "ignored"), answer(2),
              call(3, "read_file", "big.py"), answer(3),
              call(4, "edit_file", "a.py"), answer(4)]


def test_files_are_listed_newest_first_each_once_and_only_file_tools():
    assert files_worked_on(TRANSCRIPT) == ["a.py", "big.py"]


def test_a_small_file_comes_back_whole_from_disk_and_a_large_one_as_its_path(tmp_path):
    (tmp_path / "a.py").write_text("x = 2  # edited after the read\n", encoding="utf-8")
    (tmp_path / "big.py").write_text("y" * 30_000, encoding="utf-8")
    message = reattach(tmp_path, TRANSCRIPT, max_chars_per_file=20_000)
    text = message["content"]
    assert message["role"] == "user"
    assert '<file path="a.py">\nx = 2  # edited after the read\n</file>' in text
    assert "big.py: 30,000 characters, over the 20,000" in text and "y" * 100 not in text


def test_the_cap_on_files_keeps_the_newest(tmp_path):
    for name in ("a.py", "big.py"):
        (tmp_path / name).write_text("z", encoding="utf-8")
    assert "big.py" not in reattach(tmp_path, TRANSCRIPT, max_files=1)["content"]


def test_a_path_outside_the_workspace_or_missing_is_named_not_read(tmp_path):
    transcript = [call(1, "read_file", "../secret.txt"), call(2, "read_file", "gone.py")]
    text = reattach(tmp_path, transcript)["content"]
    assert "../secret.txt: not attached (path escapes the workspace" in text
    assert "gone.py: not attached" in text


def test_nothing_worked_on_gives_no_message(tmp_path):
    assert reattach(tmp_path, [{"role": "user", "content": "hi"}]) is None
