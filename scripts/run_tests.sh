#!/usr/bin/env bash
# The README's test command: set-up, build, and every ctest label but `slow`; then the sanitizer build's fuzz
# harnesses (label fuzz: each replays its kept crash inputs and fuzzes for a few seconds under ASan + UBSan).
# Extra arguments go to ctest (e.g. -L theory); with them the fuzz label runs only if they name it.
#   --sanitize: instead, the sanitizer build (clang, -fsanitize=address,undefined; scripts/build_sanitize.sh) and its
#               tests: the theory, sims and torch-free data labels, and the fuzz harnesses.
# Beside the build: once the build's own packages are in, the others (Python, clang, Slurm, npm) install while it
# compiles, then the sanitizer build of the fuzz harnesses runs at nice 19, on what the build and the tests leave
# idle (links, waits); its output is printed before the fuzz label runs. The tests start once the packages are in.
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
fuzz=0
if [ $# -eq 0 ] || [[ "$*" == *fuzz* ]]; then fuzz=1; fi

DMLBENCH_SETUP=build bash "$root/scripts/setup.sh"
mkdir -p "$build"
side_log="$build/beside_the_build.log"
packages_in="$build/.packages_in"
rm -f "$packages_in"
# its own process group (set -m), so that an exit of this script takes the whole of it down (the trap below); the same
# session, so that nice ranks it below the build and the tests (the kernel's autogroups share the CPU between sessions)
set -m
bash -c 'set -e
  bash "$1/scripts/setup.sh"
  touch "$2"
  if [ "$3" = 1 ]; then exec nice -n 19 bash "$1/scripts/build_sanitize.sh" dmlbench_fuzzers; fi' \
  side "$root" "$packages_in" "$fuzz" > "$side_log" 2>&1 < /dev/null &
side=$!
set +m
trap 'kill -TERM -- -"$side" 2> /dev/null || true' EXIT
echo "[tests] installing the other packages$([ $fuzz = 1 ] && echo ', then the sanitizer build (nice 19),') beside the build: $side_log"

DMLBENCH_SETUP=build bash "$root/scripts/build.sh"
while [ ! -e "$packages_in" ] && kill -0 "$side" 2> /dev/null; do sleep 1; done
if [ ! -e "$packages_in" ]; then
  cat "$side_log" >&2
  echo "[tests] the set-up beside the build failed (above)" >&2
  exit 1
fi
bash "$root/scripts/fetch_data.sh" "$build/apps/dmlbench"   # the bundled MNIST digits the training tests use
status=0
(cd "$build" && ctest --output-on-failure -j "$jobs" -LE slow "$@") || status=$?
side_status=0
wait "$side" || side_status=$?
trap - EXIT
echo "[tests] beside the build ($side_log):"
cat "$side_log"
if [ "$side_status" -ne 0 ]; then
  echo "[tests] the sanitizer build failed (exit $side_status, above)" >&2
  exit 1
fi
if [ $fuzz = 1 ]; then
  (cd "$sanitize_build" && ctest --output-on-failure -j "$jobs" -L fuzz "$@") || status=$?
fi
exit $status
