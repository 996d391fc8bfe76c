#!/bin/sh
# perf report of every corpus recording that has a `.report.txt` (the
# `--no-children --sort dso,sym` ones; the brstack reports are branch reports),
# run as perf runs when it has none of the binaries: an empty --symfs, no
# kallsyms, and an empty HOME (no build-id cache). perf then prints one row per
# sampled address: `[.] 0x<address in the DSO>`, `[k] 0x<kernel address>`.
# The `(Tip: ...)` line perf picks at random is left out.
# Made with perf 6.1 (Debian); run from the repository root.
set -eu
out=tests/data/perf-report-nosym
empty=$(mktemp -d)
for report in tests/corpus/bolt-perf/*/*.perf.data.report.txt; do
    data=${report%.report.txt}
    case $data in *brstack*) continue ;; esac
    HOME=$empty perf report -f -i "$data" --stdio --no-children --sort dso,sym -g none \
        --symfs "$empty" --kallsyms /dev/null 2>/dev/null \
        | grep -v '^# (Tip:' > "$out/$(basename "$data").report-nosym.txt"
done
rmdir "$empty"
