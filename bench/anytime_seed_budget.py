#!/usr/bin/python3
"""The seeds the anytime-valid rule would spend on the default report's training claims (its looks and seeds by arm).

For every training claim of the committed report, its per-seed differences (treatment - baseline paired by seed, or
value - bound) are read from reports/experiments/<stage>_summary.json; their standardized effect d = mean / sd is
taken as the truth. Each stage is then simulated: seeds drawn one at a time (differences N(d, 1) per claim, claims
independent), every claim's anytime interval (experiments/src/verdicts/anytime_t_test.hpp, g = 1) looked at after
each seed from 2 on at the family's level, and the stage stopped when all its claims are decided (verified, refuted or
not-reproduced) or at the cap. Printed per family rule: the mean seeds per stage, the stage-seconds against today's
fixed 5 seeds (each stage's profile estimate scaled by seeds / 5), and the mean number of claims left undecided.

Usage: anytime_seed_budget.py [REPO] [--cap 20] [--reps 400] [--seed 49]
"""
import argparse
import glob
import json
import math
import os

import numpy as np
from scipy import optimize

STAGE_FILES = {"mnist-evenodd": "lcc_table1", "omniglot-trip": "lcc_omniglot_1_trip",
               "omniglot-margin": "lcc_omniglot_2_margin", "omniglot-ms": "lcc_omniglot_3_ms",
               "omniglot-trimmed": "lcc_omniglot_4_trimmed", "omniglot-positives": "lcc_omniglot_5_positives",
               "omniglot-normalize": "lcc_omniglot_6_normalize", "htl-omniglot": "htl_omniglot",
               "xhn-movement": "xhn_movement", "xhn-groupsize": "xhn_groupsize"}


def log_e(t, n, g=1.0):
    nu = n - 1
    return -0.5 * math.log1p(n * g) + 0.5 * n * (math.log1p(t * t / nu) - math.log1p(t * t / (nu * (1 + n * g))))


LOOKS = None  # the planned looks of a group-sequential design (None: the anytime rule, a look after every seed)


G = 7.33  # the prior variance of the standardized effect (--g; anytime_t_test.hpp's default)


def multiplier(n, level, g=None):
    """c_n: with LOOKS, the t quantile at level / len(LOOKS) (Bonferroni over the planned looks) at a planned look and
    infinity elsewhere; else the anytime interval's multiplier in closed form (anytime_t_test.hpp)."""
    if LOOKS is not None:
        from scipy import stats
        return float(stats.t.ppf(1 - level / len(LOOKS) / 2, n - 1)) if n in LOOKS else math.inf
    g = G if g is None else g
    log_k = math.log1p(n * g)
    log_r = (2 / n) * (0.5 * log_k - math.log(level))
    if not log_r < log_k:
        return math.inf
    a = math.expm1(log_r) / -math.expm1(log_r - log_k)
    return math.sqrt((n - 1) * a)


def claims_of(repo, training_ids):
    """(stage, claim, per-seed differences, delta, paper_sign, arms, estimate_seconds) of every default claim."""
    out = []
    for stage, rf in STAGE_FILES.items():
        path = os.path.join(repo, "reports/experiments", stage + "_summary.json")
        if not os.path.exists(path):
            continue
        rep = json.load(open(os.path.join(repo, "experiments/reproductions", rf + ".json")))
        comp = rep.get("comparison", {})
        est = rep["profiles"]["default"].get("estimate_seconds", 0)
        summary = json.load(open(path))
        for v in summary["variants"]:
            for r in v["rows"]:
                st = r.get("statistics") or {}
                if r.get("claim") not in training_ids or "alpha" not in st:
                    continue
                if r.get("baseline", {}).get("arm") == "bound":
                    t = np.array(r["treatment"]["seeds"], float)
                    b = np.full(len(t), r["baseline"]["mean"])
                elif "seeds" in r.get("treatment", {}) and "seeds" in r.get("baseline", {}):
                    t, b = np.array(r["treatment"]["seeds"], float), np.array(r["baseline"]["seeds"], float)
                elif comp:
                    t = np.array(r["arms"][comp["treatment"]]["seeds"], float)
                    b = np.array(r["arms"][comp["baseline"]]["seeds"], float)
                else:
                    continue
                if len(t) != len(b) or len(t) < 2:
                    continue
                d = t - b
                out.append((stage, r["claim"], d, st.get("smallest_effect", 0.0), st.get("paper_sign", 1),
                            len(rep["arms"]), est))
    return out


def decide(x, delta, level):
    n = len(x)
    sd = x.std(ddof=1)
    if sd == 0:
        return False
    c = multiplier(n, level)
    if math.isinf(c):
        return False
    lo, hi = x.mean() - c * sd / math.sqrt(n), x.mean() + c * sd / math.sqrt(n)
    return lo > 0 or hi < 0 or (delta > 0 and lo > -delta and hi < delta)


