#!/usr/bin/env bash
# Makes (or finds, already made) the inputs of bench/bolt-profiles.sh in DIR:
#
#   bench/bolt-gen.sh DIR
#
#   sqlite-bench        SQLite 3 (the amalgamation bundled in the libsqlite3-sys
#                       0.30.1 crate, fetched with cargo) with a small driver
#                       (bench/bolt-sqlite-main.c), clang-22 -O2 -Wl,--emit-relocs
#   sqlite-bench.inst   llvm-bolt -instrument of it
#   runs/N.fdata        what the instrumented binary wrote for run N, the SQL
#                       workload bench/bolt-sqlite-workload.py N (a different mix
#                       of SQLite features and sizes per run)
#   yaml/N.yaml         llvm-bolt sqlite-bench -data runs/N.fdata -w yaml/N.yaml
#   big.preagg          bench/bolt-preagg.py of the runs (traces per run from
#                       the measured edge counts; this VM cannot record LBR)
#
# Runs are added until the fdata files total MIN_MB (default 100), the YAML files
# MIN_MB and big.preagg MIN_MB. Each step is skipped when its output is there.
set -euo pipefail
dir=${1:?usage: bench/bolt-gen.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
min=$(( ${MIN_MB:-100} * 1048576 ))
bin=/usr/lib/llvm-22/bin
mkdir -p "$dir/runs" "$dir/yaml" "$dir/sql"
cd "$dir"

need=()
[ -x $bin/llvm-bolt ] && [ -x $bin/merge-fdata ] && [ -x $bin/perf2bolt ] || need+=(bolt-22)
command -v clang-22 > /dev/null || need+=(clang-22)
command -v llvm-objdump-22 > /dev/null || need+=(llvm-22)
command -v readelf > /dev/null || need+=(binutils)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y "${need[@]}" > /dev/null 2>&1 || { apt-get update > /dev/null && apt-get install -y "${need[@]}" > /dev/null; }
fi

if [ ! -x sqlite-bench ]; then
  mkdir -p fetch/src
  cat > fetch/Cargo.toml <<'TOML'
[package]
name = "bolt-bench-sources"
version = "0.0.0"
edition = "2021"
[dependencies]
libsqlite3-sys = { version = "=0.30.1", default-features = false, features = ["bundled"] }
[workspace]
TOML
  echo 'fn main() {}' > fetch/src/main.rs
  (cd fetch && cargo fetch -q)
  src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/libsqlite3-sys-0.30.1/sqlite3 | head -1)
  echo "building sqlite-bench from $src/sqlite3.c" >&2
  clang-22 -O2 -fno-omit-frame-pointer -Wl,--emit-relocs -DSQLITE_THREADSAFE=0 \
    -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_MATH_FUNCTIONS \
    -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ENABLE_STAT4 -I"$src" \
    "$here/bolt-sqlite-main.c" "$src/sqlite3.c" -lm -o sqlite-bench.tmp
  mv sqlite-bench.tmp sqlite-bench
fi
if [ ! -x sqlite-bench.inst ]; then
  $bin/llvm-bolt sqlite-bench -instrument -o sqlite-bench.inst.tmp \
    --instrumentation-file="$PWD/runs/current.fdata" > instrument.log 2>&1
  mv sqlite-bench.inst.tmp sqlite-bench.inst
fi

total() { local s=0 f; for f in "$@"; do [ -e "$f" ] && s=$(( s + $(stat -c %s "$f") )); done; echo $s; }
# One run: its SQL, the instrumented binary on it (in a scratch folder: it
# writes its profile to runs/current.fdata, and journal files next to a db).
run() {
  local n=$1
  [ -s "runs/$n.fdata" ] && return
  python3 "$here/bolt-sqlite-workload.py" "$n" > "sql/$n.sql"
  rm -f runs/current.fdata
  if (( n % 4 == 0 )); then
    rm -f "sql/$n.db"*; ./sqlite-bench.inst -f "sql/$n.db" "sql/$n.sql" > /dev/null; rm -f "sql/$n.db"*
  else
    ./sqlite-bench.inst "sql/$n.sql" > /dev/null
  fi
  mv runs/current.fdata "runs/$n.fdata"
}
n=0
while :; do
  n=$((n + 1)); run $n
  [ "$(total $(seq -f 'runs/%g.fdata' 1 $n))" -ge "$min" ] && break
done
nf=$n
echo "fdata: $nf runs, $(( $(total $(seq -f 'runs/%g.fdata' 1 $n)) / 1048576 )) MB" >&2

# YAML: llvm-bolt writes each run's profile as YAML (-w); as many runs as it
# takes to reach MIN_MB.
n=0
while :; do
  n=$((n + 1)); run $n
  if [ ! -s "yaml/$n.yaml" ]; then
    $bin/llvm-bolt sqlite-bench -data "runs/$n.fdata" -w "yaml/$n.yaml.tmp" -o yaml/bolted.tmp > yaml/log 2>&1
    rm -f yaml/bolted.tmp; mv "yaml/$n.yaml.tmp" "yaml/$n.yaml"
  fi
  [ "$(total $(seq -f 'yaml/%g.yaml' 1 $n))" -ge "$min" ] && break
done
echo "$n" > yaml/count
echo "YAML: $n runs, $(( $(total $(seq -f 'yaml/%g.yaml' 1 $n)) / 1048576 )) MB" >&2

# Pre-aggregated: the traces of as many runs as it takes to reach MIN_MB.
if [ ! -s big.preagg ]; then
  n=0
  : > big.preagg.tmp
  while [ "$(stat -c %s big.preagg.tmp)" -lt "$min" ]; do
    n=$((n + 1)); run $n
    [ -s "runs/$n.preagg" ] || python3 "$here/bolt-preagg.py" sqlite-bench "runs/$n.fdata" | sed 1d > "runs/$n.preagg"
    cat "runs/$n.preagg" >> big.preagg.tmp
  done
  { echo 'E cycles:u'; cat big.preagg.tmp; } > big.preagg
  rm big.preagg.tmp
  echo "$n" > preagg.count
fi
echo "pre-aggregated: $(cat preagg.count) runs, $(( $(stat -c %s big.preagg) / 1048576 )) MB" >&2
echo "$nf" > runs/count
