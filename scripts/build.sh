#!/usr/bin/env bash
# Builds the static site into dist/: the app and the worker for wasm32, through
# wasm-bindgen and wasm-opt -Oz, with the page shell and its boot script, the
# styles, the worker's JS, the demo profile (copied from tests/corpus/), the
# self-contained page (pgolens.html: all of them in one file, by web/pack.js, which
# the page also serves for its Download HTML) and the service worker that keeps all
# of them for offline use. Every URL between them is relative: dist/ works from any
# path of any static host.
# Run scripts/setup.sh first (npm run build does).
set -euo pipefail
cd "$(dirname "$0")/.."
# cargo install puts binaries in $CARGO_HOME/bin (default ~/.cargo/bin).
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$HOME/.cargo/bin:$PATH"

# PGOLENS_DIST: another output folder (parallel builds of one checkout).
DIST=${PGOLENS_DIST:-dist}
# PGOLENS_WASM_NAMES=1 keeps the functions' names in the wasm (the worker's 11% larger), so
# that a profiler names them (tests/bench/worker-profile.mjs).
KEEP_NAMES=()
if [[ -n "${PGOLENS_WASM_NAMES:-}" ]]; then KEEP_NAMES=(-g); fi
PROFILE=web
TARGET=wasm32-unknown-unknown
# The demo shown before any file is opened: a small, real instrumented profile.
DEMO_SRC=tests/corpus/llvm/irpgo-progA/irpgo-progA.profraw
DEMO=demo/$(basename "$DEMO_SRC")
if [[ ! -f "$DEMO_SRC" ]]; then
  echo "build: the demo profile $DEMO_SRC is missing (the corpus lives in tests/corpus/)" >&2
  exit 1
fi

cargo build --profile "$PROFILE" --target "$TARGET" -p pgolens-web -p pgolens-worker

rm -rf "$DIST"
mkdir -p "$DIST/pkg" "$DIST/worker" "$DIST/demo"
# Where cargo put them: a CARGO_TARGET_DIR set by the user is honoured.
OUT=${CARGO_TARGET_DIR:-target}/$TARGET/$PROFILE
wasm-bindgen --target web --no-typescript --out-dir "$DIST/pkg" "$OUT/pgolens_web.wasm"
wasm-bindgen --target web --no-typescript --out-dir "$DIST/worker" "$OUT/pgolens_worker.wasm"

WASM_OPT=node_modules/.bin/wasm-opt
for wasm in "$DIST/pkg/pgolens_web_bg.wasm" "$DIST/worker/pgolens_worker_bg.wasm"; do
  # wasm-bindgen's output uses bulk memory, reference types and friends.
  # A function with one caller is inlined only when small: by default wasm-opt
  # inlines every one, which folded all the worker's request handlers into one
  # 190 KB function. V8 compiles a hot function again with TurboFan, that one
  # on the first large request: 0.43 s and 47 MB of compiler memory on a
  # background thread, the tab's peak (tests/wasm-functions.test.mjs).
  "$WASM_OPT" -Oz --one-caller-inline-max-function-size=300 "${KEEP_NAMES[@]}" --enable-bulk-memory --enable-reference-types --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-multivalue "$wasm" -o "$wasm.opt"
  mv "$wasm.opt" "$wasm"
done

sed "s|{{demo}}|$DEMO|" index.html >"$DIST/index.html"
cp web/style.css "$DIST/style.css"
cp web/boot.js "$DIST/boot.js"
cp web/worker/worker.js "$DIST/worker/worker.js"
cp web/pack.js "$DIST/pack.js"
cp "$DEMO_SRC" "$DIST/$DEMO"
# The whole site in one HTML file, for file:// and offline use (and the template of
# `pgolens share`).
node scripts/pack-page.mjs "$DIST" "$DEMO"

# The service worker precaches every file above under a cache named by their hash.
# The page is cached as its folder's URL ./ (what a visit asks for; some hosts
# redirect index.html to it).
ASSETS=$(cd "$DIST" && find . -type f | LC_ALL=C sort)
VERSION=$(cd "$DIST" && sha256sum $ASSETS | sha256sum | cut -c1-16)
ASSET_LIST=$(sed -e 's|^\./index\.html$|./|' -e 's|.*|"&"|' <<<"$ASSETS" | paste -sd, | sed 's/,/, /g')
sed -e "s|{{version}}|$VERSION|" -e "s|{{assets}}|[$ASSET_LIST]|" web/sw.js >"$DIST/sw.js"

echo
echo "sizes (raw, gzip -9):"
for wasm in "$DIST/pkg/pgolens_web_bg.wasm" "$DIST/worker/pgolens_worker_bg.wasm"; do
  printf '  %-40s %8d bytes  %8d bytes gzip\n' "${wasm#"$DIST"/}" "$(stat -c %s "$wasm")" "$(gzip -9c "$wasm" | wc -c)"
done
printf '  %-40s %8d bytes  %8d bytes gzip\n' pgolens.html "$(stat -c %s "$DIST/pgolens.html")" "$(gzip -9c "$DIST/pgolens.html" | wc -c)"
echo "offline cache: version $VERSION, $(wc -l <<<"$ASSETS") files"
