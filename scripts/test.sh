#!/usr/bin/env bash
# Everything CI checks, stopping at the first failure: native tests (the core, the
# CLI, the worker's sessions, the page's reducer), clippy (native and wasm32), the
# core's no_std builds, the release site, and the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# cargo install puts binaries in $CARGO_HOME/bin (default ~/.cargo/bin).
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$HOME/.cargo/bin:$PATH"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "setup"
bash scripts/setup.sh --browser

step "rustfmt"
cargo fmt --all --check

step "cargo test (native)"
# The web crates' native parts (reducer, layout, worker sessions) run here too;
# their browser-only parts compile for wasm32 only.
cargo test --workspace

step "clippy (native)"
cargo clippy --workspace --all-targets -- -D warnings

step "clippy (wasm32: page and worker)"
cargo clippy --target wasm32-unknown-unknown -p pgolens-web -p pgolens-worker -- -D warnings

step "no_std builds of the core"
cargo build -p pgolens --no-default-features --target x86_64-unknown-none
cargo build -p pgolens --no-default-features --target wasm32-unknown-unknown

step "site build"
bash scripts/build.sh

step "browser tests"
node --test tests/
