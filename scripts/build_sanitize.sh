#!/usr/bin/env bash
# The sanitizer build (issue 29): clang with -fsanitize=address,undefined (any report fatal) and libFuzzer's coverage,
# of the torch-free layers (theory, sims, the data readers, the torch-free `dmlbench`), their tests and the fuzz
# harnesses of tests/fuzz/. LibTorch is left out: it is not built with the sanitizers' runtime, and none of the bench's
# own readers depend on it. Arguments name the targets (default: all); the test command builds `dmlbench_fuzzers`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DMLBENCH_SANITIZE_DIR:-${DMLBENCH_BUILD_DIR:-$root/build}/sanitize}"
jobs="${DMLBENCH_JOBS:-$(nproc)}"

bash "$root/scripts/setup.sh"
echo "[sanitize] configuring $build (clang, ASan + UBSan + libFuzzer coverage, -O1)"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DDMLBENCH_WITH_TORCH=OFF -DDMLBENCH_FUZZ=ON \
  > "$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; echo "[sanitize] configure failed" >&2; exit 1; }
targets=()
for t in "$@"; do targets+=(--target "$t"); done
echo "[sanitize] compiling ${*:-all targets} with $jobs jobs"
cmake --build "$build" -j "$jobs" "${targets[@]}"
