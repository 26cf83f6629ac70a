#!/usr/bin/env bash
# The README's test command: set-up, build, and every ctest label but `slow`.
# Extra arguments go to ctest (e.g. -L theory).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DMLBENCH_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh"
bash "$root/scripts/fetch_data.sh" "$build/apps/dmlbench"   # the bundled MNIST digits the training tests use
cd "$build"
ctest --output-on-failure -j "${DMLBENCH_JOBS:-$(nproc)}" -LE slow "$@"
