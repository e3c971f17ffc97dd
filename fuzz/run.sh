#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 600), seeded from ../shared/data.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); works on the stable toolchain through
# RUSTC_BOOTSTRAP=1. Crashes land in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
./fuzz/seed.sh
# The code is safe Rust: what we look for is panics, hangs and blown-up memory, so no sanitizer
# (ASan slows the whole-pipeline target to about one run a second).
for target in q3_parser hl_parser cod_parser et_parser build_pipeline; do
  max_len=65536
  [ "$target" = build_pipeline ] && max_len=16384
  RUSTC_BOOTSTRAP=1 cargo fuzz run -O --sanitizer none "$target" "fuzz/corpus/$target" -- \
    -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
done
