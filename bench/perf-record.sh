#!/usr/bin/env bash
# Records a large perf.data for the perf benchmarks (not committed; 500+ MB):
# `perf record -g` at 20 kHz of a long run of the corpus's C++ test program
# (quick sort, virtual calls, recursion; built with frame pointers), so call
# chains are real and deep.
#
#   bench/perf-record.sh [OUT] [ITERATIONS]
#
# OUT defaults to /tmp/bench/big.perf.data. 160000 iterations run for about
# 150 s on the 2-core VM and write about 550 MB. Installs Debian's linux-perf
# when perf is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-/tmp/bench/big.perf.data}"
iterations="${2:-160000}"
program="$here/tests/corpus/bolt-perf/cxxprog/cxxprog"

if ! command -v perf >/dev/null; then
  echo "installing linux-perf" >&2
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get install -y linux-perf >/dev/null
fi
mkdir -p "$(dirname "$out")"
perf record -q -e cpu-clock -F 20000 -g -o "$out" -- "$program" "$iterations" >/dev/null
ls -l "$out"
