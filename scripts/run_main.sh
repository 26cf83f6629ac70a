#!/usr/bin/env bash
# The README's main-job command: set-up, build, fetch the bundled data, then `dmlbench report`, which runs every stage
# whose config changed (theory checks, class-collapse sims, MNIST even/odd training), executes the notebooks and
# writes reports/REPORT.md with its figures. Arguments go to `dmlbench report`: --quick (minutes), --force, --stages.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DMLBENCH_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" dmlbench   # the command and its LibTorch module; not the tests
bash "$root/scripts/fetch_data.sh" "$build/apps/dmlbench"
exec "$build/apps/dmlbench" report --out "${DMLBENCH_REPORT_DIR:-$root/reports}" \
  --work "${DMLBENCH_RUN_DIR:-$root/out}/report" --data-dir "$root/data/mnist" "$@"
