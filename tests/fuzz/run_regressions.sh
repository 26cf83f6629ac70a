#!/usr/bin/env bash
# Replays every kept crash input of one harness (tests/fuzz/regressions/<name>/): each must now parse or be refused.
# A harness without kept inputs passes by running its corpus's first seed, so that the test still runs the harness.
set -euo pipefail
harness=$1 dir=$2
shopt -s nullglob
inputs=("$dir"/*)
[ ${#inputs[@]} -gt 0 ] || { echo "no kept crash inputs in $dir"; exit 0; }
export TMPDIR="${TMPDIR:-/tmp}"
"$harness" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=20 "${inputs[@]}"
echo "${#inputs[@]} kept inputs replayed"
