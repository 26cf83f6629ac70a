#!/usr/bin/python3
"""References for tests/experiments/verdicts/test_verdict_statistics.cpp, computed at test time with SciPy and
statsmodels on fixed inputs (Debian's python3-scipy 1.10 and python3-statsmodels 0.13), written as JSON:

  welch        scipy.stats.ttest_ind(a, b, equal_var=False) for t and p; statsmodels ttest_ind(usevar="unequal") for df;
               CompareMeans.tconfint_diff(usevar="unequal") for the interval
  one_sample   scipy.stats.ttest_1samp(a, bound) for t, p and the interval (its confidence_interval, minus the bound)
  tost         statsmodels ttost_ind(a, b, -delta, delta, usevar="unequal"); DescrStatsW(a).ttost_mean(bound -+ delta)
  power        statsmodels TTestIndPower / TTestPower (equal spreads: power; the effect at 80% by brentq on their power;
               the seeds for an effect by solve_power, rounded up); unequal spreads from scipy.stats.nct with Welch's
               se and df
  multiplicity statsmodels multipletests(method="holm" / "fdr_bh"), NaN entries left out of the family
  binomial     scipy.stats.binomtest(k, n, p0).pvalue (two-sided, "greater", "less") for every k of n;
               proportion_confint(method="beta"); statsmodels binom_tost(k, n, low, upp) for the exact equivalence

Usage: verdict_statistics_reference.py OUT.json
"""
import json
import math
import sys
import warnings

import numpy as np
from scipy import optimize, stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestIndPower, TTestPower
from statsmodels.stats.proportion import binom_tost, proportion_confint
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW, ttest_ind, ttost_ind

ALPHAS = [0.05, 0.1]


def fixed_samples():
    rng = np.random.RandomState(27)
    return [
        # clearly apart (an [LCC] Table 1 like Recall@1 in percent, 5 seeds per arm)
        ("apart", [61.2, 63.5, 59.8, 64.1, 62.7], [55.4, 58.1, 56.9, 54.2, 57.3]),
        # close, unequal sizes and spreads
        ("close", [0.412, 0.398, 0.431], [0.405, 0.421, 0.389, 0.417]),
        # one side without spread: Welch's df is then the other side's n - 1
        ("one_side_flat", [1.0, 1.0, 1.0], [0.8, 1.1, 0.95, 1.3]),
        # 12 against 9 draws of a fixed generator
        ("drawn", list(rng.normal(10.0, 2.0, 12)), list(rng.normal(11.5, 0.7, 9))),
    ]


def welch_cases():
    out = []
    for name, a, b in fixed_samples():
        t, p = stats.ttest_ind(a, b, equal_var=False)
        _, p_sm, df = ttest_ind(a, b, usevar="unequal")
        cm = CompareMeans(DescrStatsW(a), DescrStatsW(b))
        intervals = {str(al): list(cm.tconfint_diff(alpha=al, usevar="unequal")) for al in ALPHAS}
        out.append({"name": name, "a": a, "b": b, "difference": float(np.mean(a) - np.mean(b)), "t": float(t),
                    "p": float(p), "p_statsmodels": float(p_sm), "df": float(df), "ci": intervals})
    return out


def one_sample_cases():
    cases = [("above_bound", [0.031, 0.044, 0.027, 0.052, 0.038], 0.0),
             ("near_bound", [0.48, 0.53, 0.51], 0.5),
             ("below_bound", [12.1, 11.4, 12.9, 11.8, 12.3, 11.1, 12.0], 13.0)]
    out = []
    for name, a, bound in cases:
        r = stats.ttest_1samp(a, bound)
        _, _, df = DescrStatsW(a).ttest_mean(bound)
        intervals = {}
        for al in ALPHAS:
            ci = r.confidence_interval(confidence_level=1 - al)
            intervals[str(al)] = [float(ci.low - bound), float(ci.high - bound)]
        out.append({"name": name, "a": a, "bound": bound, "difference": float(np.mean(a) - bound),
                    "t": float(r.statistic), "p": float(r.pvalue), "df": float(df), "ci": intervals})
    return out


