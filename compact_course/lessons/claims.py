"""What lab 02 claims of the default profile, checked line by line on the benchmark's rows.

Over several seeds (`compact_course.bench.stats.across_seeds`), on the tool-heavy and
Chinese sessions: the default's mean cost at most half the seed profile's and its
worst at most 0.6 of it, nothing lost, at most one summary per 120 turns, and no
more misses than the seed profile on any seed; on the chat-heavy session, no
dearer than summary-only on any seed; and on every session, the cheapest of the
three designs that compact (summary, seed, default) on every seed. Each check ends
in yes or NO after the claim it answers and the figure measured, so a reader sees a
claim that no longer holds; the tests assert the same thresholds.

Left out: the thresholds as settings (they are the course's claims, not a knob)
and any claim about timings (they differ from machine to machine).
"""

from ..bench.stats import across_seeds
from ..display.text import plural


def default_claims(rows: list[dict]) -> list[str]:
    """The claims, one line each, from rows over several seeds: "session: the claim
    (what was measured): yes" (or NO), so that each yes answers a claim the line states."""
    lines = []
    for row in across_seeds(rows):
        if row["design"] != "default":
            continue
        if row["session"] == "chat-heavy":
            claims = [_chat_claim(row, rows)]
        elif row["ratio_mean"] is not None:   # no seed-profile run to compare with
            claims = _cost_claims(row)
        else:
            continue
        claims.append(_cheapest_claim(row, rows))
        lines += [f"{row['session']}: {claim}: {_yes(ok)}" for claim, ok in claims]
    return lines


def _cheapest_claim(row: dict, rows: list[dict]) -> tuple[str, bool]:
    """Every session: the default no dearer than summary-only and the seed profile, seed
    by seed (lab 02's "the cheapest of those three")."""
    key = (row["session"], row["turns"])
    bills = {(r["seed"], r["design"]): r["cost"] for r in rows if (r["session"], r["turns"]) == key}
    mine = [seed for seed, design in bills if design == "default"]
    cheapest = all(bills[seed, "default"] <= bills.get((seed, other), float("-inf"))
                   for seed in mine for other in ("summary", "seed"))
    return "the cheapest of summary, seed and default on every seed", cheapest


def _chat_claim(row: dict, rows: list[dict]) -> tuple[str, bool]:
    """Chat-heavy: the default costs no more than summary-only, seed by seed."""
    key = (row["session"], row["turns"])
    summary = {r["seed"]: r for r in rows if (r["session"], r["turns"], r["design"]) == (*key, "summary")}
    mine = [r for r in rows if (r["session"], r["turns"], r["design"]) == (*key, "default")]
    cheaper = all(r["seed"] in summary and r["cost"] <= summary[r["seed"]]["cost"] for r in mine)
    return "costs no more than summary-only on every seed", cheaper


def _cost_claims(row: dict) -> list[tuple[str, bool]]:
    """Tool-heavy and Chinese: the cost against the seed profile's, losses, summaries, misses."""
    allowed = max(1, row["turns"] // 120)
    return [
        (f"costs at most 0.5 of the seed profile's, mean of the seeds ({row['ratio_mean']:.2f})",
         row["ratio_mean"] <= 0.5),
        (f"at most 0.6 of it on the worst seed ({row['ratio_worst']:.2f})", row["ratio_worst"] <= 0.6),
        (f"loses no output ({row['lost_worst']} at worst)", row["lost_worst"] == 0),
        (f"at most {plural(allowed, 'summary call')} in {row['turns']} turns "
         f"({row['summaries_worst']} at worst)",
         row["summaries_worst"] <= allowed),
        ("misses no more than the seed profile on every seed", bool(row["misses_le_seed"])),
    ]


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"
