#!/usr/bin/env bash
# Fuzzes one harness for SECONDS from its seed corpus (libFuzzer, under ASan and UBSan): new inputs go to WORK/corpus,
# a crash input to WORK/ (crash-*, leak-*, timeout-*, oom-*) with the harness's report on stderr.
# Usage: run_fuzzer.sh HARNESS WORK SECONDS CORPUS... ; seed: DMLBENCH_FUZZ_SEED (default 1).
set -euo pipefail
harness=$1 work=$2 seconds=$3
shift 3
mkdir -p "$work/corpus"
# -malloc_limit_mb: a single allocation above 1 GiB is a finding (the readers check declared sizes first, against
# DMLBENCH_MEMORY_LIMIT, which the harnesses set to 256 MiB); -timeout: one input over 20 s is a hang.
exec "$harness" -seed="${DMLBENCH_FUZZ_SEED:-1}" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
  -timeout=20 -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$@"
