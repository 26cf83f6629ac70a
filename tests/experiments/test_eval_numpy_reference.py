#!/usr/bin/python3
"""`dmlbench eval` against an independent numpy reference with pytorch-metric-learning's definitions.

Usage: test_eval_numpy_reference.py DMLBENCH WORK_DIR      (Debian's python3-numpy; exit 77: numpy missing)

pytorch-metric-learning is not installed here, so its AccuracyCalculator's definitions (v1.x/2.x,
accuracy_calculator.py) are written out in numpy below:
 - a query whose label has no other item among the references is "lone" and left out of precision@1, R-precision
   and MAP@R (not_lone_query_mask); dmlbench also leaves it out and counts it as a Recall@K miss (Recall@K is not a
   pml metric; [LCC]/[XHN] average it over every query);
 - precision@1: the nearest reference has the query's label; R-precision: same-label items among the R nearest / R;
   MAP@R: sum over ranks i <= R of precision@i at each same-label rank, / R (mean_average_precision_at_r,
   avg_of_avgs off); R = the query's same-label references (minus itself in self-retrieval).
 - the query is excluded by index, not by distance: pml's test_tied_distances (co-located items of another label).
Ties: integer points on a 7 x 7 grid, so squared distances are small integers, exact in float32 and float64, and
nearly every ranking ties; the reference breaks ties by index (a stable sort), dmlbench's stated rule.
Tolerance: counts (queries without a positive, boundary ties) exactly; rates within 1e-12 absolute: each is a mean
of at most 300 terms in [0, 1], which numpy and dmlbench sum in different orders (error <= 300 x 2^-53 ~ 3e-14).
Negative control: the reference with the opposite tie order (higher index first) disagrees with dmlbench.
"""
import json
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("python3-numpy is missing: skipped")
    sys.exit(77)

KS = [1, 2, 4, 8]


def reference(q, qy, g, gy, same_source, reverse_ties=False):
    d = ((q[:, None, :] - g[None, :, :]) ** 2).sum(2)  # exact: small integers in float64
    n = len(q)
    hits = np.zeros(len(KS))
    ties = np.zeros(len(KS), dtype=int)
    p1, rp, ap, counted = [], [], [], 0
    for i in range(n):
        idx = np.arange(len(g))
        if same_source:
            idx = idx[idx != i]
        key = -idx if reverse_ties else idx
        order = idx[np.lexsort((key, d[i, idx]))]  # by distance, then by index (or reversed)
        rel = gy[order] == qy[i]
        dist = d[i, order]
        for j, k in enumerate(KS):
            hits[j] += rel[:k].any()
            ties[j] += k < len(order) and dist[k - 1] == dist[k]
        r = int(rel.sum())
        if r == 0:
            continue  # lone query
        counted += 1
        p1.append(float(rel[0]))
        top = rel[:r]
        rp.append(top.sum() / r)
        precision_at_i = np.cumsum(top) / np.arange(1, r + 1)
        ap.append((precision_at_i * top).sum() / r)
    return {"recall_at_k": {str(k): hits[j] / n for j, k in enumerate(KS)}, "precision_at_1": np.mean(p1),
            "r_precision": np.mean(rp), "map_at_r": np.mean(ap), "queries_without_positive": n - counted,
            "ties": {str(k): int(ties[j]) for j, k in enumerate(KS)}}


def differences(result, level, ref):
    e = result["levels"][level]
    bad = []
    if e["queries_without_positive"] != ref["queries_without_positive"]:
        bad.append("%s queries_without_positive %r != %r" % (level, e["queries_without_positive"],
                                                             ref["queries_without_positive"]))
    if result["recall_ties_at_k"] != ref["ties"]:
        bad.append("recall_ties_at_k %r != %r" % (result["recall_ties_at_k"], ref["ties"]))
    pairs = [("R@" + k, e["recall_at_k"][k], ref["recall_at_k"][k]) for k in ref["recall_at_k"]]
    pairs += [(m, e[m], ref[m]) for m in ("precision_at_1", "r_precision", "map_at_r")]
    for name, got, want in pairs:
        if abs(got - want) > 1e-12:
            bad.append("%s %s: dmlbench %r, reference %r" % (level, name, got, want))
    return bad


def main():
    dmlbench, work = sys.argv[1:3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rng = np.random.default_rng(20240611)  # pinned
    n = 300
    x = rng.integers(-3, 4, size=(n, 2)).astype(np.float64)
    # labels follow the grid cell (49 cells) for 70% of the points, so the metrics are far from chance
    cell = ((x[:, 0] + 3) * 7 + (x[:, 1] + 3)).astype(int)
    fine = np.where(rng.random(n) < 0.7, cell, rng.integers(0, 49, size=n))
    fine[:5] = 100 + np.arange(5)  # five labels with one member: lone queries
    coarse = fine // 7
    np.save(os.path.join(work, "emb.npy"), x)  # float64, as other frameworks write
    with open(os.path.join(work, "labels.csv"), "w") as f:
        f.write("fine,coarse\n" + "".join("%d,%d\n" % (a, b) for a, b in zip(fine, coarse)))
    nq = 60  # query/gallery mode: the first 60 rows against the other 240
    np.save(os.path.join(work, "q.npy"), x[:nq])
    np.save(os.path.join(work, "g.npy"), x[nq:])
    for name, ys in (("q", (fine[:nq], coarse[:nq])), ("g", (fine[nq:], coarse[nq:]))):
        with open(os.path.join(work, name + "_labels.csv"), "w") as f:
            f.write("fine,coarse\n" + "".join("%d,%d\n" % (a, b) for a, b in zip(*ys)))

    def evaluate(args, out):
        path = os.path.join(work, out)
        subprocess.run([dmlbench, "eval", *args, "--metric", "euclidean", "--k", *map(str, KS), "--no-nmi",
                        "--device", "cpu", "--out", path], check=True, stdout=subprocess.DEVNULL)
        return json.load(open(path))["result"]

    p = lambda f: os.path.join(work, f)
    self_result = evaluate(["--embeddings", p("emb.npy"), "--labels", p("labels.csv")], "self.json")
    qg_result = evaluate(["--embeddings", p("g.npy"), "--labels", p("g_labels.csv"), "--query-embeddings", p("q.npy"),
                          "--query-labels", p("q_labels.csv")], "qg.json")
    failures = []
    for level, y in (("fine", fine), ("coarse", coarse)):
        failures += differences(self_result, level, reference(x, y, x, y, True))
        failures += differences(qg_result, level, reference(x[:nq], y[:nq], x[nq:], y[nq:], False))
    # negative control: the opposite tie order changes the metrics on these tied rankings
    if not differences(self_result, "fine", reference(x, fine, x, fine, True, reverse_ties=True)):
        failures.append("negative control: the reversed tie order agrees too (the comparison is blind to ties)")
    print("self-retrieval: %s; query/gallery: %s; boundary ties %s" %
          (json.dumps(self_result["levels"]["fine"]), json.dumps(qg_result["levels"]["fine"]),
           self_result["recall_ties_at_k"]))
    for f in failures:
        print("MISMATCH " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
