"""Every importer is total on odd records: the made samples of each format
(data/sessions/), each changed at random in a few places (a field dropped, a value
replaced by one of another type, an element removed), either import or fail with
a SessionFileError naming the file; never another exception. Seeded: the same
cases on every run."""

import json
import random
from pathlib import Path

import pytest

from compact_course.sessions import SessionFileError, load_session

SESSIONS = Path(__file__).resolve().parents[2] / "data" / "sessions"
SAMPLES = sorted(p for p in SESSIONS.rglob("*.json*") if p.suffix in (".json", ".jsonl"))
ODD = [None, 0, -1, 1.5, "", "x", [], {}, [1], {"type": None}, True, "\x1b[2J", {"a": []}, ["t"]]
CASES = 120


def mutate(value, rng: random.Random) -> None:
    """One change somewhere in `value`, in place."""
    while isinstance(value, (dict, list)) and value:
        key = rng.choice(list(value)) if isinstance(value, dict) else rng.randrange(len(value))
        roll = rng.random()
        if roll < 0.25:
            value.pop(key)
            return
        if roll < 0.55 or not isinstance(value[key], (dict, list)):
            value[key] = rng.choice(ODD)
            return
        value = value[key]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name[:30])
def test_odd_records_import_or_name_the_problem(tmp_path, sample):
    rng = random.Random(sample.name)
    text = sample.read_text(encoding="utf-8")
    jsonl = sample.suffix == ".jsonl"
    imported = refused = 0
    for case in range(CASES):
        value = [json.loads(line) for line in text.splitlines()] if jsonl else json.loads(text)
        for _ in range(rng.randint(1, 3)):
            mutate(value, rng)
        path = tmp_path / sample.name
        written = "".join(json.dumps(r) + "\n" for r in value) if jsonl else json.dumps(value, indent=1)
        path.write_text(written, encoding="utf-8")
        try:
            load_session(path)
            imported += 1
        except SessionFileError as error:
            assert str(error).startswith(str(path)) and "\n" not in str(error), case
            refused += 1
    assert imported + refused == CASES
