#!/usr/bin/python3
"""`dmlbench eval` on a train run's written embeddings agrees with the run's own evaluation (metrics.json).

Usage: test_eval_matches_training.py DMLBENCH CONFIG DATA_DIR WORK_DIR

A short run of CONFIG (5 steps, CPU, seed as configured) writes out/embeddings/<set>.npy and <set>_labels.csv; eval
runs on each with the run's settings (metric, K, NMI+ factor, the run's seed as k-means seed) and must give:
 - Recall@K, precision@1, R-precision, MAP@R, queries_without_positive, NMI and NMI+: equal, exactly. The trainer
   and eval compute them with the same functions (the exact kNN engine, ties by gallery index; k-means) on the same
   float32 rows (the .npy holds the trainer's float32 embeddings bit for bit) and the same labels in the same
   numeric order; the trainer's recall_ties_at_k equals eval's.
Negative control: eval with the other metric (cosine) fails the same comparison.
Exit 0: agreement; 1: a mismatch (printed).
"""
import json
import os
import shutil
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("command failed (%d): %s\n%s%s" % (p.returncode, " ".join(cmd), p.stdout, p.stderr))
    return p.stdout


def mismatches(train_eval, report, n):
    """The differences between one set's metrics.json evaluation and an eval report, as readable lines."""
    bad = []
    for level, t in train_eval.items():
        e = report["result"]["levels"][level]
        for key in ("precision_at_1", "r_precision", "map_at_r", "queries_without_positive", "nmi", "nmi_plus"):
            if t[key] != e[key]:
                bad.append("%s %s: train %r, eval %r" % (level, key, t[key], e[key]))
        if t["nmi_plus_k"] != e["nmi_plus_k"] or t["classes"] != e["nmi_k"]:
            bad.append("%s: k of NMI / NMI+ differ" % level)
        if sorted(t["recall_at_k"]) != sorted(e["recall_at_k"]):
            bad.append("%s: different K" % level)
            continue
        if t["recall_at_k"] != e["recall_at_k"]:
            bad.append("%s Recall@K: train %r, eval %r" % (level, t["recall_at_k"], e["recall_at_k"]))
        if t.get("recall_ties_at_k") != report["result"]["recall_ties_at_k"]:
            bad.append("%s recall_ties_at_k: train %r, eval %r" % (level, t.get("recall_ties_at_k"),
                                                                   report["result"]["recall_ties_at_k"]))
    return bad


def main():
    dmlbench, config, data_dir, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "run")
    run([dmlbench, "train", "--config", config, "--max-steps", "5", "--device", "cpu",
         "--set", "dataset.data_dir=" + data_dir, "--out", out])
    metrics = json.load(open(os.path.join(out, "metrics.json")))
    c = metrics["config"]
    failures = []
    for name, train_eval in metrics["eval"].items():
        def evaluate(metric):
            path = os.path.join(work, "%s-%s.json" % (name, metric))
            run([dmlbench, "eval", "--embeddings", os.path.join(out, "embeddings", name + ".npy"),
                 "--labels", os.path.join(out, "embeddings", name + "_labels.csv"),
                 "--level", *train_eval.keys(), "--k", *[str(k) for k in c["eval"]["ks"]], "--metric", metric,
                 "--nmi-plus-factor", str(c["eval"]["nmi_plus_factor"]), "--kmeans-seed", str(c["seed"]),
                 "--device", "cpu", "--out", path])
            return json.load(open(path))
        report = evaluate(c["eval"]["metric"])
        n = report["result"]["queries"]
        bad = mismatches(train_eval, report, n)
        failures += ["%s: %s" % (name, b) for b in bad]
        print("%s (%d items): Recall@K, NMI, NMI+, P@1, R-precision, MAP@R equal; boundary ties %s"
              % (name, n, report["result"]["recall_ties_at_k"]))
        other = "cosine" if c["eval"]["metric"] == "euclidean" else "euclidean"
        if not mismatches(train_eval, evaluate(other), n):
            failures.append("%s: negative control: eval --metric %s agrees too (the comparison is blind)" % (name, other))
    for f in failures:
        print("MISMATCH " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
