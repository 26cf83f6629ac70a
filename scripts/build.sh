#!/usr/bin/env bash
# Set-up (Debian packages) + configure + build. Used by both README commands; safe to re-run.
# Arguments name the targets to build (default: all, tests included); the main job builds just `dmlbench`.
# DMLBENCH_CMAKE_ARGS: further configure arguments (words), after -DCMAKE_BUILD_TYPE=Release, which they may
# override; scripts/build_sanitize.sh configures the sanitizer build through them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DMLBENCH_BUILD_DIR:-$root/build}"
jobs="${DMLBENCH_JOBS:-$(nproc)}"
read -r -a extra <<< "${DMLBENCH_CMAKE_ARGS:-}"

bash "$root/scripts/setup.sh"
echo "[build] configuring $build (Release${extra[*]:+, then ${extra[*]}})"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" > "$build/configure.log" 2>&1 || {
  cat "$build/configure.log" >&2; echo "[build] configure failed" >&2; exit 1; }
targets=()
for t in "$@"; do targets+=(--target "$t"); done
echo "[build] compiling ${*:-all targets} with $jobs jobs"
cmake --build "$build" -j "$jobs" "${targets[@]}"
