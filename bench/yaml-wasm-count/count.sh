#!/bin/bash
# The instructions the worker's BOLT YAML decoder runs in wasm on FILE, counted by
# cachegrind with V8 compiling everything with TurboFan up front on one thread
# (--no-liftoff --single-threaded), which makes the count repeat to about 0.3%:
# times on a shared VM vary by 30-50% from run to run. Node's own start is
# counted first and taken off.
#   bench/yaml-wasm-count/count.sh FILE.yaml [streamed|whole]
# Needs valgrind and the wasm32 target (rustup target add wasm32-unknown-unknown).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
file=$1
mode=${2:-streamed}
target=${CARGO_TARGET_DIR:-$here/target}
(cd "$here" && CARGO_TARGET_DIR=$target cargo build --quiet --release --target wasm32-unknown-unknown)
wasm=$target/wasm32-unknown-unknown/release/yaml_wasm_count.wasm
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    node --single-threaded --no-liftoff "$here/run.mjs" "$wasm" "$file" "$1" 2>&1 |
    awk '/I *refs/ { gsub(",", "", $NF); print $NF }'
}
base=$(count none)
total=$(count "$mode")
echo "$mode: $((total - base)) instructions ($total with Node's start, $base without decoding)"