def hopeless(x, delta, level, cap):
    """Futility: at the point estimates, not even `cap` seeds would decide (the interval's half-width at the cap,
    c_cap sd / sqrt(cap), neither below |mean| nor below delta - |mean|). Stopping is always allowed: it never raises
    the error of an e-process."""
    n = len(x)
    sd = x.std(ddof=1)
    if sd == 0:
        return True
    last = max(LOOKS) if LOOKS else cap
    half = multiplier(last, level) * sd / math.sqrt(last)
    m = abs(x.mean())
    return not (half < m or (delta > 0 and half < delta - m))


def e_bh_undecided(finals, alpha, m):
    """e-BH over the report's claims at their stopping seeds (a stopped e-process is an e-value): R = the largest k
    whose k-th largest E >= m / (alpha k); every claim then read from its interval at level alpha R / m."""
    e = sorted((math.exp(log_e(x.mean() / (x.std(ddof=1) / math.sqrt(len(x))), len(x), G)) if x.std(ddof=1) > 0 else 0.0
                for x, _ in finals), reverse=True)
    r = max([k for k in range(1, len(e) + 1) if e[k - 1] >= m / (alpha * k)] or [1])
    return sum(1 for x, delta in finals if not decide(x, delta, alpha * r / m))


def truths(claims):
    """The truth of each claim: its observed standardized effect, and delta in the same sd units."""
    out = []
    for (_, _, d, delta, _, _, _) in claims:
        sd = d.std(ddof=1)
        out.append((d.mean() / sd if sd > 0 else 0.0, delta / sd if sd > 0 else 0.0))
    return out


def simulate(claims, level, cap, reps, rng, futility=False, first_look=5, e_bh=None):
    stages = sorted({c[0] for c in claims})
    seeds = {s: [] for s in stages}
    undecided = []
    for _ in range(reps):
        left = 0
        finals = []
        for s in stages:
            mine = [c for c in claims if c[0] == s]
            truth = truths(mine)
            x = [rng.normal(mu, 1.0, cap) for mu, _ in truth]
            done = [False] * len(mine)
            n_used = cap
            for n in range(2, cap + 1):
                for j, (mu, delta) in enumerate(truth):
                    if not done[j]:
                        done[j] = decide(x[j][:n], delta, level)
                if all(done):
                    n_used = n
                    break
                if futility and n >= first_look and all(
                        done[j] or hopeless(x[j][:n], truth[j][1], level, cap) for j in range(len(truth))):
                    n_used = n
                    break
            seeds[s].append(n_used)
            left += done.count(False)
            if e_bh is not None:
                finals.extend((x[j][:n_used], truth[j][1]) for j in range(len(truth)))
        undecided.append(e_bh_undecided(finals, 0.05, e_bh) if e_bh is not None else left)
    return seeds, float(np.mean(undecided))


def arms_of(repo, training_ids):
    """{claim: (treatment arm, baseline arm or None for a bound)} and {stage: its arms' count} of the default claims."""
    arms, counts = {}, {}
    for stage, rf in STAGE_FILES.items():
        path = os.path.join(repo, "reports/experiments", stage + "_summary.json")
        if not os.path.exists(path):
            continue
        rep = json.load(open(os.path.join(repo, "experiments/reproductions", rf + ".json")))
        counts[stage] = len(rep["arms"])
        comp = rep.get("comparison", {})
        for v in json.load(open(path))["variants"]:
            for r in v["rows"]:
                if r.get("claim") not in training_ids:
                    continue
                t, b = r.get("treatment", {}), r.get("baseline", {})
                if b.get("arm") == "bound":
                    arms[r["claim"]] = (t.get("arm"), None)
                elif "arm" in t and "arm" in b:
                    arms[r["claim"]] = (t["arm"], b["arm"])
                elif comp:
                    arms[r["claim"]] = (comp["treatment"], comp["baseline"])
    return arms, counts


