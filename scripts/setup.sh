#!/usr/bin/env bash
# Installs what building and testing the page needs, skipping whatever is already
# there: the wasm32 and x86_64-unknown-none targets, wasm-bindgen's CLI at the exact
# version the crates pin, the npm devDependencies (playwright-core, binaryen's
# wasm-opt) and, with --browser, Debian's chromium for the browser tests.
# Nothing is downloaded from outside the package registries.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130
# cargo install puts binaries in $CARGO_HOME/bin (default ~/.cargo/bin).
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$HOME/.cargo/bin:$PATH"

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

if ! command -v cargo >/dev/null; then
  echo "setup: cargo not found; install Rust (rustup) first" >&2
  exit 1
fi

if command -v rustup >/dev/null; then
  installed=$(rustup target list --installed)
  missing=()
  for target in wasm32-unknown-unknown x86_64-unknown-none; do
    grep -qx "$target" <<<"$installed" || missing+=("$target")
  done
  if ((${#missing[@]})); then
    say "rustup target add ${missing[*]}"
    rustup target add "${missing[@]}"
  fi
fi

if [[ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]]; then
  # Without --locked: its lock file wants a crate version the registry may lack.
  say "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if [[ ! -x node_modules/.bin/wasm-opt || ! -d node_modules/playwright-core \
      || package.json -nt node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  if [[ -f package-lock.json ]]; then
    say "npm ci"
    npm ci --no-audit --no-fund
  else
    say "npm install"
    npm install --no-audit --no-fund
  fi
fi

if [[ "${1:-}" == "--browser" && ! -x /usr/bin/chromium ]]; then
  if ! command -v apt-get >/dev/null; then
    echo "setup: /usr/bin/chromium is missing and there is no apt-get to install it" >&2
    exit 1
  fi
  sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  # Another apt (unattended upgrades, a bench installing its tools) may hold the
  # lock for a while: wait for it rather than fail.
  apt=(apt-get -o DPkg::Lock::Timeout=900)
  # Update the package lists only when chromium is not known yet.
  if ! apt-cache show chromium >/dev/null 2>&1; then
    say "apt-get update"
    "${sudo[@]}" "${apt[@]}" update -q
  fi
  say "apt-get install chromium"
  "${sudo[@]}" "${apt[@]}" install -y -q --no-install-recommends chromium
fi
