#!/usr/bin/env bash
# Refreshes tests/corpus/ (the repository's copy of the test corpus) from the
# published corpus beside the repository, ../shared/corpus/ (or the folder given as
# the first argument): copies new and changed files, removes files the source no
# longer has, and prints each change. Running it twice changes nothing the second
# time. Plain bash, cp and cmp, so that it needs no rsync.
set -euo pipefail
cd "$(dirname "$0")/.."

SRC=${1:-../shared/corpus}
DEST=tests/corpus

if [[ ! -d "$SRC" ]]; then
  echo "sync-corpus: source corpus $SRC not found (expected the published corpus beside the repository, or give its path as the first argument)" >&2
  exit 1
fi
if [[ ! -f "$SRC/README.md" ]]; then
  echo "sync-corpus: $SRC has no README.md: is it the corpus?" >&2
  exit 1
fi
SRC=$(cd "$SRC" && pwd)
mkdir -p "$DEST"

# This note is the repository's own, not the corpus's: sync never removes it.
KEEP=SYNC.md

added=0 updated=0 removed=0

# Copies one file; the source is read-only, and the copy must stay writable for the
# next sync. Only the executable bit is kept (the only mode git records).
copy() {
  local from=$1 to=$2
  mkdir -p "$(dirname "$to")"
  rm -f "$to"
  cp "$from" "$to"
  chmod u+w,go-w "$to"
}

is_exec() { if [[ -x "$1" ]]; then echo x; else echo -; fi; }

while IFS= read -r -d '' rel; do
  rel=${rel#./}
  from=$SRC/$rel to=$DEST/$rel
  if [[ -L "$from" || ! -f "$from" ]]; then
    echo "sync-corpus: $from is not a regular file" >&2
    exit 1
  fi
  if [[ ! -e "$to" ]]; then
    copy "$from" "$to"
    echo "added    $rel"
    added=$((added + 1))
  elif ! cmp -s "$from" "$to" || [[ $(is_exec "$from") != $(is_exec "$to") ]]; then
    copy "$from" "$to"
    echo "updated  $rel"
    updated=$((updated + 1))
  fi
done < <(cd "$SRC" && find . \( -type f -o -type l \) -print0 | sort -z)

while IFS= read -r -d '' rel; do
  rel=${rel#./}
  [[ "$rel" == "$KEEP" ]] && continue
  if [[ ! -e "$SRC/$rel" ]]; then
    rm -f "$DEST/$rel"
    echo "removed  $rel"
    removed=$((removed + 1))
  fi
done < <(cd "$DEST" && find . \( -type f -o -type l \) -print0 | sort -z)
find "$DEST" -mindepth 1 -type d -empty -delete

if ((added + updated + removed == 0)); then
  echo "sync-corpus: $DEST is up to date with $SRC"
else
  echo "sync-corpus: $added added, $updated updated, $removed removed (from $SRC)"
fi