def simulate_by_arm(claims, arms, counts, level, start, cap, reps, rng, m):
    """Seeds by arm (not built): every arm starts at `start` seeds, and an arm gets the next seed only while a claim it
    serves is undecided and not hopeless; an arm's run costs its stage's estimate / arms / 5. Returns (stage-seconds,
    mean undecided under e-BH)."""
    stages = sorted({c[0] for c in claims})
    secs, undecided = [], []
    for _ in range(reps):
        total, finals = 0.0, []
        for s in stages:
            mine = [c for c in claims if c[0] == s]
            truth = truths(mine)
            x = [rng.normal(mu, 1.0, cap) for mu, _ in truth]
            served = {a for c in mine for a in arms[c[1]] if a}
            seeds = {a: start for a in served}
            active, used, n = [True] * len(mine), [start] * len(mine), start
            while True:
                for j, (_, delta) in enumerate(truth):
                    if active[j]:
                        used[j] = n
                        if decide(x[j][:n], delta, level) or hopeless(x[j][:n], delta, level, cap):
                            active[j] = False
                if n >= cap or not any(active):
                    break
                n += 1
                for j, c in enumerate(mine):
                    if active[j]:
                        for a in arms[c[1]]:
                            if a:
                                seeds[a] = n
            cost = mine[0][6] / counts[s] / 5
            total += (sum(seeds.values()) + (counts[s] - len(served)) * start) * cost
            finals.extend((x[j][:used[j]], truth[j][1]) for j in range(len(mine)))
        secs.append(total)
        undecided.append(e_bh_undecided(finals, 0.05, m))
    return float(np.mean(secs)), float(np.mean(undecided))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", nargs="?", default=".")
    ap.add_argument("--cap", type=int, default=20)
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--seed", type=int, default=49)
    ap.add_argument("--g", type=float, default=7.33,
                    help="the prior variance g (anytime_t_test.hpp's default: 7.33, the minimax g of looks 4..10 at 0.03)")
    a = ap.parse_args()
    global G
    G = a.g
    cl = json.load(open(os.path.join(a.repo, "reports/claims.json")))
    ids = {r["id"] for r in cl["claims"] if (r.get("statistics") or {}).get("alpha")}
    claims = claims_of(a.repo, ids)
    m = len(ids)
    print(json.dumps({"config": {"cap": a.cap, "reps": a.reps, "seed": a.seed, "family": m, "g": a.g,
                                 "claims_simulated": len(claims)}}))
    stage_est = {c[0]: c[6] for c in claims}
    today = sum(stage_est.values())
    for name, level, futility in [("alone (0.05)", 0.05, False), ("Bonferroni 0.05/%d" % m, 0.05 / m, False),
                                  ("Bonferroni + futility", 0.05 / m, True)]:
        rng = np.random.default_rng(a.seed)
        seeds, left = simulate(claims, level, a.cap, a.reps, rng, futility)
        secs = sum(stage_est[s] * np.mean(v) / 5 for s, v in seeds.items())
        per = ", ".join("%s %.1f" % (s, np.mean(v)) for s, v in sorted(seeds.items()))
        print("%-22s mean seeds per stage: %s" % (name, per))
        print("%-22s stage-seconds %.0f against %.0f at 5 seeds (x%.2f); claims undecided %.1f of %d" %
              (name, secs, today, secs / today, left, len(claims)))
    # e-BH's stopping level: 0.05 x 0.6 (a planning guess of the share R / m it rejects), or the Bonferroni level
    # 0.05 / m, which is what the report's seed spending looks at (report_seed_spending.hpp: SeedSpending::level)
    for cap in sorted({a.cap, 8, 10}):
        for look_name, look in (("looks at 0.05 x 0.6", 0.05 * 0.6), ("looks at 0.05/%d" % m, 0.05 / m)):
            rng = np.random.default_rng(a.seed)
            seeds, left = simulate(claims, look, cap, a.reps, rng, True, e_bh=m)
            secs = sum(stage_est[s] * np.mean(v) / 5 for s, v in seeds.items())
            print("%-22s stage-seconds %.0f against %.0f at 5 seeds (x%.2f); claims undecided %.1f of %d" %
                  ("e-BH cap %d + futility, %s" % (cap, look_name), secs, today, secs / today, left, len(claims)))
    # seeds by arm (as the report spends them), at g = 1 (the unit-information prior), g = 4, and the minimax g of
    # each first look's design (anytime_prior_variance.hpp: 4.21 for looks 5..10, 7.33 for 4..10 at 0.03)
    arms, counts = arms_of(a.repo, ids)
    claims_arms = [c for c in claims if c[1] in arms]
    for g, starts in ((1.0, (5, 4)), (4.0, (5, 4)), (4.21, (5,)), (7.33, (4,))):
        G = g
        for start in starts:
            rng = np.random.default_rng(a.seed)
            secs, left = simulate_by_arm(claims_arms, arms, counts, 0.05 * 0.6, start, 10, a.reps, rng, m)
            print("%-22s stage-seconds %.0f against %.0f at 5 seeds (x%.2f); claims undecided %.1f of %d" %
                  ("e-BH cap 10 + futility, looks at 0.05 x 0.6, seeds by arm from %d, g = %g" % (start, g), secs,
                   today, secs / today, left, len(claims)))
    G = a.g
    global LOOKS
    for looks in ([5, 10], [5, 10, 20], [5, 8, 12]):
        LOOKS = [n for n in looks if n <= a.cap]
        for futility in (False, True):
            rng = np.random.default_rng(a.seed)
            seeds, left = simulate(claims, 0.05 / m, max(LOOKS), a.reps, rng, futility, first_look=LOOKS[0])
            secs = sum(stage_est[s] * np.mean(v) / 5 for s, v in seeds.items())
            name = "looks %s%s" % (LOOKS, " + futility" if futility else "")
            print("%-22s stage-seconds %.0f against %.0f at 5 seeds (x%.2f); claims undecided %.1f of %d" %
                  (name, secs, today, secs / today, left, len(claims)))
    LOOKS = None


if __name__ == "__main__":
    main()
