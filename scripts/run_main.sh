#!/usr/bin/env bash
# The README's main-job command: set-up, build, fetch the bundled data, then `dmlbench report`, which runs every stage
# whose config changed (theory checks, class-collapse sims, MNIST even/odd and glyph-proxy training), executes the notebooks and
# writes reports/REPORT.md with its figures (one stage per experiments/reproductions/*.json). Arguments go to
# `dmlbench report`: --quick (minutes; writes out/quick-report, never the committed reports/), --profile full, --force,
# --stages. DMLBENCH_REPORT_DIR / DMLBENCH_RUN_DIR move the report and the stage outputs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DMLBENCH_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" dmlbench   # the command and its LibTorch module; not the tests
bash "$root/scripts/fetch_data.sh" "$build/apps/dmlbench"
# the glyph proxy of Omniglot ([LCC] Sec 5.2 runs on it; rendered from Debian's fonts-noto-core, seeded; a no-op when
# data/glyphs already holds this proxy)
"$build/apps/dmlbench" data make-glyphs --out "$root/data/glyphs" --threads 2
args=()
[ -n "${DMLBENCH_REPORT_DIR:-}" ] && args+=(--out "$DMLBENCH_REPORT_DIR")
[ -n "${DMLBENCH_RUN_DIR:-}" ] && args+=(--work "$DMLBENCH_RUN_DIR/report")
exec "$build/apps/dmlbench" report "${args[@]}" "$@"
