#!/bin/sh
# Regenerates the folded-stack references of crate/tests/perf_folded.rs:
# `inferno-collapse-perf` (inferno 0.12.8, default options) over perf 6.1's
# default-field `perf script` text of each corpus recording with call chains
# (and of the two-event recordings, for inferno's event filter).
#
#   sh make.sh [PATH-TO-inferno-collapse-perf]
#
# - dwarf and pipe recordings: the corpus's own `.perf.data.script.txt` (perf's
#   text on the recording machine).
# - fp, hifreq and multi recordings: `perf script --symfs` run here, on a symfs
#   made of the corpus sysroot and the programs at their recorded paths. Their
#   `.script.txt` names kernel frames from the kallsyms of another boot than the
#   one the corpus keeps, so they are regenerated with the sysroot's kallsyms
#   (`--kallsyms`), which is what `pgolens export --symfs` reads.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/../../corpus/bolt-perf
collapse=${1:-inferno-collapse-perf}
symfs=$(mktemp -d)
trap 'rm -rf "$symfs"' EXIT
cp -r "$corpus/sysroot/." "$symfs/"
for p in cprog cxxprog; do
    mkdir -p "$symfs/tmp/corpusB/work/$p"
    cp "$corpus/$p/$p" "$symfs/tmp/corpusB/work/$p/"
done
for p in cprog cxxprog; do
    for k in dwarf pipe; do
        "$collapse" "$corpus/$p/$p.$k.perf.data.script.txt" > "$here/$p.$k.folded"
    done
    for k in fp hifreq multi; do
        # HOME: no ~/.debug build-id cache in the way.
        HOME="$symfs" perf script -f -i "$corpus/$p/$p.$k.perf.data" --symfs "$symfs" \
            --kallsyms "$symfs/proc/kallsyms" 2>/dev/null | "$collapse" > "$here/$p.$k.folded"
    done
done
