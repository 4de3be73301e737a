"""The benchmark's statistics across seeds: each design's mean and worst over the seeds.

One session kind at one length is a different session for every seed; a design's
figures on one seed can be luck. `across_seeds` folds the driver's rows
(`compact_course.bench.benchmark.run_bench` with several seeds) into one row per
(model billed, session, turns, clock, design, breakpoint rule), and sets each design's
bill beside the seed profile's (its 5-minute breakpoint), the default's and the oracle's
(under the same rule, or the 5-minute one when they ran without it) on the very same
session and clock.

Left out: confidence intervals and significance tests (eight seeds are read as
mean and worst, nothing finer), and any verdict: the tests assert, this only counts.
"""

import statistics


def _ratios(mine: list, others: list, field: str) -> list:
    return [r[field] / o[field] for r, o in zip(mine, others) if o and o.get(field)]


def _mean(values):
    return statistics.mean(values) if values else None


def _worst(values):
    return max(values) if values else None


def _beside(by_run: dict, run: list, rule: str, seed: int, name: str):
    """Design `name`'s row on the same session: the article's at its 5 minutes, the default
    and the oracle under the same rule (or the 5-minute one when they ran without it)."""
    return (by_run.get((*run, seed, name, "5m" if name == "seed" else rule))
            or by_run.get((*run, seed, name, "5m")))


def across_seeds(rows: list[dict]) -> list[dict]:
    """One row per (model, session, turns, clock, design, breakpoint rule): mean and worst
    over the seeds of cost
    (with the user's pauses and without), of cost / the seed profile's and / the default's
    on the same session (the latter is the cache-aware switch's effect on default+cold), of
    the bill with misses priced (cost_repaid) / the seed profile's and / the oracle's, and
    of misses; the most lost and summaries of any seed; and whether it missed no more than
    the seed profile on every seed."""
    def key_of(r):
        return (r.get("priced_as"), r["session"], r["turns"], r.get("clock", "bench"))

    def ttl(r):
        return r.get("ttl", "5m")
    by_run = {(*key_of(r), r["seed"], r["design"], ttl(r)): r for r in rows}
    out = []
    for key in dict.fromkeys((*key_of(r), r["design"], ttl(r)) for r in rows):
        *run, design, rule = key
        mine = [r for r in rows if (*key_of(r), r["design"], ttl(r)) == key]

        seeds, defaults, oracles = ([_beside(by_run, run, rule, r["seed"], name) for r in mine]
                                    for name in ("seed", "default", "oracle"))
        calm = [r.get("cost_no_pauses", r["cost"]) for r in mine]
        repaid = [r.get("cost_repaid", r["cost"]) for r in mine]
        out.append({
            "priced_as": run[0], "session": run[1], "turns": run[2], "clock": run[3],
            "design": design, "ttl": rule,
            "seeds": len(mine),
            "cost_mean": statistics.mean(r["cost"] for r in mine),
            "cost_worst": max(r["cost"] for r in mine),
            "ratio_mean": _mean(_ratios(mine, seeds, "cost")),
            "ratio_worst": _worst(_ratios(mine, seeds, "cost")),
            "calm_mean": statistics.mean(calm), "calm_worst": max(calm),
            "default_mean": _mean(_ratios(mine, defaults, "cost")),
            "default_worst": _worst(_ratios(mine, defaults, "cost")),
            "repaid_mean": statistics.mean(repaid), "repaid_worst": max(repaid),
            "priced_ratio_mean": _mean(_ratios(mine, seeds, "cost_repaid")),
            "priced_ratio_worst": _worst(_ratios(mine, seeds, "cost_repaid")),
            "oracle_mean": _mean(_ratios(mine, oracles, "cost_repaid")),
            "oracle_worst": _worst(_ratios(mine, oracles, "cost_repaid")),
            "misses_mean": statistics.mean(r["misses"] for r in mine),
            "misses_worst": max(r["misses"] for r in mine),
            "misses_total": sum(r["misses"] for r in mine),
            "misses_le_seed": all(s is not None and r["misses"] <= s["misses"] for r, s in zip(mine, seeds)),
            "lost_worst": max(r["lost"] for r in mine),
            "summaries_worst": max(r["summary_calls"] for r in mine),
        })
    return out


def over_sessions(rows: list[dict]) -> list[dict]:
    """One row per (model, clock, design, breakpoint rule) over every session, length and
    seed of `rows` (issue 43's acceptance reads these): the mean and worst of the bill with
    misses priced over the seed profile's (its 5-minute breakpoint) on the same session and
    clock, the mean over the oracle's by session kind, the misses in total, and whether
    it missed no more than the seed profile on every run."""
    def key_of(r):
        return (r.get("priced_as"), r["session"], r["turns"], r.get("clock", "bench"))
    by_run = {(*key_of(r), r["seed"], r["design"], r.get("ttl", "5m")): r for r in rows}
    out = []
    for group in dict.fromkeys((r.get("priced_as"), r.get("clock", "bench"), r["design"], r.get("ttl", "5m"))
                               for r in rows):
        model, clock, design, rule = group
        mine = [r for r in rows if (r.get("priced_as"), r.get("clock", "bench"), r["design"],
                                    r.get("ttl", "5m")) == group]
        seeds = [_beside(by_run, key_of(r), rule, r["seed"], "seed") for r in mine]
        oracles = [_beside(by_run, key_of(r), rule, r["seed"], "oracle") for r in mine]
        ratios = _ratios(mine, seeds, "cost_repaid")
        kinds = dict.fromkeys(r["session"] for r in mine)
        out.append({
            "priced_as": model, "clock": clock, "design": design, "ttl": rule, "runs": len(mine),
            "priced_ratio_mean": _mean(ratios), "priced_ratio_worst": _worst(ratios),
            "oracle_by_kind": {kind: _mean(_ratios([r for r in mine if r["session"] == kind],
                                                   [o for r, o in zip(mine, oracles) if r["session"] == kind],
                                                   "cost_repaid")) for kind in kinds},
            "misses_total": sum(r["misses"] for r in mine),
            "misses_le_seed": all(s is not None and r["misses"] <= s["misses"] for r, s in zip(mine, seeds)),
        })
    return out
