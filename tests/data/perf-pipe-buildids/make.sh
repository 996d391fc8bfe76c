#!/bin/sh
# A pipe-mode recording whose build ids are records in its stream: `perf inject -b`
# writes a HEADER_BUILD_ID record for each DSO before the first sample in it (a
# plain pipe recording has none: see the corpus's cprog.pipe.perf.data.buildids.txt).
# A stream reader knows them only after its first records. The reference is perf's
# own `perf buildid-list`. Made with perf 6.1 (Debian); run from the repository root.
set -eu
out=tests/data/perf-pipe-buildids
perf record -q -g -o - -- sh -c 'gzip -c README.md > /dev/null' | perf inject -b \
    > "$out/gzip.pipe-injected.perf.data"
perf buildid-list -i "$out/gzip.pipe-injected.perf.data" > "$out/gzip.pipe-injected.perf.data.buildids.txt"
