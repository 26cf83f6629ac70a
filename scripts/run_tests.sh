#!/usr/bin/env bash
# The README's test command: set-up, build, and every ctest label but `slow`; then the sanitizer build's fuzz
# harnesses (label fuzz: each replays its kept crash inputs and fuzzes for a few seconds under ASan + UBSan).
# Extra arguments go to ctest (e.g. -L theory); with them the fuzz label runs only if they name it.
#   --sanitize: instead, the sanitizer build (clang, -fsanitize=address,undefined; scripts/build_sanitize.sh) and its
#               tests: the theory, sims and torch-free data labels, and the fuzz harnesses.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DMLBENCH_BUILD_DIR:-$root/build}"
sanitize_build="${DMLBENCH_SANITIZE_DIR:-$build/sanitize}"
jobs="${DMLBENCH_JOBS:-$(nproc)}"
if [ "${1:-}" = --sanitize ]; then
  shift
  bash "$root/scripts/build_sanitize.sh"
  bash "$root/scripts/fetch_data.sh" "$sanitize_build/apps/dmlbench"
  cd "$sanitize_build"
  exec ctest --output-on-failure -j "$jobs" -LE "slow|cluster" "$@"
fi
bash "$root/scripts/build.sh"
bash "$root/scripts/fetch_data.sh" "$build/apps/dmlbench"   # the bundled MNIST digits the training tests use
status=0
(cd "$build" && ctest --output-on-failure -j "$jobs" -LE slow "$@") || status=$?
if [ $# -eq 0 ] || [[ "$*" == *fuzz* ]]; then
  bash "$root/scripts/build_sanitize.sh" dmlbench_fuzzers
  (cd "$sanitize_build" && ctest --output-on-failure -j "$jobs" -L fuzz "$@") || status=$?
fi
exit $status
