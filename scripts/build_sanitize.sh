#!/usr/bin/env bash
# The sanitizer build: clang with -fsanitize=address,undefined (any report fatal) and libFuzzer's coverage,
# of the torch-free layers (theory, sims, the data readers, the torch-free `dmlbench`), their tests and the fuzz
# harnesses of tests/fuzz/. LibTorch is left out: it is not built with the sanitizers' runtime, and none of the bench's
# own readers depend on it. Arguments name the targets (default: all); the test command builds `dmlbench_fuzzers`.
# Debug (asserts on, as Eigen's), at the -O1 that the sanitize options of CMakeLists.txt add; line tables only for
# debug information (-gline-tables-only: a report's stack names every file and line, as with -g, for less to compile).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DMLBENCH_BUILD_DIR="${DMLBENCH_SANITIZE_DIR:-${DMLBENCH_BUILD_DIR:-$root/build}/sanitize}" \
DMLBENCH_CMAKE_ARGS="-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only -DDMLBENCH_WITH_TORCH=OFF -DDMLBENCH_FUZZ=ON" \
  exec bash "$root/scripts/build.sh" "$@"
