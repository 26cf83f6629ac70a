#!/usr/bin/python3
"""References for tests/experiments/verdicts/test_anytime_t_test.cpp, computed at test time with SciPy
(Debian's python3-scipy 1.10) on fixed inputs, written as JSON:

  e_values   E_n of the anytime t-test by its definition, independent of the closed form: the Bayes factor of t under
             delta ~ N(0, g) against delta = 0, the integral over delta of scipy.stats.nct.pdf(t, n - 1, delta sqrt(n))
             times the N(0, g) density (scipy.integrate.quad, epsrel 1e-13), over scipy.stats.t.pdf(t, n - 1)
  radii      c_n: the |t| where E_n = 1/alpha, by scipy.optimize.brentq on the closed form's log E_n - log(1/alpha)
             (xtol 1e-15, rtol 4 eps), null where no |t| reaches 1/alpha; with E_n at that root by the integral above
  intervals  fixed per-seed values: mean, sd (ddof 1), c_n by brentq, mean -+ c_n sd / sqrt(n), E_n against 0 by the
             integral

SciPy 1.10's nct.pdf (a hyp1f1 series) overflows to NaN beyond |non-centrality| ~37, so the integral runs over
|delta sqrt(n)| <= 36 only. The part left out is at most 0.4 (a bound on every non-central t density: the density at x
is E[sqrt(V/nu) phi(x sqrt(V/nu) - nc)] <= phi(0) E[sqrt(V/nu)] <= 0.4) times the prior's mass beyond 36 / sqrt(n);
every case asserts that this bound is below 1e-14 of the integral, and that the integral is finite.

Usage: anytime_t_test_reference.py OUT.json
"""
import json
import math
import sys

import numpy as np
from scipy import integrate, optimize, stats

NC_MAX = 36.0  # |delta sqrt(n)| integrated over; nct.pdf is finite up to ~37 for |t| <= 15 and nu >= 1


def log_e_closed(t, n, g):
    """The closed form (Gonen et al. 2005), only to place brentq's root; the C++ is checked against log_e_integral."""
    nu, k = n - 1, 1 + n * g
    a = t * t / nu
    return -0.5 * math.log(k) + 0.5 * n * (math.log1p(a) - math.log1p(a / k))


def log_e_integral(t, n, g):
    nu, sg, rn = n - 1, math.sqrt(g), math.sqrt(n)
    half = NC_MAX / rn
    if abs(t) / rn >= half:
        raise ValueError(f"t {t} beyond the integrated range at n {n}")
    f = lambda d: stats.nct.pdf(t, nu, d * rn) * stats.norm.pdf(d, 0.0, sg)
    value, err = integrate.quad(f, -half, half, points=sorted({0.0, t / rn}), epsabs=0, epsrel=1e-13, limit=1000)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"the integral at t {t}, n {n}, g {g} is {value}")
    left_out = 0.4 * 2 * stats.norm.sf(half / sg)
    if left_out > 1e-14 * value:
        raise ValueError(f"n {n}, g {g}: the prior's mass beyond |nc| {NC_MAX} is not negligible")
    return math.log(value) - stats.t.logpdf(t, nu), err / value


def radius(n, alpha, g):
    if 0.5 * (n - 1) * math.log1p(n * g) <= math.log(1 / alpha):
        return None  # E_n's bound (1 + n g)^((n - 1)/2) stays below 1/alpha
    f = lambda c: log_e_closed(c, n, g) - math.log(1 / alpha)
    high = 1.0
    while f(high) < 0:
        high *= 2
    return optimize.brentq(f, 0.0, high, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)


def e_value_cases():
    out = []
    # (n, g) with n g <= 20, so that the prior's mass beyond |nc| 36 is negligible (asserted in log_e_integral)
    for n, g in [(2, 0.25), (2, 1.0), (2, 4.0), (3, 1.0), (3, 4.0), (5, 0.25), (5, 1.0), (5, 2.0), (10, 0.25),
                 (10, 1.0), (20, 0.25), (20, 1.0), (50, 0.1)]:
        for t in [0.0, 0.7, -2.5, 4.0, 6.0]:
            log_e, rel_err = log_e_integral(t, n, g)
            out.append({"n": n, "t": t, "g": g, "log_e": log_e, "quad_relative_error": rel_err})
    return out


def radius_cases():
    out = []
    for n, alpha, g in [(2, 0.05, 1.0), (4, 0.05, 1.0), (5, 0.05, 1.0), (6, 0.05, 1.0), (10, 0.05, 1.0),
                        (20, 0.05, 1.0), (7, 0.005, 1.0), (12, 0.005, 1.0), (20, 0.1, 0.25), (4, 0.05, 2.0),
                        (3, 0.1, 6.0), (16, 0.01, 0.5)]:
        c = radius(n, alpha, g)
        entry = {"n": n, "alpha": alpha, "g": g, "c": c}
        if c is not None:
            entry["log_e_at_c"] = log_e_integral(c, n, g)[0]
        out.append(entry)
    return out


def interval_cases():
    rng = np.random.RandomState(49)
    samples = [
        # paired Recall@1 differences in points, 5 seeds: clearly positive
        ("apart_5", [2.1, 3.4, 1.8, 2.9, 2.5]),
        # around 0, 8 seeds
        ("near_zero_8", [0.12, -0.31, 0.05, 0.22, -0.18, 0.09, -0.02, 0.14]),
        # 3 seeds: too few at alpha 0.05 with g 1
        ("three", [1.0, 1.4, 0.9]),
        # 16 draws of a fixed generator, effect 0.8 sd
        ("drawn_16", list(rng.normal(0.8, 1.0, 16))),
    ]
    out = []
    for name, d in samples:
        d = [float(x) for x in d]
        n, mean, sd = len(d), float(np.mean(d)), float(np.std(d, ddof=1))
        for alpha, g in [(0.05, 1.0), (0.01, 0.5)]:
            c = radius(n, alpha, g)
            se = sd / math.sqrt(n)
            entry = {"name": name, "values": d, "alpha": alpha, "g": g, "mean": mean, "sd": sd, "c": c,
                     "low": None if c is None else mean - c * se, "high": None if c is None else mean + c * se,
                     "log_e_against_0": log_e_integral(mean / se, n, g)[0]}
            out.append(entry)
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    ref = {"e_values": e_value_cases(), "radii": radius_cases(), "intervals": interval_cases()}
    with open(sys.argv[1], "w") as f:
        json.dump(ref, f, indent=1, allow_nan=False)


if __name__ == "__main__":
    main()