def tost_entry(pvalue, lower, upper, alpha):
    return {"p_tost": float(pvalue), "t_lower": float(lower[0]), "p_lower": float(lower[1]),
            "t_upper": float(upper[0]), "p_upper": float(upper[1]), "df": float(lower[2]),
            "equivalent": bool(pvalue < alpha)}


def tost_cases():
    out = []
    for name, a, b in fixed_samples():
        if name == "one_side_flat":
            continue
        spread = float(np.std(a, ddof=1) + np.std(b, ddof=1))
        for factor in [0.5, 2.0, 8.0]:  # delta from below the observed difference to well above it
            delta = factor * spread
            for al in ALPHAS:
                pvalue, lower, upper = ttost_ind(a, b, -delta, delta, usevar="unequal")
                e = tost_entry(pvalue, lower, upper, al)
                out.append(dict({"kind": "two_sample", "a": a, "b": b, "delta": delta, "alpha": al}, **e))
    for name, a, bound in [("near_bound", [0.48, 0.53, 0.51], 0.5), ("above_bound", [0.031, 0.044, 0.027, 0.052], 0.0)]:
        for delta in [0.01, 0.05, 0.2]:
            pvalue, lower, upper = DescrStatsW(a).ttost_mean(bound - delta, bound + delta)
            e = tost_entry(pvalue, lower, upper, 0.05)
            out.append(dict({"kind": "one_sample", "a": a, "bound": bound, "delta": delta, "alpha": 0.05}, **e))
    return out


def nct_power(effect, se, df, alpha):
    crit = stats.t.isf(alpha / 2, df)
    nc = effect / se
    return float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))


def power_cases():
    out = {"welch_equal": [], "welch_unequal": [], "one_sample": [], "mde_welch": [], "mde_one_sample": [],
           "seeds_welch": [], "seeds_one_sample": []}
    ind, one = TTestIndPower(), TTestPower()
    for effect, sd, n, al in [(1.0, 1.0, 5, 0.05), (2.5, 1.3, 3, 0.05), (0.4, 1.0, 20, 0.05), (3.0, 2.0, 8, 0.1),
                              (-1.5, 1.0, 6, 0.05)]:
        out["welch_equal"].append({"effect": effect, "sd": sd, "n": n, "alpha": al,
                                   "power": float(ind.power(effect_size=effect / sd, nobs1=n, alpha=al, ratio=1.0))})
        out["one_sample"].append({"effect": effect, "sd": sd, "n": n, "alpha": al,
                                  "power": float(one.power(effect_size=effect / sd, nobs=n, alpha=al))})
    for effect, sa, sb, na, nb, al in [(1.0, 0.5, 1.5, 5, 4, 0.05), (0.2, 0.1, 0.3, 3, 3, 0.05),
                                       (4.0, 3.0, 0.5, 10, 5, 0.1)]:
        va, vb = sa * sa / na, sb * sb / nb
        se = math.sqrt(va + vb)
        df = (va + vb) ** 2 / (va * va / (na - 1) + vb * vb / (nb - 1))
        out["welch_unequal"].append({"effect": effect, "sd_a": sa, "sd_b": sb, "n_a": na, "n_b": nb, "alpha": al,
                                     "power": nct_power(effect, se, df, al)})
    # the effect with 80% power: statsmodels' power solved with brentq to xtol 1e-14 (solve_power itself stops at a
    # power 3e-7 off 0.8, i.e. an effect ~5e-7 off, too coarse to compare two solvers)
    for sd, n, al in [(1.0, 3, 0.05), (1.0, 5, 0.05), (2.5, 10, 0.05), (0.3, 4, 0.1)]:
        d = optimize.brentq(lambda x: ind.power(effect_size=x, nobs1=n, alpha=al, ratio=1.0) - 0.8, 1e-3, 100,
                            xtol=1e-14)
        out["mde_welch"].append({"sd": sd, "n": n, "alpha": al, "mde": float(d * sd)})
        d1 = optimize.brentq(lambda x: one.power(effect_size=x, nobs=n, alpha=al) - 0.8, 1e-3, 100, xtol=1e-14)
        out["mde_one_sample"].append({"sd": sd, "n": n, "alpha": al, "mde": float(d1 * sd)})
    for effect, sd, al in [(1.0, 1.0, 0.05), (0.5, 1.0, 0.05), (3.0, 1.0, 0.05), (1.0, 2.0, 0.1)]:
        n = ind.solve_power(effect_size=effect / sd, nobs1=None, alpha=al, power=0.8, ratio=1.0)
        seeds = max(2, math.ceil(n))
        out["seeds_welch"].append({"effect": effect, "sd": sd, "alpha": al, "n_continuous": float(n), "seeds": seeds,
                                   "power_below": float(ind.power(effect_size=effect / sd, nobs1=seeds - 1, alpha=al))
                                   if seeds > 2 else None})
        n1 = one.solve_power(effect_size=effect / sd, nobs=None, alpha=al, power=0.8)
        out["seeds_one_sample"].append({"effect": effect, "sd": sd, "alpha": al, "n_continuous": float(n1),
                                        "seeds": max(2, math.ceil(n1))})
    return out


