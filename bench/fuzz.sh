#!/usr/bin/env bash
# Long fuzzing of every reader: each harness of tests/fuzz/ under ASan + UBSan for SECONDS (default 1800) or
# RUNS executions (whichever comes first), from its seed corpus; a table of executions, coverage and findings per
# harness at the end. New inputs go to build/sanitize/fuzz-long/<harness>/corpus, crash inputs beside them.
# Usage: bench/fuzz.sh [SECONDS] [RUNS] [HARNESS...]; DMLBENCH_FUZZ_NO_BUILD=1 uses the harnesses already built.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-1800}" runs="${2:-1000000}"
shift $(( $# > 2 ? 2 : $# ))
build="${DMLBENCH_SANITIZE_DIR:-${DMLBENCH_BUILD_DIR:-$root/build}/sanitize}"
[ -n "${DMLBENCH_FUZZ_NO_BUILD:-}" ] || bash "$root/scripts/build_sanitize.sh" dmlbench_fuzzers
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  for d in "$root"/tests/fuzz/corpus/*/; do harnesses+=("$(basename "$d")"); done
fi
printf "%-20s %12s %10s %8s %8s %s\n" harness executions exec/s cov corpus findings > "$build/fuzz-long.txt"
for h in "${harnesses[@]}"; do
  work="$build/fuzz-long/$h"
  mkdir -p "$work/corpus"
  log="$work/fuzz.log"
  echo "[fuzz] $h: up to $seconds s or $runs runs (log $log)"
  "$build/tests/fuzz/fuzz_$h" -seed=29 -max_total_time="$seconds" -runs="$runs" -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -timeout=20 -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/" \
    "$work/corpus" "$root/tests/fuzz/corpus/$h" > "$log" 2>&1 || true
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  start=$(grep -o 'INITED cov: [0-9]*' "$log" | head -1 | awk '{print $3}')
  corpus=$(find "$work/corpus" -type f | wc -l)
  found=$(find "$work" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'leak-*' -o -maxdepth 1 -name 'timeout-*' \
          -o -maxdepth 1 -name 'oom-*' | wc -l)
  printf "%-20s %12s %10s %8s %8s %s\n" "$h" "${execs:-?}" "${rate:-?}" "${start:-?}->${cov:-?}" "$corpus" \
    "$found" >> "$build/fuzz-long.txt"
done
cat "$build/fuzz-long.txt"
