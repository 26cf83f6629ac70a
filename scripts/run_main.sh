#!/usr/bin/env bash
# The README's main-job command: set-up, build, then regenerate the report on the bundled data.
# Today the report is the theory and class-collapse claims tables; later stages add experiments and figures.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DMLBENCH_BUILD_DIR:-$root/build}"
out="${DMLBENCH_REPORT_DIR:-$root/reports}"
bash "$root/scripts/build.sh"
bash "$root/scripts/fetch_data.sh" "$build/apps/dmlbench"
mkdir -p "$out/theory" "$out/sims"
echo "[main] stage 1/2: theory checks ([XHN], [XHN-A], [XGS])"
"$build/apps/dmlbench" theory check --json "$out/theory/claims.json" --markdown "$out/theory/CLAIMS.md"
echo "[main] stage 2/2: class-collapse checks ([LCC])"
"$build/apps/dmlbench" sim check --json "$out/sims/claims.json" --markdown "$out/sims/CLAIMS.md"
echo "[main] reports: $out/theory/CLAIMS.md $out/sims/CLAIMS.md"
