#!/usr/bin/env bash
# Records the high-frequency perf.data of the perf benchmarks (not committed;
# about 280 MB): `perf record -g -F 20000 -e cpu-clock` of gzip compressing 300 MB
# of random data ten times, then xz compressing 60 MB of it. Per-sample costs
# dominate here: 4.1M samples, over a million distinct call chains (the sampled
# ips vary far more than in a program's hot loops).
#
#   bench/perf-record-hifreq.sh [OUT]
#
# OUT defaults to /tmp/bench/hifreq.perf.data. Installs Debian's linux-perf when
# perf is missing.
set -euo pipefail
out="${1:-/tmp/bench/hifreq.perf.data}"
dir="$(dirname "$out")"
if ! command -v perf >/dev/null; then
  echo "installing linux-perf" >&2
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get install -y linux-perf >/dev/null
fi
mkdir -p "$dir"
random="$dir/random.bin"
[[ -f "$random" ]] || head -c 300M /dev/urandom >"$random"
workload="for i in 1 2 3 4 5 6 7 8 9 10; do gzip -1 -c '$random' >/dev/null; done; head -c 60M '$random' | xz -0 -T1 -c >/dev/null"
perf record -q -g -F 20000 -e cpu-clock -o "$out" -- sh -c "$workload"
ls -l "$out"
