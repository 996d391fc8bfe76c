#!/usr/bin/env bash
# The long fuzz campaign: builds every cargo-fuzz target of fuzz/libfuzzer/ (one per
# function of the `pgolens-fuzz` crate, see fuzz/README.md) and runs each for RUNS
# executions, seeded from the repository's corpus, then prints per target the
# executions, exec/s, libFuzzer's coverage (`cov:` edges, `ft:` features), the size
# of the corpus it grew and its findings (crash, timeout, OOM inputs, saved under
# OUT/artifacts/TARGET/). The CI smoke run of the same functions is
# `cargo test -p pgolens-fuzz` (fuzz/tests/smoke.rs).
#
#   scripts/fuzz.sh [TARGET...]          all targets when none is named
#   scripts/fuzz.sh --totals             the executions of every run so far, per target
#
# Each run appends a line per target to OUT/ledger.tsv (date, commit, sanitizer,
# target, executions, seconds, cov, ft, corpus, findings); with OUT kept between
# runs the campaign is cumulative: each run starts from the corpus the earlier ones
# grew, and --totals adds up their executions.
#
# Environment:
#   RUNS=10000000   executions per target (libFuzzer -runs)
#   MAX_TIME=0      seconds per target (libFuzzer -max_total_time; 0: no limit)
#   OUT=/tmp/pgolens-fuzz   grown corpora, seed links, artifacts, logs (outside the repo)
#   FUZZ_TARGET_DIR=target/fuzz   nightly + sanitizer builds, apart from the
#                                        workspace's own target directory
#   SANITIZER=none   cargo-fuzz --sanitizer (none, address, ...). The code is safe
#                    Rust, so AddressSanitizer finds little a panic would not,
#                    at half the speed; without it the targets' own allocator
#                    (pgolens_fuzz::alloc::Counting) aborts past 512 MiB live.
# libFuzzer limits: inputs up to 1 MiB (the targets ignore longer ones), 30 s per
# input, 2 GiB RSS, and under ASan 512 MiB in one allocation (an input of at most
# 1 MiB asking for more is a finding).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-10000000}
MAX_TIME=${MAX_TIME:-0}
OUT=${OUT:-/tmp/pgolens-fuzz}
SANITIZER=${SANITIZER:-none}
export CARGO_TARGET_DIR=${FUZZ_TARGET_DIR:-$root/target/fuzz}
triple=x86_64-unknown-linux-gnu

cd "$root"
ledger="$OUT/ledger.tsv"
if [ "${1:-}" = --totals ]; then
  [ -f "$ledger" ] || { echo "no runs yet in $ledger"; exit 0; }
  # Columns: date commit sanitizer target executions seconds cov ft corpus findings.
  printf '%-20s %5s %12s %9s %7s %14s %8s\n' target runs executions hours cov corpus findings
  awk -F'\t' '{ runs[$4]++; ex[$4] += $5; s[$4] += $6; cov[$4] = $7; corp[$4] = $9; f[$4] += $10 }
    END { for (t in ex) printf "%-20s %5d %12d %9.2f %7s %14s %8d\n", t, runs[t], ex[t], s[t] / 3600, cov[t], corp[t], f[t] }' \
    "$ledger" | sort
  exit 0
fi
# What the campaign needs, installed once: a nightly toolchain (libFuzzer's
# instrumentation) and cargo-fuzz, pinned.
CARGO_FUZZ_VERSION=0.13.2
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "== rustup toolchain install nightly"
  rustup toolchain install nightly --profile minimal
fi
if [ "$(cargo +nightly fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
  echo "== cargo install cargo-fuzz $CARGO_FUZZ_VERSION"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --force
fi
mapfile -t all < <(cargo +nightly fuzz list --fuzz-dir fuzz/libfuzzer)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

echo "== building the targets (sanitizer: $SANITIZER)"
# All of them in one build: they share every crate but their own few lines.
nice -n 19 cargo +nightly fuzz build --fuzz-dir fuzz/libfuzzer --target-dir "$CARGO_TARGET_DIR" \
  --sanitizer "$SANITIZER"

echo "== seed links under $OUT/seeds"
mkdir -p "$OUT/seeds"
nice -n 19 cargo run -q -p pgolens-fuzz --bin pgolens-fuzz-seeds -- "$OUT/seeds" "${targets[@]}"

printf '%-15s %12s %9s %7s %7s %13s %8s\n' target executions exec/s cov ft corpus findings
status=0
for t in "${targets[@]}"; do
  corpus="$OUT/corpus/$t" artifacts="$OUT/artifacts/$t" log="$OUT/logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  # The grown corpus first: libFuzzer adds new inputs to the first directory.
  started=$(date +%s)
  nice -n 19 "$CARGO_TARGET_DIR/$triple/release/$t" "$corpus" "$OUT/seeds/$t" \
    -runs="$RUNS" -max_total_time="$MAX_TIME" -max_len=1048576 -timeout=30 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" >"$log" 2>&1 || status=1
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$last")
  # This run's findings only: the folder keeps earlier runs' too.
  findings=$(find "$artifacts" -type f -newermt "@$started" | wc -l)
  printf '%-15s %12s %9s %7s %7s %13s %8s\n' "$t" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$findings"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$(git rev-parse --short HEAD)" \
    "$SANITIZER" "$t" "${execs:-0}" "$(($(date +%s) - started))" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$findings" >>"$ledger"
done
echo "logs: $OUT/logs/; findings: $OUT/artifacts/TARGET/ (make each a file of fuzz/regressions/TARGET/)"
exit $status
