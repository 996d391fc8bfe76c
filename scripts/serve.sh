#!/usr/bin/env bash
# Serves dist/ on http://127.0.0.1:8080 (PORT to change it).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT:-8080}
echo "serving dist/ on http://127.0.0.1:$PORT"
exec python3 -m http.server --bind 127.0.0.1 "$PORT" -d dist
