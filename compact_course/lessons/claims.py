"""What lab 02 claims of the default profile, checked line by line on the benchmark's rows.

Over several seeds (`compact_course.bench.stats.across_seeds`), on the tool-heavy and
Chinese sessions: the default's mean cost at most half the seed profile's and its
worst at most 0.6 of it, nothing lost, at most one summary per 120 turns, and no
more misses than the seed profile on any seed; on the chat-heavy session, no
dearer than summary-only on any seed; and on every session, the cheapest of the
three designs that compact (summary, seed, default) on every seed. Each check ends
in yes or NO, so a reader sees a claim that no longer holds; the tests assert the
same thresholds.

Left out: the thresholds as settings (they are the course's claims, not a knob)
and any claim about timings (they differ from machine to machine).
"""

from ..bench.stats import across_seeds


def default_claims(rows: list[dict]) -> list[str]:
    """The claims, one line per (session, turns), from rows over several seeds."""
    lines = []
    for row in across_seeds(rows):
        if row["design"] != "default":
            continue
        if row["session"] == "chat-heavy":
            line = _chat_line(row, rows)
        elif row["ratio_mean"] is not None:   # no seed-profile run to compare with
            line = _cost_line(row)
        else:
            continue
        lines.append(f"{line}, {_cheapest_line(row, rows)}")
    return lines


def _cheapest_line(row: dict, rows: list[dict]) -> str:
    """Every session: the default no dearer than summary-only and the seed profile, seed
    by seed (lab 02's "the cheapest of those three")."""
    key = (row["session"], row["turns"])
    bills = {(r["seed"], r["design"]): r["cost"] for r in rows if (r["session"], r["turns"]) == key}
    mine = [seed for seed, design in bills if design == "default"]
    cheapest = all(bills[seed, "default"] <= bills.get((seed, other), float("-inf"))
                   for seed in mine for other in ("summary", "seed"))
    return f"the cheapest of summary, seed and default on every seed ({_yes(cheapest)})"


def _chat_line(row: dict, rows: list[dict]) -> str:
    """Chat-heavy: the default costs no more than summary-only, seed by seed."""
    key = (row["session"], row["turns"])
    summary = {r["seed"]: r for r in rows if (r["session"], r["turns"], r["design"]) == (*key, "summary")}
    mine = [r for r in rows if (r["session"], r["turns"], r["design"]) == (*key, "default")]
    cheaper = all(r["seed"] in summary and r["cost"] <= summary[r["seed"]]["cost"] for r in mine)
    return (f"{row['session']} {row['turns']} turns, {row['seeds']} seeds: default costs no more "
            f"than summary-only on every seed ({_yes(cheaper)})")


def _cost_line(row: dict) -> str:
    """Tool-heavy and Chinese: the cost against the seed profile's, losses, summaries, misses."""
    allowed = max(1, row["turns"] // 120)
    return (
        f"{row['session']} {row['turns']} turns, {row['seeds']} seeds: default cost x seed mean "
        f"{row['ratio_mean']:.2f} <= 0.5 ({_yes(row['ratio_mean'] <= 0.5)}), worst "
        f"{row['ratio_worst']:.2f} <= 0.6 ({_yes(row['ratio_worst'] <= 0.6)}), lost "
        f"{row['lost_worst']} ({_yes(row['lost_worst'] == 0)}), summaries {row['summaries_worst']} "
        f"<= {allowed} ({_yes(row['summaries_worst'] <= allowed)}), misses <= seed on every "
        f"seed ({_yes(row['misses_le_seed'])})")


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"
