#!/usr/bin/env bash
# The README's main-job command: set-up, build, then regenerate the report on the bundled data.
# Today the report is the theory claims table ([XHN], [XHN-A], [XGS]); later stages add sims and experiments.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DMLBENCH_BUILD_DIR:-$root/build}"
out="${DMLBENCH_REPORT_DIR:-$root/reports}"
bash "$root/scripts/build.sh"
mkdir -p "$out/theory"
echo "[main] stage 1/1: theory checks"
"$build/apps/dmlbench" theory check --json "$out/theory/claims.json" --markdown "$out/theory/CLAIMS.md"
echo "[main] report: $out/theory/CLAIMS.md"