def multiplicity_cases():
    rng = np.random.RandomState(2027)
    lists = [list(rng.uniform(0, 1, 20) ** 3),
             [0.01, 0.04, 0.03, 0.04, 0.2, 0.001, 0.5, 0.04],   # ties
             [0.015, 0.017, 0.3, 0.0004, 0.049, 0.9, 0.002, 0.026, 0.011, 0.6, 0.04, 0.07]]
    out = []
    for p in lists:
        out.append({"p": [float(x) for x in p], "holm": list(multipletests(p, method="holm")[1]),
                    "bh": list(multipletests(p, method="fdr_bh")[1])})
    # with NaN entries (claims with no test): the family is the other entries, the NaN ones stay NaN (null)
    with_nan = [0.02, None, 0.01, 0.3, None, 0.04]
    members = [x for x in with_nan if x is not None]
    entry = {"p": with_nan}
    for method, key in [("holm", "holm"), ("fdr_bh", "bh")]:
        adjusted = iter(multipletests(members, method=method)[1])
        entry[key] = [None if x is None else float(next(adjusted)) for x in with_nan]
    out.append(entry)
    return out


def binomial_cases():
    out = []
    for n, p0 in [(20, 0.3), (37, 0.5), (150, 0.1), (7, 0.9), (12, 0.25)]:
        out.append({"n": n, "p0": p0, "p": [float(stats.binomtest(k, n, p0).pvalue) for k in range(n + 1)],
                    "greater": [float(stats.binomtest(k, n, p0, alternative="greater").pvalue) for k in range(n + 1)],
                    "less": [float(stats.binomtest(k, n, p0, alternative="less").pvalue) for k in range(n + 1)]})
    return out


def binomial_tost_cases():
    # exact equivalence of a count's share to [low, upp] (statsmodels binom_tost: the larger of the two one-sided
    # exact p-values), for every k of n
    out = []
    for n, low, upp in [(30, 0.0, 0.02), (200, 0.005, 0.025), (55, 0.2, 0.4), (9, 0.4, 0.6)]:
        out.append({"n": n, "low": low, "upp": upp,
                    "p": [float(binom_tost(k, n, low, upp)[0]) for k in range(n + 1)]})
    return out


def clopper_pearson_cases():
    out = []
    for n in [1, 9, 40, 300]:
        for al in ALPHAS:
            lows, highs = proportion_confint(np.arange(n + 1), n, alpha=al, method="beta")
            out.append({"n": n, "alpha": al, "low": [float(x) for x in lows], "high": [float(x) for x in highs]})
    return out


def main():
    # statsmodels' solve_power brackets its root through extreme non-centralities (scipy warns of NaN there), and
    # scipy warns of a sample with no spread ("one_side_flat"): neither touches a value written here.
    warnings.simplefilter("ignore", RuntimeWarning)
    np.seterr(all="ignore")
    if len(sys.argv) != 2:
        sys.exit("usage: verdict_statistics_reference.py OUT.json")
    ref = {"welch": welch_cases(), "one_sample": one_sample_cases(), "tost": tost_cases(), "power": power_cases(),
           "multiplicity": multiplicity_cases(), "binomial": binomial_cases(),
           "binomial_tost": binomial_tost_cases(),
           "clopper_pearson": clopper_pearson_cases()}
    with open(sys.argv[1], "w") as f:
        json.dump(ref, f, indent=1, allow_nan=False)
    print("wrote", sys.argv[1])


if __name__ == "__main__":
    main()
