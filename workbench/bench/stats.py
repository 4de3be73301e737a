"""The benchmark's statistics across seeds: each design's mean and worst over the seeds.

One session kind at one length is a different session for every seed; a design's
figures on one seed can be luck. `across_seeds` folds the driver's rows
(`workbench.bench.benchmark.run_bench` with several seeds) into one row per
(session, turns, design), and sets each design's cost beside the seed profile's
on the very same session.

Left out: confidence intervals and significance tests (eight seeds are read as
mean and worst, nothing finer), and any verdict: the tests assert, this only counts.
"""

import statistics


def across_seeds(rows: list[dict]) -> list[dict]:
    """One row per (session, turns, design): mean and worst over the seeds of cost (with
    the user's pauses and without), of cost / the seed profile's and / the default's on
    the same session (the latter is the cache-aware switch's effect on default+cold),
    and of misses; the most lost and summaries of any seed; and whether it missed no
    more than the seed profile on every seed."""
    by_run = {(r["session"], r["turns"], r["seed"], r["design"]): r for r in rows}
    out = []
    for key in dict.fromkeys((r["session"], r["turns"], r["design"]) for r in rows):
        session, turns, design = key
        mine = [r for r in rows if (r["session"], r["turns"], r["design"]) == key]
        seeds = [by_run.get((session, turns, r["seed"], "seed")) for r in mine]
        ratios = [r["cost"] / s["cost"] for r, s in zip(mine, seeds) if s and s["cost"]]
        defaults = [by_run.get((session, turns, r["seed"], "default")) for r in mine]
        to_default = [r["cost"] / d["cost"] for r, d in zip(mine, defaults) if d and d["cost"]]
        calm = [r.get("cost_no_pauses", r["cost"]) for r in mine]
        out.append({
            "session": session, "turns": turns, "design": design, "seeds": len(mine),
            "cost_mean": statistics.mean(r["cost"] for r in mine),
            "cost_worst": max(r["cost"] for r in mine),
            "ratio_mean": statistics.mean(ratios) if ratios else None,
            "ratio_worst": max(ratios) if ratios else None,
            "calm_mean": statistics.mean(calm), "calm_worst": max(calm),
            "default_mean": statistics.mean(to_default) if to_default else None,
            "default_worst": max(to_default) if to_default else None,
            "misses_mean": statistics.mean(r["misses"] for r in mine),
            "misses_worst": max(r["misses"] for r in mine),
            "misses_le_seed": all(s is not None and r["misses"] <= s["misses"] for r, s in zip(mine, seeds)),
            "lost_worst": max(r["lost"] for r in mine),
            "summaries_worst": max(r["summary_calls"] for r in mine),
        })
    return out

