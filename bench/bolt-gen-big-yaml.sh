#!/usr/bin/env bash
# Makes (or finds, already made) one BOLT YAML profile of at least MIN_MB
# (default 100) written by llvm-bolt, for the page benchmark
# (tests/bench/bolt-yaml-functions.mjs, run by bench/bolt-profiles.sh). One
# SQLite run's YAML is about 4 MB, so the program is COPIES (default 32) copies
# of SQLite in one binary:
#
#   bench/bolt-gen-big-yaml.sh DIR
#
#   multi/sqlite3.o        the amalgamation (as bench/bolt-gen.sh builds it),
#                          compiled once: clang-22 -O2 -fno-omit-frame-pointer -c
#   multi/sN.o             copy N: objcopy --redefine-syms giving every symbol the
#                          object defines (global and local) the prefix sN_
#   multi/sqlite-multi     a driver (multi/main.c, written here) running SQL script
#                          N on copy N, each in a fresh in-memory database, linked
#                          with all the copies, clang-22 -O2 -Wl,--emit-relocs
#   multi/sqlite-multi.inst  llvm-bolt -instrument of it
#   multi/run.fdata        what the instrumented binary wrote for one run on the
#                          scripts bench/bolt-sqlite-workload.py 1..COPIES
#   big.yaml               llvm-bolt multi/sqlite-multi -data multi/run.fdata -w big.yaml
#
# Each step is skipped when its output is there. Prints the YAML's size and the
# number of functions it holds.
set -euo pipefail
dir=${1:?usage: bench/bolt-gen-big-yaml.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
copies=${COPIES:-32}
min=$(( ${MIN_MB:-100} * 1048576 ))
bin=/usr/lib/llvm-22/bin
mkdir -p "$dir/multi/sql"
cd "$dir"

if [ ! -s big.yaml ]; then
  if [ ! -s multi/sqlite3.o ]; then
    src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/libsqlite3-sys-0.30.1/sqlite3 2> /dev/null | head -1 || true)
    if [ -z "$src" ]; then
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
    fi
    echo "compiling $src/sqlite3.c" >&2
    clang-22 -O2 -fno-omit-frame-pointer -DSQLITE_THREADSAFE=0 \
      -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_MATH_FUNCTIONS \
      -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ENABLE_STAT4 -c "$src/sqlite3.c" -o multi/sqlite3.o.tmp
    mv multi/sqlite3.o.tmp multi/sqlite3.o
  fi

  if [ ! -x multi/sqlite-multi ]; then
    # Every defined symbol, renamed per copy (the copies' libc references stay).
    nm --defined-only multi/sqlite3.o | awk 'NF == 3 {print $3}' | sort -u > multi/defined
    {
      echo '/* Runs SQL script N on SQLite copy N (symbols prefixed sN_), each in a'
      echo '   fresh in-memory database; written by bench/bolt-gen-big-yaml.sh. */'
      echo '#include <stdio.h>'
      echo '#include <stdlib.h>'
      echo 'typedef struct sqlite3 sqlite3;'
      echo 'typedef int (*callback)(void *, int, char **, char **);'
      echo 'struct api {'
      echo '  int (*open)(const char *, sqlite3 **);'
      echo '  int (*exec)(sqlite3 *, const char *, callback, void *, char **);'
      echo '  int (*close)(sqlite3 *);'
      echo '};'
      for n in $(seq "$copies"); do
        echo "int s${n}_sqlite3_open(const char *, sqlite3 **);"
        echo "int s${n}_sqlite3_exec(sqlite3 *, const char *, callback, void *, char **);"
        echo "int s${n}_sqlite3_close(sqlite3 *);"
      done
      echo 'static const struct api copies[] = {'
      for n in $(seq "$copies"); do echo "  {s${n}_sqlite3_open, s${n}_sqlite3_exec, s${n}_sqlite3_close},"; done
      echo '};'
      cat <<'C'
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc(n + 1);
  if (fread(s, 1, n, f) != (size_t)n) { perror(path); exit(1); }
  s[n] = 0;
  fclose(f);
  return s;
}

static int rows(void *acc, int n, char **v, char **c) {
  (void)c;
  unsigned long *h = acc;
  for (int i = 0; i < n; i++)
    for (const char *p = v[i] ? v[i] : ""; *p; p++) *h = *h * 31 + (unsigned char)*p;
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s SQL...\n", argv[0]); return 2; }
  unsigned long h = 0;
  int n = (int)(sizeof copies / sizeof copies[0]);
  for (int k = 0; k < n; k++) {
    const struct api *a = &copies[k];
    sqlite3 *db;
    if (a->open(":memory:", &db)) { fprintf(stderr, "open failed\n"); return 1; }
    char *sql = slurp(argv[1 + k % (argc - 1)]), *err = 0;
    if (a->exec(db, sql, rows, &h, &err)) { fprintf(stderr, "copy %d: %s\n", k + 1, err); return 1; }
    free(sql);
    a->close(db);
  }
  printf("%lx\n", h);
  return 0;
}
C
    } > multi/main.c
    objs=()
    for n in $(seq "$copies"); do
      [ -s "multi/s$n.o" ] || {
        awk -v p="s${n}_" '{print $1, p $1}' multi/defined > multi/map
        objcopy --redefine-syms=multi/map multi/sqlite3.o "multi/s$n.o"
      }
      objs+=("multi/s$n.o")
    done
    echo "linking $copies copies of SQLite" >&2
    clang-22 -O2 -fno-omit-frame-pointer -Wl,--emit-relocs multi/main.c "${objs[@]}" -lm -o multi/sqlite-multi.tmp
    mv multi/sqlite-multi.tmp multi/sqlite-multi
    rm -f multi/s*.o multi/map
  fi

  if [ ! -x multi/sqlite-multi.inst ]; then
    $bin/llvm-bolt multi/sqlite-multi -instrument -o multi/sqlite-multi.inst.tmp \
      --instrumentation-file="$PWD/multi/current.fdata" > multi/instrument.log 2>&1
    mv multi/sqlite-multi.inst.tmp multi/sqlite-multi.inst
  fi

  if [ ! -s multi/run.fdata ]; then
    sqls=()
    for n in $(seq "$copies"); do
      [ -s "multi/sql/$n.sql" ] || python3 "$here/bolt-sqlite-workload.py" "$n" > "multi/sql/$n.sql"
      sqls+=("multi/sql/$n.sql")
    done
    rm -f multi/current.fdata
    echo "running the instrumented copies" >&2
    ./multi/sqlite-multi.inst "${sqls[@]}" > /dev/null
    mv multi/current.fdata multi/run.fdata
  fi

  echo "writing big.yaml" >&2
  $bin/llvm-bolt multi/sqlite-multi -data multi/run.fdata -w big.yaml.tmp -o /dev/null > multi/yaml.log 2>&1
  mv big.yaml.tmp big.yaml
fi

size=$(stat -c %s big.yaml)
echo "big.yaml: $(( size / 1048576 )) MB, $(grep -c '^  - name:' big.yaml) functions" >&2
[ "$size" -ge "$min" ] || echo "big.yaml is under ${MIN_MB:-100} MB: remove it and multi/ and raise COPIES" >&2
